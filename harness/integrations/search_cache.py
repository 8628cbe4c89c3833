"""A content-addressed cache for Material's search indexing of a page.

Material's search plugin parses every built page's HTML again, in pure Python, to
cut it into sections (``SearchIndex.add_entry_from_context``); on this site that is
about a fifth of a build, and a build where nothing changed parses the same HTML
again. The entries one page adds are a function of:

* the page's HTML (``page.content``), its URL, title, metadata and table of contents
  (the only page attributes the indexer reads);
* the search plugin: Material's version and the bytes of its indexer
  (``material/plugins/search/plugin.py``, so an edited install misses too) and the
  index's configuration (languages, separator, pipeline, fields);
* :data:`FORMAT`, bumped whenever an entry's layout or meaning changes.

When jieba is installed the indexer also segments Chinese text with jieba's
dictionaries, which no key sees: then nothing is cached. Entries are JSON files
under ``.cache/harness/search/``, written atomically; an unreadable one is a miss,
and the folder is safe to delete. :meth:`SearchCache.install` wraps one build's
``SearchIndex`` (the search plugin creates a new one in every ``on_config``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.integrations.cache_files import MAX_AGE_DAYS, prune_unused, read_entry, write_entry

__all__ = ["FORMAT", "SearchCache", "search_fingerprint"]

FORMAT = 1
"""Bump when an entry's layout or meaning changes: old entries then never match."""


def search_fingerprint(index: Any) -> str | None:
    """A digest of the indexer's code and configuration, or None when its output
    depends on something no key sees (jieba's segmentation)."""
    module = sys.modules.get(type(index).__module__)
    if module is None or getattr(module, "jieba", None) is not None:
        return None
    try:
        version = metadata.version("mkdocs-material")
        source = Path(module.__file__ or "").read_bytes()
    except (metadata.PackageNotFoundError, OSError):
        return None
    digest = hashlib.sha256(f"format={FORMAT}\n{sys.version}\nmaterial=={version}\n".encode())
    digest.update(hashlib.sha256(source).digest())
    digest.update(json.dumps(getattr(index, "config", {}), sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def _toc(items: Any) -> list[Any]:
    return [[getattr(i, "id", None), getattr(i, "url", None), getattr(i, "title", None),
             getattr(i, "level", None), _toc(getattr(i, "children", []))] for i in items or []]


class SearchCache:
    """Search entries per page under ``folder`` (only in memory when it is None)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = Path(folder) if folder else None
        self.hits = self.misses = 0

    def key(self, fingerprint: str, page: Any) -> str:
        digest = hashlib.sha256(fingerprint.encode())
        digest.update(json.dumps(
            [page.url, str(page.title), _toc(page.toc)], ensure_ascii=False).encode())
        digest.update(json.dumps(page.meta, sort_keys=True, default=repr,
                                 ensure_ascii=False).encode())
        digest.update(hashlib.sha256((page.content or "").encode("utf-8")).digest())
        return digest.hexdigest()

    def _load(self, key: str) -> list[dict[str, Any]] | None:
        if self.folder is None:
            return None
        entry = read_entry(self.folder / f"{key}.json", key)
        return None if entry is None else entry.get("entries")

    def _store(self, key: str, entries: list[dict[str, Any]]) -> None:
        if self.folder is None:
            return
        # An entry holding a value JSON cannot carry back unchanged is not cached.
        write_entry(self.folder / f"{key}.json", key, {"entries": entries})

    def install(self, index: Any, skip: Callable[[Any], bool] = lambda page: False) -> None:
        """Make ``index.add_entry_from_context`` read a page's entries from this cache.

        ``skip(page)`` says that the page's entries would be discarded anyway (the
        plugin drops the notebook copies when it splits the index per language):
        such a page is not indexed at all."""
        fingerprint = search_fingerprint(index)
        index_page = index.add_entry_from_context
        cache = self

        def add_entry_from_context(page: Any) -> None:
            if skip(page):
                return
            if fingerprint is None:
                index_page(page)
                return
            key = cache.key(fingerprint, page)
            found = cache._load(key)
            if isinstance(found, list):
                cache.hits += 1
                index.entries.extend(found)
                return
            cache.misses += 1
            before = len(index.entries)
            index_page(page)
            cache._store(key, index.entries[before:])

        index.add_entry_from_context = add_entry_from_context

    def prune(self, max_age_days: float = MAX_AGE_DAYS) -> int:
        """Remove entries no build has used for ``max_age_days``."""
        return prune_unused([self.folder], max_age_days=max_age_days)
