"""Notebook pages and search as a reader sees them, measured in Chromium (issue 10).

Notebook pages: no front matter as a heading, no maintainer note first, a recorded
output under every code cell, shared styles (page weight), code that wraps, and an
«Abrir en Colab» button beside the download. Search: results in the reader's
language, articles rather than notebook copies, no «¶» in titles; a word between
marks such as «» is found (issue 20), and every mark the index holds separates words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import ROOT

from tests.browser.browsing import ARTICLES, SCREENSHOTS, search_for

pytestmark = pytest.mark.browser

NOTEBOOKS = [f"{lang}cuadernos/{slug}/" for lang in ("", "en/") for slug in ARTICLES]
MAX_PAGE_BYTES = 250 * 1024
COLAB = "https://colab.research.google.com/github/que-es-pytorch/que-es-pytorch/blob/main/docs"


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_page_weighs_at_most_250_kb(built_site: Path, path: str) -> None:
    html = built_site / path / "index.html"
    assert html.stat().st_size <= MAX_PAGE_BYTES, (path, html.stat().st_size)
    assert "<style" not in html.read_text(encoding="utf-8")


def test_notebook_styles_are_one_shared_stylesheet(open_page: Any) -> None:
    sheets = set()
    for path in (NOTEBOOKS[0], NOTEBOOKS[-1]):
        tab = open_page(path)
        sheets |= set(tab.evaluate("""[...document.styleSheets].map(s => s.href || 'inline')
            .filter(h => h.includes('/assets/jupyter/') || h === 'inline')"""))
    assert len(sheets) == 1 and "inline" not in sheets, sheets


@pytest.mark.parametrize("width", [1280, 390])
def test_code_cells_are_styled(open_page: Any, width: int) -> None:
    tab = open_page(NOTEBOOKS[1], width=width)
    style = tab.evaluate("""(() => {
        const area = document.querySelector('.jp-CodeCell .jp-InputArea');
        const editor = area.querySelector('.jp-InputArea-editor');
        const pre = editor.querySelector('pre');
        const s = getComputedStyle(editor), a = getComputedStyle(area);
        return {display: a.display, border: s.borderTopWidth, background: s.backgroundColor,
                font: getComputedStyle(pre).fontFamily,
                width: editor.getBoundingClientRect().width,
                column: document.querySelector('article.md-content__inner')
                    .getBoundingClientRect().width}; })()""")
    # Unstyled, the input area would be a block with a transparent, borderless editor.
    assert style["display"] == "flex", style
    assert style["border"] != "0px" and style["background"] != "rgba(0, 0, 0, 0)", style
    assert "mono" in style["font"].lower(), style
    assert style["width"] > style["column"] * 0.6, style  # the code has room to read


@pytest.mark.parametrize("path", [NOTEBOOKS[0], NOTEBOOKS[5]])
def test_first_heading_is_the_title_and_the_note_is_last(open_page: Any, path: str) -> None:
    tab = open_page(path)
    first = tab.evaluate("""(() => {
        const content = document.querySelector('article.md-content__inner');
        const heading = content.querySelector('h1, h2');
        const top = [...content.querySelectorAll('.jp-Cell')]
            .find(c => c.getBoundingClientRect().height > 0);
        return [heading.textContent.replace('¶', '').trim(), top.innerText.slice(0, 200),
                heading.getBoundingClientRect().top]; })()""")
    heading, top_text, heading_top = first
    assert not heading.lower().startswith("description"), heading
    source = ROOT / "docs" / (path.split("/")[-2] + (".en.md" if path.startswith("en/") else ".md"))
    title = next(line[2:] for line in source.read_text(encoding="utf-8").splitlines()
                 if line.startswith("# "))
    assert heading == title.strip(), (heading, title)
    assert "edites" not in top_text and "edit it" not in top_text, top_text
    assert heading_top < 400, heading_top  # the title is the first thing read
    note_below_code = tab.evaluate("""(() => {
        const cells = [...document.querySelectorAll('.jp-Cell')];
        const note = cells.findIndex(c => /no lo edites|do not edit/.test(c.innerText));
        const lastCode = cells.map(c => c.classList.contains('jp-CodeCell')).lastIndexOf(true);
        return [note, lastCode, cells.length]; })()""")
    note, last_code, count = note_below_code
    assert note == count - 1 and note > last_code, note_below_code


@pytest.mark.parametrize("path", [NOTEBOOKS[1], NOTEBOOKS[4]])
def test_every_code_cell_shows_its_recorded_output(open_page: Any, path: str) -> None:
    tab = open_page(path)
    cells = tab.evaluate("""[...document.querySelectorAll('.jp-CodeCell')].map(c => {
        const out = c.querySelector('.jp-OutputArea-output');
        return out ? [out.innerText, out.getBoundingClientRect().height] : ['', 0]; })""")
    assert cells
    for text, height in cells:
        assert height >= 30, cells
        provenance = text.strip().splitlines()[-1]
        assert "torch " in provenance and "CPU" in provenance, provenance
        assert any(d.isdigit() for d in provenance.rsplit("·", 1)[-1]), provenance  # a date
        assert " = " in text


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", [NOTEBOOKS[1], NOTEBOOKS[2]])
def test_long_code_lines_wrap_or_scroll_visibly(open_page: Any, path: str, width: int) -> None:
    tab = open_page(path, width=width)
    boxes = tab.evaluate("""[...document.querySelectorAll(
            '.jp-InputArea-editor, .jp-InputArea-editor pre, .jp-OutputArea-output pre')]
        .filter(e => e.offsetParent).map(e => {
            // The width its longest line needs, unwrapped: a hidden copy with white-space: pre.
            const copy = e.cloneNode(true);
            Object.assign(copy.style, {whiteSpace: 'pre', position: 'absolute',
                                       visibility: 'hidden', width: 'auto', left: '0'});
            e.parentNode.appendChild(copy);
            const natural = copy.scrollWidth;
            copy.remove();
            const s = getComputedStyle(e);
            return {natural, scroll: e.scrollWidth, client: e.clientWidth,
                    bar: ['auto', 'scroll'].includes(s.overflowX)
                         && e.offsetHeight - e.clientHeight > 0}; })""")
    assert boxes
    cut = [b for b in boxes if b["scroll"] > b["client"] + 1 and not b["bar"]]
    assert not cut, cut
    long_lines = [b for b in boxes if b["natural"] > b["client"] + 1]
    if width == 390 or "backward" in path:  # these hold lines wider than their cell
        assert long_lines, boxes
    assert tab.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize(("lang", "label"), [("", "Abrir en Colab"), ("en/", "Open in Colab")])
def test_open_in_colab_sits_beside_the_download(open_page: Any, lang: str, label: str) -> None:
    tab = open_page(f"{lang}que-es-pytorch/")
    colab = tab.get_by_role("link", name=label)
    download = tab.locator("a.md-button[download]")
    assert colab.is_visible() and download.is_visible()
    name = "que-es-pytorch.en.ipynb" if lang else "que-es-pytorch.ipynb"
    assert colab.get_attribute("href") == f"{COLAB}/cuadernos/{name}"
    a, b = download.bounding_box(), colab.bounding_box()
    assert abs(a["y"] - b["y"]) <= 4, (a, b)  # same row
    assert 0 <= b["x"] - (a["x"] + a["width"]) <= 40, (a, b)  # right beside it


#: Every code cell's prompt, its outputs' boxes against the cell's, and each output's
#: words that the browser broke across two lines (a Range over a word has one client
#: rectangle per line it occupies). mkdocs-jupyter nests each cell in a wrapper of the
#: same classes: the innermost is the cell.
_CELLS = """[...document.querySelectorAll('.jp-CodeCell')]
  .filter(c => c.offsetParent && !c.querySelector('.jp-CodeCell')).map(c => {
    const cell = c.getBoundingClientRect();
    const prompt = c.querySelector('.jp-InputPrompt');
    const outputs = [...c.querySelectorAll('.jp-OutputArea-output')].map(o => {
        const text = o.querySelector('pre') || o, box = o.getBoundingClientRect();
        const shown = text.getBoundingClientRect(), style = getComputedStyle(o);
        const broken = [], lineHeight = parseFloat(getComputedStyle(text).lineHeight);
        const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of node.data.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (tops.size > 1) broken.push(m[0]);
            }
        }
        return {left: box.left, right: box.right, textRight: shown.right,
                scrolls: ['auto', 'scroll'].includes(style.overflowX),
                focusable: o.tabIndex >= 0, broken,
                lines: text.innerText.replace(/\\n$/, '').split('\\n').length,
                rendered: Math.round(text.clientHeight / lineHeight)};
    });
    return {prompt: prompt ? prompt.innerText.replace(/\\s+/g, ' ').trim() : '',
            left: cell.left, right: cell.right, outputs}; })"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", [NOTEBOOKS[0], NOTEBOOKS[1], NOTEBOOKS[5]])
