"""One HTTP server and one Chromium for the browser tests of a run.

The built site (``built_site``, tests/conftest.py) is served over HTTP on
127.0.0.1 (over file:// Material's search box is missing). Debian's Chromium is
driven by Playwright through ``executable_path`` (``playwright install`` cannot
download here). Without either, the tests skip with the reason; with
``CI=true`` they fail instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from support import CHROMIUM_ARGS, ROOT

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


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI=true, and CI must not skip the browser tests")
    pytest.skip(reason)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a tab that navigated away
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    executable = shutil.which("chromium")
    if executable is None:
        unavailable("no `chromium` executable on PATH (install it with `make browser`)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True,
                                             args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def open_page(chromium: Any, site_url: str) -> Iterator[Any]:
    """``open_page(path, width=1280)``: a loaded tab, reused per width."""
    tabs: dict[int, Any] = {}

    def visit(path: str, *, width: int = 1280) -> Any:
        if width not in tabs:
            tabs[width] = chromium.new_page(viewport={"width": width, "height": 900},
                                            locale="es-ES", color_scheme="light")
        tab = tabs[width]
        tab.goto(site_url + path, wait_until="load")
        return tab

    yield visit
    for tab in tabs.values():
        tab.close()
