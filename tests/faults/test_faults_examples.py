"""Faults pytest must catch, injected into a copy of the real project, one run for all:
each page keeps its own namespace, so every fault is reported independently."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import copy_project, inject

#: The per-snippet limit in the copies, so that the hanging snippet is stopped soon. A
#: page imports what its snippets import before the first one's clock starts, and the
#: others take well under a second of CPU: at this limit a machine would have to be
#: loaded far beyond the issue's load average of 15-20 for a healthy one to reach it.
HANG_LIMIT_S = 20
#: A backstop for a whole pytest run of a copy, reported as a hang.
BACKSTOP_S = 900


def _copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    return copy_project(tmp_path_factory.mktemp(name))


def _pytest(root: Path) -> subprocess.Popen[str]:
    """pytest on a copy's pages, started; :func:`_finish` waits for it."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "docs", "-q", "-rA", "-p", "no:cacheprovider",
         "-p", "no:randomly"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HARNESS_EXAMPLE_TIMEOUT": str(HANG_LIMIT_S)},
    )


def _finish(run: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        out, err = run.communicate(timeout=BACKSTOP_S)
    except subprocess.TimeoutExpired:
        run.kill()
        out, err = run.communicate()
        pytest.fail(f"hang: pytest on a copy's pages did not end within {BACKSTOP_S} s:\n"
                    f"{out[-2000:]}{err[-2000:]}")
    return run.returncode, out + err


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Two copies: faults found by reading the sources (they stop a page before it runs),
    and faults found by running; within each, every page keeps its own process. The two
    pytest runs go at once: the running copy waits HANG_LIMIT_S on the snippet that hangs."""
    root = _copy(tmp_path_factory, "running")
    lines = {
        "wrong": inject(root / "snippets/que-es-pytorch/expectations.toml",
                        'name = "x.grad"\nvalue = 6.0\n', 'name = "x.grad"\nvalue = 7.0\n'),
    }
    raising = root / "snippets/elegir-pytorch/dispositivo_destino.py"
    raising.write_text(raising.read_text() + "check = torch.ones(2) @ torch.ones(3)\n")
    lines["raises"] = raising.read_text().count("\n")
    hanging = root / "snippets/medir-pytorch/trabajo_matmul.py"
    # It swallows every exception, as a careless retry loop would: only a clock outside
    # the snippet's reach can stop it. It sleeps, so the wait costs no CPU.
    hanging.write_text("import time\nwhile True:\n    try:\n        time.sleep(1)\n"
                       "    except BaseException:\n        pass\n" + hanging.read_text())
    exiting = root / "snippets/backward-frente-a-autograd-grad/grad_sin_acumular.py"
    exiting.write_text(exiting.read_text() + "import os\nos._exit(0)\n")
    quitting = root / "snippets/que-es-pytorch/segundo_paso.py"
    quitting.write_text(quitting.read_text() + "import sys\nsys.exit(0)\n")
    lines["sys_exit"] = quitting.read_text().count("\n")
    leaking = root / "snippets/elegir-pytorch/respuesta_conocida.py"
    leaking.write_text(leaking.read_text() + "torch.set_default_dtype(torch.float64)\n"
                       "open('escrito.txt', 'w').write('x')\n")
    # What the runner guards outside the snippet's namespace (harness/run/runner.py, page.py):
    # a write into the checkout by an absolute path, a changed working directory, and a
    # network connection (the page has no network). None stops its page.
    absolute = root / "snippets/que-es-pytorch/metadatos_tensor.py"
    absolute.write_text(absolute.read_text() + f"open({str(root / 'docs')!r} + '/absoluto.md', "
                        "'w').write('x')\n")
    moving = root / "snippets/que-es-pytorch/tipos_distintos.py"
    moving.write_text(moving.read_text() + "import os\nos.chdir('/')\n")
    # Issue 27's: a hook planted in .git, a write by an exit handler after the page's
    # last snippet, and a replaced Tensor method that the next snippet would trip on.
    (root / ".git/hooks").mkdir(parents=True)
    moving.write_text(moving.read_text() + f"open({str(root / '.git/hooks/pre-commit')!r}, "
                      "'w').write('#!/bin/sh')\n")
    late = root / "snippets/elegir-pytorch/dispositivos_distintos.py"
    late.write_text(late.read_text() + "from multiprocessing import util\n"
                    f"util.Finalize(None, lambda: open({str(root / 'docs/tarde.md')!r}, 'w')"
                    ".write('x'), exitpriority=0)\n")
    replacing = root / "snippets/backward-frente-a-autograd-grad/salida_no_escalar.py"
    replacing.write_text(replacing.read_text() + "torch.Tensor.backward = lambda self, *args, "
                         "**kwargs: None\n")
    calling = root / "snippets/que-es-pytorch/pesos_seguros.py"
    calling.write_text(calling.read_text() + "import socket\n"
                       "socket.create_connection(('127.0.0.1', 9), timeout=2)\n")
    lines["network"] = calling.read_text().count("\n")
    running = _pytest(root)

    static = _copy(tmp_path_factory, "reading")
    # Its one page without a fault would be the only one to run, and the only reason for
    # this run to import torch: the faults here are all found before a page runs.
    for unbroken in ("docs/elegir-pytorch.md", "docs/elegir-pytorch.en.md"):
        (static / unbroken).unlink()
    shutil.rmtree(static / "snippets/elegir-pytorch")
    lines["unknown"] = inject(static / "snippets/backward-frente-a-autograd-grad/expectations.toml",
                              'snippet = "grad_sin_acumular"\nname = "g"',
                              'snippet = "grad_sin_acumular"\nname = "gradient"')
    borrowing = static / "snippets/que-es-pytorch/expectations.toml"
    lines["borrow"] = inject(borrowing, "[[expect]]\n", '[[expect]]\nsnippet = "pesos_seguros"\n'
                             'name = "elements"\nvalue = 6.0\nderivation = "prestado"\n\n[[expect]]\n')
    for page in ("docs/medir-pytorch.md", "docs/medir-pytorch.en.md"):
        medir = static / page
        medir.write_text(medir.read_text() + '\n```python\n--8<-- "medir-pytorch/no_existe.py"\n```\n')
    lines["missing"] = (static / "docs/medir-pytorch.md").read_text().count("\n") - 2
    # Promise 4, read from the code: an example imports only what a reader has; and a
    # snippet that is not Python is named with its line, not a collection error.
    importing = static / "snippets/que-es-pytorch/metadatos_tensor.py"
    importing.write_text("import harness.core\n" + importing.read_text())
    broken = static / "snippets/medir-pytorch/eventos_dispositivo.py"
    broken.write_text(broken.read_text() + "check = (\n")
    lines["syntax"] = broken.read_text().count("\n")
    reading = _pytest(static)
    code, out = _finish(running)
    static_code, static_out = _finish(reading)
    return {"code": code, "out": out, "static_code": static_code, "static": static_out,
            "lines": lines, "root": root}


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
    line = report["lines"]["unknown"]
    assert (f"snippets/backward-frente-a-autograd-grad/expectations.toml:{line - 1}: expectation "
            "names 'gradient', which snippets/backward-frente-a-autograd-grad/"
            "grad_sin_acumular.py does not define") in report["static"]


def test_snippet_that_raises(report) -> None:
    line = report["lines"]["raises"]
    assert (f"snippets/elegir-pytorch/dispositivo_destino.py:{line}: snippet "
            "'elegir-pytorch/dispositivo_destino' raised RuntimeError") in report["out"]


def test_snippet_that_hangs(report) -> None:
    assert ("snippets/medir-pytorch/trabajo_matmul.py (snippet 'medir-pytorch/trabajo_matmul') "
            f"ran longer than {HANG_LIMIT_S} s and was stopped: it hangs") in report["out"]


def test_exits_are_failures(report) -> None:
    out = report["out"]
    assert (f"snippets/que-es-pytorch/segundo_paso.py:{report['lines']['sys_exit']}: snippet "
            "'que-es-pytorch/segundo_paso' called sys.exit(0)") in out
    assert ("snippets/backward-frente-a-autograd-grad/grad_sin_acumular.py (snippet "
            "'backward-frente-a-autograd-grad/grad_sin_acumular') ended the page's process "
            "(exit code 0: os._exit or a crash)") in out


def test_global_state_left_changed_names_the_snippet(report) -> None:
    assert ("snippets/elegir-pytorch/respuesta_conocida.py: snippet "
            "'elegir-pytorch/respuesta_conocida' changed torch's global state and left it "
            "changed (default dtype: torch.float32 → torch.float64)") in report["out"]


def test_a_snippet_cannot_write_into_the_checkout(report) -> None:
    assert not list(report["root"].rglob("escrito.txt"))


def test_what_a_snippet_changes_outside_its_page_is_a_failure_naming_it(report) -> None:
    out = report["out"]
    assert ("snippets/que-es-pytorch/metadatos_tensor.py (snippet 'que-es-pytorch/metadatos_tensor')"
            ": changed files of the checkout: docs/absoluto.md (created)") in out
    assert ("snippets/que-es-pytorch/tipos_distintos.py: snippet 'que-es-pytorch/tipos_distintos' "
            "changed the working directory to /") in out
    assert ("snippets/que-es-pytorch/tipos_distintos.py (snippet 'que-es-pytorch/tipos_distintos')"
            ": changed files of the checkout: .git/hooks/pre-commit (created)") in out


def test_a_write_after_the_last_snippet_counts(report) -> None:
    """A multiprocessing Finalize writes when the page's process exits, after its last
    snippet: the checkout is compared once the process has ended, and the change is
    charged to the page's last snippet (read from the page: a contributor may add one)."""
    from harness.sources.project import Project, page_includes

    root = report["root"]
    last = [s for _, s in page_includes(Project.load(root), root / "docs/elegir-pytorch.md")
            if s.language == "py"][-1]
    assert (f"snippets/{last.id}.py (snippet '{last.id}'): changed files of the checkout "
            "while the page's process was exiting (an atexit handler or a finalizer one of "
            "its snippets registered): docs/tarde.md (created)") in report["out"]


def test_a_replaced_tensor_method_is_reported_on_the_snippet_that_replaced_it(report) -> None:
    out = report["out"]
    assert ("snippets/backward-frente-a-autograd-grad/salida_no_escalar.py: snippet "
            "'backward-frente-a-autograd-grad/salida_no_escalar' changed torch's global state and "
            "left it changed (torch.Tensor.backward: original → replaced)") in out
    assert ("snippets/backward-frente-a-autograd-grad/grad_no_hoja.py: not trusted: it ran after "
            "snippet 'backward-frente-a-autograd-grad/salida_no_escalar' changed") in out


def test_a_snippet_that_imports_the_harness_or_is_not_python_is_named(report) -> None:
    static = report["static"]
    assert ("snippets/que-es-pytorch/metadatos_tensor.py:1: imports 'harness'; an example "
            "imports only torch, numpy and the standard library") in static
    assert (f"snippets/medir-pytorch/eventos_dispositivo.py:{report['lines']['syntax']}: not "
            "valid Python") in static


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="network namespaces")
def test_a_snippet_that_opens_a_connection_fails_naming_its_line(report) -> None:
    assert (f"snippets/que-es-pytorch/pesos_seguros.py:{report['lines']['network']}: snippet "
            "'que-es-pytorch/pesos_seguros' raised") in report["out"]
    assert "Network is unreachable" in report["out"]