def test_executed_cells_are_numbered_and_their_outputs_fit(open_page: Any, path: str,
                                                           width: int) -> None:
    """Issue 20: a cell with a recorded output reads In [1]:, In [2]:… in order; its
    output stays inside its cell, wraps only at spaces (no word broken across lines)
    and scrolls in its own focusable box when a word is wider; the page never widens."""
    tab = open_page(path, width=width)
    cells = tab.evaluate(_CELLS)
    executed = [c for c in cells if c["outputs"]]
    assert executed, cells
    assert [c["prompt"] for c in executed] == [f"In [{n}]:" for n in range(1, len(executed) + 1)]
    outputs = [o for c in executed for o in c["outputs"]]
    for cell in executed:
        for out in cell["outputs"]:
            assert cell["left"] - 1 <= out["left"] and out["right"] <= cell["right"] + 1, cell
            assert out["textRight"] <= cell["right"] + 1 or (out["scrolls"] and out["focusable"]), out
            assert not out["broken"], out["broken"]
    if width == 390:  # the phone's column is narrower than some output lines: they wrap
        assert any(o["rendered"] > o["lines"] for o in outputs), outputs
    assert tab.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize("path", [NOTEBOOKS[0], NOTEBOOKS[5]])
def test_notebook_page_offers_its_file_and_colab(open_page: Any, built_site: Path,
                                                 site_url: str, path: str) -> None:
    """Issue 20: under a notebook page's title, its own .ipynb (mkdocs-jupyter's
    include_source copy, a file of the built site) and the same file in Colab."""
    tab = open_page(path)
    english = path.startswith("en/")
    name = path.split("/")[-2] + (".en.ipynb" if english else ".ipynb")
    download = tab.get_by_role("link", name="Download .ipynb" if english else "Descargar .ipynb")
    colab = tab.get_by_role("link", name="Open in Colab" if english else "Abrir en Colab")
    assert download.is_visible() and colab.is_visible()
    assert colab.get_attribute("href") == f"{COLAB}/cuadernos/{name}"
    assert download.get_attribute("download") is not None
    address = download.evaluate("a => a.href")
    assert address == f"{site_url}{path}{name}", address
    answer = tab.request.get(address)
    assert answer.ok, (address, answer.status)
    copy = built_site / path / name
    assert answer.body() == copy.read_bytes() == (ROOT / "docs" / "cuadernos" / name).read_bytes()
    title, a, b = (e.bounding_box() for e in (tab.locator("article h1").first, download, colab))
    assert title["y"] < a["y"] < 400 and abs(a["y"] - b["y"]) <= 4, (title, a, b)


