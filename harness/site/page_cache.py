"""A content-keyed cache of the articles' rendering: their markers, then MkDocs' Markdown.

Rendering the articles (their markers, then their Markdown) is most of a build in which
nothing changed, and grows with the articles and the record rows. A page's rendering
is keyed on what the harness knows it reads:

* the page's Markdown as MkDocs hands it to the last ``on_page_markdown`` (languages
  applied, markers not yet rendered), its source, destination and URL, its language;
* what its markers and includes read (:func:`inputs_digest`): the harness's own code and
  trials, the records, the snippets with their expectations and claims (the harness
  fails the build on an include it does not understand, and ``pymdownx.snippets``
  resolves includes under ``snippets/`` only);
* the site's file list (what its links resolve to), the Markdown extensions with their
  options, the ``use_directory_urls`` and ``validation`` settings;
* the code: this module's source and the versions of MkDocs, Markdown,
  pymdown-extensions, Material and Pygments, and Python's.

Nothing is patched. On a hit the plugin's ``on_page_markdown`` hands MkDocs an empty
page to render, and :meth:`PageCache.after_render` (the first ``on_page_content``)
gives back the stored HTML with what a rendering sets in MkDocs' public page
attributes: the title (a ``weak_property``, writable), the table of contents, the
anchors the page has and the links to anchors it makes, so MkDocs' own anchor
validation runs as before. The warnings the markers gave (stale records, typed
figures) are stored and given again; a rendering whose Markdown conversion logged a
warning (the ones ``--strict`` counts) is never stored, so every build logs it again.
Entries are JSON files (:mod:`harness.site.entries`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

from harness.site.entries import Entries

__all__ = ["PACKAGES", "PageCache", "code_digest", "compiler_digest", "inputs_digest"]

#: Distributions whose code renders a page's Markdown.
PACKAGES = ("mkdocs", "markdown", "pymdown-extensions", "mkdocs-material", "pygments")
_SKIPPED = {"__pycache__", ".pytest_cache"}


def code_digest() -> str:
    """This module's source and the renderers' versions, as a folder name."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(sys.version.encode())
    for name in PACKAGES:
        try:
            digest.update(f"\n{name}=={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"\n{name} absent".encode())
    return digest.hexdigest()[:16]


def inputs_digest(folders: list[Path]) -> str:
    """A digest of every file under ``folders`` (names and bytes), caches left out."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not _SKIPPED.intersection(path.parts):
                digest.update(f"{path.relative_to(folder).as_posix()}\n".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def compiler_digest() -> str:
    """Jinja's compiler source, version and Python's, as the compiled templates' folder
    name: Jinja's own bytecode cache keys on each template's source, not on the code
    that compiled it."""
    import jinja2.compiler

    digest = hashlib.sha256(Path(jinja2.compiler.__file__).read_bytes())
    digest.update(f"{sys.version}\njinja2=={metadata.version('jinja2')}".encode())
    return digest.hexdigest()[:16]


def _stable(value: object) -> object:
    """A JSON-able stand-in for a configuration value: a path as its text, a function by
    its name (their ``repr`` holds an address that changes from process to process)."""
    if isinstance(value, os.PathLike):  # `!relative` paths are resolved when read
        return os.fspath(value)
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
    return repr(value)


def _tokens(items: Any) -> list[dict[str, Any]]:
    return [{"name": i.title, "id": i.id, "level": i.level, "children": _tokens(i.children)}
            for i in items]


class _Warnings(logging.Handler):
    """Counts MkDocs' warnings while one page renders (attached only meanwhile)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


@dataclass
class _Pending:
    """A page between ``lookup`` and ``after_render``."""

    key: str
    entry: dict[str, Any] | None
    markers: list[str] = field(default_factory=list)
    """The warnings its markers gave (stale records, typed figures), to give again."""
    warnings: _Warnings = field(default_factory=_Warnings)


class PageCache:
    """Rendered pages under ``folder`` (a folder per code version and language);
    ``inputs`` is :func:`inputs_digest` of what the markers read, with their settings."""

    def __init__(self, folder: Path, config: MkDocsConfig, inputs: str) -> None:
        self.entries = Entries(folder)
        self.hits = self.misses = 0
        self._pending: dict[str, _Pending] = {}
        self._files: tuple[int, str] | None = None
        settings = {
            "inputs": inputs,
            "extensions": config.markdown_extensions, "options": config.mdx_configs,
            "use_directory_urls": config.use_directory_urls, "validation": config.validation,
            "language": config.theme.get("language"),
            # MkDocs records the links to anchors only above DEBUG.
            "anchors": logging.getLogger("mkdocs").getEffectiveLevel() > logging.DEBUG,
        }
        self._settings = json.dumps(settings, sort_keys=True, default=_stable)

    def _files_digest(self, files: Files) -> str:
        if self._files is None or self._files[0] != id(files):
            listed = sorted((f.src_uri, f.dest_uri, f.url, str(f.inclusion)) for f in files)
            self._files = (id(files), hashlib.sha256(json.dumps(listed).encode()).hexdigest())
        return self._files[1]

    def lookup(self, markdown: str, page: Page, files: Files) -> dict[str, Any] | None:
        """The stored rendering of ``page`` (whose Markdown is ``markdown``), or None:
        then the plugin renders its markers and calls :meth:`rendering`."""
        digest = hashlib.sha256(self._settings.encode())
        digest.update(self._files_digest(files).encode())
        digest.update(json.dumps([page.file.src_uri, page.file.dest_uri, page.url]).encode())
        digest.update(markdown.encode("utf-8"))
        key = digest.hexdigest()
        entry = self.entries.load(key)
        self._pending[page.file.src_uri] = _Pending(key=key, entry=entry)
        return entry

    def rendering(self, page: Page, markers: list[str]) -> None:
        """A miss: MkDocs renders the page now; count the warnings it logs meanwhile."""
        pending = self._pending.get(page.file.src_uri)
        if pending is not None and pending.entry is None:
            pending.markers = markers
            logging.getLogger("mkdocs").addHandler(pending.warnings)

    def after_render(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """The page's HTML: the stored one on a hit, and a miss's stored for later."""
        pending = self._pending.pop(page.file.src_uri, None)
        if pending is None:
            return html
        entry = pending.entry
        if entry is None:
            logging.getLogger("mkdocs").removeHandler(pending.warnings)
            self.misses += 1
            if pending.warnings.count == 0:
                self._store(pending.key, html, page, pending.markers)
            return html
        self.hits += 1
        if page.title != entry["title"]:
            page.title = entry["title"]  # the first heading's, which MkDocs took in render
        page.toc = get_toc(entry["toc"])
        page.present_anchor_ids = set(entry["anchors"])
        if entry["anchors_recorded"]:
            linked = {uri: files.get_file_from_path(uri) for uri in entry["links_to_anchors"]}
            page.links_to_anchors = {file: links for uri, links in entry["links_to_anchors"].items()
                                     if (file := linked[uri]) is not None}
        return str(entry["content"])

    def _store(self, key: str, html: str, page: Page, markers: list[str]) -> None:
        toc: list[AnchorLink] = list(page.toc)
        entry = {"content": html, "title": page.title, "toc": _tokens(toc), "warnings": markers,
                 "anchors": sorted(page.present_anchor_ids or ()),
                 "anchors_recorded": page.links_to_anchors is not None,
                 "links_to_anchors": {f.src_uri: links
                                      for f, links in (page.links_to_anchors or {}).items()}}
        self.entries.store(key, entry)
