"""The MkDocs plugin ``harness``: turns ``<!-- harness:... -->`` markers into tables
and plots read from ``results/``. It never imports torch: the build reads records, it
does not run examples.

An error a contributor must fix (checked in :mod:`harness.sources.checks`,
:mod:`harness.records.validate`, :mod:`harness.views.markers`) raises ``PluginError``
naming file and line; a stale record or a figure typed by hand is a warning that fails
``--strict``. No cache of its own; of another package's objects it writes only
mkdocs-jupyter's ``cache_dir`` option (:meth:`HarnessPlugin.on_pre_build`) and the
notebooks' file wrapper (:func:`harness.site.site_output.rewrap_notebooks`).
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from mkdocs.config import base, config_options
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from harness.core.errors import HarnessError
from harness.records.store import load_all
from harness.records.validate import check_records
from harness.site.site_output import (
    notebook_page,
    rewrap_notebooks,
    search_languages,
    split_search_index,
)
from harness.sources.checks import check_project, raise_problems
from harness.sources.pages import find_markers
from harness.sources.project import Project, resolve_includes
from harness.sources.trials import load_trials, workload_sources
from harness.text.markdown import RECORDED, recorded, without_marks
from harness.text.words import LANGS, word
from harness.views.markers import PageContext, Site, render_marker
from harness.views.notebooks import NOTEBOOK_DIR

if TYPE_CHECKING:  # `mkdocs build` never imports the preview's server
    from mkdocs.livereload import LiveReloadServer

__all__ = ["HarnessConfig", "HarnessPlugin", "typed_figures"]

log = logging.getLogger("mkdocs.plugins.harness")
#: A measured-looking figure in a page's text: a number with a unit of time, rate or
#: size, or a ratio («15×», «15 veces», «93 %»). Not a number that follows a point, a
#: comma or a letter (a version's parts, ``:.1%`` in code), nor a × between two numbers
#: (a shape such as 1024×1024).
_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)*"
_FIGURE = re.compile(
    rf"(?P<number>{_NUMBER})\s*(?:"
    r"(?:[GT]FLOP/s|[KMGT]B/s|[KMGT]iB|[kKMGT]B|ns|µs|μs|us|ms|s)(?![\w/])"
    r"|×(?!\s*\d)|%|x(?=\s+(?:faster|slower)\b)"
    r"|(?<=\s)(?:veces|times)\b)")
#: Percentages that are a definition, not a measurement: the whole, and the levels of a
#: statistical test (a 95 % confidence, a 5 % false alarm rate, a 97.5 % one-sided bound).
_LEVELS = {"100", "99", "97.5", "95", "5"}
_RECORDED = re.compile(rf"<!--{RECORDED}-->.*?<!--/{RECORDED}-->", re.S)
_TAG = re.compile(r"<[^>]*>")
_UNSEEN = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
_COMMAND = re.compile(r"`(python -m harness record[^`]*)`")
_GITHUB = re.compile(r"^https://github\.com/(?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_BRANCH = re.compile(r"^(?:edit|blob|tree)/(?P<branch>[^/]+)/")


def rerecord_hint(stale: list[str], lang: str) -> str:
    """The commands that refresh what a marker showed stale, as a paragraph after it
    (only the preview, not strict, shows it: a strict build fails on stale records)."""
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


def typed_figures(content: str) -> list[str]:
    """Measured-looking figures in a rendered page's HTML ``content`` (its code, inline
    code, claim sentences and admonitions included; not its scripts and stylesheets)
    that no marker brought from a record or trials.toml
    (:func:`harness.text.markdown.recorded`)."""
    text = html.unescape(_TAG.sub(" ", _UNSEEN.sub(" ", _RECORDED.sub(" ", content))))
    return [" ".join(m.group(0).split()) for m in _FIGURE.finditer(text)
            if not (m.group(0).endswith("%") and m["number"].replace(",", ".") in _LEVELS)]


def figure_line(text: str, figure: str) -> int | None:
    """The 1-based line of ``text`` (Markdown or TOML) where ``figure`` was typed: its
    number followed, within a few marks of Markdown, by the rest of it; or None."""
    found = _FIGURE.match(figure)
    number = found.group("number") if found else figure
    rest = re.escape(figure[len(number):].strip())
    pattern = re.compile(rf"(?<![\w.,]){re.escape(number)}[\s`*_<>/\\\w=\"'-]{{0,40}}?{rest}")
    for number_, line in enumerate(text.splitlines(), 1):
        if pattern.search(line):
            return number_
    return None



class HarnessConfig(base.Config):  # type: ignore[no-untyped-call]  # mkdocs untyped
    """The plugin's options in mkdocs.yml, typed as mkdocs-material's plugins keep theirs."""

    results = config_options.Type(str, default="results")
    """Folder of the records, relative to mkdocs.yml."""
    trials = config_options.Type(str, default="trials/trials.toml")
    """The site's measured trials (content, not code), relative to mkdocs.yml."""
    workloads = config_options.Type(str, default="trials/workloads.py")
    """The trials' workload functions, relative to mkdocs.yml."""