def _search(tab: Any, query: str) -> list[dict[str, str]]:
    search_for(tab, query)
    return tab.evaluate("""[...document.querySelectorAll(
            '.md-search-result__list > .md-search-result__item > a.md-search-result__link')]
        .map(a => ({href: a.href,
                    title: (a.querySelector('h1, h2') || a).textContent.trim()}))""")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_search_is_per_language_and_articles_come_first(open_page: Any, site_url: str,
                                                        lang: str) -> None:
    tab = open_page("" if lang == "es" else "en/")
    results = _search(tab, "autograd")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"search-autograd-{lang}.jpg"), type="jpeg", quality=80)
    paths = ["/" + r["href"].removeprefix(site_url) for r in results]  # /en/… or /…
    first = paths[:5]
    assert len(first) >= 3, results
    if lang == "es":
        assert all(not p.startswith("/en/") for p in first), first
    else:
        assert all(p.startswith("/en/") for p in first), first
    assert not any("/cuadernos/" in p for p in paths), paths
    assert any(slug in first[0] for slug in ARTICLES), first
    assert not any("¶" in r["title"] for r in results), results
    tab.keyboard.press("Escape")


def test_english_switcher_still_leads_to_the_spanish_twin(open_page: Any, site_url: str) -> None:
    tab = open_page("en/que-es-pytorch/")
    selector = tab.locator(".md-header .md-select").filter(has=tab.locator('a[hreflang="es"]'))
    selector.hover()
    link = selector.locator('a[hreflang="es"]')
    link.wait_for(state="visible")
    with tab.expect_navigation(wait_until="domcontentloaded"):
        link.click()
    assert tab.url == f"{site_url}que-es-pytorch/"
    assert tab.evaluate("document.documentElement.lang") == "es"


