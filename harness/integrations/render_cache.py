"""A content-addressed cache for MkDocs' Markdown rendering of a page (``Page.render``).

Rendering the Markdown of the site's pages is the largest part of a build in which
nothing changed, and of a ``mkdocs serve`` rebuild after a snippet edit, where only
the pages that include the snippet changed. A page's rendering is a function of:

* the page's Markdown (after every ``on_page_markdown``) and its identity (source,
  destination, URL, inclusion; its folder, for ``!relative`` paths);
* the Markdown extensions and their options, the code that runs them (the versions of
  mkdocs, Markdown, pymdown-extensions, Material and Pygments, with Pygments' plugins)
  and the ``validation`` and ``use_directory_urls`` settings;
* what the rendering read while it ran, recorded then and checked on every hit: the
  bytes of each file it opened outside the interpreter's installation (the snippets
  that ``pymdownx.snippets`` includes), the names in each folder it listed, and the
  answer of every ``files.get_file_from_path`` lookup (the links it resolved);
* the names under ``pymdownx.snippets``' base paths (a snippet that appears can change
  what an include resolves to without being opened before);
* the logging configuration, and :data:`FORMAT` and this module's source.

Only what a whitelist of extensions does is understood (:data:`SAFE_EXTENSIONS`); with
any other extension, an option holding an object this module cannot name, or an
extension option that reads files it would not see (custom icons, downloaded snippets)
nothing is cached. A rendering that logs anything (a broken link under ``validation``:
the warnings ``--strict`` counts) is never cached, so every later build logs it again;
nor one that wrote a file, nor one that read a file modified in the last
:data:`RECENT_SECONDS` (it may have changed while being read). What is restored is
exactly what ``Page.render`` of mkdocs 1.6 sets: ``content``, ``toc``, the title from
the first heading, the anchors the page has and the links to anchors it makes.

Entries are JSON files under ``.cache/harness/pages/``, written atomically; an
unreadable entry is a miss and the folder is safe to delete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.integrations.cache_files import MAX_AGE_DAYS, prune_unused
from harness.records.files import write_atomically

__all__ = ["FORMAT", "RECENT_SECONDS", "SAFE_EXTENSIONS", "RenderCache"]

FORMAT = 1
"""Bump when an entry's layout or meaning changes: old entries then never match."""

RECENT_SECONDS = 2.0
"""A rendering that read a file modified this recently is not cached (file systems
with a coarse clock included): the file may have changed while it was read."""

#: Top-level package → distribution, for the code that renders a page.
PACKAGES = {"markdown": "markdown", "pymdownx": "pymdown-extensions",
            "material": "mkdocs-material", "mkdocs": "mkdocs", "pygments": "pygments"}

#: Extensions whose output is a function of the page, their options, the files they open
#: and the package versions above (no state kept between pages, no network).
SAFE_EXTENSIONS = frozenset({
    "abbr", "admonition", "attr_list", "codehilite", "def_list", "fenced_code", "footnotes",
    "md_in_html", "meta", "nl2br", "sane_lists", "smarty", "tables", "toc", "wikilinks",
    "pymdownx.arithmatex", "pymdownx.betterem", "pymdownx.caret", "pymdownx.critic",
    "pymdownx.details", "pymdownx.emoji", "pymdownx.highlight", "pymdownx.inlinehilite",
    "pymdownx.keys", "pymdownx.mark", "pymdownx.smartsymbols", "pymdownx.snippets",
    "pymdownx.superfences", "pymdownx.tabbed", "pymdownx.tasklist", "pymdownx.tilde",
})

_PYGMENTS_PLUGINS = ("pygments.lexers", "pygments.formatters", "pygments.styles",
                     "pygments.filters")


class _Unsupported(Exception):
    """The configuration holds something whose effect no key can capture."""


