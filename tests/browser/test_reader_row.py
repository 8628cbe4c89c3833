"""«Mide en tu máquina» (issue 31): the command Medir offers, run with this environment's
torch, and its output pasted into the page's box.

The command is the file the page's link downloads (docs/assets/medir.py as served), run
in a subprocess on a small trial; its rows must land in Medir's matmul table and chart,
marked as the reader's, and survive a reload until cleared. Rows that are wrong (another
trial's work, a missing field, a negative latency, hostile text) get a message naming
their line and field, and nothing of them becomes markup. axe-core judges the page with
the box empty and filled (in both palettes), on a desktop and on a phone with touch.
"""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support import run

from tests.browser.browsing import offline, switch_palette
from tests.browser.test_accessibility import AXE, _axe, _known

pytestmark = pytest.mark.browser

TRIAL = "matmul_256_float32"
PAGE = "medir-pytorch-registros/"
HOSTILE = "<img src=x onerror=alert(1)>"
TAG = "tu medición, no registrada por el sitio"


@pytest.fixture(scope="module")
def printed(site_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """What the served medir.py prints for TRIAL: two runs, short timed blocks."""
    script = tmp_path_factory.mktemp("reader") / "medir.py"
    with urllib.request.urlopen(site_url + "assets/medir.py") as answer:  # noqa: S310 - local
        script.write_bytes(answer.read())
    # The timeout is a backstop for a hang: the two runs take seconds.
    done = run(
        [sys.executable, str(script), "--trial", TRIAL, "--runs", "2", "--min-run-time", "0.1"],
        capture_output=True, text=True, cwd=script.parent, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _data_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(("#", "trial,"))]


def _paste(tab: Any, text: str) -> str:
    tab.fill("#harness-reader-input", text)
    tab.click("#harness-reader-show")
    return str(tab.inner_text("#harness-reader-status"))


def _reader_rows(tab: Any) -> Any:
    return tab.locator(f'tr.harness-reader-row[title="{TRIAL}"]')


def test_the_link_serves_the_command(open_page: Any, site_url: str, printed: str,
                                     tmp_path: Path) -> None:
    tab = open_page(PAGE)
    with tab.expect_download() as download:
        tab.click("a[download][href$='assets/medir.py']")
    saved = tmp_path / "medir.py"
    download.value.save_as(saved)
    with urllib.request.urlopen(site_url + "assets/medir.py") as answer:  # noqa: S310 - local
        assert saved.read_bytes() == answer.read()
    header = [line for line in printed.splitlines() if line.startswith("trial,")]
    assert header and header[0].startswith(
        "trial,torch_build,device,dtype,shape,batch,latency,memory,quality_pass,")
    assert len(_data_lines(printed)) == 2
    assert any(line.startswith("# torch ") for line in printed.splitlines())


def test_reader_rows_beside_the_records(open_page: Any, printed: str) -> None:
    tab = open_page(PAGE)
    dialogs: list[str] = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    status = _paste(tab, printed)
    assert "Se muestran 2 filas tuyas" in status, status
    rows = _reader_rows(tab)
    assert rows.count() == 2
    assert rows.first.is_visible()
    assert TAG in rows.first.inner_text()
    # In the measurements table, in the group of the same trial's records.
    assert rows.first.evaluate(
        "r => r.closest('table').querySelectorAll('tr[title=\"' + r.title + '\"]').length") > 2
    marks = tab.locator("#harness-plot-matmul-throughput .harness-reader-mark")
    assert marks.count() == 2
    assert TAG in str(marks.first.get_attribute("title"))
    assert TAG in tab.inner_text("#harness-plot-matmul-throughput .harness-legend")
    # Kept in this browser only, until cleared.
    tab.reload()
    assert _reader_rows(tab).count() == 2
    tab.click("#harness-reader-clear")
    assert _reader_rows(tab).count() == 0
    assert tab.locator(".harness-reader-mark").count() == 0
    tab.reload()
    assert _reader_rows(tab).count() == 0
    assert not dialogs


def _replace(line: str, header: list[str], column: str, value: str) -> str:
    cells = line.split(",")
    cells[header.index(column)] = value
    return ",".join(cells)


def test_bad_rows_get_their_message_and_no_markup(open_page: Any, printed: str) -> None:
    header = next(line for line in printed.splitlines() if line.startswith("trial,")).split(",")
    good = _data_lines(printed)[0]
    cases = {
        "spec_sha256": _replace(good, header, "spec_sha256", "0" * 64),
        "run_id": good.rsplit(",", 1)[0],
        "latency": _replace(good, header, "latency", "-0.001"),
        "trial": _replace(good, header, "trial", HOSTILE),
    }
    tab = open_page(PAGE)
    dialogs: list[str] = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for field, line in cases.items():
        status = _paste(tab, f"{','.join(header)}\n{line}\n")
        assert f"Línea 2, campo «{field}»" in status, (field, status)
        assert _reader_rows(tab).count() == 0, field
        if field == "trial":  # the hostile cell is quoted in the message, as text
            assert HOSTILE in status, status
    # Hostile text alone on a line: a message naming the line and its first missing field.
    status = _paste(tab, HOSTILE)
    assert "Línea 1, campo «torch_build»" in status, status
    assert tab.evaluate("document.querySelectorAll('img[src=\"x\"]').length") == 0
    assert tab.locator("#harness-reader-status *:not(p):not(ul):not(li)").count() == 0
    assert tab.locator(".harness-reader-row, .harness-reader-mark").count() == 0
    assert not dialogs


def test_english_page_by_keyboard(open_page: Any, printed: str) -> None:
    tab = open_page("en/" + PAGE)
    tab.focus("#harness-reader-input")
    tab.keyboard.insert_text(printed)
    tab.keyboard.press("Tab")  # the first button, pressed from the keyboard
    assert tab.evaluate("document.activeElement.id") == "harness-reader-show"
    tab.keyboard.press("Enter")
    status = str(tab.inner_text("#harness-reader-status"))
    assert "2 of your rows are shown" in status, status
    assert "your measurement, not recorded by the site" in _reader_rows(tab).first.inner_text()


#: Material adds tabindex="0" to a scrollable code block only when `(hover)` matches, so
#: on a touch screen every wide code block of the page is reported (FACTS.md); the page's
#: own code blocks, not the box, and the same with the box empty.
TOUCH_KNOWN = ("scrollable-region-focusable", "> code")


def _severe(tab: Any, phone: bool) -> list[str]:
    return [f"{f['rule']} ({f['impact']}) {f['target']}: {f['help']}\n    {f['html']}"
            for f in _axe(tab) if not _known(f) and not (
                phone and f["rule"] == TOUCH_KNOWN[0] and f["target"].endswith(TOUCH_KNOWN[1]))]


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_axe_with_the_box_empty_and_filled(browser: Any, site_url: str, printed: str,
                                           phone: bool) -> None:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (npm install)")
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 900}
    context = browser.new_context(viewport=size, is_mobile=phone, has_touch=phone,
                                  locale="es-ES", color_scheme="light")
    offline(context)
    tab = context.new_page()
    tab.goto(site_url + PAGE, wait_until="load")
    empty = _severe(tab, phone)
    _paste(tab, printed + f"\n{HOSTILE}\n")
    assert _reader_rows(tab).count() == 2
    if phone:  # nothing wider than the phone's screen
        assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    filled = _severe(tab, phone)
    switch_palette(tab, "slate")  # and in the dark palette
    filled += [f"slate: {problem}" for problem in _severe(tab, phone)]
    context.close()
    assert not empty and not filled, "\n".join(["empty:", *empty, "filled:", *filled])