class HarnessPlugin(BasePlugin[HarnessConfig]):  # type: ignore[no-untyped-call]
    """Adapts the harness's checks and renderers to MkDocs. One instance serves one
    ``mkdocs build``, every language of mkdocs-static-i18n included: records and
    snippets are read and checked once, on the first ``on_config``."""

    def __init__(self) -> None:
        super().__init__()
        self.site: Site | None = None
        self._warned: set[str] = set()
        """Warnings logged by this build: each once, not once per language."""
        self._notebook_cache = ""
        """mkdocs-jupyter's ``cache_dir`` as configured: each language gets a folder in it."""
        self._post_builds = 0
        """``on_post_build`` calls so far: one per language built."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.site is not None:  # another language of the same build: same files
            return config
        root = Path(config.config_file_path).resolve().parent
        results = root / self.config.results
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
                         sources=workload_sources(workloads=workloads),
                         colab=colab_base(config.repo_url, config.edit_uri, config.docs_dir))
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            self._notebook_cache = str(root / jupyter.config["cache_dir"])
        return config

    def on_pre_build(self, config: MkDocsConfig) -> None:
        """mkdocs-jupyter's conversion cache, one folder per language: it deletes, after
        each build, the entries that build did not use, and under mkdocs-static-i18n
        every language is a build of its own, so with one folder each language evicted
        the other's conversions and every build converted every notebook again."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None and self._notebook_cache:
            language = str(config.theme.get("language") or "default")
            jupyter.config["cache_dir"] = str(Path(self._notebook_cache) / language)

    # After mkdocs-static-i18n's on_files (priority -100), which drops mkdocs-jupyter's
    # wrapper with no public option to keep it (see rewrap_notebooks).
    @event_priority(-110)
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        jupyter = config.plugins.get("mkdocs-jupyter")
        return files if jupyter is None else rewrap_notebooks(files, config, jupyter)

    def on_env(self, env: jinja2.Environment, config: MkDocsConfig,
               files: Files) -> jinja2.Environment:
        """The theme's templates compiled once, not in every build and language: Jinja's
        own bytecode cache, in a folder per Jinja version beside mkdocs-jupyter's cache."""
        if self._notebook_cache and env.bytecode_cache is None:
            folder = Path(self._notebook_cache) / "templates" / f"jinja2-{jinja2.__version__}"
            folder.mkdir(parents=True, exist_ok=True)
            env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

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

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        """The page's markers rendered. A notebook page is left alone: mkdocs-jupyter
        renders it from its file, and ``harness notebooks`` made the file."""
        assert self.site is not None, "on_config runs first"
        if _is_notebook(page, config):
            return markdown
        lang = str(config.theme.get("language", "es"))
        root = self.site.project.root
        source = Path(page.file.abs_src_path or "").resolve()
        shown = source.relative_to(root) if source.is_relative_to(root) else source
        # MkDocs hands over the page without its front matter; pad it back with empty
        # lines so every line reported below is the line in the file.
        # (static-i18n rewrites admonition lines but never adds or removes one.)
        raw = source.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        offset = raw[: len(raw) - len(body)].count("\n")
        if offset == 0 and raw.startswith("---"):  # MkDocs would show it as text
            raise PluginError(front_matter_problem(raw, shown))
        try:
            text, warnings = render_page(self.site, "\n" * offset + markdown, shown, lang)
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        self._warn(warnings)
        return text[offset:]

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        """A page's HTML checked for typed figures where the reader sees them; an
        article's without the marks of recorded figures, a notebook page as the site
        serves it."""
        assert self.site is not None, "on_config runs first"
        if _is_notebook(page, config):
            html = notebook_page(html, page, config, colab=self.site.colab)
        figures = typed_figures(html)
        if figures:  # only then is the page's file read again, to name the line
            source = Path(page.file.abs_src_path or "").read_text(encoding="utf-8")
            self._warn([self._typed(figure, page, source) for figure in figures])
        return without_marks(html)

    @event_priority(-120)
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Once every language is built, split the search index per language, without
        the notebook copies of the articles (they would crowd out the articles).
        mkdocs-static-i18n builds the other languages and merges their search entries in
        the first build's ``on_post_build`` (priority -100), so the last call here (-120)
        is the first build's, after the merge."""
        split = search_languages(config)
        self._post_builds += 1
        if split is not None and self._post_builds == 1 + len(split[1]):
            split_search_index(Path(config.site_dir), split[0], split[1],
                               excluded=(f"{NOTEBOOK_DIR}/",))

    def _typed(self, figure: str, page: Page, source: str) -> str:
        """The warning for ``figure``, typed somewhere on ``page``: at its line in the
        page's Markdown, else at the marker of the claim whose sentence holds it, else
        in one of the page's snippets."""
        assert self.site is not None
        project = self.site.project
        path = Path(page.file.abs_src_path or "")
        slug = path.name.split(".")[0]
        line, origin = figure_line(source, figure), ""
        for claim in (c for (s, _), c in project.claims.items() if s == slug and line is None):
            if any(figure_line(sentence, figure) for sentence in claim.sentences.values()):
                marker = f'harness:claim id="{claim.id}"'
                line = next((n for n, text in enumerate(source.splitlines(), 1)
                             if marker in text), None)
                origin = f" (claim {claim.id!r}, {claim.location})"
                break
        for snippet in sorted((project.root / "snippets" / slug).glob("*.py")):
            found = figure_line(snippet.read_text(encoding="utf-8"), figure)
            if line is None and not origin and found is not None:
                origin = f" (snippet {project.shown(snippet)}:{found})"
        return (f"{project.shown(path)}:{line or 1}: measured-looking figure {figure!r} typed "
                f"into the page{origin}; measured numbers come from a harness marker")

    def _warn(self, messages: list[str]) -> None:
        for message in messages:
            if message not in self._warned:  # the other language shows the same
                self._warned.add(message)
                log.warning(message)


