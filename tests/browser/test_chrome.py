"""The frame around the pages as a reader and a crawler get it (issues 20 and 21): the
404 page in one language, page loads that ask for nothing missing, and the language
pairs in the site map.

* Material's bundle fetched ``sitemap.xml`` next to every ``<link rel="alternate">``,
  which mkdocs-static-i18n points at the page's twin: two 404s on every load. The
  pages carry no such tags now (overrides/main.html); every request of a load is
  recorded here and none may fail.
* The 404 page used to be written by the English build, last: a Spanish body under
  an English header and navigation, its language switch leading to a notebook.
* The site map holds each Spanish/English pair and an x-default (the Spanish page),
  absolute from site_url; a notebook is not listed, and its canonical address is
  its article's.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from support import SITE_HOME

from tests.browser.browsing import ARTICLES

pytestmark = pytest.mark.browser

#: One page of each kind and language, and the 404 page.
LOADS = ["", "medir-pytorch/", "en/", "en/medir-pytorch/", "cuadernos/que-es-pytorch/",
         "en/cuadernos/que-es-pytorch/", "404.html"]
#: The English navigation's titles (mkdocs.yml, nav_translations) that differ from
#: the Spanish ones.
ENGLISH_NAV = ("Home", "What is PyTorch", "PyTorch code", "Measuring PyTorch",
               "Choosing PyTorch", "Drift between versions", "Notebooks")
SPANISH_NAV = ("Inicio", "Qué es PyTorch", "Medir PyTorch", "Elegir PyTorch",
               "Deriva entre versiones", "Cuadernos")
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def _load(page: Any, url: str) -> list[str]:
    """Load ``url`` until the network is quiet; every response of 400 or more, and
    every request that failed other than by the browser cancelling it."""
    bad: list[str] = []

    def response(answer: Any) -> None:
        if answer.status >= 400:
            bad.append(f"HTTP {answer.status}: {answer.url}")

    def failed(request: Any) -> None:
        if request.failure != "net::ERR_ABORTED":
            bad.append(f"failed: {request.url} ({request.failure})")

    page.on("response", response)
    page.on("requestfailed", failed)
    try:
        page.goto(url, wait_until="networkidle")
    finally:
        page.remove_listener("response", response)
        page.remove_listener("requestfailed", failed)
    return bad


def test_no_request_of_a_page_load_fails(page: Any, site_url: str) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    failures = {path: _load(page, site_url + path) for path in LOADS}
    assert not any(failures.values()), failures
    # What used to fail: the language selector's probe for the twin's sitemap.
    probes = [url for url in asked if urlsplit(url).path.endswith("sitemap.xml")]
    assert not probes, probes
    # The loads happened, scripts included: each page, and both languages' search index.
    assert all(site_url + path in asked for path in LOADS), asked
    indexes = {url for url in asked if url.endswith("search/search_index.json")}
    assert indexes == {site_url + "search/search_index.json",
                       site_url + "en/search/search_index.json"}, indexes


def test_no_page_names_an_alternate_material_would_probe(built_site: Path) -> None:
    pages = [p for p in built_site.rglob("*.html")]
    assert len(pages) > 20
    tagged = [p.relative_to(built_site).as_posix() for p in pages
              if re.search(r"<link[^>]*rel=\"?alternate", p.read_text(encoding="utf-8"))]
    assert not tagged, tagged


def test_404_is_spanish_with_an_english_section(page: Any, site_url: str) -> None:
    page.goto(site_url + "404.html", wait_until="load")
    assert page.evaluate("document.documentElement.lang") == "es"
    nav = page.evaluate("""[...document.querySelectorAll(
            '.md-header, .md-nav--primary, .md-tabs, .md-footer')]
        .map(e => e.textContent).join(' ')""")
    assert all(title in nav for title in SPANISH_NAV), nav
    assert not [t for t in ENGLISH_NAV if re.search(rf"\b{re.escape(t)}\b", nav)], nav
    assert page.title() == "Página no encontrada - Qué es PyTorch"
    assert page.locator("input.md-search__input").get_attribute("placeholder") == "Búsqueda"
    # Issue 28: one English section, its own lang, leads to the English pages; outside
    # it, only the language switch does.
    links = page.evaluate("""[...document.querySelectorAll('a[href]')]
        .filter(a => !a.closest('section[lang=en]'))
        .map(a => ({href: a.href, lang: a.getAttribute('hreflang') || '',
                    switch: a.classList.contains('md-select__link')}))""")
    english = page.evaluate("""[...document.querySelectorAll('section[lang=en] a[href]')]
        .map(a => a.href)""")
    assert english and all(href.startswith(site_url + "en/") for href in english), english
    into_english = [a for a in links if a["href"].startswith(site_url + "en/")]
    assert into_english == [{"href": site_url + "en/", "lang": "en", "switch": True}], into_english
    spanish = [a for a in links if a["switch"] and a["lang"] == "es"]
    assert [a["href"] for a in spanish] == [site_url], spanish
    assert not any("/cuadernos/" in a["href"] for a in links if a["switch"]), links
    assert page.locator("link[rel=alternate]").count() == 0


def test_the_404_language_switch_leads_to_the_english_home(page: Any, site_url: str) -> None:
    page.goto(site_url + "404.html", wait_until="load")
    selector = page.locator(".md-header .md-select")
    selector.hover()
    link = selector.locator('a[hreflang="en"]')
    link.wait_for(state="visible")
    with page.expect_navigation(wait_until="domcontentloaded"):
        link.click()
    assert page.url == site_url + "en/"
    assert page.evaluate("document.documentElement.lang") == "en"


def _sitemap(built_site: Path) -> dict[str, dict[str, str]]:
    """loc → {hreflang: href} of the built site map."""
    root = ElementTree.parse(built_site / "sitemap.xml").getroot()
    return {entry.findtext(f"{SITEMAP}loc", ""): {
        link.get("hreflang", ""): link.get("href", "")
        for link in entry.iter(f"{XHTML}link") if link.get("rel") == "alternate"}
        for entry in root.iter(f"{SITEMAP}url")}


def test_the_sitemap_pairs_every_page_with_its_twin(built_site: Path) -> None:
    home = SITE_HOME["SITE_URL"]
    sitemap = _sitemap(built_site)
    spanish = [home, *(f"{home}{slug}/" for slug in [*ARTICLES, "medir-pytorch-registros",
                                                     "deriva-entre-versiones"])]
    english = [url.replace(home, home + "en/", 1) for url in spanish]
    assert sorted(sitemap) == sorted(spanish + english)
    for es, en in zip(spanish, english, strict=True):
        pair = {"es": es, "en": en, "x-default": es}
        assert sitemap[es] == pair, (es, sitemap[es])
        assert sitemap[en] == pair, (en, sitemap[en])
    # Every page the build wrote, but the notebooks and the 404, is in the site map.
    built = {home + p.parent.relative_to(built_site).as_posix().removeprefix(".") + "/"
             for p in built_site.rglob("index.html")}
    built = {url.replace(home + "/", home) for url in built}
    assert {url for url in built if "/cuadernos/" not in url} == set(sitemap)


@pytest.mark.parametrize("lang", ["", "en/"])
def test_a_notebook_points_its_canonical_address_at_its_article(built_site: Path,
                                                                lang: str) -> None:
    home = SITE_HOME["SITE_URL"]
    for slug in ARTICLES:
        html = (built_site / f"{lang}cuadernos/{slug}/index.html").read_text(encoding="utf-8")
        assert re.findall(r'<link rel="canonical" href="([^"]+)">', html) == [
            f"{home}{lang}{slug}/"], slug
