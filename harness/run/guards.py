"""What the page runner checks from outside a page process, after every snippet, where
no snippet can patch it: the checkout's files, the process's working directory and the
processes it left behind (read from /proc on Linux). Standard library only.

This is a guard against mistakes, not a security boundary: a snippet that means harm
can still do harm (CONTRIBUTING, «What the page runner guards»).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["Fingerprint", "changed_files", "command_of", "cwd_of", "descendants", "fingerprint",
           "kill_all"]

#: Folders a checkout holds that are not its sources: environments, caches, build and
#: test output. A snippet's write there is not a change of the checkout.
_NOT_SOURCES = frozenset({
    ".git", "__pycache__", "node_modules", "site", ".cache", "test-artifacts", "build",
    "dist", ".pytest_cache", ".mypy_cache", ".ruff_cache",
})

Fingerprint = dict[str, tuple[int, int, int]]
"""Relative path → (mtime ns, size, inode) of every file of the checkout's sources."""


def _skipped(name: str) -> bool:
    return name in _NOT_SOURCES or name.startswith(".venv") or name.endswith(".egg-info")


def fingerprint(root: Path) -> Fingerprint:
    """Every source file of ``root`` with what a write changes (about 2 ms here)."""
    found: Fingerprint = {}
    pending = [str(root)]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if not _skipped(entry.name):
                    pending.append(entry.path)
                continue
            try:
                stat = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[os.path.relpath(entry.path, root)] = (stat.st_mtime_ns, stat.st_size,
                                                         stat.st_ino)
    return found


def changed_files(before: Fingerprint, after: Fingerprint) -> list[str]:
    """``path (created|changed|deleted)`` for every difference, sorted."""
    created = [f"{p} (created)" for p in after.keys() - before.keys()]
    deleted = [f"{p} (deleted)" for p in before.keys() - after.keys()]
    changed = [f"{p} (changed)" for p in before.keys() & after.keys() if before[p] != after[p]]
    return sorted(created + deleted + changed)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux ``/proc/<pid>/task/*/children``); [] elsewhere."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as handle:
                    children = [int(c) for c in handle.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            pending += children
    return found


def command_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def cwd_of(pid: int) -> str | None:
    """The working directory of ``pid`` as the kernel knows it; None where unreadable."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None
