"""Every value from a record, an expectation or an environment reaches the page as text.

A property test over every renderer: the real pages' markers (every marker kind the
registry has, each as the pages use it) rendered from the real records and expectations
with every free-text field replaced by hostile strings (HTML, Markdown links and images,
attribute breakers, marker look-alikes), then turned into HTML by Python-Markdown with
the site's own extensions, as the build does. No element, attribute or link that a
hostile string spells may survive. A kind the pages do not use fails the test, so a new
marker kind cannot go untested.
"""

from __future__ import annotations

import dataclasses
import html
import html.parser
import itertools
from pathlib import Path
from typing import Any

import markdown
import pytest
from mkdocs.config import load_config
from support import ROOT

from harness.records.store import Records, load_all
from harness.sources.pages import find_markers
from harness.sources.project import Project
from harness.sources.trials import load_trials, workload_sources
from harness.views.markers import MARKERS, PageContext, Site, render_marker

HOSTILE = (
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    '" onmouseover="alert(1)" x="',
    "' onmouseover='alert(1)' x='",
    "![i](https://example.invalid/i.png)",
    "<script>alert(1)</script>",
    '<!-- harness:observed snippet="que-es-pytorch/derivada_cuadrado" -->',
    "</td></tr></table><b>bold</b>",
    "<https://example.invalid/autolink>",
    "`code` **strong** | cell",
)
#: Fields that name things the store and the views look up by; everything else is text.
IDENTITY = {"snippet", "name", "kind", "trial", "torch_build", "device_key", "run_id",
            "spec_sha256", "snippet_sha256", "throughput_unit", "memory_method", "task",
            "dtype", "shape", "date", "location", "microarchitecture", "max_clock_source",
            "session"}


def _hostile(obj: Any, counter: itertools.count[int]) -> Any:
    """``obj`` with every free-text field (nested too) replaced by a hostile string."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.name in IDENTITY:
            continue
        if isinstance(value, str) and value:
            changes[f.name] = HOSTILE[next(counter) % len(HOSTILE)]
        elif isinstance(value, dict) and f.name == "value":  # an exception's message
            changes[f.name] = {**value, "message": HOSTILE[next(counter) % len(HOSTILE)]}
    if getattr(obj, "kind", None) == "text":
        changes["value"] = HOSTILE[next(counter) % len(HOSTILE)]
    return dataclasses.replace(obj, **changes)


def _site() -> Site:
    counter = itertools.count()
    project = Project.load(ROOT)
    expectations = {sid: [_hostile(e, counter) for e in items]
                    for sid, items in project.expectations.items()}
    project = dataclasses.replace(project, expectations=expectations)
    records = load_all(ROOT / "results", root=ROOT)
    items = []
    for record in records.items:
        items.append(dataclasses.replace(
            record,
            environments={k: _hostile(v, counter) for k, v in record.environments.items()},
            # A row's memory method is text the views only show (its tables, «Todas
            # las columnas»); its error, where it has one, too.
            rows=[dataclasses.replace(r, memory_method=HOSTILE[next(counter) % len(HOSTILE)],
                                      error=HOSTILE[next(counter) % len(HOSTILE)]
                                      if r.error else "") for r in record.rows],
            observations=[_hostile(o, counter) for o in record.observations]))
    return Site(project=project, records=Records(items=items), specs=load_trials(),
                sources=workload_sources(),
                colab="https://colab.research.google.com/github/o/r/blob/main/docs")


class _Found(html.parser.HTMLParser):
    """Markup a hostile string spells: a handler attribute, a link or image to its
    addresses, a script, an element around its words, an unexpanded marker."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.append(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.bad.append(f"<{tag} {name}=...>")
            # A title may hold the text of a link (it is only text there); an address may not.
            # A CSV download carries the record's text, percent-encoded, as its data.
            if name in ("href", "src", "srcset", "action", "formaction", "data") and value and (
                    "javascript:" in value or "example.invalid" in value or value == "x"
            ) and not value.startswith("data:text/csv;charset=utf-8,"):
                self.bad.append(f"<{tag} {name}={value!r}>")
        # A JSON data block is inert (harness:reader-box); it is checked in handle_data.
        if tag == "script" and dict(attrs).get("type") != "application/json":
            self.bad.append("<script>")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag)]

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] == "script" and "<" in data:
            self.bad.append(f"<script>{data[:80]}")  # JSON must escape "<" ("\\u003c")
        spelled = {"b": "bold", "strong": "strong", "code": "code"}
        if self.open and spelled.get(self.open[-1]) == data.strip():
            self.bad.append(f"<{self.open[-1]}>{data}</{self.open[-1]}>")

    def handle_comment(self, data: str) -> None:
        if "harness:" in data:
            self.bad.append(f"<!--{data}-->")


