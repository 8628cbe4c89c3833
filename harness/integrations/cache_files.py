"""The entry files every build cache of ``.cache/harness`` shares: one JSON file per
key, written atomically, touched when used, and pruned once no build has used it for
:data:`MAX_AGE_DAYS`. An unreadable or foreign entry is a miss, never an error."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.records.files import write_atomically

__all__ = ["MAX_AGE_DAYS", "prune_unused", "read_entry", "write_entry"]

MAX_AGE_DAYS = 30


def read_entry(path: Path, key: str) -> dict[str, Any] | None:
    """The entry stored at ``path`` for ``key`` (touched: used now), or None."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # used now: keeps it from pruning
    return entry


def write_entry(path: Path, key: str, entry: dict[str, Any]) -> None:
    """Store ``entry`` for ``key`` at ``path``; a cache that cannot write just misses."""
    with contextlib.suppress(OSError, TypeError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({**entry, "key": key},
                                          ensure_ascii=False).encode("utf-8"))


def prune_unused(folders: Iterable[Path | None], patterns: Iterable[str] = ("*.json",),
                 max_age_days: float = MAX_AGE_DAYS) -> int:
    """Remove the entries matching ``patterns`` (and stray temporary files) that no
    build has used for ``max_age_days``; returns how many."""
    limit, removed = time.time() - max_age_days * 86400, 0
    for folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for pattern in (*patterns, ".*.tmp"):
            for path in folder.glob(pattern):
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < limit:
                        path.unlink()
                        removed += 1
    return removed
