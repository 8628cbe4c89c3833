"""axe-core on the built site: every page the build wrote, at 1280 px with a mouse and
at 390 px with touch emulation, in the light and the dark palette (issues 20 and 28).

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

from tests.browser.browsing import offline, switch_palette, unavailable

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
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
    # A control still fading in (Material's «back to top» after a scroll, colours after a
    # palette switch) has a contrast of its own for a few frames: wait while a finite
    # animation or transition runs, so axe measures what the reader is left with. Polled,
    # not awaited: a transition that is cancelled or replaced may never settle its
    # `finished` promise (the tabs' 250 ms slide did, and hung the test). The 5 s bound is
    # wall clock, as transitions are; past it axe runs anyway.
    found = tab.evaluate("""async () => {
        const moving = () => document.getAnimations().some(a => a.playState === 'running'
            && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
        for (let i = 0; i < 100 && moving(); i++) await new Promise(r => setTimeout(r, 50));
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


def _pages(built_site: Path) -> list[str]:
    """Every page the build wrote, both languages and the notebooks (issue 28)."""
    pages = [p.parent.relative_to(built_site).as_posix() + "/"
             for p in built_site.rglob("index.html")]
    return sorted(p.removeprefix("./") if p != "./" else "" for p in pages) + ["404.html"]


def _check(tab: Any, where: str) -> None:
    problems = []
    for scheme in ("default", "slate"):
        switch_palette(tab, scheme)
        for finding in _axe(tab):
            if not _known(finding):
                problems.append(f"{scheme}: {finding['rule']} ({finding['impact']}) "
                                f"{finding['target']}: {finding['help']}\n    {finding['html']}"
                                f"\n    {finding['why']}")
    assert not problems, f"{where}:\n" + "\n".join(problems)


def test_every_page_on_a_desktop(open_page: Any, built_site: Path) -> None:
    """1280 px, a mouse: every page, both palettes, no serious or critical finding."""
    for path in _pages(built_site):
        _check(open_page(path, width=1280), f"/{path} at 1280 px")


def test_every_page_on_a_touch_phone(browser: Any, site_url: str, built_site: Path) -> None:
    """390 px with touch emulation (is_mobile, has_touch): Material gives a scrolling code
    block tabindex="0" only where (hover) matches, which a run without touch never
    misses; overrides/main.html gives it on every device (issue 28)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, locale="es-ES", color_scheme="light")
    offline(context)
    tab = context.new_page()
    try:
        assert tab.evaluate("matchMedia('(hover)').matches") is False  # the touch case
        scrolled = 0
        for path in _pages(built_site):
            tab.goto(site_url + path, wait_until="load")
            scrolled += tab.evaluate("""[...document.querySelectorAll('.md-typeset pre > code')]
                .filter(c => c.scrollWidth > c.clientWidth).length""")
            _check(tab, f"/{path} at 390 px, touch")
        assert scrolled, "no code block scrolls at 390 px: this test would check nothing"
    finally:
        context.close()


def test_known_upstream_findings_still_occur(open_page: Any) -> None:
    """Each KNOWN entry is still found on a page with code blocks: once Material fixes
    one, it leaves the list (and the test above then keeps it fixed)."""
    tab = open_page("que-es-pytorch/")
    # Its examples are folds (issue 28): open, its code blocks are all in view.
    tab.evaluate("document.querySelectorAll('details.example').forEach(d => { d.open = true; })")
    found = _axe(tab, impacts=("minor", "moderate", *SEVERE))
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
