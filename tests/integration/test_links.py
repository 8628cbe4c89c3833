"""Every link of the built site leads somewhere.

Reads every HTML file of the real build (the session fixture ``built_site``) with
the standard library's parser:

* an internal ``href``/``src`` (relative or root-relative) names a file of the
  build (a folder means its ``index.html``);
* its ``#fragment`` is an ``id`` (or an ``<a name>``, which HTML also accepts as a
  fragment target) of the target page;
* external links are not fetched here: they are written, with the pages that use
  them, to ``test-artifacts/external-links.txt`` for a periodic check, and each
  must be ``https``.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from support import ROOT, site_path

ARTIFACTS = ROOT / "test-artifacts"

# Attributes that load or lead to another resource.
LINK_ATTRIBUTES = frozenset({"href", "src", "xlink:href", "poster"})
# Schemes that are neither a file of the site nor a web address to check.
NOT_A_LINK = ("mailto:", "tel:", "data:", "javascript:", "blob:", "about:")


@dataclass
class Page:
    """What one HTML file offers (ids) and uses (links)."""

    ids: set[str] = field(default_factory=set)
    links: list[tuple[int, str, str, str]] = field(default_factory=list)  # line, tag, attr, url


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.page.ids.add(value)
            elif name in LINK_ATTRIBUTES:
                self.page.links.append((self.getpos()[0], tag, name, value.strip()))
            elif name == "srcset":
                for candidate in value.split(","):
                    url = candidate.strip().split(" ")[0]
                    if url:
                        self.page.links.append((self.getpos()[0], tag, name, url))

    handle_startendtag = handle_starttag


def _parse(path: Path) -> Page:
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8"))
    collector.close()
    return collector.page


@dataclass
class Site:
    root: Path
    pages: dict[str, Page]  # "que-es-pytorch/index.html" -> Page
    base: str = "/"
    """The path of ``site_url``: root-relative links (404.html uses them) start with it."""

    def target(self, page: str, url: str) -> str | None:
        """The site path ``url`` (no scheme, no fragment) names from ``page``,
        or None when it names no file of the build."""
        path = unquote(urlsplit(url).path)
        if path == "":
            return page  # "#x" or "?q": the page itself
        if path.startswith("/"):
            if not (path + "/").startswith(self.base):
                return None  # outside the site's own path
            joined = posixpath.normpath(path[len(self.base):].lstrip("/") or ".")
        else:
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if joined == ".." or joined.startswith("../"):
            return None  # above the site's root
        candidate = self.root / joined
        if candidate.is_dir():
            candidate = candidate / "index.html"
            joined = posixpath.normpath(posixpath.join(joined, "index.html"))
        elif path.endswith("/"):
            return None  # "x/" must be a folder
        return joined if candidate.is_file() else None


@pytest.fixture(scope="module")
def site(built_site: Path) -> Site:
    pages = {
        path.relative_to(built_site).as_posix(): _parse(path)
        for path in sorted(built_site.rglob("*.html"))
    }
    # Home, four articles and four notebooks in Spanish, and English twins: a
    # build that lost its pages must not pass for a build without broken links.
    assert len(pages) >= 10, f"only {len(pages)} HTML files in {built_site}: {sorted(pages)}"
    return Site(root=built_site, pages=pages, base=site_path())


def _external(url: str) -> bool:
    return url.startswith("//") or urlsplit(url).scheme in {"http", "https", "ftp", "ws", "wss"}


def _internal(url: str) -> bool:
    return not (_external(url) or url.lower().startswith(NOT_A_LINK) or urlsplit(url).scheme)


def broken_links(site: Site) -> list[str]:
    """Internal links that name no file of the build, as ``page:line: what``."""
    return [
        f"{page}:{line}: <{tag} {attr}={url!r}> -> no such file in the build"
        for page, found in site.pages.items()
        for line, tag, attr, url in found.links
        if _internal(url) and site.target(page, url) is None
    ]


def broken_fragments(site: Site) -> list[str]:
    """Internal links whose ``#fragment`` is no id of their target page."""
    broken = []
    for page, found in site.pages.items():
        for line, _tag, _attr, url in found.links:
            fragment = unquote(urlsplit(url).fragment)
            if not (_internal(url) and fragment):
                continue
            target = site.target(page, url)
            if target is None:
                continue  # a broken link, reported by broken_links
            if not target.endswith(".html"):
                broken.append(f"{page}:{line}: {url!r} -> a fragment into {target}, not a page")
            elif fragment not in site.pages[target].ids:
                broken.append(f"{page}:{line}: {url!r} -> {target} has no id {fragment!r}")
    return broken