class _Recording:
    """What one rendering read, from the audit hook (its own thread only)."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.opened: dict[str, None] = {}
        self.listed: dict[str, None] = {}
        self.lookups: list[tuple[str, Any]] = []
        self.logged = self.wrote = False
        self.digests: list[list[Any]] = []
        self.listings: list[list[Any]] = []


_recording: _Recording | None = None
_hooked = False
_IGNORED = tuple(sorted({os.path.join(os.path.abspath(p), "") for p in
                         (sys.prefix, sys.base_prefix, sys.exec_prefix)}))
"""The interpreter's installation: its files change only with a version in the key."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    recording = _recording
    if recording is None or threading.get_ident() != recording.thread:
        return
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int):
            return
        if (mode is not None and any(c in str(mode) for c in "wax+")) or (
                mode is None and isinstance(flags, int)
                and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC)):
            recording.wrote = True
            return
        path = os.path.abspath(os.fsdecode(path))
        if not path.startswith(_IGNORED):
            recording.opened[path] = None
    elif event in ("os.listdir", "os.scandir"):
        path = args[0]
        if isinstance(path, int):
            recording.wrote = True  # a listing by descriptor names no folder: give up
            return
        path = os.path.abspath(os.fsdecode(path if path is not None else "."))
        if not path.startswith(_IGNORED):
            recording.listed[path] = None


def _hook() -> None:
    global _hooked
    if not _hooked:
        sys.addaudithook(_audit)  # cannot be removed: it does nothing unless recording
        _hooked = True


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_digest(path: str) -> str | None:
    try:
        return _sha(Path(path).read_bytes())
    except OSError:
        return None


def _listing(path: str) -> str | None:
    try:
        return _sha("\n".join(sorted(os.listdir(path))).encode("utf-8", "surrogateescape"))
    except OSError:
        return None


def _stable(path: str, digest: Any, recent: float) -> str | None | bool:
    """``digest(path)`` of what a rendering read, or False when it may have changed
    since: modified after ``recent`` (just before or while it was read), or while it is
    digested. None stands for a path that could not be read (then, as now, nothing)."""
    try:
        before = os.stat(path)
    except OSError:
        return None if digest(path) is None else False
    if before.st_mtime >= recent:
        return False
    value = digest(path)
    try:
        after = os.stat(path)
    except OSError:
        return False
    same = (after.st_mtime_ns, after.st_size, after.st_ino) == (
        before.st_mtime_ns, before.st_size, before.st_ino)
    return value if same else False


def _tree(path: str) -> str:
    """The relative names of everything under ``path`` (not their bytes)."""
    names = []
    for base, dirs, files in os.walk(path):
        dirs.sort()
        relative = os.path.relpath(base, path)
        names += [os.path.join(relative, n) for n in (*dirs, *sorted(files))]
    return _sha("\n".join(names).encode("utf-8", "surrogateescape"))


def _plain(value: Any) -> Any:
    """An extension option as JSON, or :class:`_Unsupported`."""
    from mkdocs.utils.yaml import RelativeDirPlaceholder

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, RelativeDirPlaceholder):
        return ["relative to the page", value.suffix]  # the page's folder is in the key
    if isinstance(value, os.PathLike):
        return ["path", os.fspath(value)]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return [[str(k), _plain(v)] for k, v in value.items()]
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if callable(value) and module and module.split(".")[0] in PACKAGES and "<" not in name:
        return ["callable", module, name]
    raise _Unsupported(repr(value))


def _extension_name(name: str, entries: Any) -> str:
    """``name`` as :data:`SAFE_EXTENSIONS` spells it: Markdown resolves a short name
    through its entry points, which another package may also provide."""
    for entry in entries.select(group="markdown.extensions", name=name):
        module = entry.value.split(":")[0]
        return name if module == f"markdown.extensions.{name}" else module
    return name


def _logging_state() -> list[Any]:
    """Which records a rendering creates: a quieter build must not share entries."""
    manager = logging.Logger.manager
    loggers = sorted((name, logger.level, logger.disabled)
                     for name, logger in manager.loggerDict.items()
                     if isinstance(logger, logging.Logger) and (logger.level or logger.disabled))
    return [logging.root.level, manager.disable, loggers]


def _identity(file: Any) -> list[Any] | None:
    if file is None:
        return None
    return [file.src_uri, file.dest_uri, file.url, str(file.inclusion)]