def test_an_expectation_sees_only_its_own_snippet(report) -> None:
    assert (f"snippets/que-es-pytorch/expectations.toml:{report['lines']['borrow']}: expectation "
            "names 'elements', which snippets/que-es-pytorch/pesos_seguros.py does not define"
            ) in report["static"]


def test_missing_snippet_file(report) -> None:
    line = report["lines"]["missing"]
    assert (f"docs/medir-pytorch.md:{line}: unknown snippet 'medir-pytorch/no_existe'"
            ) in report["static"]
    assert report["static_code"] == 1


def test_unbroken_examples_still_pass(report) -> None:
    out = report["out"]
    assert "PASSED docs/que-es-pytorch.md" in out
    assert "PASSED docs/backward-frente-a-autograd-grad.md" in out



def test_a_wrong_value_fails_in_a_short_message_about_the_example(report) -> None:
    """At most about 15 lines, each about the example: no harness or Sybil traceback."""
    out = report["out"]
    start = out.index("analytic expectation does not hold for 'x.grad'")
    block_start = out.rindex("\n____", 0, start)
    block_end = min(i for i in (out.find("\n____", start), out.find("\n====", start)) if i != -1)
    block = [line for line in out[block_start:block_end].splitlines() if line.strip()]
    assert len(block) <= 15, "\n".join(block)
    assert not any("harness/" in line or "sybil/" in line or "Traceback" in line
                   for line in block), "\n".join(block)
    assert any(line.startswith("  snippet:") for line in block)