def test_a_word_between_quotes_is_found(open_page: Any, site_url: str) -> None:
    """«ruidosa» is a word of Medir's reading guide (on its records page); Material's default separator
    (spaces and hyphens) kept it with its quotes, so a search for it found only the
    sections where it stands alone. Every section holding «ruidosa» is a result."""
    tab = open_page("")
    quoted = tab.evaluate("""async () => (await (await fetch('search/search_index.json'))
        .json()).docs.filter(d => d.text.includes('«ruidosa»')).map(d => d.location)""")
    assert quoted and all(q.startswith("medir-pytorch-registros/#") for q in quoted), quoted
    _search(tab, "ruidosa")
    found = tab.evaluate("""[...document.querySelectorAll('.md-search-result__item a')]
        .map(a => a.href)""")
    sections = {href.removeprefix(site_url).replace("?h=ruidosa", "") for href in found}
    assert set(quoted) <= sections, (quoted, sorted(sections))
    tab.keyboard.press("Escape")


#: lunr's query operators (presence, wildcard, fuzziness, boost): no separator splits them.
_OPERATORS = "+*~^"


@pytest.mark.parametrize("lang", ["", "en/"])
def test_every_mark_in_the_index_separates_words(open_page: Any, lang: str) -> None:
    """Each character of the index's text that is neither a letter, a digit nor a space
    is a separator, as Material's search reads the setting: JavaScript's RegExp, from
    the index's own configuration."""
    tab = open_page(lang)
    found = tab.evaluate("""async (operators) => {
        const index = await (await fetch('search/search_index.json')).json();
        const separator = new RegExp('^(?:' + index.config.separator + ')$');
        const marks = new Set();
        for (const doc of index.docs)
            for (const c of (doc.title + ' ' + doc.text).replace(/<[^>]*>/g, ' '))
                if (/[^\\p{L}\\p{N}\\s]/u.test(c) && !operators.includes(c)) marks.add(c);
        return {marks: [...marks], joined: [...marks].filter(c => !separator.test(c))};
    }""", _OPERATORS)
    assert len(found["marks"]) > 20, found  # the pages use many: the check has material
    assert not found["joined"], found["joined"]
