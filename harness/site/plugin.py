"""The MkDocs plugin ``harness``: turns ``<!-- harness:... -->`` markers into
tables and plots read from ``results/``. It never imports torch: the docs build
reads records, it does not run examples.

Errors a contributor must fix (unknown marker, argument or id; a record that is
malformed, unpublished or contradicts its expectation) raise ``PluginError``
naming file and line; the checks themselves live in the harness
(:mod:`harness.sources.checks`, :mod:`harness.records.validate`,
:mod:`harness.views.markers`). A stale record or a figure
typed by hand is a warning, shown on the page, that fails ``--strict``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path

from jinja2 import Environment, FileSystemBytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data
from mkdocs.utils.templates import TemplateContext

from harness.core.errors import HarnessError
from harness.records.store import load_all
from harness.records.validate import check_records
from harness.site.config import CACHE_VARIABLE, HarnessConfig
from harness.site.entries import Entries
from harness.site.html_stash import anchor_ids, restore
from harness.site.lazy_imports import defer
from harness.site.notebooks import (
    cache_folder,
    converter_digest,
    notebook_page,
    prune_versions,
    rewrap_notebooks,
)
from harness.site.page_cache import PageCache, code_digest, compiler_digest, inputs_digest
from harness.site.page_checks import colab_base, typed_figures
from harness.site.page_render import render_page
from harness.site.search_cache import SearchCache, search_fingerprint
from harness.site.site_output import search_languages, split_search_index
from harness.sources.checks import check_project, raise_problems
from harness.sources.project import Project
from harness.sources.trials import load_trials, workload_sources
from harness.views.markers import Site
from harness.views.notebooks import NOTEBOOK_DIR

__all__ = ["HarnessConfig", "HarnessPlugin"]

# mkdocs-jupyter's plugin module imports nbconvert and jupytext at its top (~0.8 s), which
# a build whose notebooks all come from mkdocs-jupyter's cache never uses: import them on
# first use. Effective because mkdocs.yml lists this plugin before mkdocs-jupyter
# (lazy_imports.py).
defer("mkdocs_jupyter.convert", "jupytext")

log = logging.getLogger("mkdocs.plugins.harness")
HARNESS = Path(__file__).resolve().parents[1]
"""The harness package: its code and trials are part of every page's cache key."""

#: Search locations (after the language prefix) the split index leaves out: the
#: notebook copies of the articles would crowd out the articles themselves.
_UNSEARCHED = (f"{NOTEBOOK_DIR}/",)


def _another_language(config: MkDocsConfig) -> bool:
    """Whether this build is one of the other languages mkdocs-static-i18n builds from
    its ``on_post_build``, with the same config and plugins (``building`` is set then)."""
    i18n = config.plugins.get("i18n")
    return bool(i18n is not None and getattr(i18n, "building", False))


def _is_notebook(page: Page) -> bool:
    return type(page.file).__name__ == "NotebookFile"