def test_every_internal_link_names_a_file_of_the_build(site: Site) -> None:
    broken = broken_links(site)
    assert not broken, f"{len(broken)} broken internal link(s):\n" + "\n".join(broken)


def test_every_fragment_names_an_id_of_its_target_page(site: Site) -> None:
    broken = broken_fragments(site)
    assert not broken, f"{len(broken)} broken fragment(s):\n" + "\n".join(broken)


def test_the_checks_catch_a_broken_sample(tmp_path: Path) -> None:
    """The checkers on a two-page site with one good and one broken link of each kind."""
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<h1 id="top">Home</h1>\n<a href="a/#part">ok</a>\n<a href="#top">ok</a>\n'
        '<a href="b/">missing page</a>\n<a href="a/#nowhere">missing id</a>\n'
        '<img src="img/x.png">\n<a href="mailto:x@example.org">not a file</a>\n'
    )
    (tmp_path / "a" / "index.html").write_text('<h2 id="part">Part</h2><a name="old"></a>')
    site = Site(
        root=tmp_path,
        pages={p.relative_to(tmp_path).as_posix(): _parse(p) for p in tmp_path.rglob("*.html")},
    )
    assert broken_links(site) == [
        "index.html:4: <a href='b/'> -> no such file in the build",
        "index.html:6: <img src='img/x.png'> -> no such file in the build",
    ]
    assert broken_fragments(site) == [
        "index.html:5: 'a/#nowhere' -> a/index.html has no id 'nowhere'"
    ]


def test_external_links_are_listed_and_use_https(site: Site) -> None:
    used: dict[str, set[str]] = defaultdict(set)
    for page, found in site.pages.items():
        for _line, _tag, _attr, url in found.links:
            if _external(url):
                used[url].add(page)
    ARTIFACTS.mkdir(exist_ok=True)
    listing = ARTIFACTS / "external-links.txt"
    listing.write_text(
        "# External links of the built site, not fetched by the tests: check them\n"
        "# periodically (for example `xargs -n1 curl -fsIL -o /dev/null` on the URLs).\n"
        "# URL<TAB>pages that use it\n"
        + "".join(f"{url}\t{' '.join(sorted(pages))}\n" for url, pages in sorted(used.items())),
        encoding="utf-8",
    )
    insecure = [
        f"{url} (used by {', '.join(sorted(pages))})"
        for url, pages in sorted(used.items())
        if urlsplit(url).scheme != "https"
    ]
    assert not insecure, "external links that are not https:\n" + "\n".join(insecure)


@pytest.mark.parametrize(
    ("page", "url", "expected"),
    [
        ("a/index.html", "../b/", "b/index.html"),
        ("a/index.html", "../b/#x", "b/index.html"),
        ("a/index.html", "./", "a/index.html"),
        ("a/index.html", "#x", "a/index.html"),
        ("a/index.html", "..", "index.html"),
        ("a/index.html", "/b/", "b/index.html"),
        ("a/index.html", "../b/c%20d.txt", "b/c d.txt"),
        ("a/index.html", "../missing/", None),
        ("a/index.html", "../b/index.html/", None),
        ("a/index.html", "../../outside.html", None),
        ("a/index.html", "/site/b/", "b/index.html"),
        ("a/index.html", "/site", "index.html"),
        ("a/index.html", "/elsewhere/b/", None),
    ],
)
def test_target_resolution(tmp_path: Path, page: str, url: str, expected: str | None) -> None:
    for name in ("index.html", "a/index.html", "b/index.html", "b/c d.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<p id=x></p>")
    base = "/site/" if url.startswith(("/site", "/elsewhere")) else "/"
    assert Site(root=tmp_path, pages={}, base=base).target(page, url) == expected
