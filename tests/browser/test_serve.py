"""The live preview follows the sources: `mkdocs serve` on a copy of the project, a
snippet edited on disk, and Debian's Chromium (driven by Playwright) sees its page
reload with the new code, the observed block marked stale and the command that
records it again, while the server keeps serving (the preview is not strict).

Without a ``chromium`` executable or Playwright the test skips with its reason;
with ``CI=true`` it fails instead (``make browser`` installs Chromium).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from support import BACKSTOP_S, SERVED, SITE_HOME, copy_project, free_port, serving, site_path

pytestmark = pytest.mark.browser

SNIPPET = "que-es-pytorch/derivada_cuadrado"
PAGE = "que-es-pytorch/"
def _recorded(copy: Path, snippet: str) -> bool:
    return any(f'"snippet": "{snippet}"' in path.read_text(encoding="utf-8")
               for path in copy.glob("results/*/*.examples.jsonl"))


def test_a_snippet_edit_reloads_its_page_in_the_browser(tmp_path: Path, page) -> None:
    """Uses pytest-playwright's tab (tests/browser/conftest.py): a second sync Playwright
    in the same worker would collide with the first one's event loop."""
    copy = copy_project(tmp_path / "project", SERVED)
    port = free_port()
    url = f"http://127.0.0.1:{port}{site_path(copy / 'mkdocs.yml')}{PAGE}"
    log = (tmp_path / "serve.log").open("w+")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}",
         "--livereload"],
        cwd=copy, stdout=log, stderr=subprocess.STDOUT, text=True,
        # The site's home as the shared test build has it, which site_path() reads.
        env={**os.environ, **SITE_HOME},
    )
    try:
        problem = serving(url, server)
        if problem:
            log.seek(0)
            pytest.fail(f"{problem}:\n{log.read()}")
        page.goto(url)
        mark = f"serve-test-{uuid.uuid4().hex[:8]}"
        assert mark not in page.content()
        stale_before = page.locator(".harness-rerecord").count()
        snippet = copy / "snippets" / f"{SNIPPET}.py"
        snippet.write_text(snippet.read_text() + f"# {mark}\n")
        saved = time.monotonic()
        page.wait_for_function(
            # The body is briefly null while the live reload swaps the page.
            "mark => !!document.body && document.body.innerText.includes(mark)",
            arg=mark, timeout=BACKSTOP_S * 1000)  # a backstop: a busy machine rebuilds slowly
        shown_after = time.monotonic() - saved
        if _recorded(copy, SNIPPET):
            rerecord = page.locator(".harness-rerecord")
            assert rerecord.count() > stale_before, "no re-record hint on the page"
            assert "python -m harness record --only examples" in rerecord.first.inner_text()
        assert server.poll() is None, "mkdocs serve stopped after a snippet edit"
        print(f"snippet edit shown {shown_after:.2f} s after the save")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.seek(0)
        output = log.read()
        log.close()
    assert "Aborted" not in output, output
