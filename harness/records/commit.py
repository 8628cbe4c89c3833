"""Writing record sets so that a reader never sees half of one, with the file system alone.
No torch import.

A recording writes the build's whole new folder beside it (``.<build>.tmp``: the other
sets' files copied, its own written and fsynced), renames it ``.<build>.new`` once
complete, then swaps it in: the old folder to ``.<build>.old``, the new one to
``<build>``. No journal: a complete ``.new`` folder is all a roll-forward needs. A run
killed before that leaves the folder as it was (the next writer discards the ``.tmp``);
one killed between the renames leaves a complete ``.new``, which the next writer moves
into place and the build refuses, naming it (:func:`~harness.records.store.check_settled`).
Writers hold ``results/.record.lock`` (``filelock``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import HarnessError
from harness.core.rows import TrialRow
from harness.core.types import Environment, Observation
from harness.records.store import (
    SetPaths,
    format_rows,
    read_environments,
    read_observations,
    read_rows,
)

__all__ = ["LOCK_FILE", "CommitReport", "commit_set", "locked", "replace_folder",
           "write_atomically"]

LOCK_FILE = ".record.lock"


def _fsync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows cannot open a directory; its rename is durable enough
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def locked(results: Path, *, shown: Path) -> Iterator[None]:
    """Hold the records' lock (re-entrant within a process). When another command holds
    it, say so naming it, then wait (a second ``record`` measures nothing meanwhile)."""
    from filelock import FileLock, Timeout  # installed with torch; only writers need it

    results.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(results / LOCK_FILE), is_singleton=True)
    held = (f"{shown / LOCK_FILE}: another `record` or `publish` command is writing these "
            "records (it holds this lock)")
    try:
        lock.acquire(blocking=False)
    except Timeout:
        print(f"{held}; waiting for it to finish", file=sys.stderr, flush=True)
        lock.acquire()
    try:
        _settle(results)
        yield
    finally:
        lock.release()


def _settle(results: Path) -> None:
    """Roll forward what an interrupted writer left: a complete ``.new`` folder goes into
    place, a ``.tmp`` one (incomplete) and an ``.old`` one (replaced) are removed."""
    for new in sorted(results.glob(".*.new")):
        folder = results / new.name[1:-len(".new")]
        old = results / f".{folder.name}.old"
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.rename(folder, old)
        os.rename(new, folder)
    for leftover in [*results.glob(".*.tmp"), *results.glob(".*.old")]:
        if leftover.is_dir():
            shutil.rmtree(leftover)
    _fsync(results)


def replace_folder(folder: Path, texts: dict[str, str | None], *, shown: Path) -> None:
    """``folder`` with each file of ``texts`` written (``None``: removed), as one rename
    (call inside :func:`locked`). A full disk or a read-only folder leaves ``folder`` as
    it was and names the file that could not be written."""
    staging = folder.with_name(f".{folder.name}.tmp")
    writing = shown
    try:
        staging.mkdir()  # locked() settled any earlier writer's leftovers
        for kept in sorted(folder.iterdir()) if folder.exists() else []:
            writing = shown / kept.name
            if kept.name not in texts:  # the build's other sets, as they are
                shutil.copy2(kept, staging / kept.name)
        for name, text in texts.items():
            writing = shown / name
            if text is not None:
                write_atomically(staging / name, text.encode("utf-8"), durable=True)
        writing = shown
        _fsync(staging)
        os.rename(staging, staging.with_suffix(".new"))
        _settle(folder.parent)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise HarnessError(
            f"{writing}: could not write the record ({exc.strerror or exc}); the previous "
            f"record is unchanged. Free disk space or make {shown.parent} writable, then run "
            "`python -m harness record` again") from None


def write_atomically(path: Path, data: bytes, *, durable: bool = False) -> None:
    """A reader sees the old ``path`` or the whole new one (caches, built pages, lists)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(name, 0o644)  # mkstemp makes it private; these files are for everyone
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, kw_only=True)
class CommitReport:
    recorded: int = 0
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)  # ``snippet name``s no expectation wants


def commit_set(
    paths: SetPaths, *, environment: Environment, rows: list[TrialRow] | None = None,
    observations: list[Observation] | None = None, expected: set[tuple[str, str]] | None = None,
    control: bool = False,
) -> CommitReport:
    """Merge a run's ``rows`` and ``observations`` into the set, in one atomic step.

    Rows replace rows of the same (trial, threads); an observation equal to the stored one
    keeps the stored date and run; with ``expected`` (every (snippet, name) an expectation
    asks for), stored observations outside it are removed; environments nothing names any
    more are dropped. With ``control``, ``rows`` go to ``<device>.control.csv``.
    """
    target, beside = ((paths.control_rows, paths.rows) if control
                      else (paths.rows, paths.control_rows))
    with locked(paths.folder.parent, shown=paths.folder.parent):
        old_rows = read_rows(target, target)
        # The other rows file is not rewritten, but its runs must stay described.
        beside_runs = {r.run_id for r in read_rows(beside, beside)}
        by_key = {(o.snippet, o.name): o for _, o in (
            read_observations(paths.observations, paths.observations)
            if paths.observations.exists() else [])}
        envs = (read_environments(paths.environments, paths.environments)
                if paths.environments.exists() else {})
        if not environment.trials and rows:
            # Every trial a run measures gives a row (a failure too): these are its trials.
            environment = dataclasses.replace(
                environment, trials=tuple(dict.fromkeys(r.trial for r in rows)))
        envs[environment.run_id] = environment
        incoming = {r.key: r for r in rows or []}
        merged_rows = [r for r in old_rows if r.key not in incoming] + list(incoming.values())
        unchanged = 0
        for new in observations or []:
            old = by_key.get((new.snippet, new.name))
            if old is not None and old == dataclasses.replace(new, date=old.date,
                                                              run_id=old.run_id):
                unchanged += 1
            else:
                by_key[(new.snippet, new.name)] = new
        removed = sorted(f"{s} {n}" for s, n in by_key if expected is not None
                         and (s, n) not in expected)
        kept = [o for k, o in by_key.items() if expected is None or k in expected]
        used = {r.run_id for r in merged_rows} | {o.run_id for o in kept} | beside_runs
        # The set's signature no longer covers it: the workflow signs it again, or a
        # person vouches for it (`publish add`).
        texts: dict[str, str | None] = {f"{paths.key}.sha256": None,
                                        f"{paths.key}.sha256.sig": None}
        if merged_rows:
            texts[target.name] = format_rows(merged_rows)
        if kept or paths.observations.exists():
            texts[paths.observations.name] = "".join(
                json.dumps(dataclasses.asdict(o), ensure_ascii=False, sort_keys=True) + "\n"
                for o in kept)
        texts[paths.environments.name] = json.dumps(
            {"runs": {k: dataclasses.asdict(v) for k, v in sorted(envs.items()) if k in used}},
            indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        replace_folder(paths.folder, texts, shown=paths.folder)
    recorded = len(observations or []) - unchanged + len(incoming)
    return CommitReport(recorded=recorded, unchanged=unchanged, removed=removed)
