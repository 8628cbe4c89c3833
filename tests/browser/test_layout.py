"""What a reader sees on a phone and a desktop, measured in Chromium (issue 20).

Every check reads rendered boxes: the observed values of each block in view, nothing in
the content reaching past the screen, identifiers that break only after ``/`` and
``_``, and no plot text outside its chart.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.browsing import ARTICLES, switch_palette

pytestmark = pytest.mark.browser

OBSERVED_PAGES = ["que-es-pytorch/", "backward-frente-a-autograd-grad/",
                  "en/backward-frente-a-autograd-grad/"]
PAGES = ["", *(f"{a}/" for a in ARTICLES), "deriva-entre-versiones/",
         *(f"cuadernos/{a}/" for a in ARTICLES), "en/", "en/backward-frente-a-autograd-grad/"]

#: Elements past the right edge of the screen, outside any box that scrolls sideways
#: within the screen (a plot, a code block): clipped text the reader cannot reach.
_OUTSIDE = """(() => {
    const scrolls = e => { for (let a = e.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (['auto', 'scroll'].includes(s.overflowX) && a.scrollWidth > a.clientWidth)
            return true; } return false; };
    return [...document.querySelectorAll('.md-content *')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.right > innerWidth + 1 && !scrolls(e); })
      .slice(0, 8).map(e => `${e.tagName}.${e.className} ${Math.round(
          e.getBoundingClientRect().right)}px: ${e.textContent.slice(0, 60)}`); })()"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", OBSERVED_PAGES)
def test_observed_values_are_in_view_and_provenance_is_folded(open_page: Any, path: str,
                                                              width: int) -> None:
    tab = open_page(path, width=width)
    # An example the site added is a fold (issue 28): the reader opens it to read it.
    tab.evaluate("document.querySelectorAll('details.example').forEach(d => { d.open = true; })")
    blocks = tab.evaluate("""[...document.querySelectorAll('.md-content .harness-observed')]
        .map(b => ({open: b.tagName !== 'DETAILS' || b.open,
                    provenance: [...b.querySelectorAll('details.harness-provenance')]
                        .map(d => d.open),
                    cells: [...b.querySelectorAll('table.harness-observed-values td')]
                        .map(td => { const r = td.getBoundingClientRect();
                                     return [r.left, r.right, r.height, td.innerText]; }),
                    scrolled: [...b.querySelectorAll('.harness-scroll')]
                        .map(s => s.scrollWidth - s.clientWidth)}))""")
    assert blocks, f"/{path}: no observed block"
    for block in blocks:
        assert block["open"], block  # the values are what the reader came for
        assert block["provenance"] == [False], block  # derivation and provenance folded
        assert block["cells"], block
        for left, right, height, text in block["cells"]:
            assert height > 0 and left >= 0 and right <= width + 1, (path, width, text)
        assert all(extra <= 1 for extra in block["scrolled"]), block  # no sideways scroll


@pytest.mark.parametrize("width", [390])
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.strip("/") or "home")
def test_nothing_in_the_content_is_past_the_screen(open_page: Any, path: str,
                                                   width: int) -> None:
    tab = open_page(path, width=width)
    assert tab.evaluate("document.documentElement.scrollWidth") <= width, path
    assert tab.evaluate(_OUTSIDE) == [], path


def test_long_identifiers_break_after_slash_or_underscore_only(open_page: Any) -> None:
    """On a phone a snippet id wraps; each line of it ends at ``/``, ``_``, ``-`` or a
    space, never inside a word."""
    tab = open_page("backward-frente-a-autograd-grad/", width=390)
    tab.evaluate("document.querySelectorAll('details.example').forEach(d => { d.open = true; })")
    breaks = tab.evaluate("""[...document.querySelectorAll('.md-content code')]
        .filter(c => !c.closest('pre') && new Set([...c.getClientRects()]
            .filter(r => r.width > 0).map(r => Math.round(r.top))).size > 1).map(c => {
            const text = c.textContent, ends = [];
            const walker = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
            let top = null, previous = '';
            for (let node = walker.nextNode(); node; node = walker.nextNode())
                for (let i = 0; i < node.length; i++) {
                    const range = document.createRange();
                    range.setStart(node, i); range.setEnd(node, i + 1);
                    const box = range.getClientRects()[0];
                    if (!box) continue;
                    if (top !== null && box.top > top + 2) ends.push(previous);
                    top = box.top; previous = node.data[i]; }
            return [text, ends]; })""")
    assert breaks, "no identifier wraps at 390 px: this test would check nothing"
    for text, ends in breaks:
        assert ends and all(end in "/_- " for end in ends), (text, ends)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", ["medir-pytorch-registros/", "en/medir-pytorch-registros/"])
