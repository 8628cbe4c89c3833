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

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from harness.core.errors import HarnessError
from harness.records.store import load_all
from harness.records.validate import check_records
from harness.site.config import CACHE_VARIABLE, HarnessConfig
from harness.site.lazy_imports import defer
from harness.site.notebooks import (
    cache_folder,
    converter_digest,
    prune_converters,
    rewrap_notebooks,
)
from harness.site.page_checks import colab_base, rerecord_hint, typed_figures
from harness.site.site_output import share_notebook_styles, split_search_index
from harness.sources.checks import check_project, raise_problems
from harness.sources.pages import find_markers
from harness.sources.project import Project, resolve_includes
from harness.sources.trials import load_trials, workload_sources
from harness.views.markers import PageContext, Site, render_marker
from harness.views.notebooks import NOTEBOOK_DIR

__all__ = ["HarnessConfig", "HarnessPlugin"]

# mkdocs-jupyter's plugin module imports nbconvert and jupytext at its top (~0.8 s), which
# a build whose notebooks all come from mkdocs-jupyter's cache never uses: import them on
# first use. Effective because mkdocs.yml lists this plugin before mkdocs-jupyter
# (lazy_imports.py).
defer("mkdocs_jupyter.convert", "jupytext")

log = logging.getLogger("mkdocs.plugins.harness")

#: Search locations (after the language prefix) the split index leaves out: the
#: notebook copies of the articles would crowd out the articles themselves.
_UNSEARCHED = (f"{NOTEBOOK_DIR}/",)


def _search_languages(config: MkDocsConfig) -> tuple[str, list[str]] | None:
    """(default language, the other built languages) when mkdocs-static-i18n builds
    several, so that ``on_post_build`` splits the search index per language."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return None
    languages = [lang.locale for lang in i18n.config.languages if lang.build]
    default = next((lang.locale for lang in i18n.config.languages if lang.default),
                   languages[0] if languages else "")
    return default, [lang for lang in languages if lang != default]


def _another_language(config: MkDocsConfig) -> bool:
    """Whether this build is one of the other languages mkdocs-static-i18n builds from
    its ``on_post_build``, with the same config and plugins (``building`` is set then)."""
    i18n = config.plugins.get("i18n")
    return bool(i18n is not None and getattr(i18n, "building", False))


def _is_notebook(page: Page) -> bool:
    return type(page.file).__name__ == "NotebookFile"


class HarnessPlugin(BasePlugin[HarnessConfig]):
    """Thin: checks and renderers live in the harness; this adapts them to MkDocs."""

    def __init__(self) -> None:
        super().__init__()
        self.site: Site | None = None
        self.cache: Path | None = None
        """The build caches' folder, or None when they are off."""
        self.converter = ""
        """:func:`converter_digest`, computed once per build."""
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
            specs = load_trials()
            records = load_all(results, root=root)
            problems = [p.message for p in check_project(project)]
            problems += check_records(records, project=project, specs=specs, results=results)
            raise_problems(problems)
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        self.site = Site(project=project, records=records, specs=specs,
                         sources=workload_sources(), colab=colab)
        self._loaded = inputs
        jupyter = config.plugins.get("mkdocs-jupyter")
        self.converter = converter_digest() if jupyter is not None and self.cache else ""
        return config

    def on_pre_build(self, config: MkDocsConfig) -> None:
        """Point mkdocs-jupyter's own cache at this language's folder. Here, not in
        ``on_config``: mkdocs-static-i18n sets the build's language in its
        ``on_config`` (priority -100, after this plugin's)."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None:
            return
        jupyter.config["cache"] = self.cache is not None
        if self.cache is not None:
            language = str(config.theme.get("language") or "")
            jupyter.config["cache_dir"] = str(
                cache_folder(self.cache, self.converter, language))

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
        for folder in (root / "snippets", root / self.config.results, root / "harness"):
            if folder.is_dir():
                server.watch(str(folder))
        return server

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        """A notebook page is left out of the search index (Material's ``search.exclude``
        front matter): the notebook copies of the articles would crowd out the articles."""
        if _is_notebook(page):
            page.meta.setdefault("search", {"exclude": True})
        return html

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """A notebook page links the shared JupyterLab stylesheet instead of inlining it."""
        if not _is_notebook(page):
            return output
        return share_notebook_styles(output, page.url, Path(config.site_dir))

    @event_priority(-120)
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Once every language is built (after mkdocs-static-i18n's ``on_post_build``,
        priority -100, has merged the search index), split the index per language,
        without the notebook copies of the articles, and remove the notebook caches of
        converters no longer installed (once per build, not once per language)."""
        if _another_language(config):
            return
        split = _search_languages(config)
        if split is not None:
            split_search_index(Path(config.site_dir), split[0], split[1], excluded=_UNSEARCHED)
        if self.cache is not None and self.converter:
            prune_converters(self.cache, self.converter)

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        assert self.site is not None, "on_config runs first"
        root = self.site.project.root
        source = Path(page.file.abs_src_path or "").resolve()
        shown = source.relative_to(root) if source.is_relative_to(root) else source
        lang = str(config.theme.get("language", "es"))
        # MkDocs hands over the page without its front matter; pad it back with empty
        # lines so every line reported below is the line in the file.
        # (static-i18n rewrites admonition lines but never adds or removes one.)
        raw = source.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        offset = raw[: len(raw) - len(body)].count("\n")
        padded = "\n" * offset + markdown
        return self._page(self.site, padded, shown, lang)[offset:]

    def _page(self, site: Site, markdown: str, shown: Path, lang: str) -> str:
        try:
            resolved = resolve_includes(site.project, markdown, shown)
            page = PageContext(lang=lang, slug=shown.name.split(".")[0],
                               included={include.snippet_id for include, _ in resolved})
            pieces: list[str] = []
            position = 0
            for marker in find_markers(markdown, shown):
                rendered = render_marker(marker, site, page)
                for message in rendered.stale:
                    log.warning(message)
                pieces += [markdown[position : marker.start], rendered.markdown,
                           rerecord_hint(rendered.stale, lang)]
                position = marker.end
            pieces.append(markdown[position:])
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        if self.config.check_typed_figures:
            for message in typed_figures(markdown, shown):
                log.warning(message)
        return "".join(pieces)
