"""The record sets the site publishes: ``results/published.toml``. No torch import.

The build compares this list with what ``results/`` holds: a listed set that is
missing (a deleted folder, an empty ``results/``) or a set on disk that is not
listed fails ``mkdocs build --strict`` naming it, instead of the pages quietly
saying «sin medición». ``python -m harness publish add BUILD DEVICE`` adds a set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError, Location, parse_toml, read_text, relative
from harness.records.files import locked, replace_together
from harness.records.store import Records, version_key

__all__ = ["PUBLISHED_FILE", "Published", "add_set", "check_published", "read_published"]

PUBLISHED_FILE = "published.toml"
_HEADER = (
    "# Record sets the site publishes (torch build × device key). The docs build fails if a\n"
    "# listed set is missing from results/ or a set in results/ is not listed.\n"
    "# Add one with `python -m harness publish add <torch build> <device key>`.\n"
)


@dataclass(frozen=True, kw_only=True)
class Published:
    torch_build: str
    device: str
    location: Location


def read_published(results: Path, *, root: Path) -> list[Published]:
    path = results / PUBLISHED_FILE
    shown = relative(path, root)
    if not results.is_dir():
        raise HarnessError(
            f"{relative(results, root)}: the records folder is missing; the site publishes the "
            f"sets listed in {shown} (restore results/ from git, or record them)"
        )
    if not path.exists():
        raise HarnessError(f"{shown}:1: missing; it lists the record sets the site publishes")
    text = read_text(path, shown, limit=1024 * 1024)
    data = parse_toml(text, shown)
    headers = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[set]]"]
    if set(data) - {"set"}:
        raise HarnessError(f"{shown}:1: only [[set]] tables are allowed")
    found: list[Published] = []
    for index, raw in enumerate(data.get("set", [])):
        where = Location(path=shown, line=headers[index] if index < len(headers) else 1)
        texts = all(isinstance(v, str) for v in raw.values())
        if set(raw) != {"torch_build", "device"} or not texts:
            raise HarnessError(f'{where}: expected torch_build = "..." and device = "..." only')
        found.append(Published(torch_build=raw["torch_build"], device=raw["device"],
                               location=where))
    return found


def check_published(records: Records, results: Path, *, root: Path) -> list[str]:
    """Problems between the list and the records on disk (empty when they agree)."""
    listed = read_published(results, root=root)
    on_disk = {(r.torch_build, r.device_key) for r in records.items}
    wanted = {(p.torch_build, p.device) for p in listed}
    problems = [
        f"{p.location}: published set torch {p.torch_build} on {p.device!r} has no record in "
        f"{relative(results / p.torch_build, root)}/ (deleted? record it with `python -m harness "
        f"record --device {p.device.split('-', 1)[0]}`)"
        for p in listed if (p.torch_build, p.device) not in on_disk
    ]
    shown = relative(results / PUBLISHED_FILE, root)
    problems += [
        f"{relative(results / build, root)}/{key}.csv:1: record set torch {build} on {key!r} is "
        f"not listed in {shown}; publish it with `python -m harness publish add {build} {key}` "
        "or remove the folder"
        for build, key in sorted(on_disk - wanted)
    ]
    return problems


def add_set(results: Path, torch_build: str, device: str) -> bool:
    """Add a set to the list (creating it); False when it was already there."""
    path = results / PUBLISHED_FILE
    with locked(results, "published"):  # two record runs may add sets at once
        entries = set()
        if path.exists():
            entries = {(p.torch_build, p.device) for p in read_published(results, root=results)}
        if (torch_build, device) in entries:
            return False
        entries.add((torch_build, device))
        body = "".join(f'\n[[set]]\ntorch_build = "{b}"\ndevice = "{d}"\n'
                       for b, d in sorted(entries, key=lambda e: (version_key(e[0]), e)))
        replace_together(results, "published", {path: _HEADER + body})
    return True
