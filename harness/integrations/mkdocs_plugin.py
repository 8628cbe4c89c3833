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
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.utils.meta import get_data

from harness.core.errors import HarnessError
from harness.integrations.lazy_imports import defer
from harness.integrations.marker_cache import MarkerCache, inputs_digest
from harness.integrations.notebook_cache import (
    Conversion,
    NotebookCache,
    SharedTemplates,
    prefetch,
    render_fingerprint,
)
from harness.integrations.render_cache import RenderCache
from harness.integrations.search_cache import SearchCache
from harness.integrations.site_output import (
    left_out_of_search,
    share_notebook_styles,
    split_search_index,
)
from harness.records.store import load_all
from harness.records.validate import check_records
from harness.sources.checks import check_project, raise_problems
from harness.sources.pages import find_markers
from harness.sources.project import Project, resolve_includes
from harness.sources.trials import load_trials, workload_sources
from harness.text.words import LANGS, word
from harness.views.markers import Page, Site, render_marker
from harness.views.notebooks import NOTEBOOK_DIR

__all__ = ["HarnessConfig", "HarnessPlugin", "colab_base", "rerecord_hint", "typed_figures"]

# mkdocs-jupyter's plugin module imports nbconvert and jupytext at its top (~0.8 s), which
# a build whose notebooks all come from the cache never uses: import them on first use.
# Effective because mkdocs.yml lists this plugin before mkdocs-jupyter (lazy_imports.py).
defer("mkdocs_jupyter.convert", "jupytext")

log = logging.getLogger("mkdocs.plugins.harness")
HARNESS = Path(__file__).resolve().parents[1]
"""The harness package: its code (and trials.toml) is part of every marker's cache key."""

_FENCE = re.compile(r"^(\s*)(```+|~~~+).*?^\1\2\s*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FIGURE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s?(?:ns|µs|us|ms|s|GFLOP/s|TFLOP/s|GB/s|TB/s|KiB|MiB|GiB|MB|GB)\b"
    r"|\b\d+(?:[.,]\d+)?\s?(?:×|x)\s(?:más\s)?(?:rápid|lent|faster|slower)"
)