def _toc(items: Any) -> list[dict[str, Any]]:
    return [{"level": i.level, "id": i.id, "name": i.title, "children": _toc(i.children)}
            for i in items]


def context_digest(config: Any, cache_folder: Path | None) -> str | None:
    """A digest of everything outside the page that shapes every page's rendering, or
    None when something in the configuration is outside what this cache understands."""
    import mkdocs

    if not mkdocs.__version__.startswith("1.6."):
        return None  # Page.render's outputs are those of mkdocs 1.6
    entries = metadata.entry_points()
    try:
        extensions = [str(e) for e in config.markdown_extensions]
        for name in extensions:
            if _extension_name(name, entries) not in SAFE_EXTENSIONS:
                raise _Unsupported(name)
        options = config.mdx_configs or {}
        emoji = options.get("pymdownx.emoji", {})
        if (emoji.get("options") or {}).get("custom_icons"):
            raise _Unsupported("custom icons are read once per process")
        snippets = options.get("pymdownx.snippets", {})
        if snippets.get("url_download"):
            raise _Unsupported("downloaded snippets")
        bases = snippets.get("base_path", ["."])
        bases = [bases] if isinstance(bases, (str, os.PathLike)) else list(bases)
        trees = []
        if "pymdownx.snippets" in extensions:
            from mkdocs.utils.yaml import RelativeDirPlaceholder

            for base in bases:
                if isinstance(base, RelativeDirPlaceholder):
                    raise _Unsupported("snippets relative to each page")
                path = os.path.abspath(os.fspath(base))
                inside = [Path(config.site_dir), *([cache_folder] if cache_folder else [])]
                if any(Path(p).resolve().is_relative_to(Path(path).resolve()) for p in inside):
                    raise _Unsupported("snippets base path holds the build's output")
                trees.append([path, _tree(path)])
        folders = [os.path.dirname(config.config_file_path or ""), config.docs_dir,
                   *(path for path, _ in trees)]
        if any(os.path.join(os.path.abspath(f), "").startswith(_IGNORED) for f in folders):
            raise _Unsupported("the project lies inside the interpreter's installation")
        settings = [extensions, _plain(dict(options)), config.use_directory_urls,
                    repr(config.validation)]
    except _Unsupported:
        return None
    versions = []
    for top, distribution in PACKAGES.items():
        try:
            versions.append(f"{top}={metadata.version(distribution)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{top}=absent")
    plugins = sorted([group, entry.name, entry.value, entry.dist.version if entry.dist else ""]
                     for group in _PYGMENTS_PLUGINS for entry in entries.select(group=group))
    digest = hashlib.sha256(f"format={FORMAT}\n{sys.version}\n".encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(json.dumps([versions, plugins, settings, trees, _logging_state()],
                             sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()


class RenderCache:
    """Rendered pages under ``folder`` for one build (one language, under static-i18n)."""

    def __init__(self, folder: Path | None, config: Any) -> None:
        self.folder = Path(folder) if folder else None
        self.config = config
        self._context: str | None | bool = False  # computed at the first rendering
        self.hits = self.misses = 0

    def context(self) -> str | None:
        if self._context is False:
            self._context = context_digest(self.config, self.folder and self.folder.parent)
        return self._context  # type: ignore[return-value]

    def install(self, page: Any) -> None:
        """Make ``page.render`` read from this cache (a page MkDocs renders itself)."""
        from mkdocs.structure.pages import Page

        if self.folder is None or getattr(type(page), "render", None) is not Page.render:
            return
        if "render" in vars(page):
            return  # another plugin renders it (a notebook)
        cache = self

        def render(config: Any, files: Any) -> None:
            cache.render(page, config, files)

        page.render = render

    def key(self, context: str, page: Any) -> str:
        file = page.file
        digest = hashlib.sha256(context.encode())
        digest.update(json.dumps([_identity(file), page.url, file.abs_src_path],
                                 ensure_ascii=False).encode())
        digest.update(page.markdown.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def render(self, page: Any, config: Any, files: Any) -> None:
        from mkdocs.structure.pages import Page

        context = self.context() if page.markdown is not None else None
        if context is None:
            Page.render(page, config, files)
            return
        key = self.key(context, page)
        if self._restore(key, page, files):
            self.hits += 1
            return
        self.misses += 1
        recording = self._record(page, config, files)
        if recording is not None:
            self._store(key, page, recording)

    def _record(self, page: Any, config: Any, files: Any) -> _Recording | None:
        """Render ``page`` while recording what it reads; None when it is not cacheable."""
        from mkdocs.structure.pages import Page

        global _recording
        _hook()
        if _recording is not None or "get_file_from_path" in vars(files):
            # A rendering inside a rendering, or lookups someone else replaced: render
            # without recording (and without caching).
            Page.render(page, config, files)
            return None
        recording = _Recording()
        lookup = files.get_file_from_path

        def get_file_from_path(path: str) -> Any:
            found = lookup(path)
            if threading.get_ident() == recording.thread:
                recording.lookups.append((path, found))
            return found

        factory = logging.getLogRecordFactory()

        def record_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            if threading.get_ident() == recording.thread:
                recording.logged = True
            return factory(*args, **kwargs)

        started = time.time()
        files.get_file_from_path = get_file_from_path
        logging.setLogRecordFactory(record_factory)
        _recording = recording
        try:
            Page.render(page, config, files)
        finally:
            _recording = None
            logging.setLogRecordFactory(factory)
            del files.get_file_from_path
        if recording.logged or recording.wrote:
            return None
        recent = started - RECENT_SECONDS
        for paths, digest, found in ((recording.opened, _file_digest, recording.digests),
                                     (recording.listed, _listing, recording.listings)):
            for path in paths:
                stable = _stable(path, digest, recent)
                if stable is False:
                    return None
                found.append([path, stable])
        return recording

    def _store(self, key: str, page: Any, recording: _Recording) -> None:
        if self.folder is None:
            return
        opened, listed = recording.digests, recording.listings
        lookups, seen = [], {}
        for path, found in recording.lookups:
            lookups.append([path, _identity(found)])
            if found is not None:
                seen.setdefault(id(found), path)
        links = None
        if page.links_to_anchors is not None:
            links = []
            for target, anchors in page.links_to_anchors.items():
                if target is page.file:
                    links.append([None, anchors])
                elif id(target) in seen:
                    links.append([seen[id(target)], anchors])
                else:
                    return  # a link target found some other way: cannot restore it
        entry = {
            "key": key, "opened": opened, "listed": listed, "lookups": lookups,
            "content": page.content, "toc": _toc(page.toc),
            "title": page._title_from_render, "anchors": sorted(page.present_anchor_ids),
            "links": links,
        }
        with contextlib.suppress(OSError, TypeError, ValueError):
            write_atomically(self.folder / f"{key}.json",
                             json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    def _restore(self, key: str, page: Any, files: Any) -> bool:
        if self.folder is None:
            return False
        path = self.folder / f"{key}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] != key:
                return False
            if any(_file_digest(p) != digest for p, digest in entry["opened"]):
                return False
            if any(_listing(p) != digest for p, digest in entry["listed"]):
                return False
            found = {}
            for lookup, identity in entry["lookups"]:
                found[lookup] = files.get_file_from_path(lookup)
                if _identity(found[lookup]) != identity:
                    return False
            links = None
            if entry["links"] is not None:
                links = {}
                for target, anchors in entry["links"]:
                    links[page.file if target is None else found[target]] = dict(anchors)
        except (OSError, ValueError, KeyError, TypeError):
            return False
        from mkdocs.structure.pages import log as pages_log
        from mkdocs.structure.toc import get_toc

        page.content = entry["content"]
        page.toc = get_toc(entry["toc"])
        page._title_from_render = entry["title"]
        page.present_anchor_ids = set(entry["anchors"])
        # As Page.render: the links are kept only when anchors are validated.
        if pages_log.getEffectiveLevel() > logging.DEBUG and links is not None:
            page.links_to_anchors = links
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: keeps it from pruning
        return True

    def prune(self, max_age_days: float = MAX_AGE_DAYS) -> int:
        """Remove entries no build has used for ``max_age_days``."""
        return prune_unused([self.folder], max_age_days=max_age_days)