class HarnessPlugin(BasePlugin[HarnessConfig]):  # type: ignore[no-untyped-call]
    """Thin: checks and renderers live in the harness; this adapts them to MkDocs."""

    def __init__(self) -> None:
        super().__init__()
        self.site: Site | None = None
        self.cache: Path | None = None
        """The build caches' folder, or None when they are off."""
        self.converter = ""
        """:func:`converter_digest`, computed once per build."""
        self.renderer = code_digest()
        """The page cache's code version (:func:`code_digest`)."""
        self.compiler = compiler_digest()
        """The compiled templates' code version (:func:`compiler_digest`)."""
        self.pages: PageCache | None = None
        """This language build's page cache."""
        self.search: SearchCache | None = None
        """This language build's search-entry cache."""
        self._entries: list[Entries] = []
        """Every cache folder this build (all its languages) opened, evicted at its end."""
        self._warned: set[str] = set()
        self._stashed: dict[str, dict[str, str]] = {}
        """Per page being rendered, its markers' HTML kept out of Markdown (html_stash)."""
        """Stale-record warnings logged by this build: each once, not once per language."""
        self._inputs = ""
        """What the markers read (:func:`inputs_digest`), for the page cache's key."""
        self._loaded: tuple[Path, Path, Path | None] | None = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        root = Path(config.config_file_path).resolve().parent
        results = root / self.config.results
        folder = os.environ.get(CACHE_VARIABLE, self.config.cache_dir)
        self.cache = root / folder if folder else None
        colab = colab_base(config.repo_url, config.edit_uri, config.docs_dir)
        inputs = (root, results, self.cache)
        if self.site is not None and _another_language(config) and self._loaded == inputs:
            # The files were read and checked moments ago, by this build; only the
            # language differs.
            self.site = replace(self.site, colab=colab)
            return config
        try:
            project = Project.load(root)
            workloads = root / self.config.workloads
            specs = load_trials(root / self.config.trials, root=root, workloads=workloads)
            records = load_all(results, root=root)
            problems = [p.message for p in check_project(project)]
            problems += check_records(records, project=project, specs=specs, results=results)
            raise_problems(problems)
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        self.site = Site(project=project, records=records, specs=specs,
                         sources=workload_sources(workloads=workloads), colab=colab)
        self._loaded = inputs
        self._inputs = "\n".join([inputs_digest([HARNESS, results, root / "snippets",
                                                 (root / self.config.trials).parent]), colab,
                                  str(self.config.check_typed_figures)]) if self.cache else ""
        self._entries = []
        self._warned = set()
        jupyter = config.plugins.get("mkdocs-jupyter")
        self.converter = converter_digest() if jupyter is not None and self.cache else ""
        return config

    def on_pre_build(self, config: MkDocsConfig) -> None:
        """Open this language's page and search caches, and point mkdocs-jupyter's own
        cache at this language's folder. Here, not in ``on_config``: mkdocs-static-i18n
        sets the build's language in its ``on_config`` (priority -100, after this
        plugin's), and the search plugin makes a new index in every build's ``on_config``."""
        language = str(config.theme.get("language") or "")
        self.pages = self.search = None
        if self.cache is not None:
            self.pages = PageCache(cache_folder(self.cache / "pages", self.renderer, language),
                                   config, self._inputs)
            search = config.plugins.get("material/search") or config.plugins.get("search")
            index = getattr(search, "search_index", None)
            fingerprint = search_fingerprint(index)
            if fingerprint is not None:
                self.search = SearchCache(
                    cache_folder(self.cache / "search", fingerprint[:16], language), index,
                    fingerprint)
                self._entries.append(self.search.entries)
            self._entries.append(self.pages.entries)
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None:
            return
        jupyter.config["cache"] = self.cache is not None
        if self.cache is not None:
            jupyter.config["cache_dir"] = str(
                cache_folder(self.cache / "notebooks", self.converter, language))

    @event_priority(-110)
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        """Give notebooks back their page wrapper after mkdocs-static-i18n's on_files
        (priority -100): see :mod:`harness.site.notebooks`."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        return files if jupyter is None else rewrap_notebooks(files, config, jupyter)

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig,
                 builder: object) -> LiveReloadServer:
        """`mkdocs serve` rebuilds when a snippet, a record, the trials or the harness
        change, not only the pages (the preview is not strict: see mkdocs.yml)."""
        root = Path(config.config_file_path).resolve().parent
        for folder in (root / "snippets", root / self.config.results, root / "harness",
                       (root / self.config.trials).parent):
            if folder.is_dir():
                server.watch(str(folder))
        return server

    def on_env(self, env: Environment, config: MkDocsConfig, files: Files) -> Environment:
        """The theme's templates compiled once, not in every build and language (Jinja's
        own bytecode cache, keyed on each template's source; its folder on Jinja's code)."""
        if self.cache is not None and env.bytecode_cache is None:
            folder = self.cache / "templates" / self.compiler
            folder.mkdir(parents=True, exist_ok=True)
            env.bytecode_cache = FileSystemBytecodeCache(str(folder))
        return env

    @event_priority(200)  # first: the page cache gives back the page others then see
    def on_page_content(self, html: str, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        """An article's rendering from the page cache; a notebook page as the site
        serves it (:func:`notebook_page`: here, before the search plugin and the theme)."""
        stashed = self._stashed.pop(page.file.src_uri, {})
        if stashed:
            html = restore(html, stashed)
            page.present_anchor_ids = (page.present_anchor_ids or set()) | anchor_ids(stashed)
        if _is_notebook(page):
            return notebook_page(html, page, config, colab=getattr(self.site, "colab", ""))
        return html if self.pages is None else self.pages.after_render(html, page, config, files)

    @event_priority(10)  # before Material's search plugin (0)
    def _index_page(self, context: TemplateContext, page: Page, config: MkDocsConfig,
                    nav: Navigation) -> TemplateContext:
        """An article's search entries from the search cache; Material's own handler
        then skips the page (``search: exclude`` until :meth:`_unhide`)."""
        if self.search is not None and not _is_notebook(page):
            self.search.index_page(page)
        return context

    @event_priority(-10)  # after Material's search plugin
    def _unhide(self, context: TemplateContext, page: Page, config: MkDocsConfig,
                nav: Navigation) -> TemplateContext:
        if self.search is not None:
            self.search.unhide(page)
        return context

    on_page_context = CombinedEvent(_index_page, _unhide)

    @event_priority(-120)
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Once every language is built (after mkdocs-static-i18n's ``on_post_build``,
        priority -100, has merged the search index), split the index per language,
        without the notebook copies of the articles, and remove the notebook caches of
        converters no longer installed (once per build, not once per language)."""
        if _another_language(config):
            return
        split = search_languages(config)
        if split is not None:
            split_search_index(Path(config.site_dir), split[0], split[1], excluded=_UNSEARCHED)
        for entries in self._entries:
            entries.evict()
        self._entries = []
        if self.cache is not None:
            prune_versions(self.cache / "pages", self.renderer)
            if self.search is not None:
                prune_versions(self.cache / "search", self.search.entries.folder.parent.name)
            prune_versions(self.cache / "templates", self.compiler)
            if self.converter:
                prune_versions(self.cache / "notebooks", self.converter)

    @event_priority(-200)  # last: the Markdown MkDocs renders is final here
    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        """The page's markers rendered, or, when the page cache has this page, an empty
        page for MkDocs to render (its HTML comes back in ``on_page_content``). A
        notebook page is left alone: mkdocs-jupyter renders it from its file, not from
        this Markdown (the notebook's JSON), and ``harness notebooks`` made the file."""
        assert self.site is not None, "on_config runs first"
        if _is_notebook(page):
            return markdown
        lang = str(config.theme.get("language", "es"))
        if self.pages is not None:
            entry = self.pages.lookup(markdown, page, files)
            if entry is not None:
                self._warn(entry["warnings"])
                return ""
        root = self.site.project.root
        source = Path(page.file.abs_src_path or "").resolve()
        shown = source.relative_to(root) if source.is_relative_to(root) else source
        # MkDocs hands over the page without its front matter; pad it back with empty
        # lines so every line reported below is the line in the file.
        # (static-i18n rewrites admonition lines but never adds or removes one.)
        raw = source.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        offset = raw[: len(raw) - len(body)].count("\n")
        stashed = self._stashed[page.file.src_uri] = {}
        text, warnings = self._page(self.site, "\n" * offset + markdown, shown, lang, stashed)
        self._warn(warnings)
        if self.pages is not None:
            self.pages.rendering(page, warnings)
        return text[offset:]

    def _warn(self, messages: list[str]) -> None:
        for message in messages:
            if message not in self._warned:  # the other language shows the same
                self._warned.add(message)
                log.warning(message)

    def _page(self, site: Site, markdown: str, shown: Path, lang: str,
              stashed: dict[str, str]) -> tuple[str, list[str]]:
        """The page with its markers rendered, and the warnings to log about it."""
        try:
            text, warnings = render_page(site, markdown, shown, lang, stashed)
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        if self.config.check_typed_figures:
            warnings += typed_figures(markdown, shown)
        return text, warnings