def _converter() -> markdown.Markdown:
    config = load_config(config_file=str(ROOT / "mkdocs.yml"))
    return markdown.Markdown(extensions=config["markdown_extensions"],
                             extension_configs=config["mdx_configs"])


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[tuple[str, str]]]:
    """marker kind → [(page:line, HTML)] for every marker of every page, both languages."""
    site = _site()
    found: dict[str, list[tuple[str, str]]] = {}
    converter = _converter()
    for page in sorted((ROOT / "docs").glob("*.md")):
        lang = "en" if page.name.endswith(".en.md") else "es"
        shown = Path("docs") / page.name
        for marker in find_markers(page.read_text(encoding="utf-8"), shown):
            context = PageContext(lang=lang, slug=page.name.split(".")[0],
                                  included=set(site.project.snippets))
            text = render_marker(marker, site, context).markdown
            converter.reset()
            found.setdefault(marker.kind, []).append((str(marker.location),
                                                      converter.convert(text)))
    return found


def test_every_marker_kind_is_covered(rendered) -> None:
    assert set(rendered) == set(MARKERS), set(MARKERS) - set(rendered)


@pytest.mark.parametrize("kind", sorted(MARKERS))
def test_no_hostile_markup_survives(rendered, kind: str) -> None:
    bad = []
    for where, page_html in rendered.get(kind, []):
        parser = _Found()
        parser.feed(page_html)
        bad += [f"{where}: {b}" for b in parser.bad]
    assert not bad, "\n".join(bad[:20])


def test_every_field_line_of_a_row_is_covered(rendered) -> None:
    """«Todas las columnas» is among what the property checks: its lines render, and
    show the hostile memory methods as text."""
    lines = [h for _, h in rendered["all-columns"] if '<dl class="harness-fields' in h]
    assert lines, "the all-columns marker renders no «Todas las columnas»"
    assert any("<dd>&lt;img src=x onerror=alert&#40;1&#41;&gt;</dd>" in h for h in lines)


def test_a_marker_shown_as_code_is_left_as_code() -> None:
    """A page that writes a marker in inline code or a fenced block (to document it)
    shows that text; the harness neither expands it nor calls it a broken marker."""
    from harness.sources.checks import check_pages

    text = ('Escribe `<!-- harness:drift -->` donde va el informe.\n\n'
            '```md\n<!-- harness:drift -->\n<!-- harness: drift -->\n```\n\n'
            '<!-- harness:environment -->\n')
    shown = Path("docs/pagina.md")
    assert [(m.kind, m.location.line) for m in find_markers(text, shown)] == [("environment", 8)]
    assert check_pages(text, shown) == []


def test_a_hostile_derivation_reaches_a_notebook_as_text() -> None:
    """Issue 27: a derivation is data in a notebook's Markdown cell too (mkdocs-jupyter
    renders that cell's HTML), escaped as on the page."""
    import dataclasses

    from harness.sources.project import Project
    from harness.views.notebooks import _expectations_cell

    project = Project.load(ROOT)
    snippet_id, items = next(iter(sorted(project.expectations.items())))
    hostile = "<img src=x onerror=alert(1)> *x* [l](javascript:alert(1))"
    bad = dataclasses.replace(items[0], derivation=hostile, derivation_en=hostile)
    project = dataclasses.replace(
        project, expectations={**project.expectations, snippet_id: [bad, *items[1:]]})
    for lang in ("es", "en"):
        text = _expectations_cell(project, snippet_id, lang)
        assert "<img" not in text and "&lt;img src=x" in text, text
        assert "[l](javascript" not in text, text  # escaped: \[l\](…) is no link
    # The expected value and an exception's type are data too: a backtick in one closed
    # the code span it sat in, and what followed was markup.
    for field in ("value", "raises"):
        value = "torch.float32` <img src=x onerror=alert(1)> _u_ `"
        bad = dataclasses.replace(items[0], **{field: value})
        project = dataclasses.replace(
            project, expectations={**project.expectations, snippet_id: [bad, *items[1:]]})
        shown = markdown.markdown(_expectations_cell(project, snippet_id, "es"))
        assert "<img" not in shown and "<em>" not in shown, shown
        assert "torch.float32` <img src=x onerror=alert(1)> _u_ `" in html.unescape(shown)
