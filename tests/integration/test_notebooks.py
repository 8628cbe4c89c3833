"""Notebooks are generated, current, and run: every Spanish notebook executes on the CPU
in a real kernel. English notebooks carry the same code cells, so examples run once per
test run, not once per language."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from harness.examples import Project
from harness.notebooks import NOTEBOOK_DIR, out_of_date

ROOT = Path(__file__).parents[2]
FOLDER = ROOT / "docs" / NOTEBOOK_DIR


def spanish_notebooks() -> list[Path]:
    return sorted(p for p in FOLDER.glob("*.ipynb") if not p.name.endswith(".en.ipynb"))


def code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def test_committed_notebooks_match_their_pages_and_snippets() -> None:
    stale = out_of_date(Project.load(ROOT))
    assert not stale, (
        "out of date (run `python -m harness notebooks --write`): "
        + ", ".join(str(p.relative_to(ROOT)) for p in stale)
    )


def test_every_article_has_a_notebook_in_each_language() -> None:
    names = {p.name for p in FOLDER.glob("*.ipynb")}
    for page in ("que-es-pytorch", "backward-frente-a-autograd-grad", "medir-pytorch",
                 "elegir-pytorch"):
        assert {f"{page}.ipynb", f"{page}.en.ipynb"} <= names, page


@pytest.mark.parametrize("spanish", spanish_notebooks(), ids=lambda p: p.stem)
def test_english_notebook_runs_the_same_code(spanish: Path) -> None:
    english = spanish.with_name(spanish.stem + ".en.ipynb")
    assert code_cells(english) == code_cells(spanish)
    assert code_cells(spanish), f"{spanish.name} has no code cell"


def test_every_notebook_executes_without_error(tmp_path: Path) -> None:
    async def execute(path: Path) -> str:
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(notebook, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}})
        try:
            await client.async_execute()
        except CellExecutionError as exc:
            return f"{path.relative_to(ROOT)}: {str(exc).splitlines()[-1]}"
        return ""

    async def all_of_them() -> list[str]:
        return await asyncio.gather(*(execute(p) for p in spanish_notebooks()))

    failures = [f for f in asyncio.run(all_of_them()) if f]
    assert not failures, "\n".join(failures)
