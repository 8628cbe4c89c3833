"""The browser tests' fixtures, on pytest-playwright.

pytest-playwright gives each test a fresh browser context (its ``context`` and
``page`` fixtures) and, with the option the Makefile passes, keeps a screenshot of a
failing test under ``test-artifacts/playwright/`` (``--tracing=retain-on-failure`` adds
a trace when debugging one). Here it is pointed at Debian's Chromium through
``executable_path`` (``playwright install`` cannot download here); without a
``chromium`` executable the tests skip with the reason, and with ``CI=true`` they fail
instead. The built site (``built_site``,
tests/conftest.py) is served once per run over HTTP on 127.0.0.1. Helpers that tests
import live in tests/browser/browsing.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support import CHROMIUM_ARGS, site_path

from tests.browser.browsing import offline, serve, unavailable


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site at the path of its ``site_url`` (support.SITE_HOME's in the tests)."""
    with serve(built_site, path=site_path()) as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's launch options, with Debian's Chromium and its flags."""
    executable = shutil.which("chromium")
    if executable is None:
        unavailable("no `chromium` executable on PATH (install it with `make browser`)")
    return {**browser_type_launch_args, "executable_path": executable, "headless": True,
            "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A Spanish reader on a desktop, in the light palette, unless a test resizes."""
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900},
            "locale": "es-ES", "color_scheme": "light"}


@pytest.fixture
def context(new_context: Callable[..., Any]) -> Any:
    """A fresh context per test (pytest-playwright's, so it can be traced), offline."""
    return offline(new_context())


@pytest.fixture
def open_page(page: Any, site_url: str) -> Callable[..., Any]:
    """``open_page(path, width=1280)``: the test's tab, sized and loaded."""

    def visit(path: str, *, width: int = 1280) -> Any:
        if page.viewport_size["width"] != width:
            page.set_viewport_size({"width": width, "height": 900})
        page.goto(site_url + path, wait_until="load")
        return page

    return visit


@pytest.fixture(scope="session")
def base_url() -> None:
    """No base URL: tests open pages by full address (``site_url``), so that a test
    that serves its own copy (test_serve.py) does not build the site. This also
    replaces pytest-playwright's fallback fixture, which pytest 9 warns about (a
    session fixture defined as an instance method)."""
    return None
