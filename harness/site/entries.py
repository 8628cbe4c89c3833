"""The entry files of the build's own caches (rendered pages, search entries): one JSON
file per key in a folder per code version and language, written atomically, and
evicted when a build did not use it, as mkdocs-jupyter's cache does. An unreadable or
foreign entry is a miss, never an error."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from harness.records.files import write_atomically

__all__ = ["Entries"]


class Entries:
    """The entries under ``folder``; ``used`` holds the keys this build read or wrote."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()

    def load(self, key: str) -> dict[str, Any] | None:
        entry = None
        with contextlib.suppress(OSError, ValueError):
            entry = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        self.used.add(key)
        return entry

    def store(self, key: str, entry: dict[str, Any]) -> None:
        """Write ``entry`` for ``key``; a cache that cannot write just misses next time."""
        with contextlib.suppress(OSError, TypeError, ValueError):
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.folder / f"{key}.json",
                             json.dumps({**entry, "key": key}, ensure_ascii=False).encode())
            self.used.add(key)

    def evict(self) -> None:
        """Remove the entries this build did not use."""
        if self.folder.is_dir():
            for path in self.folder.glob("*.json"):
                if path.stem not in self.used:
                    path.unlink(missing_ok=True)
