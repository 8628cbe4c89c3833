"""Writing record files so that a reader never sees half a record set.

A record set is three files (rows, observations, environments). They are
staged as fsynced temporary files beside their targets, a journal naming them
is written, then each is moved into place with ``os.replace`` and the journal is
removed. A run killed while measuring leaves every file byte-identical; one killed
inside the few replaces leaves a journal, which the next writer rolls forward and
which a reader refuses (naming it) instead of publishing a mix. Writers hold a
``filelock`` lock, which works on every platform torch supports.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = ["JOURNAL_SUFFIX", "check_no_journal", "locked", "replace_together", "write_atomically"]

JOURNAL_SUFFIX = ".commit.json"


def _journal(folder: Path, key: str) -> Path:
    return folder / f".{key}{JOURNAL_SUFFIX}"


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows cannot open a directory; its replace is durable enough
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def locked(folder: Path, key: str) -> Iterator[None]:
    """Hold the record set's lock (created on first use)."""
    from filelock import FileLock  # installed with torch; only writers need it

    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / f".{key}.lock")):
        _roll_forward(folder, key)
        yield


def _roll_forward(folder: Path, key: str) -> None:
    journal = _journal(folder, key)
    if not journal.exists():
        return
    for temporary, final in json.loads(journal.read_text(encoding="utf-8")):
        if Path(temporary).exists():
            os.replace(temporary, final)
    journal.unlink()
    _fsync_dir(folder)


def _stage(path: Path, data: bytes, *, durable: bool = True) -> Path:
    """``data`` in a temporary file beside ``path``, readable by all, fsynced if durable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(name, 0o644)  # mkstemp makes it private; these files are for everyone
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def write_atomically(path: Path, data: bytes, *, durable: bool = False) -> None:
    """The one atomic writer: a reader sees the old ``path`` or the whole new one.

    Caches and built pages pass ``durable=False`` (a lost write is only a miss);
    record sets go through :func:`replace_together`, which fsyncs and journals.
    """
    os.replace(_stage(path, data, durable=durable), path)


def replace_together(folder: Path, key: str, texts: dict[Path, str]) -> None:
    """Replace every file of ``texts`` as one step (call inside :func:`locked`)."""
    staged = [(_stage(path, text.encode("utf-8")), path) for path, text in texts.items()]
    journal = _journal(folder, key)
    pending = _stage(journal, json.dumps([[str(t), str(f)] for t, f in staged]).encode())
    os.replace(pending, journal)
    _fsync_dir(folder)
    _roll_forward(folder, key)


def check_no_journal(folder: Path, shown: Path) -> None:
    """A reader's guard: an interrupted write must not publish a mix of two runs."""
    for journal in sorted(folder.glob(f".*{JOURNAL_SUFFIX}")):
        raise HarnessError(
            f"{shown / journal.name}:1: a recording run was interrupted while replacing this "
            "record set; run `python -m harness record` again (it completes the replace), "
            "or delete the journal and its .tmp files to keep the previous set"
        )
