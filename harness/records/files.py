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
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = [
    "JOURNAL_SUFFIX",
    "check_no_journal",
    "journal_moves",
    "locked",
    "replace_together",
    "write_atomically",
]

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


#: What a record writer replaces, by the key it locks: a record set's files, or the
#: published list (key ``published``). A journal naming anything else was not written here.
_RECORD_SUFFIXES = (".csv", ".control.csv", ".examples.jsonl", ".env.json")


def _targets(key: str) -> set[str]:
    return {"published.toml"} if key == "published" else {key + s for s in _RECORD_SUFFIXES}


def journal_moves(folder: Path, key: str, shown: Path) -> list[tuple[Path, Path]]:
    """The (staged, final) moves ``folder``'s journal for ``key`` names, validated as data:
    every path directly inside ``folder``, every final name one the writer of ``key``
    writes, every staged name the writer's own ``.<final>.<random>.tmp``. Anything else is
    refused naming the journal, and nothing is moved."""
    journal = _journal(folder, key)
    where = shown / journal.name
    try:
        moves = json.loads(journal.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        moves = None
    pairs = isinstance(moves, list) and all(
        isinstance(m, list) and len(m) == 2 and all(isinstance(p, str) for p in m) for m in moves)
    if not pairs:
        raise HarnessError(f"{where}:1: not a commit journal (expected a JSON list of "
                           "[staged, final] file names); it was not written by `record`")
    inside, found = folder.resolve(), []
    for staged_text, final_text in moves:
        staged, final = folder / Path(staged_text).name, folder / Path(final_text).name
        for text, path in ((staged_text, staged), (final_text, final)):
            given = Path(text) if Path(text).is_absolute() else folder / text
            if given.resolve().parent != inside or path.is_symlink():
                raise HarnessError(
                    f"{where}:1: names {text!r}, outside the record folder {shown}; a journal "
                    "only moves files within it (this one was not written by `record`: "
                    "delete it)")
        pattern = rf"\.{re.escape(final.name)}\.[A-Za-z0-9_]+\.tmp"
        if final.name not in _targets(key) or not re.fullmatch(pattern, staged.name):
            raise HarnessError(
                f"{where}:1: names {staged.name!r} → {final.name!r}, which `record` never "
                f"writes (it writes {', '.join(sorted(_targets(key)))} from .<name>.<random>.tmp);"
                " delete the journal")
        found.append((staged, final))
    return found


def _roll_forward(folder: Path, key: str) -> None:
    journal = _journal(folder, key)
    if not journal.exists():
        return
    for staged, final in journal_moves(folder, key, folder):
        if staged.exists():
            os.replace(staged, final)
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
    staged: list[tuple[Path, Path]] = []
    journal = _journal(folder, key)
    try:
        for path, text in texts.items():
            staged.append((_stage(path, text.encode("utf-8")), path))
        # Names only: the journal is data about this folder, never a path elsewhere.
        pending = _stage(journal, json.dumps([[t.name, f.name] for t, f in staged]).encode())
        os.replace(pending, journal)
    except BaseException:  # no journal yet: the previous set stands, leave no staged file
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise
    _fsync_dir(folder)
    _roll_forward(folder, key)


def check_no_journal(folder: Path, shown: Path) -> None:
    """A reader's guard: an interrupted write must not publish a mix of two runs."""
    for journal in sorted(folder.glob(f".*{JOURNAL_SUFFIX}")):
        key = journal.name[1:-len(JOURNAL_SUFFIX)]
        journal_moves(folder, key, shown)  # a journal that is not one is named as such
        command = "publish add <torch build> <device>" if key == "published" else "record"
        raise HarnessError(
            f"{shown / journal.name}:1: a recording run was interrupted while replacing this "
            "record set. To keep the previous set, delete the journal and its .tmp files; to "
            f"complete it, run `python -m harness {command}` again, which checks that the "
            "journal only names this set's own files before moving them"
        )
