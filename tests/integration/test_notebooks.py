"""Notebooks are generated, current, and run: every Spanish notebook executes on the CPU
in a real kernel. English notebooks carry the same code cells, so examples run once per
test run, not once per language."""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import json
import re
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from support import ROOT

from harness.records.store import load_all
from harness.sources.project import Project
from harness.text.markdown import code
from harness.views.notebooks import NOTEBOOK_DIR, out_of_date

FOLDER = ROOT / "docs" / NOTEBOOK_DIR


def spanish_notebooks() -> list[Path]:
    return sorted(p for p in FOLDER.glob("*.ipynb") if not p.name.endswith(".en.ipynb"))


def code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def what_to_do(notebook: Path) -> str:
    """One line per out-of-date notebook: which file, and the step that fixes it."""
    shown = notebook.relative_to(ROOT)
    slug = notebook.name.removesuffix(".ipynb").removesuffix(".en")
    page = ROOT / "docs" / f"{slug}.md"
    twin = ROOT / "docs" / f"{slug}.en.md"
    if notebook.name.endswith(".en.ipynb") and not twin.exists():
        return (f"{shown}: the English twin {twin.relative_to(ROOT)} is missing; write it "
                "first (same fences and markers as the Spanish page), then run "
                "`python -m harness notebooks --write`")
    if not page.exists():
        return (f"{shown}: no page {page.relative_to(ROOT)} has it; delete it or run "
                "`python -m harness notebooks --write`")
    return (f"{shown}: out of date with {page.relative_to(ROOT)}, its twin, its snippets or "
            "the records in results/; "
            "run `python -m harness notebooks --write` (after the English twin is written)")


def test_committed_notebooks_match_their_pages_and_snippets() -> None:
    stale = out_of_date(Project.load(ROOT), load_all(ROOT / "results", root=ROOT))
    assert not stale, "\n".join(what_to_do(p) for p in sorted(stale))


def test_every_article_has_a_notebook_in_each_language() -> None:
    names = {p.name for p in FOLDER.glob("*.ipynb")}
    for page in ("que-es-pytorch", "backward-frente-a-autograd-grad", "medir-pytorch",
                 "elegir-pytorch"):
        missing = {f"{page}.ipynb", f"{page}.en.ipynb"} - names
        assert not missing, "\n".join(what_to_do(FOLDER / name) for name in sorted(missing))


def test_code_cells_with_output_are_numbered_in_order() -> None:
    """A notebook with recorded outputs reads as one run top to bottom: ``In [1]:``,
    ``In [2]:``… on the page and in Jupyter, never ``In [ ]:`` above an output."""
    for path in sorted(FOLDER.glob("*.ipynb")):
        code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        counts = [c["execution_count"] for c in code if c["outputs"]]
        assert counts == list(range(1, len(counts) + 1)), (path.name, counts)
        assert counts, f"{path.name}: no code cell with a recorded output"
        assert all(c["execution_count"] is None for c in code if not c["outputs"]), path.name


def test_expected_values_read_as_python_prints_them() -> None:
    """Every analytic expectation in a notebook shows the value as ``print`` writes the
    Python value its TOML stands for (``True``, ``None``, ``6.0``), not as JSON."""
    project = Project.load(ROOT)
    checked = 0
    for path in sorted(FOLDER.glob("*.ipynb")):
        text = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
        page = ROOT / "docs" / path.name.replace(".ipynb", ".md")
        observed = re.findall(r'harness:observed snippet="([^"]+)"', page.read_text())
        for e in (e for snippet in observed for e in project.expectations[snippet]):
            if not e.raises:  # escaped inline HTML code: a value's backtick stays text
                assert f"- {code(e.name)} = {code(e.value)}: " in text, (path.name, e.name, e.value)
                checked += 1
        shown = [html.unescape(v) for v in re.findall(
            r"^[> ]*- <code>[^<]+</code> = <code>([^<]*)</code>", text, flags=re.M)]
        assert shown and not {"true", "false", "null"} & set(shown), (path.name, shown)
    assert checked >= 80, checked  # both languages of every observed block


def test_no_material_syntax_or_prose_as_code_in_a_notebook() -> None:
    """Issue 28: a nested admonition, or a fold split by a code fence, came out as literal
    `!!!`/`???` lines, and the fold's prose after the fence as an indented code block."""
    for path in sorted(FOLDER.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            literal = re.findall(r"^[> ]*(?:!!!|\?\?\?)[ +].*$", text, re.M)
            assert not literal, f"{path.name}: {literal}"
            fenced, outside = False, []
            for line in text.splitlines():
                if re.match(r"^[> ]*(```|~~~)", line):
                    fenced = not fenced
                elif not fenced and re.match(r"^(?:> )*    \S", line):
                    outside.append(line)  # indented 4: Markdown reads it as code
            assert not outside, f"{path.name}: prose indented as code: {outside[:3]}"


def test_the_message_names_a_missing_english_twin() -> None:
    message = what_to_do(FOLDER / "pagina-sin-gemela.en.ipynb")
    assert "docs/pagina-sin-gemela.en.md is missing" in message
    assert "python -m harness notebooks --write" in message


@pytest.mark.parametrize("spanish", spanish_notebooks(), ids=lambda p: p.stem)
def test_english_notebook_runs_the_same_code(spanish: Path) -> None:
    english = spanish.with_name(spanish.stem + ".en.ipynb")
    assert code_cells(english) == code_cells(spanish)
    assert code_cells(spanish), f"{spanish.name} has no code cell"


def test_every_notebook_executes_without_error(tmp_path: Path) -> None:
    """Each notebook runs top to bottom in a real kernel. One kernel serves all of them,
    its namespace reset before each, so torch is imported once rather than per notebook."""

    async def run_all() -> list[str]:
        manager = AsyncKernelManager(kernel_name="python3")
        await manager.start_kernel(cwd=str(tmp_path))
        failures = []
        try:
            for path in spanish_notebooks():
                notebook = nbformat.read(path, as_version=4)
                notebook.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
                client = NotebookClient(notebook, km=manager, timeout=600)
                try:
                    await client.async_execute()
                except CellExecutionError as exc:
                    last = re.sub(r"\x1b\[[0-9;]*m", "", str(exc).splitlines()[-1])
                    failures.append(f"{path.relative_to(ROOT)}: {last}")
        finally:
            await manager.shutdown_kernel(now=True)
        return failures

    # In its own thread: a worker that also ran the browser tests holds Playwright's
    # event loop in the main thread, and asyncio.run refuses to nest in it.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        failures = pool.submit(asyncio.run, run_all()).result()
    assert not failures, "\n".join(failures)
