"""The one marker registry: each ``<!-- harness:kind ... -->`` is declared here once,
with its arguments, their valid values and its renderer (read by the plugin, the
notebooks and CONTRIBUTING's marker table). A wrong kind, argument or value fails
naming the page line and the valid alternatives. No torch import.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from harness.core.errors import HarnessError, suggest
from harness.core.types import TrialSpec
from harness.records.drift import drift_report
from harness.records.store import Records
from harness.sources.pages import Marker
from harness.sources.project import Project
from harness.text.words import LANGS, word
from harness.views.claims import render_claim
from harness.views.drift import drift_markdown
from harness.views.measured import (
    Context,
    all_columns_view,
    compare_versions,
    csv_row,
    environment_table,
    measurements,
    plot,
)
from harness.views.notebooks import NOTEBOOK_DIR, notebook_path
from harness.views.observed import render_observed, render_unchecked
from harness.views.reader_box import reader_box_html

__all__ = ["MARKERS", "MarkerKind", "PageContext", "Rendered", "Site", "render_marker"]


@dataclass(frozen=True, kw_only=True)
class Site:
    """What every marker of a build reads, loaded once per build."""

    project: Project
    records: Records
    specs: dict[str, TrialSpec]
    sources: dict[str, str]  # workload sources, for the stale check of trial rows
    colab: str = ""
    """Colab's address of the repository's ``docs/`` folder on its branch, or "" when
    the repository is not on GitHub (then no «Abrir en Colab» button)."""


@dataclass(frozen=True, kw_only=True)
class Rendered:
    markdown: str
    stale: list[str] = field(default_factory=list)
    """One message per stale record shown (the build turns them into warnings)."""


@dataclass(frozen=True, kw_only=True)
class PageContext:
    """The page a marker sits on (not MkDocs' ``Page``: only what a marker reads)."""

    lang: str
    included: set[str]  # snippet ids the page includes
    slug: str = ""
    """The page's slug (``docs/<slug>.md``): whose ``claims.toml`` its claims come from."""


Choices = Callable[[Site, PageContext], Collection[str]]
Renderer = Callable[[Marker, Site, PageContext], Rendered]
#: A measurement marker's view: (context, its arguments, its location) → Markdown.
MeasuredView = Callable[[Context, Mapping[str, str], str], str]


@dataclass(frozen=True)
class MarkerKind:
    name: str
    summary: str  # what it renders, for CONTRIBUTING's table
    render: Renderer
    arguments: dict[str, tuple[str, Choices | None]] = field(default_factory=dict)
    """Every argument (all required): what it takes, and its valid values where they form
    a closed set."""


_GROUP: tuple[str, Choices] = ("a trial group of trials/trials.toml",
                               lambda s, p: {t.group for t in s.specs.values()})


def _measured(view: MeasuredView) -> Renderer:
    """The renderer of a measurement marker whose Markdown ``view`` makes."""

    def render(marker: Marker, site: Site, page: PageContext) -> Rendered:
        context = Context(records=site.records, specs=site.specs, lang=page.lang,
                          sources=site.sources)
        markdown = view(context, marker.args, str(marker.location))
        # A class for the stylesheet (compact type) and for readers' tools to find.
        # md_in_html only where the view wrote Markdown (the CSV row's fence): raw HTML
        # passes through Markdown as it is, unparsed, with every attribute kept.
        html = all(line.lstrip().startswith("<") for line in markdown.splitlines() if line.strip())
        return Rendered(
            markdown=f'<div class="harness-measured"{"" if html else " markdown"}>\n\n'
                     f'{markdown}\n\n</div>\n',
            stale=list(context.stale))

    return render


def _observed(marker: Marker, site: Site, page: PageContext) -> Rendered:
    snippet_id = marker.args["snippet"]
    snippet = site.project.snippets[snippet_id]
    if snippet_id in site.project.unchecked:
        return Rendered(markdown=render_unchecked(site.project.unchecked[snippet_id], page.lang))
    block = render_observed(snippet=snippet, expectations=site.project.expectations[snippet_id],
                            records=site.records.items, lang=page.lang)
    return Rendered(markdown=block.markdown, stale=block.stale)


def _notebook(marker: Marker, site: Site, page: PageContext) -> Rendered:
    notebook = notebook_path(site.project.root / marker.location.path)
    if not notebook.exists():
        raise HarnessError(f"{marker.location}: no notebook {site.project.shown(notebook)}; "
                           "run `python -m harness notebooks --write`")
    stem = notebook.name.split(".")[0]
    links = word(page.lang, "notebook_links").format(
        page=f"{NOTEBOOK_DIR}/{notebook.name}", folder=NOTEBOOK_DIR, stem=stem,
        name=notebook.name)
    if site.colab:
        url = f"{site.colab}/{NOTEBOOK_DIR}/{notebook.name}"
        links += " " + word(page.lang, "open_colab").format(url=url)
    return Rendered(markdown=links)


def _claim(marker: Marker, site: Site, page: PageContext) -> Rendered:
    claim = site.project.claims[(page.slug, marker.args["id"])]
    return Rendered(markdown=render_claim(claim, site.records, site.specs, page.lang,
                                          marker.location))


def _drift(marker: Marker, site: Site, page: PageContext) -> Rendered:
    report = drift_report(site.records, site.project.python_expectations(), list(site.specs))
    return Rendered(markdown=drift_markdown(report, page.lang, specs=site.specs, chart=True))


MARKERS: dict[str, MarkerKind] = {k.name: k for k in (
    MarkerKind("observed", "analytic expectation beside every recorded observation of a snippet",
               _observed, {"snippet": ("an id the page includes", lambda s, p: p.included)}),
    MarkerKind("notebook", "buttons to open and download the page's generated notebook",
               _notebook),
    MarkerKind("measurements", "the group's measured trials, per device and torch build",
               _measured(lambda c, a, w: measurements(c, a["group"])), {"group": _GROUP}),
    MarkerKind("plot", "a log–log chart of the group's latency or throughput",
               _measured(lambda c, a, w: plot(c, a["group"], a["y"], w)), {
                   "group": _GROUP,
                   "y": ("latency or throughput", lambda s, p: ("latency", "throughput"))}),
    MarkerKind("compare-versions", "the group's trials across recorded torch builds",
               _measured(lambda c, a, w: compare_versions(c, a["group"])), {"group": _GROUP}),
    MarkerKind("all-columns", "every recorded field of the group's rows, per device type",
               _measured(lambda c, a, w: all_columns_view(c, a["group"])), {"group": _GROUP}),
    MarkerKind("csv-row", "a real recorded row in the article's 9-column CSV format",
               _measured(lambda c, a, w: csv_row(c, a["trial"])),
               {"trial": ("a trial name of trials/trials.toml", lambda s, p: s.specs)}),
    MarkerKind("environment", "where every record set was made",
               _measured(lambda c, a, w: environment_table(c))),
    MarkerKind("drift", "every example and trial classified across recorded torch builds",
               _drift),
    MarkerKind("reader-box", "a box where a reader pastes the rows docs/assets/medir.py printed",
               lambda m, s, p: Rendered(markdown=reader_box_html(s, p.lang))),
    MarkerKind("claim", "a sentence about the records, checked against them at every build",
               _claim, {"id": ("a claim of the page's snippets/<slug>/claims.toml",
                               lambda s, p: {i for slug, i in s.project.claims
                                             if slug == p.slug})}),
)}


def render_marker(marker: Marker, site: Site, page: PageContext) -> Rendered:
    """Validate ``marker`` against the registry and render it."""
    where = marker.location
    if page.lang not in LANGS:
        raise HarnessError(f"{where}: unknown language {page.lang!r}.{suggest(page.lang, LANGS)}")
    kind = MARKERS.get(marker.kind)
    if kind is None:
        raise HarnessError(
            f"{where}: unknown marker 'harness:{marker.kind}'.{suggest(marker.kind, MARKERS)}")
    for key in marker.args:
        if key not in kind.arguments:
            raise HarnessError(f"{where}: unknown argument {key!r} for harness:{kind.name}."
                               f"{suggest(key, kind.arguments)}")
    for key, (help_text, valid) in kind.arguments.items():
        if key not in marker.args:
            raise HarnessError(f'{where}: harness:{kind.name} needs {key}="..." ({help_text}).')
        if valid is not None and marker.args[key] not in (allowed := valid(site, page)):
            raise HarnessError(f"{where}: unknown {key} {marker.args[key]!r} for "
                               f"harness:{kind.name}.{suggest(marker.args[key], allowed)}")
    return kind.render(marker, site, page)
