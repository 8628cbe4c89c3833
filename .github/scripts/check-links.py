#!/usr/bin/env python3
"""Whether every external link a built site writes out answers:

    python .github/scripts/check-links.py SITE [--skip PREFIX ...]

Reads every HTML page under SITE, collects the http(s) addresses of its links, images
and scripts (the site's own address, from sitemap.xml, is skipped: the build checks
those), and asks each once: HEAD, then GET where a server refuses HEAD. A 2xx or 3xx
answer passes; 429 (rate limited) is reported and passes. Prints each dead address with
the pages that name it and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import re
import sys
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

ATTRIBUTES = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src"}
HEADERS = {"User-Agent": "Mozilla/5.0 (link check of a static site; +https://github.com/)"}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = ATTRIBUTES.get(tag)
        for name, value in attrs:
            if name == wanted and value and re.match(r"https?://", value):
                self.found.add(value.split("#", 1)[0])


def external_links(site: Path, skip: tuple[str, ...]) -> dict[str, list[str]]:
    """``address -> pages naming it`` for every external address in SITE's pages."""
    named: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for url in parser.found:
            if not url.startswith(skip):
                named.setdefault(url, []).append(page.relative_to(site).as_posix())
    return named


def status(url: str, timeout: float = 20) -> int | str:
    """The HTTP status the address answers with, or the error that stopped it."""
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers=HEADERS)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                return int(response.status)
        except urllib.error.HTTPError as error:
            if method == "GET" or error.code not in (400, 403, 404, 405, 501):
                return error.code
        except (urllib.error.URLError, OSError) as error:
            if method == "GET":
                return str(getattr(error, "reason", error))
    return "no answer"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--skip", action="append", default=[], help="address prefix not to check")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}: not a built site (no index.html)", file=sys.stderr)
        return 2
    sitemap = args.site / "sitemap.xml"
    own = (re.findall(r"<loc>([^<]+)</loc>", sitemap.read_text(encoding="utf-8"))[:1]
           if sitemap.is_file() else [])
    named = external_links(args.site, tuple(args.skip + own))
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = dict(zip(named, pool.map(status, named), strict=True))
    dead = 0
    for url, answer in sorted(answers.items()):
        if isinstance(answer, int) and (200 <= answer < 400 or answer == 429):
            print(f"ok {answer} {url}" if answer != 429
                  else f"::warning::rate limited (429): {url}")
            continue
        dead += 1
        pages = ", ".join(named[url][:5]) + (" …" if len(named[url]) > 5 else "")
        print(f"::error::{url} answered {answer} (named in {pages})")
    print(f"{len(answers)} external addresses, {dead} dead")
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