_COMMAND = re.compile(r"`(python -m harness record[^`]*)`")
_GITHUB = re.compile(r"^https://github\.com/(?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_BRANCH = re.compile(r"^(?:edit|blob|tree)/(?P<branch>[^/]+)/")


def rerecord_hint(stale: list[str], lang: str) -> str:
    """The commands that refresh what a marker showed stale, as a paragraph after it.

    A strict build fails on stale records, so only the preview (``mkdocs serve``,
    not strict) ever shows it: there a snippet edit re-renders its page at once.
    """
    commands = list(dict.fromkeys(m.group(1) for text in stale for m in _COMMAND.finditer(text)))
    if not commands:
        return ""
    shown = " · ".join(f"`{command}`" for command in commands)
    label = word(lang if lang in LANGS else "en", "rerecord")
    return f'\n<p class="harness-rerecord" markdown>{label}: {shown}</p>\n'


def colab_base(repo_url: str | None, edit_uri: str | None, docs_dir: str) -> str:
    """Colab's address of the repository's docs folder (``…/github/<owner>/<repo>/blob/
    <branch>/docs``), or "" when the repository is not on GitHub. The branch is the
    one ``edit_uri`` names (``edit/main/docs/``), else ``main``."""
    match = _GITHUB.match(repo_url or "")
    if match is None:
        return ""
    branch = _BRANCH.match(edit_uri or "")
    return (f"https://colab.research.google.com/github/{match['repo']}/blob/"
            f"{branch['branch'] if branch else 'main'}/{Path(docs_dir).name}")


def _markdown_and_stale(rendered: Any) -> tuple[str, list[str]]:
    return rendered.markdown, list(rendered.stale)


class HarnessConfig(base.Config):
    results = c.Type(str, default="results")
    """Folder of the records, relative to mkdocs.yml."""
    check_typed_figures = c.Type(bool, default=True)
    """Warn about measured-looking figures typed into a page instead of a marker."""
    cache_dir = c.Type(str, default=".cache/harness")
    """Build caches, relative to mkdocs.yml ("" turns them off): converted notebooks,
    compiled templates, rendered markers, rendered pages, search entries, each keyed
    on content and safe to delete.
    The environment variable HARNESS_CACHE overrides it (the tests share one)."""


def _search_languages(config: Any) -> tuple[str, list[str]] | None:
    """(default language, the other built languages) when mkdocs-static-i18n builds
    several, so that ``on_post_build`` splits the search index per language."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return None
    languages = [lang.locale for lang in i18n.config.languages if lang.build]
    default = next((lang.locale for lang in i18n.config.languages if lang.default),
                   languages[0] if languages else "")
    return default, [lang for lang in languages if lang != default]


def _twin(source: Path, default: str, lang: str) -> Path:
    """``x.ipynb`` (or ``x.<default>.ipynb``) → ``x.<lang>.ipynb`` when it exists."""
    stem = source.name[: -len(source.suffix)] if source.suffix else source.name
    stem = stem.removesuffix(f".{default}")
    twin = source.with_name(f"{stem}.{lang}{source.suffix}")
    return twin if twin.exists() else source


#: Search locations (after the language prefix) the split index leaves out: the
#: notebook copies of the articles would crowd out the articles themselves.
_UNSEARCHED = (f"{NOTEBOOK_DIR}/",)


def typed_figures(text: str, path: Path) -> list[str]:
    """Measured-looking numbers in prose (code, comments and markers excluded)."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731  keep line numbers
    prose = _INLINE_CODE.sub(blank, _COMMENT.sub(blank, _FENCE.sub(blank, text)))
    return [
        f"{path}:{prose.count(chr(10), 0, m.start()) + 1}: measured-looking figure "
        f"{m.group(0)!r} typed into the page; measured numbers come from a harness marker"
        for m in _FIGURE.finditer(prose)
    ]


class HarnessPlugin(BasePlugin[HarnessConfig]):
    """Thin: checks and renderers live in the harness; this adapts them to MkDocs."""

    def on_config(self, config: Any) -> Any:
        root = Path(config.config_file_path).resolve().parent
        results = root / self.config.results
        folder = os.environ.get("HARNESS_CACHE", self.config.cache_dir)
        cache = root / folder if folder else None
        colab = colab_base(config.repo_url, config.edit_uri, config.docs_dir)
        i18n = config.plugins.get("i18n")
        inputs = (root, results, cache)
        if (i18n is not None and getattr(i18n, "building", False)
                and getattr(self, "_loaded", None) == inputs):
            # Another language of the same build (mkdocs-static-i18n runs it from its
            # on_post_build, with the same config and plugins): the files were read and
            # checked moments ago, by this build; only the language differs.
            self.site = replace(self.site, colab=colab)
        else:
            try:
                project = Project.load(root)
                specs = load_trials()
                records = load_all(results, root=root)
                problems = [p.message for p in check_project(project)]
                problems += check_records(records, project=project, specs=specs,
                                          results=results)
                raise_problems(problems)
            except HarnessError as exc:
                raise PluginError(str(exc)) from None
            self.site = Site(project=project, records=records, specs=specs,
                             sources=workload_sources(), colab=colab)
            self._inputs_digest = inputs_digest(
                [HARNESS, results, root / "snippets", root / config.docs_dir])
            self._templates = SharedTemplates(cache / "templates") if cache else None
            self._prefetch = None
            self._loaded = inputs
        self.notebooks = None
        self.search = SearchCache(cache / "search" if cache else None)
        self.pages = RenderCache(cache / "pages" if cache else None, config)
        self.markers = MarkerCache(cache / "markers" if cache else None,
                                   self._inputs_digest + colab)
        self._notebook_folder = None
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None and cache is not None:
            # mkdocs-jupyter's own cache is replaced, not stacked: under static-i18n each
            # language build evicts the other's entries (see notebook_cache.py).
            jupyter.config["cache"] = False
            self._notebook_folder = cache / "notebooks"
        return config

    def on_pre_build(self, config: Any) -> None:
        """Open the notebook cache for this build's language, and index each page for
        search from the content-keyed cache, and not at all a page whose entries the
        split index leaves out. Here, not in ``on_config``: mkdocs-static-i18n sets the
        build's language in its ``on_config`` (priority -100, after this plugin's), and
        the search plugin makes a new index in every (language) build's ``on_config``."""
        if self._notebook_folder is not None:
            self.notebooks = NotebookCache(
                self._notebook_folder,
                render_fingerprint(theme=config.theme.name or "",
                                   language=config.theme.get("language") or ""),
                self._templates,
            )
            self.notebooks.prefetch = self._prefetch
        search = config.plugins.get("search") or config.plugins.get("material/search")
        index = getattr(search, "search_index", None)
        if type(index).__module__ != "material.plugins.search.plugin":
            return
        split = _search_languages(config)
        others = split[1] if split else []
        self.search.install(
            index, skip=lambda page: split is not None
            and left_out_of_search(page.url, others, _UNSEARCHED))

    @event_priority(-110)
    def on_files(self, files: Any, config: Any) -> Any:
        """Give notebooks back their page wrapper after mkdocs-static-i18n.

        static-i18n (on_files at priority -100) re-creates every File, dropping
        mkdocs-jupyter's NotebookFile, so notebooks were copied as raw JSON
        (ultrabug/mkdocs-static-i18n#198). Re-wrapping in place keeps i18n's own
        Files collection and the per-language destination it computed;
        tests/integration/test_site_build.py checks both languages render.
        """
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None:
            return files
        from mkdocs_jupyter.plugin import NotebookFile

        for file in list(files):
            if isinstance(file, NotebookFile) or not jupyter.should_include(file):
                continue
            wrapped = NotebookFile(file, **config)
            wrapped.dest_path, wrapped.abs_dest_path = file.dest_path, file.abs_dest_path
            wrapped.url = file.url
            files.remove(file)
            files.append(wrapped)
        self._prefetch_notebooks(files, config, jupyter.config)
        return files

    def _prefetch_notebooks(self, files: Any, config: Any, options: Any) -> None:
        """On a cold cache, convert the notebooks of every language in a second process
        (notebook_cache.prefetch) while this one renders the articles: the conversions
        are most of a cold build, and the machine has a second core. Once per build."""
        i18n = config.plugins.get("i18n")
        if self.notebooks is None or (i18n is not None and getattr(i18n, "building", False)):
            return
        sources = [Path(f.abs_src_path) for f in files if type(f).__name__ == "NotebookFile"]
        jobs = [(self.notebooks, s, Conversion.of(options, str(s))) for s in sources]
        split = _search_languages(config)
        for lang in split[1] if split else []:
            # Each other language's build (static-i18n, suffix structure) renders the
            # notebook's `<name>.<lang>.ipynb` twin under that language. A wrong guess
            # only leaves that build to convert the notebook itself.
            cache = NotebookCache(self.notebooks.folder,
                                  render_fingerprint(theme=config.theme.name or "",
                                                     language=lang), self._templates)
            for source in sources:
                twin = _twin(source, split[0], lang)
                jobs.append((cache, twin, Conversion.of(options, str(twin))))
        self._prefetch = self.notebooks.prefetch = prefetch(jobs)

    @event_priority(-10)
    def on_pre_page(self, page: Any, config: Any, files: Any) -> Any:
        """Serve notebook conversions from the content-keyed cache (after
        mkdocs-jupyter's own ``on_pre_page`` has prepared the page), and the Markdown
        rendering of every other page from its own (render_cache.py)."""
        if self.notebooks is not None and type(page.file).__name__ == "NotebookFile":
            self.notebooks.install(page, config.plugins["mkdocs-jupyter"].config)
        else:
            self.pages.install(page)
        return page

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """`mkdocs serve` rebuilds when a snippet, a record, the trials or the harness
        change, not only the pages (the preview is not strict: see mkdocs.yml)."""
        root = Path(config.config_file_path).resolve().parent
        for folder in (root / "snippets", root / self.config.results, root / "harness"):
            if folder.is_dir():
                server.watch(str(folder))
        return server

    def on_env(self, env: Any, config: Any, files: Any) -> Any:
        """Share compiled theme templates between the language builds and with later
        builds (the theme's ~90 Jinja templates otherwise compile on every build)."""
        if self.notebooks is not None and env.bytecode_cache is None:
            env.bytecode_cache = self.notebooks.templates
        return env

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        """A notebook page links the shared JupyterLab stylesheet instead of inlining it."""
        if type(page.file).__name__ != "NotebookFile":
            return output
        return share_notebook_styles(output, page.url, Path(config.site_dir))

    @event_priority(-120)
    def on_post_build(self, config: Any) -> None:
        """Once every language is built (after mkdocs-static-i18n's ``on_post_build``,
        priority -100, has merged the search index), split the index per language,
        without the notebook copies of the articles, and prune the caches (once per
        build, not once per language: pruning lists every entry)."""
        i18n = config.plugins.get("i18n")
        if i18n is not None and getattr(i18n, "building", False):
            return
        if self._prefetch is not None:
            self._prefetch.stop()  # every notebook is rendered: what it still does is moot
        split = _search_languages(config)
        if split is not None:
            split_search_index(Path(config.site_dir), split[0], split[1], excluded=_UNSEARCHED)
        self.markers.prune()
        self.search.prune()
        self.pages.prune()
        if self.notebooks is not None:
            self.notebooks.prune()
            log.debug("notebook cache: %d hit(s), %d conversion(s)",
                      self.notebooks.hits, self.notebooks.misses)

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:
        root = self.site.project.root
        source = Path(page.file.abs_src_path).resolve()
        shown = source.relative_to(root) if source.is_relative_to(root) else source
        lang = config.theme.get("language", "es")
        # MkDocs hands over the page without its front matter; pad it back with empty
        # lines so every line reported below is the line in the file.
        # (static-i18n rewrites admonition lines but never adds or removes one.)
        raw = source.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        offset = raw[: len(raw) - len(body)].count("\n")
        padded = "\n" * offset + markdown
        return self._page(padded, shown, lang)[offset:]

    def _page(self, markdown: str, shown: Path, lang: str) -> str:
        try:
            resolved = resolve_includes(self.site.project, markdown, shown)
            included = {include.snippet_id for include, _ in resolved}
            page = Page(lang=lang, included=included)
            pieces: list[str] = []
            position = 0
            for marker in find_markers(markdown, shown):
                text, stale = self.markers.rendered(
                    self.markers.key(marker, lang, included),
                    lambda m=marker: _markdown_and_stale(render_marker(m, self.site, page)))
                for message in stale:
                    log.warning(message)
                pieces += [markdown[position : marker.start], text, rerecord_hint(stale, lang)]
                position = marker.end
            pieces.append(markdown[position:])
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        if self.config.check_typed_figures:
            for message in typed_figures(markdown, shown):
                log.warning(message)
        return "".join(pieces)
