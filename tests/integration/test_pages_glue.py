"""The Sybil glue on a tiny real project: page order, shared namespace, and
every bad input of the issue «The site» caught with file and line.

Each run is a subprocess (torch cannot be imported twice in one process), so
runtime faults share one run: one page per fault, each page its own namespace.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import SAMPLES, run

#: The per-snippet limit of the run: only the hanging snippet reaches it (each page
#: imports torch before its first snippet's clock starts; the others take milliseconds).
HANG_LIMIT_S = 10

FAULT_PAGES = {
    # page name: (snippet source, expectation name, expected value)
    "namespace": ("import torch\n\nreused = g * 1.0\nprint(reused)\n", "reused", "6.0"),
    "wrong": ("import torch\n\nx = torch.tensor(3.0)\nsquare = x * x\n", "square", "10.0"),
    "unknown": ("import torch\n\nsquare = torch.tensor(9.0)\n", "squared", "9.0"),
    "raises": ("import torch\n\nbad = torch.ones(2) @ torch.ones(3)\n", "bad", "0.0"),
    # A loop that swallows every exception, SystemExit and KeyboardInterrupt included:
    # only a clock the snippet cannot reach stops it. It sleeps: the wait costs no CPU.
    "hangs": ("import time\n\nnever = 0.0\nwhile True:\n    try:\n        time.sleep(1)\n"
              "    except BaseException:\n        pass\n", "never", "0.0"),
}


def add_page(root: Path, name: str, source: str, expect: str, value: str, *, first: str = "") -> None:
    (root / "snippets" / name).mkdir(parents=True)
    (root / "snippets" / name / "ejemplo.py").write_text(source)
    (root / "snippets" / name / "expectations.toml").write_text(
        f'[[expect]]\nsnippet = "ejemplo"\nname = "{expect}"\nvalue = {value}\n'
        'derivation = "Derivación de prueba: 3 · 3 = 9."\n'
    )
    fence = '```python\n--8<-- "{0}"\n```\n\n'
    for page in (f"{name}.md", f"{name}.en.md"):
        (root / "docs" / page).write_text(f"# {name}\n\n" + first + fence.format(f"{name}/ejemplo.py"))


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    import shutil
    import sys

    root = tmp_path_factory.mktemp("faults")
    shutil.copytree(SAMPLES / "mini", root, dirs_exist_ok=True)
    for name, (source, expect, value) in FAULT_PAGES.items():
        first = '```python\n--8<-- "pagina/cuadrado.py"\n```\n\n' if name == "namespace" else ""
        add_page(root, name, source, expect, value, first=first)
    (root / "docs/pagina.en.md").write_text((root / "docs/pagina.md").read_text())
    missing = root / "docs/missing.md"
    missing.write_text("# missing\n\ntext\n\n```python\n--8<-- \"pagina/cuadrao.py\"\n```\n")
    (root / "docs/missing.en.md").write_text(missing.read_text())
    done = run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q",
         "--continue-on-collection-errors"],
        cwd=root, capture_output=True, text=True,  # a backstop: a hang
        env={**__import__("os").environ, "HARNESS_EXAMPLE_TIMEOUT": str(HANG_LIMIT_S)},
    )
    return done.returncode, done.stdout + done.stderr


def test_pages_share_a_namespace_in_page_order(faults) -> None:
    _, out = faults
    assert "PASSED docs/namespace.md::sybil:pages,line:7,column:1" in out


def test_english_twins_are_not_collected(faults) -> None:
    _, out = faults
    assert "pagina.en.md" not in out


def test_wrong_analytic_value_names_page_snippet_derivation_and_observed(faults) -> None:
    _, out = faults
    assert "docs/wrong.md:3: analytic expectation does not hold for 'square'" in out
    assert "snippets/wrong/ejemplo.py:4" in out  # the line that binds square
    assert "expectation: snippets/wrong/expectations.toml:1" in out
    assert "analytic:    10 — Derivación de prueba: 3 · 3 = 9." in out
    assert "observed:    9 (torch.float32)" in out


def test_expectation_naming_a_value_never_produced(faults) -> None:
    _, out = faults
    assert (
        "snippets/unknown/expectations.toml:1: expectation names 'squared', which "
        "snippets/unknown/ejemplo.py does not define (an earlier snippet of the page may; an "
        "expectation checks only its own snippet). Names it defines: square, torch."
    ) in out


def test_snippet_that_raises_points_at_its_own_line(faults) -> None:
    _, out = faults
    assert "snippets/raises/ejemplo.py:3: snippet 'raises/ejemplo' raised RuntimeError" in out


def test_snippet_that_hangs_is_stopped_by_the_example_timeout(faults) -> None:
    _, out = faults
    assert (f"snippets/hangs/ejemplo.py (snippet 'hangs/ejemplo') ran longer than {HANG_LIMIT_S} s "
            "and was stopped: it hangs") in out


def test_missing_snippet_file_names_the_page_line(faults) -> None:
    code, out = faults
    assert "docs/missing.md:5: unknown snippet 'pagina/cuadrao'. Did you mean 'pagina/cuadrado'?" in out
    assert code != 0
    assert "5 failed, 4 passed" in out  # a missing snippet is a failing item, not an error


def test_malformed_expectation_stops_collection_with_its_line(mini, pytester) -> None:
    """One real run; the other malformed shapes are unit-tested on the loader itself."""
    toml = mini / "snippets/pagina/expectations.toml"
    toml.write_text(toml.read_text().replace('derivation = "2 · 3 = 6."\n', "", 1))
    result = pytester.runpytest_subprocess()
    assert result.ret != 0
    assert "expectations.toml:13: [[expect]] needs 'derivation'" in result.stdout.str()
