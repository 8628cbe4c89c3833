"""What a reader sees, measured in Chromium at 1280 and 390 px (issue 10).

Every assertion reads rendered layout (bounding boxes, scroll widths, computed
sizes), never mere existence. Screenshots of each page, desktop and mobile,
light and dark, go to test-artifacts/screenshots/ (the desktop light ones are taken,
and their width checked, by test_site_in_browser.py's visit of every page).
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from tests.browser.browsing import ARTICLES, offline, screenshot, switch_palette

pytestmark = pytest.mark.browser

MEDIR_BEFORE_PX = 19_000
PAGES = ["", *(f"{a}/" for a in ARTICLES), "deriva-entre-versiones/",
         *(f"cuadernos/{a}/" for a in ARTICLES), "en/", "en/medir-pytorch/"]


def _eval(tab: Any, script: str) -> Any:
    return tab.evaluate(script)


def test_medir_is_40_percent_shorter_and_compact_tables_fit(open_page: Any) -> None:
    tab = open_page("medir-pytorch/")
    height = _eval(tab, "document.documentElement.scrollHeight")
    assert height <= MEDIR_BEFORE_PX * 0.6, height
    fits = _eval(tab, """[...document.querySelectorAll('table.harness-compact')].map(t =>
        [t.scrollWidth, t.closest('.harness-scroll').clientWidth])""")
    assert fits and all(width <= room + 1 for width, room in fits), fits
    # Each key figure is a visible column or, constant across the table, in its caption.
    covered = _eval(tab, """[...document.querySelectorAll('table.harness-compact')]
        .filter(t => !t.closest('details:not([open])')).map(t =>
        [...t.querySelectorAll('thead th')].map(h => h.innerText).join(' ') + ' '
        + (t.caption ? t.caption.innerText : ''))""")
    for text in covered:
        for key in ("Latencia", "Rendimiento", "pico", "Memoria", "Calidad"):
            assert key in text, (key, text)


#: Issue 28's phone budget for Medir: its height, Lighthouse's dom-size, and the share of
#: its visible characters at body size (small type is for provenance only).
MEDIR_PHONE_PX, MEDIR_ELEMENTS, BODY_SHARE = 8_000, 1_500, 0.60
ARTICLE_PHONE_PX = 7_000


def test_articles_read_as_lessons_on_a_phone(browser: Any, site_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, locale="es-ES")
    offline(context)
    tab = context.new_page()
    try:
        for path in ("medir-pytorch/", "en/medir-pytorch/"):
            tab.goto(site_url + path, wait_until="load")
            height, elements, body, total = _eval(tab, """(() => {
                const walk = document.createTreeWalker(document.querySelector('article'),
                                                       NodeFilter.SHOW_TEXT);
                let body = 0, total = 0, node;
                while ((node = walk.nextNode())) {
                    const n = node.data.replace(/\\s+/g, '').length, el = node.parentElement;
                    if (!n || !el.checkVisibility({visibilityProperty: true})) continue;
                    total += n;
                    if (parseFloat(getComputedStyle(el).fontSize) >= 15.5) body += n;
                }
                return [document.documentElement.scrollHeight,
                        document.querySelectorAll('*').length, body, total]; })()""")
            assert height <= MEDIR_PHONE_PX, (path, height)
            assert elements < MEDIR_ELEMENTS, (path, elements)
            assert body / total >= BODY_SHARE, (path, body, total)
            # Every result links to its evidence, one tap away, on the records page.
            links = _eval(tab, """[...document.querySelectorAll('article a[href*="registros"]')]
                .map(a => a.getAttribute('href'))""")
            for anchor in ("#sync", "#sync-calls", "#mlp", "#matmul", "#autograd", "#threads",
                           "#versiones", "#cabecera"):
                assert any(link.endswith(anchor) for link in links), (path, anchor, links)
        # The other articles: their seed lesson open, each added example a fold.
        for slug in ARTICLES:
            if slug != "medir-pytorch":
                tab.goto(site_url + slug + "/", wait_until="load")
                height = _eval(tab, "document.documentElement.scrollHeight")
                assert height <= ARTICLE_PHONE_PX, (slug, height)
    finally:
        context.close()


def test_compact_rows_are_one_line_and_identifiers_never_break(open_page: Any) -> None:
    tab = open_page("medir-pytorch/")
    heights = _eval(tab, """[...document.querySelectorAll('table.harness-compact tbody tr')]
        .map(r => r.getBoundingClientRect().height)""")
    assert statistics.median(heights) <= 28, statistics.median(heights)
    broken = _eval(tab, """[...document.querySelectorAll(
        'table.harness-compact .harness-part, table.harness-table code, .harness-observed td code')]
        .filter(e => new Set([...e.getClientRects()].filter(r => r.width > 0)
                               .map(r => Math.round(r.top))).size > 1)
        .map(e => e.textContent)""")  # lines, not boxes: a <wbr> splits a box on its line
    assert broken == []


def test_numbers_right_aligned_with_nbsp_and_failing_rows_tinted(open_page: Any) -> None:
    tab = open_page("medir-pytorch/")
    tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    cell = tab.locator("table.harness-compact td.harness-num").first
    assert cell.evaluate("e => getComputedStyle(e).textAlign") == "right"
    assert "\u00a0" in cell.inner_text()
    colours = _eval(tab, """(() => { const bad = document.querySelector('tr.harness-fail td');
        const good = document.querySelector('tr:not(.harness-fail) > td.harness-num');
        return [getComputedStyle(bad).backgroundColor, getComputedStyle(good).backgroundColor,
                bad.closest('tr').innerText]; })()""")
    assert colours[0] != colours[1] and "no cumple" in colours[2]


def test_first_column_stays_in_view_when_scrolled(open_page: Any) -> None:
    tab = open_page("medir-pytorch-registros/", width=700)
    moved = _eval(tab, """(() => { const w = document.querySelector('.harness-env')
        .closest('.harness-scroll'); w.scrollLeft = 200;
        const th = w.querySelector('tbody th'); return [th.getBoundingClientRect().left,
        w.getBoundingClientRect().left]; })()""")
    assert abs(moved[0] - moved[1]) <= 2, moved


def test_phone_shows_latency_and_quality_without_scrolling(open_page: Any) -> None:
    tab = open_page("medir-pytorch/", width=390)
    outside = _eval(tab, """[...document.querySelectorAll('table.harness-compact td')]
        .filter(td => td.offsetParent && td.getBoundingClientRect().right > innerWidth + 1)
        .length""")
    assert outside == 0
    assert _eval(tab, "document.documentElement.scrollWidth") <= 390


def test_environment_table_is_sideways_and_spanish(open_page: Any) -> None:
    tab = open_page("medir-pytorch-registros/")
    shape = _eval(tab, """(() => { const t = document.querySelector('table.harness-env');
        return [t.tBodies[0].rows.length, t.tHead.rows[0].cells.length, t.innerText,
                Math.max(...[...t.tBodies[0].rows].map(r => r.getBoundingClientRect().height))];
        })()""")
    rows, columns, text, tallest = shape
    assert rows >= 8 and columns >= 2
    assert "datasheet" not in text and "per core" not in text and "after malloc_trim" not in text
    assert tallest <= 80, tallest  # long notes are closed


def test_plot_text_is_at_least_12px_and_lines_are_labelled(open_page: Any) -> None:
    tab = open_page("medir-pytorch-registros/")
    smallest = _eval(tab, """Math.min(...[...document.querySelectorAll(
        'figure.harness-chart li, figure.harness-chart p, figure.harness-chart span')]
        .map(t => parseFloat(getComputedStyle(t).fontSize)))""")
    assert smallest >= 12, smallest
    labels = _eval(tab, "document.querySelectorAll('.harness-legend li').length")
    assert labels >= 2
    assert tab.locator("figure.harness-chart", has_text="no cumple").count() >= 1
    captions = _eval(tab, """[...document.querySelectorAll('figure.harness-chart figcaption')]
        .map(c => c.getBoundingClientRect().height)""")
    assert max(captions) <= 60, captions


def test_titles_are_distinct(open_page: Any) -> None:
    titles = {path: open_page(path).title() for path in
              ("", "que-es-pytorch/", "cuadernos/que-es-pytorch/")}
    assert titles[""] == "Qué es PyTorch"
    assert len(set(titles.values())) == 3, titles


def test_switcher_keeps_the_notebook(open_page: Any) -> None:
    tab = open_page("en/cuadernos/que-es-pytorch/")
    target = tab.locator('a.md-select__link[hreflang="es"]').get_attribute("href")
    assert target.endswith("/cuadernos/que-es-pytorch/"), target


def test_404_is_spanish_with_links(open_page: Any) -> None:
    tab = open_page("no-such-page/")
    tab.goto(tab.url.replace("no-such-page/", "404.html"))
    assert tab.evaluate("document.documentElement.lang") == "es"
    links = tab.evaluate("[...document.querySelectorAll('.harness-404 a')].map(a => a.href)")
    assert all(any(link.rstrip("/").endswith(a) for link in links) for a in ARTICLES)
    # Styled (the site is served at its own path, so the 404 page finds its assets), the
    # search label a desktop shows is the box's, not the phone header's button.
    assert tab.locator('label[for="__search"]:visible').count() >= 1


# One load per page and width. Desktop light is test_site_in_browser.py's visit of every
# page; dark is the reader's own switch (the palette toggle, which the site's styles key
# on, as they do for a dark system preference), then back to light for the next load.
@pytest.mark.parametrize("width", [1280, 390])
def test_screenshots(open_page: Any, width: int) -> None:
    for path in PAGES:
        tab = open_page(path, width=width)
        for scheme in ("default", "slate") if width < 1000 else ("slate",):
            switch_palette(tab, scheme)
            screenshot(tab, path, width=width, dark=scheme == "slate")
            assert tab.evaluate("document.documentElement.scrollWidth") <= width + 1, (
                path, scheme)
        switch_palette(tab, "default")