def front_matter_problem(raw: str, shown: Path) -> str:
    """Why the ``---`` block that opens ``raw`` (the page at ``shown``) is no front matter:
    MkDocs reads it silently as Markdown when it is not a closed YAML mapping, and the
    page shows it as text, without its description."""
    import yaml  # MkDocs's own dependency

    head, closed, _ = raw.partition("\n---")
    try:
        data = yaml.safe_load(head.partition("\n")[2])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return (f"{shown}:{2 + mark.line if mark else 1}: the front matter is not valid YAML "
                f"({getattr(exc, 'problem', exc)}); quote a value that holds ': ' or ' #'")
    what = "is not closed by a '---' line" if not closed else "is not a mapping of keys to values"
    return f"{shown}:1: the front matter {what} (found {type(data).__name__})"


def _is_notebook(page: Page, config: MkDocsConfig) -> bool:
    """Whether mkdocs-jupyter renders ``page`` (its own test for the files it takes)."""
    jupyter = config.plugins.get("mkdocs-jupyter")
    return jupyter is not None and bool(jupyter.should_include(page.file))


def render_page(site: Site, markdown: str, shown: Path, lang: str) -> tuple[str, list[str]]:
    """``markdown`` (the page at ``shown``, a path for messages) with each marker replaced
    by what it renders, and the stale-record warnings to log. What a marker renders is
    marked as recorded (:func:`recorded`) but a claim's sentence, whose values only are;
    a stale record is followed by the re-record hint. A problem a contributor must fix
    raises HarnessError naming the page line."""
    warnings: list[str] = []
    resolved = resolve_includes(site.project, markdown, shown)
    page = PageContext(lang=lang, slug=shown.name.split(".")[0],
                       included={include.snippet_id for include, _ in resolved})
    pieces: list[str] = []
    position = 0
    for marker in find_markers(markdown, shown):
        rendered = render_marker(marker, site, page)
        warnings += rendered.stale
        text = rendered.markdown + rerecord_hint(rendered.stale, lang)
        indent = markdown[markdown.rfind("\n", 0, marker.start) + 1: marker.start]
        end = markdown.find("\n", marker.end)
        alone = not indent.strip() and not markdown[marker.end:end if end >= 0 else None].strip()
        if marker.kind != "claim":
            text = recorded(text, block=alone)
        # A marker indented into an admonition: what it renders takes its indentation.
        if indent and not indent.strip():
            text = text.replace("\n", "\n" + indent).rstrip(" ")
        pieces += [markdown[position : marker.start], text]
        position = marker.end
    pieces.append(markdown[position:])
    return "".join(pieces), warnings
