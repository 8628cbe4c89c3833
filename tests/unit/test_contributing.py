"""CONTRIBUTING's marker table follows the one marker registry."""

from __future__ import annotations

import re

from support import ROOT

from harness.views.markers import MARKERS


def test_the_marker_table_lists_every_kind_with_its_arguments() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text[text.index("## Markers a page can use"):text.index("## Expectations")]
    listed = dict(re.findall(r"`<!-- harness:([\w-]+)((?: [\w-]+=\"[^\"]*\")*) -->`", table))
    assert set(listed) == set(MARKERS)
    for kind, args in listed.items():
        assert set(re.findall(r"([\w-]+)=", args)) == set(MARKERS[kind].arguments), kind
