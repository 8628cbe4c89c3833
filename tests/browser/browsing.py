"""Helpers of the browser tests: the pages they visit, the reviewer's screenshots, the
skip-or-fail rule and the HTTP server of the built site.

A plain module (imported as ``tests.browser.browsing``), not a conftest: pytest
discourages importing from conftest files. The fixtures live in
tests/browser/conftest.py.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NoReturn

import pytest
from support import BACKSTOP_S, ROOT

__all__ = ["ARTICLES", "ARTIFACTS", "SCREENSHOTS", "offline", "screenshot", "serve",
           "switch_palette", "unavailable"]

ARTIFACTS = ROOT / "test-artifacts"
#: Every page's screenshots, one file per layout: <page>-<width>-<light|dark>.jpg.
SCREENSHOTS = ARTIFACTS / "screenshots"
ARTICLES = ["que-es-pytorch", "backward-frente-a-autograd-grad", "medir-pytorch",
            "elegir-pytorch"]


def _full_pages() -> bool:
    """Whole-page pictures where someone reviews them: CI (CI=true), which uploads the
    folder, or HARNESS_SCREENSHOTS=full. A local run takes the first screen: the same
    loads and checks, without rendering every page to its end (a third of the
    screenshot pass's time)."""
    wanted = os.environ.get("HARNESS_SCREENSHOTS", "")
    if wanted not in ("", "full", "first-screen"):
        raise pytest.UsageError(f"HARNESS_SCREENSHOTS={wanted!r}: expected full or first-screen")
    return wanted == "full" or (not wanted and os.environ.get("CI") == "true")


def screenshot(tab: Any, path: str, *, width: int, dark: bool) -> None:
    """Save what a reader of ``path`` sees in ``tab``, for review.

    With full pages (CI): the whole page on a phone and for the articles, the first
    screen otherwise. JPEG: a full-page PNG of an 11,000 px article takes about twice as
    long to encode, and a reviewer reads layout, not pixels."""
    name = path.strip("/").replace("/", "_") or "inicio"
    article = name.removeprefix("en_") in ARTICLES
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}-{width}-{'dark' if dark else 'light'}.jpg"),
                   type="jpeg", quality=80,
                   full_page=_full_pages() and (width < 1000 or article))


def offline(context: Any) -> Any:
    """``context`` with GitHub's API answered locally (Material asks it for the
    repository's stars and release; the test machine has no internet, so the answer is an
    empty one rather than a DNS error), and a default timeout that is a backstop against a
    hang, not a limit a busy machine can reach (Playwright's own is 30 s)."""
    context.set_default_timeout(BACKSTOP_S * 1000)
    context.route("https://api.github.com/**", lambda route: route.fulfill(
        status=200, body="{}", content_type="application/json"))
    return context


def switch_palette(tab: Any, scheme: str) -> None:
    """Click the header's palette toggle, as a reader does, until ``scheme`` ("default"
    or "slate") shows: the site's styles key on it, as they do for a dark system
    preference."""
    if tab.evaluate("document.body.dataset.mdColorScheme") != scheme:
        tab.locator("form[data-md-component=palette] label:not([hidden])").click()
    assert tab.evaluate("document.body.dataset.mdColorScheme") == scheme


def search_for(tab: Any, query: str) -> None:
    """Type ``query`` into the header's search, as a reader does (Material reacts to key
    events, not to fill()), and wait for the results of the whole query: while it is typed,
    each prefix («r», «ru»…) shows results of its own, and a busy machine leaves them on
    screen long enough for a test to read them. A section's link carries the words it
    matched (``?h=``; a page's own link may carry none)."""
    tab.locator("input.md-search__input").click()
    tab.keyboard.type(query)
    tab.wait_for_function("""words => {
        const marked = [...document.querySelectorAll('.md-search-result__item a')]
            .map(a => new URL(a.href).searchParams.get('h') || '').filter(h => h);
        return marked.length > 0
            && marked.every(h => words.every(w => h.split(' ').includes(w)));
    }""", arg=query.lower().split())


def unavailable(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail under CI=true: CI must not skip the browser tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI=true, and CI must not skip the browser tests")
    pytest.skip(reason)


class _Site(SimpleHTTPRequestHandler):
    """Files of the built site under its ``site_url`` path, as GitHub Pages serves them:
    the 404 page links its styles and scripts absolutely, from that path."""

    def __init__(self, *args: Any, prefix: str, **kwargs: Any) -> None:
        self.prefix = prefix  # set first: the base class handles the request in __init__
        super().__init__(*args, **kwargs)

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return super().translate_path("/__outside_the_site__")  # a 404
        return super().translate_path("/" + path.removeprefix(self.prefix))

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a tab that navigated away
            super().handle_error(request, client_address)


@contextmanager
def serve(folder: Path, *, path: str = "/") -> Iterator[str]:
    """Serve ``folder`` over HTTP on 127.0.0.1 at ``path`` (over file:// Material's search
    box is missing); yield its URL, with a trailing slash."""
    handler = functools.partial(_Site, directory=str(folder), prefix=path)
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()