def test_no_plot_text_is_clipped(open_page: Any, path: str, width: int) -> None:
    tab = open_page(path, width=width)
    clipped = tab.evaluate("""[...document.querySelectorAll('figure.harness-chart')]
        .flatMap(f => { const box = f.getBoundingClientRect();
            return [...f.querySelectorAll('li, p:not([hidden]), span, figcaption')]
                .map(t => [t, t.getBoundingClientRect()])
                .filter(([t, r]) => r.width && (r.left < box.left - 1 || r.right > box.right + 1
                                    || r.top < box.top - 1 || r.bottom > box.bottom + 1))
                .map(([t, r]) => `${f.id}: «${t.textContent}» ${Math.round(r.left)}–${
                    Math.round(r.right)} in ${Math.round(box.left)}–${Math.round(box.right)}`); })""")
    count = tab.evaluate("document.querySelectorAll('figure.harness-chart li').length")
    assert count > 10
    assert clipped == [], "\n".join(clipped)


#: English words of the records that a Spanish «Todas las columnas» must translate.
_ENGLISH = r"\b(compute|inference|training|gradients|True|False|None|samples/s|calls/s|after)\b"


@pytest.mark.parametrize("width", [1280, 390])
def test_all_columns_lines_fit_their_column_and_read_in_spanish(open_page: Any,
                                                                width: int) -> None:
    """Every «Todas las columnas» block of Medir, opened as a reader opens it (its tab
    first, then its summary): nothing in it reaches past the block, the block is no
    wider than the content column, and no record word is left in English."""
    tab = open_page("medir-pytorch-registros/", width=width)
    blocks = tab.locator(".md-content details.harness-more:has(dl.harness-fields)")
    assert blocks.count() >= 4, "Medir shows fewer «Todas las columnas» blocks than groups"
    for index in range(blocks.count()):
        block = blocks.nth(index)
        if not block.is_visible():  # in a tab the reader has not opened: open it
            block.evaluate("""b => { const set = b.closest('.tabbed-set');
                const at = [...set.querySelector('.tabbed-content').children]
                    .indexOf(b.closest('.tabbed-block'));
                set.querySelector('.tabbed-labels').children[at].click(); }""")
        block.locator("summary").click()
        found = block.evaluate("""b => {
            const box = b.getBoundingClientRect();
            const column = b.closest('.md-content__inner').getBoundingClientRect();
            const past = [...b.querySelectorAll(':scope > :not(summary), :scope > * *')]
                .filter(e => { const r = e.getBoundingClientRect();
                               return r.width > 0 && (r.right > box.right + 1
                                                      || r.left < box.left - 1); })
                .map(e => `${e.tagName}: ${e.textContent.slice(0, 50)}`).slice(0, 5);
            return {open: b.open, lines: b.querySelectorAll('dl.harness-fields').length,
                    box: [box.left, box.right], column: [column.left, column.right],
                    scroll: b.scrollWidth - b.clientWidth, past,
                    text: b.innerText}; }""")
        where = (width, index, found["text"][:80])
        assert found["open"] and found["lines"] >= 2, where
        left, right = found["box"]
        assert left >= found["column"][0] - 1 and right <= found["column"][1] + 1, where
        assert found["scroll"] <= 1 and found["past"] == [], (where, found["past"])
        english = re.findall(_ENGLISH, found["text"])
        assert not english, (where, sorted(set(english)))


