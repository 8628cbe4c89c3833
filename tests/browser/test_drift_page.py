"""The drift page as a reader sees it in Chromium, at 1280 and 390 px (issue 20): its
chart fits the column with every text inside the drawing, each verdict stays in
view on a phone, labels never break inside a word (at any length), and the Spanish
page writes no English detail."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PAGE = "deriva-entre-versiones/"
#: Words both editions write: names of things, and Spanish words that are English too.
SHARED = {"cpu", "gpu", "cuda", "nvidia", "matmul", "float", "bfloat", "autograd", "grad",
          "backward", "torch", "cu", "control", "no", "comparable", "error", "vertical",
          # Names of methods and tools, the same in both languages.
          "mann", "whitney", "bootstrap", "callgrind", "valgrind"}


def _report_text(tab: Any) -> str:
    """The report's text (after its heading), without code or version numbers."""
    text = tab.evaluate("""(() => {
        const start = document.querySelector('#informe, #report');
        const out = [];
        for (let e = start.nextElementSibling; e; e = e.nextElementSibling) {
            const copy = e.cloneNode(true);
            copy.querySelectorAll('code, pre, svg').forEach(c => c.remove());
            out.push(copy.innerText); }
        return out.join('\\n'); })()""")
    return re.sub(r"\d+\.\d+\.\d+(\+\w+)?", " ", text)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-záéíóúñü]{2,}", text.lower()))


@pytest.mark.parametrize("width", [1280, 390])
def test_the_chart_fits_the_column_with_every_text_inside(open_page: Any, width: int) -> None:
    tab = open_page(PAGE, width=width)
    if not tab.locator("figure.harness-interval-chart").count():
        # The committed records hold fewer runs per build than a verdict needs: no trial
        # has an interval, so nothing is drawn, and every timed row must say so.
        report = _report_text(tab)
        assert "no concluyente" in report and "ejecuciones" in report, report[:2000]
        pytest.skip("no trial has an interval yet: the records hold one run per build")
    charts = tab.evaluate("""[...document.querySelectorAll('figure.harness-interval-chart')]
        .map(f => { const box = f.getBoundingClientRect();
            const texts = [...f.querySelectorAll('.harness-row-label, .harness-ticks-x li, p')]
                .filter(t => !t.hidden).map(t => t.getBoundingClientRect());
            const rows = [...f.querySelectorAll('.harness-interval-rows li')].map(li => [
                li.querySelector('.harness-row-label').getBoundingClientRect(),
                li.querySelector('.harness-track').getBoundingClientRect()]);
            // Where the tick «1» points (its label is shifted by its own position) and
            // where the rows draw 1: the axis and the bars share one scale.
            const tick = [...f.querySelectorAll('.harness-ticks-x li')]
                .find(t => t.textContent === '1'), at = tick.getBoundingClientRect();
            const share = parseFloat(tick.style.getPropertyValue('--x')) / 100;
            const one = f.querySelector('.harness-one').getBoundingClientRect().left;
            return {left: box.left, right: box.right, texts: texts.length, rows: rows.length,
                    offset: Math.abs(at.left + share * at.width - one),
                    dots: f.querySelectorAll('.harness-dot').length,
                    above: rows.filter(([l, t]) => l.bottom <= t.top + 1).length,
                    outside: texts.filter(r => r.left < box.left - 1 || r.right > box.right + 1
                        || r.top < box.top - 1 || r.bottom > box.bottom + 1).length}; })""")
    assert charts, "no drift chart on the page"
    for chart in charts:
        assert chart["left"] >= 0 and chart["right"] <= width, chart
        assert chart["dots"] == chart["rows"] > 0 and chart["texts"] > chart["rows"], chart
        assert chart["outside"] == 0, str(chart)
        assert chart["offset"] <= 2, chart
        # On a phone each label sits above its bar, so the bars keep the whole width.
        assert chart["above"] == (chart["rows"] if width < 720 else 0), chart
    assert tab.evaluate("document.documentElement.scrollWidth") <= width


def test_on_a_phone_every_verdict_is_in_view_and_labels_keep_together(open_page: Any) -> None:
    tab = open_page(PAGE, width=390)
    rows = tab.evaluate("""[...document.querySelectorAll('table.harness-drift tbody tr')]
        .map(r => { const v = r.querySelector('.harness-verdict').getBoundingClientRect();
            return {verdict: [v.left, v.right, v.height],
                    text: r.querySelector('.harness-verdict').innerText,
                    // A label may wrap only where it offers to (after «/» and «_»: <wbr>,
                    // between parts): each run of text between them stays on one line,
                    // however long the snippet's name (issue 30).
                    broken: [...r.querySelectorAll('.harness-part, code')].flatMap(e => {
                        const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), out = [];
                        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
                            const range = document.createRange(); range.selectNodeContents(t);
                            const tops = new Set([...range.getClientRects()].filter(b => b.width > 0)
                                .map(b => Math.round(b.top)));
                            if (tops.size > 1) out.push(t.textContent); }
                        return out; })}; })""")
    assert rows, "no drift table on the page"
    for row in rows:
        left, right, height = row["verdict"]
        assert height > 0 and left >= 0 and right <= 390, row
        assert row["text"] and row["broken"] == [], row
    scrolled = tab.evaluate("""[...document.querySelectorAll('table.harness-drift')]
        .map(t => t.closest('.harness-scroll')).map(s => s.scrollWidth - s.clientWidth)""")
    assert all(extra <= 1 for extra in scrolled), scrolled


def test_the_spanish_page_writes_no_english_detail(open_page: Any) -> None:
    english = _words(_report_text(open_page("en/" + PAGE))) - SHARED
    assert {"takes", "interval", "reference"} <= english, "the English report reads English"
    spanish = _report_text(open_page(PAGE))
    assert "tarda" in spanish and "intervalo" in spanish
    assert sorted(_words(spanish) & english) == []
    assert re.findall(r"\d\.\d", spanish) == [], "a decimal point on the Spanish page"
