"""Reading and writing records, atomically and under a lock. No torch import.

``results/<torch build>/<device>.csv``            measurement rows (:data:`CSV_HEADER`)
``results/<torch build>/<device>.examples.jsonl`` observed example outputs, one per line
``results/<torch build>/<device>.env.json``       the environment they were observed in

Writers merge into what is there under an exclusive ``flock`` and replace the
file with ``os.replace``, so two recording runs at once keep every row and a
reader never sees half a file. Readers validate and name file and line.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError, Location, relative, suggest
from harness.core.types import CSV_HEADER, DEVICE_TYPES, Environment, Observation, Row

__all__ = [
    "DeviceRecord",
    "Records",
    "device_key",
    "load_all",
    "merge_observations",
    "merge_rows",
    "read_environment",
    "read_observations",
    "read_rows",
    "record_paths",
    "version_key",
    "write_environment",
]

_SUFFIXES = {".csv": "rows", ".examples.jsonl": "observations", ".env.json": "environment"}
_OBSERVATION_FIELDS = {f.name for f in dataclasses.fields(Observation)}


def device_key(device_type: str, device_name: str = "") -> str:
    """File stem for a device: ``cpu`` or ``cuda-nvidia-h200``."""
    if device_type == "cpu" or not device_name:
        return device_type
    return f"{device_type}-{re.sub(r'[^a-z0-9]+', '-', device_name.lower()).strip('-')}"


def version_key(build: str) -> tuple[int, ...]:
    """Sort key for ``2.13.0+cpu``-like builds (numeric release, then text)."""
    release = re.match(r"[\d.]+", build)
    numbers = tuple(int(p) for p in release.group(0).strip(".").split(".")) if release else ()
    return numbers


def record_paths(results: Path, torch_build: str, key: str) -> dict[str, Path]:
    folder = results / torch_build
    return {kind: folder / f"{key}{suffix}" for suffix, kind in _SUFFIXES.items()}


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _replace(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    os.chmod(temporary, 0o644)  # mkstemp makes it private; a record is for everyone to read
    os.replace(temporary, path)


def read_rows(path: Path, *, root: Path | None = None) -> list[Row]:
    shown = relative(path, root) if root else path
    reader = csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    header = next(reader, None)
    if header is None:
        raise HarnessError(f"{shown}:1: empty record; expected the header {','.join(CSV_HEADER)}")
    missing = [c for c in CSV_HEADER if c not in header]
    unknown = [c for c in header if c not in CSV_HEADER]
    if missing or unknown:
        what = f"missing column {missing[0]!r}" if missing else f"unknown column {unknown[0]!r}"
        raise HarnessError(f"{shown}:1: {what}; expected the header {','.join(CSV_HEADER)}")
    rows: list[Row] = []
    for cells in reader:
        line = reader.line_num
        if not any(cells):
            continue
        if len(cells) != len(header):
            raise HarnessError(
                f"{shown}:{line}: {len(cells)} cells where the header has {len(header)}"
            )
        values = dict(zip(header, cells, strict=True))
        if not values["trial"]:
            raise HarnessError(f"{shown}:{line}: empty 'trial' cell; every row names its trial")
        rows.append(Row(values=values, location=Location(path=shown, line=line)))
    return rows


def _row_key(values: dict[str, str]) -> tuple[str, ...]:
    return (values["trial"], values["threads"])


def _merge(path: Path, read: Callable[[Path], list[Any]], key: Callable[[Any], Any],
           new: list[Any], dump: Callable[[list[Any]], str]) -> None:
    with _locked(path):
        old = read(path) if path.exists() else []
        incoming = {key(item): item for item in new}
        kept = [item for item in old if key(item) not in incoming]
        _replace(path, dump(kept + list(incoming.values())))


def merge_rows(path: Path, rows: list[dict[str, str]]) -> None:
    """Add ``rows`` to the record, replacing earlier rows of the same trial and threads."""

    def dump(items: list[dict[str, str]]) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_HEADER, lineterminator="\n")
        writer.writeheader()
        writer.writerows(items)
        return out.getvalue()

    def read(p: Path) -> list[dict[str, str]]:
        return [dict(r.values) for r in read_rows(p)]

    _merge(path, read, _row_key, [{c: str(r.get(c, "")) for c in CSV_HEADER} for r in rows], dump)


def read_observations(path: Path, *, root: Path | None = None) -> list[Observation]:
    return [observation for _, observation in _read_located(path, root)]


def _read_located(path: Path, root: Path | None) -> list[tuple[Location, Observation]]:
    shown = relative(path, root) if root else path
    found: list[tuple[Location, Observation]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise HarnessError(f"{shown}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise HarnessError(f"{shown}:{number}: expected a JSON object per line")
        unknown = set(data) - _OBSERVATION_FIELDS
        missing = {"snippet", "name", "kind", "value", "snippet_sha256"} - set(data)
        if unknown or missing:
            what = (f"unknown key {sorted(unknown)[0]!r}" if unknown
                    else f"missing key {sorted(missing)[0]!r}")
            raise HarnessError(
                f"{shown}:{number}: {what}; expected keys {', '.join(sorted(_OBSERVATION_FIELDS))}"
            )
        if data.get("shape") is not None:
            data["shape"] = tuple(data["shape"])
        found.append((Location(path=shown, line=number), Observation(**data)))
    return found


def merge_observations(path: Path, observations: list[Observation]) -> None:
    """Add ``observations``, replacing earlier ones of the same snippet and name."""

    def dump(items: list[Observation]) -> str:
        return "".join(
            json.dumps(dataclasses.asdict(o), ensure_ascii=False, sort_keys=True) + "\n"
            for o in items
        )

    _merge(path, read_observations, lambda o: (o.snippet, o.name), observations, dump)


def write_environment(path: Path, environment: Environment) -> None:
    with _locked(path):
        _replace(path, json.dumps(dataclasses.asdict(environment), indent=2, sort_keys=True) + "\n")


def read_environment(path: Path, *, root: Path | None = None) -> Environment:
    shown = relative(path, root) if root else path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise HarnessError(f"{shown}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    names = {f.name for f in dataclasses.fields(Environment)}
    try:
        data["cpu_flags"] = tuple(data.get("cpu_flags", ()))
        return Environment(**{k: v for k, v in data.items() if k in names})
    except TypeError as exc:
        raise HarnessError(f"{shown}:1: environment record is incomplete ({exc})") from None


@dataclass(frozen=True, kw_only=True)
class DeviceRecord:
    torch_build: str
    device_key: str
    environment: Environment | None = None
    rows: list[Row] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    observation_lines: dict[tuple[str, str], Location] = field(default_factory=dict)
    """Where each (snippet, name) observation sits in its record file."""

    @property
    def device_type(self) -> str:
        return self.device_key.split("-", 1)[0]


@dataclass(frozen=True, kw_only=True)
class Records:
    items: list[DeviceRecord]
    """Ordered by torch version, then device."""

    @property
    def builds(self) -> list[str]:
        return sorted({r.torch_build for r in self.items}, key=version_key)


def load_all(results: Path, *, root: Path | None = None) -> Records:
    """Every record under ``results``, validated; errors name the file and line."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(results.glob("*/*")) if results.is_dir() else []:
        if path.name.startswith("."):
            continue
        shown = relative(path, root) if root else path
        suffix = next((s for s in _SUFFIXES if path.name.endswith(s)), None)
        if suffix is None:
            raise HarnessError(
                f"{shown}:1: not a record file; expected <device>{', <device>'.join(_SUFFIXES)}"
            )
        key = path.name[: -len(suffix)]
        if key.split("-", 1)[0] not in DEVICE_TYPES:
            raise HarnessError(
                f"{shown}:1: unknown device {key!r}.{suggest(key, set(DEVICE_TYPES))}"
            )
        slot = found.setdefault((path.parent.name, key), {})
        kind = _SUFFIXES[suffix]
        if kind == "rows":
            slot[kind] = read_rows(path, root=root)
            for row in slot[kind]:
                if row["device"] != key:
                    raise HarnessError(
                        f"{row.location}: row for device {row['device']!r} in the record of {key!r}"
                    )
        elif kind == "observations":
            located = _read_located(path, root)
            slot[kind] = [observation for _, observation in located]
            slot["observation_lines"] = {(o.snippet, o.name): loc for loc, o in located}
        else:
            slot[kind] = read_environment(path, root=root)
    items = [
        DeviceRecord(torch_build=build, device_key=key, **parts)
        for (build, key), parts in sorted(
            found.items(), key=lambda item: (version_key(item[0][0]), item[0][0], item[0][1])
        )
    ]
    for item in items:
        if item.environment is None:
            raise HarnessError(
                f"results/{item.torch_build}/{item.device_key}.env.json:1: missing; every "
                "record needs the environment it was made in (re-run the record command)"
            )
    return Records(items=items)