# --- charts, failing rows, latency cells, environment (issue 20, H5) -----------------

#: Per chart: its box, the column's, each series' colour and marker (from its legend
#: entry), its tick labels by axis (the visible ones, in order, each clear of the next),
#: whether the legend lies under the plot, and the series none of whose markers shows
#: (each covered by later ones).
_CHARTS = """[...document.querySelectorAll('figure.harness-chart')].map(f => {
      f.querySelector('.harness-plot-area').scrollIntoView({block: 'center'});
      const box = f.getBoundingClientRect();
      // A marker shows where its painted shape is what the pointer hits (only shapes take
      // it): at its centre or on its outline, left, right, above or below.
      const onTop = m => { const r = m.getBoundingClientRect(), x = (r.left + r.right) / 2,
          y = (r.top + r.bottom) / 2;
          return [0, 0.2, 0.3, 0.36].flatMap(k => [[-k, 0], [k, 0], [0, -k], [0, k]]).some(
              ([dx, dy]) => document.elementFromPoint(x + dx * r.width, y + dy * r.height)
                  ?.closest('.harness-mark') === m); };
      const plot = f.querySelector('.harness-plot-area').getBoundingClientRect();
      const shown = a => [...f.querySelectorAll('.harness-ticks-' + a + ' li')]
          .filter(t => getComputedStyle(t).visibility !== 'hidden');
      const apart = a => shown(a).map(t => t.getBoundingClientRect()).every((r, i, all) =>
          i === 0 || (a === 'x' ? all[i - 1].right <= r.left : r.bottom <= all[i - 1].top));
      return {id: f.id, left: box.left, right: box.right,
          column: f.closest('.md-content__inner').getBoundingClientRect().right,
          series: [...f.querySelectorAll('.harness-legend li')].map(li =>
              [getComputedStyle(li).color, li.querySelector('g').firstElementChild.outerHTML]),
          ticks: ['x', 'y'].map(a => shown(a).map(t => t.textContent)),
          apart: ['x', 'y'].map(apart),
          legendBelow: f.querySelector('.harness-legend').getBoundingClientRect().top >= plot.bottom,
          hidden: [...f.querySelectorAll('.harness-legend li')].filter(li => ![...f.querySelectorAll(
              `.harness-mark[data-series="${li.dataset.series}"]`)].some(onTop))
              .map(li => li.textContent),
          background: getComputedStyle(document.body).backgroundColor}; })"""


