"""axe-core on the built site: every Spanish page, one English page and one notebook
page, at 1280 and 390 px, in the light and the dark palette (issue 20).

The result must hold no serious and no critical violation, except the findings that
belong upstream to Material for MkDocs, listed in ``KNOWN`` with their upstream
reference: a known finding that stops appearing fails too, so the list stays true.
The unnamed search dialog was one; overrides/partials/search.html now names it.
axe-core comes from npm (package.json; ``make browser`` installs it into
node_modules/); without it the module skips with the reason, and fails under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import ROOT

from tests.browser.browsing import ARTICLES, switch_palette, unavailable

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: Every Spanish page (the articles, the home, the drift report, the 404), one English
#: page and one notebook page: the longest of each kind.
PAGES = ["", *(f"{slug}/" for slug in ARTICLES), "deriva-entre-versiones/", "404.html",
         "en/medir-pytorch/", "cuadernos/medir-pytorch/"]
SEVERE = ("serious", "critical")

#: (axe rule, end of the node's selector as axe names it): Material for MkDocs 9.8's own
#: markup, which this site does not patch, and where upstream tracks it.
KNOWN = {
    ("landmark-unique", ".md-code__nav"): (
        "moderate: each code block's copy button sits in an unlabelled <nav>, so a page "
        "with two code blocks has two landmarks alike (the content.code.copy component "
        "of the JavaScript bundle; no upstream issue found; nearest: issue 4101)"),
}


def _axe(tab: Any, *, impacts: tuple[str, ...] = SEVERE) -> list[dict[str, Any]]:
    """The page's violations of ``impacts``, one entry per (rule, node)."""
    if not tab.evaluate("typeof window.axe !== 'undefined'"):
        tab.add_script_tag(path=str(AXE))
    found = tab.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.flatMap(v => v.nodes.map(n => ({
            rule: v.id, impact: n.impact || v.impact, help: v.help,
            target: n.target.join(' '), html: n.html.slice(0, 160),
            why: n.failureSummary.slice(0, 300)})));
    }""")
    return [f for f in found if f["impact"] in impacts]


def _known(finding: dict[str, Any]) -> bool:
    return any(finding["rule"] == rule and finding["target"].endswith(target)
               for rule, target in KNOWN)


@pytest.fixture(scope="module", autouse=True)
def _axe_installed() -> None:
    if not AXE.is_file():
        unavailable("axe-core is not installed (npm install, or `make browser`)")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.strip("/") or "home")
def test_no_serious_or_critical_violation(open_page: Any, path: str, width: int) -> None:
    tab = open_page(path, width=width)
    problems = []
    for scheme in ("default", "slate"):
        switch_palette(tab, scheme)
        for finding in _axe(tab):
            if not _known(finding):
                problems.append(f"{scheme}: {finding['rule']} ({finding['impact']}) "
                                f"{finding['target']}: {finding['help']}\n    {finding['html']}"
                                f"\n    {finding['why']}")
    assert not problems, f"/{path} at {width} px:\n" + "\n".join(problems)


def test_known_upstream_findings_still_occur(open_page: Any) -> None:
    """Each KNOWN entry is still found on a page with code blocks: once Material fixes
    one, it leaves the list (and the test above then keeps it fixed)."""
    found = _axe(open_page("que-es-pytorch/"), impacts=("minor", "moderate", *SEVERE))
    missing = [key for key in KNOWN if not any(
        f["rule"] == key[0] and f["target"].endswith(key[1]) for f in found)]
    assert not missing, (missing, sorted({(f["rule"], f["target"]) for f in found}))


def test_the_search_dialog_override_is_materials_partial_with_a_name() -> None:
    """overrides/partials/search.html names Material's search dialog (axe's and
    Lighthouse's aria-dialog-name); everything else in it must stay Material's own, so
    an upgrade of Material that changes the partial fails here until it is copied again."""
    import material

    upstream = (Path(material.__file__).parent / "templates" / "partials" / "search.html")
    ours = (ROOT / "overrides" / "partials" / "search.html").read_text(encoding="utf-8")
    theirs = upstream.read_text(encoding="utf-8").split("-#}\n", 1)[1]
    named = ours.split("-#}\n", 1)[1].replace(
        ' role="dialog" aria-label="{{ lang.t(\'search\') }}">', ' role="dialog">', 1)
    assert named == theirs


def test_the_search_dialog_is_named(open_page: Any) -> None:
    tab = open_page("")
    assert tab.evaluate("document.querySelector('.md-search[role=dialog]')"
                        ".getAttribute('aria-label')") == "Buscar"
