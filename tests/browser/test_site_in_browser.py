"""The built site in a real browser: Debian's Chromium driven by Playwright.

The site built once per run (``built_site``) is served over HTTP on 127.0.0.1 (over
file:// Material's search box is missing). Each test gets a fresh context and tab
(pytest-playwright's); every visit starts with an empty list of problems (console
errors, page errors, failed requests). Each visit also saves the page's desktop light
screenshot to ``test-artifacts/screenshots/`` and checks that nothing overflows the
1280 px width (test_reading.py takes the other layouts).

Without a ``chromium`` executable (or without Playwright) the module skips with its
reason; with ``CI=true`` it fails instead: CI must not skip silently. ``make browser``
installs Debian's Chromium.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from support import ROOT

from tests.browser.browsing import ARTICLES, screenshot, search_for

pytestmark = pytest.mark.browser

SPANISH_PAGES = ["", *(f"{slug}/" for slug in ARTICLES), "deriva-entre-versiones/",
                 *(f"cuadernos/{s}/" for s in ARTICLES)]
PAGES = [*SPANISH_PAGES, *(f"en/{page}" for page in SPANISH_PAGES)]


class _Tab:
    """The module's tab: keeps console errors, page errors and failed requests."""

    def __init__(self, page, base_url: str) -> None:
        self.base_url = base_url
        self.page = page
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        # A failed resource shows in the console as "Failed to load resource" without
        # its address; these two name it.
        self.page.on("requestfailed", self._request_failed)
        self.page.on("response", self._response)

    def _console(self, message) -> None:
        if message.type != "error":
            return
        where = message.location.get("url", "")
        self.problems.append(f"console error: {message.text} ({where})")

    def _request_failed(self, request) -> None:
        # net::ERR_ABORTED is the browser cancelling a request: the next visit
        # navigating away from a page whose search worker still loads its scripts,
        # or a resource dropped after an error status (which _response reports).
        # Every other failure (refused, DNS, blocked, reset) is a problem.
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response) -> None:
        # Every failed request counts, Material's sitemap probe included: the pages
        # carry no <link rel="alternate"> for it to follow (test_chrome.py).
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def visit(self, path: str, *, search_index: bool = True) -> None:
        """Open ``path`` with a fresh problem list, and return once the page has
        loaded and (unless ``search_index`` is false) Material's search has fetched
        its index, which every page requests just after its load. The next visit stops this
        page's search worker: letting every page build its index costs ~0.5 s of
        CPU each, and the search test runs the worker to the end."""
        self.problems = []
        if not search_index:
            self.page.goto(self.base_url + path, wait_until="load")
            return
        with self.page.expect_response(
            lambda r: urlsplit(r.url).path.endswith("/search/search_index.json")
        ):
            self.page.goto(self.base_url + path, wait_until="load")

    def assert_no_problem(self) -> None:
        assert not self.problems, f"{self.page.url}:\n" + "\n".join(self.problems)


@pytest.fixture
def tab(page, site_url: str) -> _Tab:
    """The test's tab, in the fresh context pytest-playwright gives each test."""
    return _Tab(page, site_url)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p or "home")
def test_page_loads_without_errors(tab: _Tab, path: str) -> None:
    tab.visit(path)
    expected_lang = "en" if path.startswith("en/") else "es"
    assert tab.page.locator("html").get_attribute("lang") == expected_lang
    assert tab.page.locator("article.md-content__inner h1").first.is_visible(), (
        f"/{path}: no visible title"
    )
    screenshot(tab.page, path, width=1280, dark=False)
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= 1281, path
    tab.assert_no_problem()


@pytest.mark.parametrize("lang", ["", "en/"], ids=["es", "en"])
@pytest.mark.parametrize("slug", ["que-es-pytorch", "backward-frente-a-autograd-grad"])
def test_analytic_versus_observed_block_is_visible(tab: _Tab, lang: str, slug: str) -> None:
    tab.visit(f"{lang}{slug}/")
    # An example the site added is a fold (issue 28): the reader opens it first.
    for fold in tab.page.locator("details.example > summary").all():
        fold.click()
    # A block whose values all hold is a one-line, closed <details> (issue 10); a
    # failing or stale one is open. Either way its verdict line is visible and its
    # table is one click away.
    blocks = tab.page.locator(".md-content .harness-observed")
    assert blocks.count() >= 1, f"/{lang}{slug}/: no analytic-versus-observed block"
    for index in range(blocks.count()):
        block = blocks.nth(index)
        assert block.is_visible(), f"/{lang}{slug}/: block {index} is hidden"
        title = block.locator("summary, .admonition-title").first
        assert title.is_visible()
        if block.evaluate("e => e.tagName") == "DETAILS" and not block.evaluate("e => e.open"):
            title.click()
        assert block.locator("table tbody tr").first.is_visible()
        # Material's admonition style applies: a coloured left border, not bare text.
        border = block.evaluate("e => getComputedStyle(e).borderLeftWidth")
        assert border not in ("", "0px"), f"/{lang}{slug}/: block {index} is not styled"


