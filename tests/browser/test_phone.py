"""On a phone (390 px), no word in a table cell is broken mid-word (issue 28).

``overflow-wrap: anywhere`` let a narrow cell split a word between two lines; with
``break-word`` a word only breaks where it has a break opportunity (a space, a hyphen,
an identifier's ``<wbr>`` after ``/`` or ``_``). Each word of every table cell is a
DOM range; one that spans two lines is a broken word.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.browsing import ARTICLES

pytestmark = pytest.mark.browser

PAGES = [f"{slug}/" for slug in ARTICLES] + ["medir-pytorch-registros/",
                                             "en/medir-pytorch-registros/"]

_BROKEN = """() => {
    const broken = []; let words = 0;
    for (const cell of document.querySelectorAll('.md-content td, .md-content th')) {
        if (!cell.checkVisibility()) continue;
        const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        let node;
        while ((node = walk.nextNode())) {
            // A word: what lies between spaces and the marks a line may break after.
            for (const m of node.textContent.matchAll(/[^\\s\\-\\u2010-\\u2014\\/_·]+/g)) {
                words += 1;
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const tops = new Set([...range.getClientRects()]
                    .filter(r => r.width > 0).map(r => Math.round(r.top)));
                if (tops.size > 1) broken.push(m[0]);
            }
        }
    }
    return {words, broken};
}"""


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.strip("/"))
def test_no_word_in_a_table_cell_breaks_mid_word(open_page: Any, path: str) -> None:
    tab = open_page(path, width=390)
    found = tab.evaluate(_BROKEN)
    if path.startswith(("medir-pytorch", "en/medir")):
        assert found["words"], "no table word on the page: this test would check nothing"
    assert not found["broken"], f"/{path} at 390 px: {found['broken']}"
