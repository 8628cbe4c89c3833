"""A content-keyed cache of the search entries of the articles, made by Material's indexer.

Material's search plugin parses every built page's HTML again, in pure Python, to cut
it into sections; on this site that is the largest part of a build in which nothing
changed. The entries one page gets are a function of what the indexer reads: the
page's HTML, URL, title, metadata and table of contents, the index's configuration,
and the indexer's code (Material's version and the bytes of its module, so an edited
install misses too). When jieba is installed the indexer also segments Chinese text
with jieba's dictionaries, which no key sees: then nothing is cached.

Nothing of Material's is replaced. Before Material's ``on_page_context``,
:meth:`SearchCache.index_page` makes the page's entries with an indexer of its own
(Material's ``SearchIndex`` class, with the build's index configuration) or reads
them from the cache, appends them to the build's index, where Material would have,
and tells the plugin to mark the page ``search: exclude`` until Material's handler has
run, so that Material does not index it twice. Entries are JSON files
(:mod:`harness.site.entries`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from mkdocs.structure.pages import Page

from harness.site.entries import Entries

__all__ = ["SearchCache", "search_fingerprint"]


def search_fingerprint(index: Any) -> str | None:
    """A digest of the indexer's code and configuration, and of this module, or None
    when its output depends on something no key sees (jieba's segmentation) or the
    index is not Material's."""
    module = sys.modules.get(type(index).__module__)
    if (module is None or module.__name__ != "material.plugins.search.plugin"
            or getattr(module, "jieba", None) is not None):
        return None
    try:
        version = metadata.version("mkdocs-material")
        source = Path(module.__file__ or "").read_bytes()
    except (metadata.PackageNotFoundError, OSError):
        return None
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(f"{sys.version}\nmaterial=={version}\n".encode())
    digest.update(hashlib.sha256(source).digest())
    digest.update(json.dumps(getattr(index, "config", {}), sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def _toc(items: Any) -> list[Any]:
    return [[i.id, i.url, i.title, i.level, _toc(i.children)] for i in items or []]


class SearchCache:
    """One language build's search entries, added to Material's ``index`` of that build."""

    def __init__(self, folder: Path, index: Any, fingerprint: str) -> None:
        self.entries = Entries(folder)
        self.index = index
        self.fingerprint = fingerprint
        self.hits = self.misses = 0
        self._hidden: dict[str, object] = {}

    def key(self, page: Page) -> str:
        digest = hashlib.sha256(self.fingerprint.encode())
        digest.update(json.dumps([page.url, str(page.title), _toc(page.toc)],
                                 ensure_ascii=False).encode())
        digest.update(json.dumps(page.meta, sort_keys=True, default=repr,
                                 ensure_ascii=False).encode())
        digest.update(hashlib.sha256((page.content or "").encode("utf-8")).digest())
        return digest.hexdigest()

    def index_page(self, page: Page) -> None:
        """Add ``page``'s entries to the build's index, as Material's indexer makes them,
        and mark it ``search: exclude`` until :meth:`unhide` (after Material's handler).
        A page its author excluded is left alone."""
        search = page.meta.get("search") or {}
        if search.get("exclude"):
            return
        key = self.key(page)
        entry = self.entries.load(key)
        found = entry.get("entries") if entry is not None else None
        if isinstance(found, list):
            self.hits += 1
        else:
            self.misses += 1
            own = type(self.index)(**self.index.config)
            own.add_entry_from_context(page)
            found = own.entries
            self.entries.store(key, {"entries": found})
        self.index.entries.extend(found)
        self._hidden[page.file.src_uri] = page.meta.get("search")
        page.meta["search"] = {**search, "exclude": True}

    def unhide(self, page: Page) -> None:
        """Give ``page`` back the ``search`` metadata it had before :meth:`index_page`."""
        if page.file.src_uri in self._hidden:
            previous = self._hidden.pop(page.file.src_uri)
            if previous is None:
                del page.meta["search"]
            else:
                page.meta["search"] = previous
