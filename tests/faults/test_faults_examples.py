"""Faults pytest must catch, injected into a copy of the real project, one run for all:
each page keeps its own namespace, so every fault is reported independently."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import inject


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    import shutil

    from .conftest import COPIED, ROOT

    root = tmp_path_factory.mktemp("faulty")
    for name in COPIED:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, root / name)
    shutil.copy2(ROOT / "conftest.py", root / "conftest.py")
    lines = {
        "wrong": inject(root / "snippets/que-es-pytorch/expectations.toml",
                        'name = "x.grad"\nvalue = 6.0\n', 'name = "x.grad"\nvalue = 7.0\n'),
        "unknown": inject(root / "snippets/backward-frente-a-autograd-grad/expectations.toml",
                          'snippet = "grad_sin_acumular"\nname = "g"',
                          'snippet = "grad_sin_acumular"\nname = "gradient"'),
    }
    raising = root / "snippets/elegir-pytorch/respuesta_conocida.py"
    raising.write_text(raising.read_text() + "check = torch.ones(2) @ torch.ones(3)\n")
    lines["raises"] = raising.read_text().count("\n")
    hanging = root / "snippets/medir-pytorch/trabajo_matmul.py"
    hanging.write_text("while True:\n    pass\n" + hanging.read_text())
    index = root / "docs/index.md"
    index.write_text(index.read_text() + '\n```python\n--8<-- "que-es-pytorch/no_existe.py"\n```\n')
    lines["missing"] = index.read_text().count("\n") - 2
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "docs", "-q", "-rA", "-p", "no:cacheprovider",
         "-p", "no:randomly", "--continue-on-collection-errors"],
        cwd=root, capture_output=True, text=True, timeout=180,
        env={**os.environ, "HARNESS_EXAMPLE_TIMEOUT": "2"},
    )
    return {"code": done.returncode, "out": done.stdout + done.stderr, "lines": lines}


def test_the_run_fails(report) -> None:
    assert report["code"] == 1


def test_wrong_analytic_value(report) -> None:
    out, line = report["out"], report["lines"]["wrong"]
    assert "analytic expectation does not hold for 'x.grad'" in out
    assert f"expectation: snippets/que-es-pytorch/expectations.toml:{line - 2}" in out
    assert "snippets/que-es-pytorch/derivada_cuadrado.py:" in out
    assert "analytic:    7 — Para y = x², dy/dx = 2x" in out
    assert "observed:    6 (torch.float32)" in out


def test_expectation_naming_an_unknown_value(report) -> None:
    out = report["out"]
    assert "expectation names 'gradient', which snippets/backward-frente-a-autograd-grad/" \
           "grad_sin_acumular.py never produces. Names it defines:" in out


def test_snippet_that_raises(report) -> None:
    line = report["lines"]["raises"]
    assert (f"snippets/elegir-pytorch/respuesta_conocida.py:{line}: snippet "
            "'elegir-pytorch/respuesta_conocida' raised RuntimeError") in report["out"]


def test_snippet_that_hangs(report) -> None:
    assert ("snippets/medir-pytorch/trabajo_matmul.py (snippet 'medir-pytorch/trabajo_matmul') "
            "ran longer than its 2 s limit") in report["out"]


def test_missing_snippet_file(report) -> None:
    line = report["lines"]["missing"]
    assert (f"docs/index.md:{line}: unknown snippet 'que-es-pytorch/no_existe'") in report["out"]


def test_unbroken_examples_still_pass(report) -> None:
    out = report["out"]
    assert "PASSED docs/que-es-pytorch.md" in out
    assert "PASSED docs/backward-frente-a-autograd-grad.md" in out