@pytest.mark.parametrize(
    ("lang", "first_header", "caption"),
    [("", "Ensayo", "Todas las columnas"), ("en/", "Trial", "All columns")],
    ids=["es", "en"],
)
def test_measured_table_is_visible(tab: _Tab, lang: str, first_header: str, caption: str) -> None:
    if not any((ROOT / "results").glob("*/cpu.csv")):
        pytest.fail("results/ holds no CPU record: run `python -m harness record --device cpu`")
    tab.visit(f"{lang}medir-pytorch-registros/")
    # A measurements marker renders a compact table (its first column the trial,
    # its constants in a <caption>); on the article's records page «Todas las columnas»
    # (the all-columns marker) follows it (issue 28).
    tables = tab.page.locator(".md-content table.harness-compact").filter(
        has=tab.page.locator("thead th").first.filter(has_text=first_header)
    )
    assert tables.count() >= 1, f"/{lang}medir-pytorch-registros/: no measurement table"
    table = tables.first
    assert table.is_visible()
    assert table.locator("tbody tr").count() >= 1
    assert table.locator("tbody tr").first.is_visible()
    assert table.locator("caption").is_visible()
    after = table.evaluate(
        "t => { const f = t.closest('.harness-measured').nextElementSibling;"
        " return f?.querySelector('summary')?.textContent || ''; }")
    assert after == caption, f"after the table: {after!r}"
    width = table.evaluate("t => t.getBoundingClientRect().width")
    assert width > 300, f"the table is squashed ({width}px wide)"


def test_copy_button_copies_the_snippet(tab: _Tab) -> None:
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                       origin=tab.base_url.rstrip("/"))
    tab.visit("que-es-pytorch/")
    tab.page.locator("details.example > summary").first.click()  # an added example's fold
    block = tab.page.locator(".md-content .highlight").first
    shown_name = block.locator(".filename").inner_text().strip()
    assert shown_name.startswith("snippets/"), f"first code block's title: {shown_name!r}"
    expected = (ROOT / shown_name).read_text(encoding="utf-8")
    block.hover()
    # Material 9.8 renders the copy button as button.md-code__button[data-md-type=copy]
    # (older releases: .md-clipboard).
    block.locator('.md-clipboard, .md-code__button[data-md-type="copy"]').click()
    copied = tab.page.evaluate("navigator.clipboard.readText()")
    assert copied.rstrip("\n") == expected.rstrip("\n"), (
        f"the copy button of {shown_name} copied:\n{copied}"
    )
    tab.assert_no_problem()


def test_spanish_search_finds_autograd(tab: _Tab) -> None:
    tab.visit("")
    search_for(tab.page, "autograd")
    hrefs = tab.page.locator(".md-search-result__item a").evaluate_all(
        "links => links.map(a => a.href)"
    )
    spanish = [h for h in hrefs if not h.removeprefix(tab.base_url).startswith("en/")]
    assert spanish, f"no Spanish page among the results for «autograd»: {hrefs}"
    tab.assert_no_problem()


@pytest.mark.parametrize("slug", ARTICLES)
def test_language_switcher_leads_to_the_english_twin(tab: _Tab, slug: str) -> None:
    tab.visit(f"{slug}/", search_index=False)  # its errors are test_page_loads_…'s
    selector = tab.page.locator(".md-header .md-select").filter(
        has=tab.page.locator('a[hreflang="en"]')
    )
    selector.hover()  # the language list opens on hover
    link = selector.locator('a[hreflang="en"]')
    link.wait_for(state="visible")
    with tab.page.expect_navigation(wait_until="domcontentloaded"):
        link.click()
    assert tab.page.url == f"{tab.base_url}en/{slug}/"
    assert tab.page.locator("html").get_attribute("lang") == "en"
    tab.assert_no_problem()
