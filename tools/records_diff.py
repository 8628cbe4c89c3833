"""What a regeneration changed in results/ against the records committed at a git ref,
per record set (torch build × device), changed items first, as Markdown: the
description of a record pull request.

    python tools/records_diff.py --against origin/main --output body.md --exit-code

Not the drift between builds (``python -m harness drift``): this compares each set
with its own committed copy. An observed example changed when its kind, value or
dtype did, or when its expectation now holds where it failed (or the reverse). A
trial row changed when it starts or stops failing, or when its timing verdict
(:func:`harness.records.drift.trial_drift`, the committed set against the new one: run
summaries, the committed set's same-build control as the floor) reads "changed".
Dates, run ids and timings inside the noise are not changes. With ``--exit-code``
the status is 1 when something changed (as ``git diff --exit-code``), so a scheduled
run that changed nothing beyond the noise opens no pull request; 2 on bad input.
Standard library and harness only; no torch.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path

from harness.core.compare import compare
from harness.core.errors import HarnessError
from harness.core.rows import TrialRow
from harness.core.types import Expectation, Observation
from harness.records.drift import trial_drift
from harness.records.store import DeviceRecord, load_all
from harness.sources.project import Project

__all__ = ["Change", "committed_results", "diff_sets", "main", "markdown"]


@dataclass(frozen=True, kw_only=True)
class Change:
    """One item of one record set, before and after."""

    build: str
    device: str
    item: str
    """``example <snippet> <name>`` or ``trial <name> ×<threads>``."""
    change: str
    """new, removed, changed, now failing, now holds, unchanged, within noise…"""
    before: str = ""
    after: str = ""

    @property
    def changed(self) -> bool:
        return self.change not in ("unchanged", "within noise", "inconclusive")


def committed_results(root: Path, ref: str, into: Path) -> Path:
    """Extract ``results/`` as committed at ``ref`` under ``into``; the folder (maybe empty)."""
    listed = subprocess.run(["git", "-C", str(root), "ls-tree", "-d", ref, "results"],
                            capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise HarnessError(f"git ref {ref!r}: {listed.stderr.strip() or 'not found'}")
    results = into / "results"
    results.mkdir(parents=True, exist_ok=True)
    if not listed.stdout.strip():
        return results  # nothing committed yet: every set is new
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", ref,
                              "results"], capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")  # the data filter refuses links and absolute paths
    return results


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _observation(o: Observation) -> str:
    return _shown(o.value) + (f" ({o.dtype})" if o.dtype else "")


def _example(build: str, device: str, key: tuple[str, str], old: Observation | None,
             new: Observation | None, expectation: Expectation | None) -> Change:
    item = f"example {key[0]} {key[1]}"
    base = Change(build=build, device=device, item=item, change="unchanged",
                  before=_observation(old) if old else "", after=_observation(new) if new else "")
    if old is None or new is None:
        return replace(base, change="new" if old is None else "removed")
    if expectation is not None:
        held, holds = compare(expectation, old).holds, compare(expectation, new).holds
        if held != holds:
            return replace(base, change="now holds" if holds else "now failing")
    if (old.kind, old.value, old.dtype) != (new.kind, new.value, new.dtype):
        return replace(base, change="changed")
    return base


def _row_text(row: TrialRow) -> str:
    if row.error:
        return "error: " + _shown(row.error, 50)
    if not row.quality_pass:
        return f"quality fails ({row.quality_error})"
    return f"{row.latency:.4g} s" if row.latency is not None else "no latency"


def _trial(build: str, device: str, old: TrialRow | None, new: TrialRow | None,
           sets: tuple[DeviceRecord, DeviceRecord] | None) -> Change:
    row = new or old
    assert row is not None
    base = Change(build=build, device=device, item=f"trial {row.trial} ×{row.threads}",
                  change="unchanged", before=_row_text(old) if old else "",
                  after=_row_text(new) if new else "")
    if old is None or new is None:
        return replace(base, change="new" if old is None else "removed")
    if old.failed != new.failed:
        return replace(base, change="now failing" if new.failed else "now passes")
    if old.failed:
        return base if old.error == new.error else replace(base, change="changed")
    if old.samples_s == new.samples_s or sets is None:
        return base
    found = trial_drift(row.trial, device, list(sets))
    interval = found.interval
    ratio = f" ({interval.ratio:.3f}×, 95 % [{interval.low:.3f}, {interval.high:.3f}])" \
        if interval else ""
    change = {"changed": "changed", "no-measurable-difference": "within noise"}.get(
        found.verdict, "inconclusive")
    return replace(base, change=change, after=base.after + ratio)


def diff_sets(old: DeviceRecord | None, new: DeviceRecord | None,
              expectations: dict[tuple[str, str], Expectation]) -> list[Change]:
    """Every example and trial row of one set, old against new, changed items first."""
    some = new or old
    assert some is not None
    build, device = some.torch_build, some.device_key
    found: list[Change] = []
    old_obs = {(o.snippet, o.name): o for o in old.observations} if old else {}
    new_obs = {(o.snippet, o.name): o for o in new.observations} if new else {}
    for key in sorted(old_obs.keys() | new_obs.keys()):
        found.append(_example(build, device, key, old_obs.get(key), new_obs.get(key),
                              expectations.get(key)))
    old_rows = {r.key: r for r in old.rows} if old else {}
    new_rows = {r.key: r for r in new.rows} if new else {}
    # The committed set as the reference "build", the new one as the other.
    sets = (replace(old, torch_build=f"{build} (committed)"), new) if old and new else None
    for row_key in sorted(old_rows.keys() | new_rows.keys()):
        found.append(_trial(build, device, old_rows.get(row_key), new_rows.get(row_key), sets))
    return sorted(found, key=lambda c: not c.changed)  # stable: changed first, in order


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;") or "—"


def markdown(changes: dict[tuple[str, str], list[Change]], ref: str) -> str:
    """The pull request's description: per set, a table of what changed, then a count."""
    total = sum(c.changed for items in changes.values() for c in items)
    lines = [f"# Records regenerated: what changed against `{ref}`", "",
             f"{total} items changed beyond the noise in "
             f"{sum(any(c.changed for c in i) for i in changes.values())} of "
             f"{len(changes)} record sets.", ""]
    for (build, device), items in sorted(changes.items()):
        changed = [c for c in items if c.changed]
        lines += [f"## torch {build} · {device}", ""]
        if changed:
            lines += ["| item | change | before | after |", "|---|---|---|---|"]
            lines += [f"| {_cell(c.item)} | {c.change} | {_cell(c.before)} | {_cell(c.after)} |"
                      for c in changed]
            lines.append("")
        rest = len(items) - len(changed)
        noise = sum(c.change != "unchanged" for c in items if not c.changed)
        lines += [f"{len(changed)} changed; {rest} unchanged ({noise} of them timings "
                  "within the noise or inconclusive).", ""]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python tools/records_diff.py",
                                     description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--against", required=True, metavar="REF",
                        help="the git ref holding the committed records, e.g. origin/main")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout")
    parser.add_argument("--output", type=Path, help="write the Markdown here (default: stdout)")
    parser.add_argument("--exit-code", action="store_true",
                        help="exit 1 when some item changed beyond the noise")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = args.root.resolve()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            before = load_all(committed_results(root, args.against, Path(scratch)),
                              root=Path(scratch))
            after = load_all(root / "results", root=root)
        expectations = {(e.snippet, e.name): e for e in Project.load(root).python_expectations()}
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    old = {(r.torch_build, r.device_key): r for r in before.items}
    new = {(r.torch_build, r.device_key): r for r in after.items}
    changes = {key: diff_sets(old.get(key), new.get(key), expectations)
               for key in old.keys() | new.keys()}
    text = markdown(changes, args.against)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    count = sum(c.changed for items in changes.values() for c in items)
    print(f"{count} items changed against {args.against}", file=sys.stderr)
    return 1 if args.exit_code and count else 0


if __name__ == "__main__":
    sys.exit(main())
