"""A content-addressed cache for rendered ``<!-- harness:... -->`` markers.

Rendering a marker reads records, specs and snippets, and some markers compute a
good deal (the drift report compares every trial across builds). A marker's rendering is a
function of the files the build reads and of the marker itself, so it is keyed on:

* :func:`inputs_digest`: the bytes of every file under ``harness/`` (the code that
  renders, ``trials.toml``), ``results/``, ``snippets/`` and ``docs/`` (pages other
  than the marker's own may be read), the Python version and :data:`FORMAT`;
* the marker's kind, arguments, page and line, the page language and the snippets
  the page includes.

Any change to any of those files is a miss for every marker: never wrong, and a
warm build with nothing changed renders no marker. Stale messages are cached with
the Markdown, so a cached stale marker still warns (and fails ``--strict``). A
marker that raises is never cached. Entries are JSON files under
``.cache/harness/markers/``, written atomically; the folder is safe to delete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.integrations.cache_files import MAX_AGE_DAYS, prune_unused, read_entry, write_entry

__all__ = ["FORMAT", "MarkerCache", "inputs_digest"]

FORMAT = 1
"""Bump when an entry's layout or meaning changes."""

_SKIPPED = {"__pycache__", ".pytest_cache"}


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    found = []
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        found += [Path(base) / n for n in sorted(names)
                  if not n.startswith(".") and not n.endswith((".pyc", ".lock"))]
    return found


def inputs_digest(folders: list[Path]) -> str:
    """A digest of every file under ``folders`` (names and bytes) and of the interpreter."""
    digest = hashlib.sha256(f"format={FORMAT}\n{sys.version}\n".encode())
    for folder in folders:
        for path in _files(folder):
            digest.update(f"{path.relative_to(folder.parent).as_posix()}\n".encode())
            with contextlib.suppress(OSError):
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class MarkerCache:
    """Rendered markers under ``folder`` (or only in memory when ``folder`` is None)."""

    def __init__(self, folder: Path | None, digest: str) -> None:
        self.folder = Path(folder) if folder else None
        self.digest = digest
        self.memory: dict[str, tuple[str, list[str]]] = {}
        self.hits = self.misses = 0

    def key(self, marker: Any, lang: str, included: set[str]) -> str:
        return hashlib.sha256(json.dumps(
            [self.digest, lang, sorted(included), marker.kind, sorted(marker.args.items()),
             str(marker.location)], ensure_ascii=False).encode()).hexdigest()

    def rendered(self, key: str, render: Callable[[], tuple[str, list[str]]]
                 ) -> tuple[str, list[str]]:
        """(markdown, stale messages) for ``key``, from ``render`` on a miss."""
        if key in self.memory:
            self.hits += 1
            return self.memory[key]
        path = self.folder / f"{key}.json" if self.folder else None
        entry = read_entry(path, key) if path is not None else None
        if entry is not None:
            with contextlib.suppress(KeyError, TypeError):
                found = (str(entry["markdown"]), [str(m) for m in entry["stale"]])
                self.memory[key] = found
                self.hits += 1
                return found
        self.misses += 1
        markdown, stale = render()
        self.memory[key] = (markdown, list(stale))
        if path is not None:
            write_entry(path, key, {"markdown": markdown, "stale": list(stale)})
        return markdown, list(stale)

    def prune(self, max_age_days: float = MAX_AGE_DAYS) -> int:
        """Remove entries no build has used for ``max_age_days``."""
        return prune_unused([self.folder], max_age_days=max_age_days)
