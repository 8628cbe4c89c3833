"""The pre-commit hooks (.pre-commit-config.yaml), run as plain commands.

CI reaches only PyPI, so it does not let pre-commit clone hook repositories: it
installs ruff and codespell with the `test` extra and this module runs them with
the configuration in pyproject.toml ([tool.ruff], [tool.codespell]). A missing
executable skips locally and fails when CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, run


def _tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        reason = f"{name} is not installed (pip install -e '.[test]' installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must not skip the lint hooks")
        pytest.skip(reason)
    return found


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_ruff_check_is_clean() -> None:
    done = _run(_tool("ruff"), "check", "--no-cache", "--output-format=concise", ".")
    assert done.returncode == 0, f"ruff check . found problems:\n{done.stdout}{done.stderr}"


def test_codespell_is_clean() -> None:
    # No paths: codespell walks "." with [tool.codespell] from pyproject.toml.
    done = _run(_tool("codespell"))
    assert done.returncode == 0, (
        "codespell found typos (a Spanish word it does not know belongs in "
        f".codespell-words.txt):\n{done.stdout}{done.stderr}"
    )


def test_codespell_reads_the_project_word_list(tmp_path: Path) -> None:
    """The word list and the skips really apply: a Spanish word passes, an English
    typo is caught, and a generated notebook is not read."""
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    shutil.copy(ROOT / ".codespell-words.txt", tmp_path)
    typo = "toler" + "ence"  # spelled in two parts so that codespell passes this file
    (tmp_path / "pagina.md").write_text("Una serie que hace lo que debe ser.\n")
    (tmp_path / "cuaderno.ipynb").write_text(f'{{"text": "{typo}"}}\n')
    done = subprocess.run([_tool("codespell")], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "page.md").write_text(f"A {typo}.\n")
    done = subprocess.run([_tool("codespell")], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and f"page.md:1: {typo} ==> tolerance" in done.stdout
    assert "cuaderno" not in done.stdout
