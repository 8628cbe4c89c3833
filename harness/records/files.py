"""Writing a record folder so that a reader never sees half of it, with the file system alone.

A recording writes the build's whole new folder beside it (``.<build>.tmp``: the other
sets' files copied, its own written and fsynced), renames it ``.<build>.new`` once it is
complete, then swaps it into place: the old folder to ``.<build>.old``, the new one to
``<build>``. No journal: a complete ``.new`` folder is all a roll-forward needs. A run
killed while measuring or writing leaves the folder as it was (the next writer discards
the ``.tmp``); one killed between the two renames leaves a complete ``.new``, which the
next writer moves into place and which the build refuses, naming it, instead of
publishing a mix. Writers hold ``results/.record.lock`` (``filelock``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = ["LOCK_FILE", "check_settled", "locked", "replace_folder", "write_atomically"]

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
def locked(results: Path, *, shown: Path, wait: bool = True) -> Iterator[None]:
    """Hold the records' lock (again, within the process that holds it). When another
    command holds it, say so naming it, then wait for it (a second ``record`` measures
    nothing meanwhile) or, without ``wait``, refuse."""
    from filelock import FileLock, Timeout  # installed with torch; only writers need it

    results.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(results / LOCK_FILE), is_singleton=True)
    held = (f"{shown / LOCK_FILE}: another `record` or `publish` command is writing these "
            "records (it holds this lock)")
    try:
        lock.acquire(blocking=False)
    except Timeout:
        if not wait:
            raise HarnessError(f"{held}; wait for it to finish, then run again") from None
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


def check_settled(results: Path, shown: Path) -> None:
    """A reader's guard: an interrupted write must not publish half of a folder."""
    for new in sorted(results.glob(".*.new")):
        raise HarnessError(
            f"{shown / new.name}: a recording run was interrupted while replacing "
            f"{shown / new.name[1:-len('.new')]}; run `python -m harness record` again (it "
            "moves this complete folder into place first) or delete it to keep the old one")


def replace_folder(folder: Path, texts: dict[str, str | None], *, shown: Path) -> None:
    """``folder`` with each file of ``texts`` written (``None``: removed), as one rename
    (call inside :func:`locked`). A full disk or a read-only folder leaves ``folder`` as
    it was and names the file that could not be written."""
    staging = folder.with_name(f".{folder.name}.tmp")
    writing = shown
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        for kept in sorted(folder.iterdir()) if folder.exists() else []:
            writing = shown / kept.name
            if kept.name not in texts:  # the build's other sets, as they are
                shutil.copy2(kept, staging / kept.name)
        for name, text in texts.items():
            writing = shown / name
            if text is None:
                continue
            with open(staging / name, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
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
