"""What a reader sees on a phone and a desktop, measured in Chromium (issue 20).

Every check reads rendered boxes: the observed values of each block in view, nothing in
the content reaching past the screen, identifiers that break only after ``/`` and
``_``, and no plot text outside its chart.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.browsing import ARTICLES

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
@pytest.mark.parametrize("path", ["medir-pytorch/", "en/medir-pytorch/"])
def test_no_plot_text_is_clipped(open_page: Any, path: str, width: int) -> None:
    tab = open_page(path, width=width)
    clipped = tab.evaluate("""[...document.querySelectorAll('figure.harness-plot svg')]
        .flatMap(svg => { const box = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('text')].map(t => [t, t.getBoundingClientRect()])
                .filter(([t, r]) => r.left < box.left - 1 || r.right > box.right + 1
                                    || r.top < box.top - 1 || r.bottom > box.bottom + 1)
                .map(([t, r]) => `${svg.id}: «${t.textContent}» ${Math.round(r.left)}–${
                    Math.round(r.right)} × ${Math.round(r.top)}–${Math.round(r.bottom)} in ${
                    Math.round(box.left)}–${Math.round(box.right)} × ${Math.round(box.top)}–${
                    Math.round(box.bottom)}`); })""")
    count = tab.evaluate("document.querySelectorAll('figure.harness-plot svg text').length")
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
    tab = open_page("medir-pytorch/", width=width)
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