def _rgb(css: str) -> tuple[float, ...]:
    """A computed ``rgb(r, g, b)`` or ``color(srgb r g b)`` as 0–1 channels."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)[:3]]
    return tuple(n / 255 for n in numbers) if css.startswith("rgb") else tuple(numbers)


def _contrast(one: str, other: str) -> float:
    def luminance(rgb: tuple[float, ...]) -> float:
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    high, low = sorted((luminance(_rgb(one)), luminance(_rgb(other))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _one_notation(axis: list[str], lang: str) -> bool:
    """Every tick of ``axis`` in powers of ten, or every one a plain number in ``lang``
    (decimal comma in Spanish), thousands grouped on all four-digit ticks or on none."""
    if all(re.fullmatch(r"(\d+(\.\d+)?×)?10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", t) for t in axis):
        return True
    group, point = ("\u202f", ",") if lang == "es" else (",", ".")
    plain = rf"\d+({re.escape(group)}\d{{3}})*({re.escape(point)}\d+)?"
    if not all(re.fullmatch(plain, t) for t in axis):
        return False
    whole = [t.split(point)[0] for t in axis] if lang == "es" else axis
    long = [t for t in whole if len(t.replace(group, "")) >= 4]
    return len({group in t for t in long}) <= 1 and all(
        group in t for t in long if len(t.replace(group, "")) >= 5)


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", ["medir-pytorch-registros/", "en/medir-pytorch-registros/"])
def test_charts_fit_the_column_and_tell_every_series_apart(open_page: Any, path: str,
                                                          width: int, scheme: str) -> None:
    tab = open_page(path, width=width)
    switch_palette(tab, scheme)
    charts = tab.evaluate(_CHARTS)
    assert len(charts) == 3, [c["id"] for c in charts]  # one drawing for every width
    assert tab.evaluate("document.documentElement.scrollWidth") <= width
    lang = "en" if path.startswith("en/") else "es"
    for chart in charts:
        name = chart["id"]
        assert chart["left"] >= 0 and chart["right"] <= chart["column"] + 1, name
        assert len(chart["series"]) >= 2, name
        pairs = [tuple(s) for s in chart["series"]]
        assert len(set(pairs)) == len(pairs), (name, pairs)  # colour and marker, never both
        for colour, _ in pairs:
            assert _contrast(colour, chart["background"]) >= 3, (name, colour, scheme)
        for axis, apart in zip(chart["ticks"], chart["apart"], strict=True):
            assert axis and apart, (name, axis)  # labels never overlap
            assert _one_notation(axis, lang), (name, axis)
        assert chart["legendBelow"], name
        assert chart["hidden"] == [], name  # every series shows (GPU float16 beside bfloat16)


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("width", [1280, 390])
def test_a_failing_row_tints_its_trial_header_and_its_latency_reads_alike(
        open_page: Any, width: int, scheme: str) -> None:
    tab = open_page("medir-pytorch/", width=width)
    # The matmul table folds under the sentence that states its result (issue 28).
    tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    switch_palette(tab, scheme)
    failing = tab.evaluate("""[...document.querySelectorAll('tr.harness-fail')]
        .filter(tr => tr.offsetParent).map(tr => { let head = tr.querySelector('th'), row = tr;
            while (!head && row.previousElementSibling) { row = row.previousElementSibling;
                                                          head = row.querySelector('th'); }
            return [head.innerText, getComputedStyle(head).backgroundColor,
                    getComputedStyle(tr.querySelector('td')).backgroundColor]; })""")
    page = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    assert failing, "no failing row shows: this test would check nothing"
    for label, header, cell in failing:
        assert header == cell and _rgb(header) != _rgb(page), (label, header, cell, page)
    # Median and IQR share one line in every row; «ruidosa» always on the line below.
    cells = tab.evaluate("""[...document.querySelectorAll('table.harness-compact td')]
        .filter(td => td.offsetParent && td.querySelector(':scope > .harness-spread')).map(td => {
            const text = [...td.childNodes].find(n => n.nodeType === 3 && n.data.trim());
            const range = document.createRange(); range.selectNodeContents(text);
            const median = range.getClientRects()[0];
            const spread = td.querySelector('.harness-spread').getClientRects()[0];
            const noisy = td.querySelector('.harness-noisy');
            return [Math.abs(spread.bottom - median.bottom) <= 3,
                    noisy ? noisy.getBoundingClientRect().top >= median.bottom - 1 : true]; })""")
    assert len(cells) > 10 and all(same and under for same, under in cells), cells


@pytest.mark.parametrize("width", [1280, 390])
def test_environment_cells_are_boxes_and_threads_are_words(open_page: Any, width: int) -> None:
    tab = open_page("medir-pytorch-registros/", width=width)
    table = tab.evaluate("""(() => { const t = document.querySelector('table.harness-env');
        for (let a = t; a; a = a.parentElement) if (a.tagName === 'DETAILS') a.open = true;
        return {cells: [...t.querySelectorAll('td')].map(td => [td.colSpan,
                    parseFloat(getComputedStyle(td).borderLeftWidth), td.innerText]),
                threads: [...t.tBodies[0].rows].find(r => r.cells[0].innerText === 'Hilos de CPU')
                    .innerText}; })()""")
    # A cell spanning sets is walled on its left like every cell, and nothing spans all.
    columns = max(span for span, _, _ in table["cells"])
    assert all(rule >= 1 for _, rule, _ in table["cells"]), table["cells"]
    assert 1 < columns < tab.evaluate("document.querySelector('table.harness-env').tHead"
                                      ".rows[0].cells.length - 1")
    assert not re.search(r"\d/\d", table["threads"]) and "CPU lógicas" in table["threads"]
