"""The harness's layers, enforced per folder (CONTRIBUTING, «Where to change what»):
imports point one way, and nothing the docs build reads imports torch.

The rule is keyed by folder, not by a list of modules, so a new module is covered
by where it stands. Every import counts, including those inside functions: a lazy
``import torch`` in a view would still run torch during the docs build.
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest
from support import HARNESS

#: Folder → the harness folders its modules may import (besides their own).
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "text": frozenset({"core"}),
    "sources": frozenset({"core", "text"}),
    "run": frozenset({"core", "text", "sources"}),
    "records": frozenset({"core", "text", "sources"}),
    "views": frozenset({"core", "text", "sources", "records"}),
    # The adapters, one folder per job: the MkDocs plugin, the command line, the
    # pytest/Sybil glue. None imports another: what two share belongs further down.
    "site": frozenset({"core", "text", "sources", "records", "views"}),
    "commands": frozenset({"core", "text", "sources", "run", "records", "views"}),
    "testing": frozenset({"core", "text", "sources", "run", "records"}),
}
#: Third-party packages a folder may import; everything else must be the standard library.
THIRD_PARTY: dict[str, frozenset[str]] = {
    "run": frozenset({"torch"}),
    "records": frozenset({"filelock"}),  # imported lazily, by writers only
    # jupyter_core: mkdocs-jupyter's own dependency, to read nbconvert's configuration
    # without importing nbconvert.
    "site": frozenset({"mkdocs", "mkdocs_jupyter", "jupyter_core", "yaml", "jinja2"}),
    "testing": frozenset({"sybil", "yaml"}),
}
#: Names no module may take: they would shadow the packages the harness integrates.
SHADOWED = {"sybil", "mkdocs", "pytest", "torch", "yaml"}
#: Names that say nothing about a module's role.
VAGUE = {"utils", "misc", "helpers", "common", "util"}


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in ``path``, at any depth."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "harness" or node.module.startswith("harness."):
                found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def violations(harness: Path) -> list[str]:
    """Every import that breaks the folder rule, as ``path:line: why``."""
    problems: list[str] = []
    for path in sorted(harness.rglob("*.py")):
        parts = path.relative_to(harness).parts
        if len(parts) == 1:
            # harness/__init__.py and __main__.py: the entry point is the command line's.
            folder = "commands" if parts[0] == "__main__.py" else "core"
        else:
            folder = parts[0]
        if folder not in ALLOWED:
            problems.append(f"{path}:1: folder {folder!r} has no layer rule; add it to ALLOWED")
            continue
        if path.stem in SHADOWED | VAGUE:
            problems.append(f"{path}:1: module name {path.stem!r} shadows a package or says nothing")
        for line, module in imports_of(path):
            top, _, rest = module.partition(".")
            if top == "harness":
                target = rest.split(".")[0]
                if target != folder and target not in ALLOWED[folder]:
                    problems.append(f"{path}:{line}: {folder}/ may not import harness.{rest}")
            elif top not in sys.stdlib_module_names and top not in THIRD_PARTY.get(folder, ()):
                problems.append(f"{path}:{line}: {folder}/ may not import {module}")
    return problems


def test_the_harness_keeps_its_layers() -> None:
    assert violations(HARNESS) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("views/leak.py", "def f():\n    import torch\n", "views/ may not import torch"),
        ("records/leak.py", "from harness.run import timing\n",
         "records/ may not import harness.run.timing"),
        ("core/leak.py", "from harness.text import words\n",
         "core/ may not import harness.text.words"),
        ("views/utils.py", "", "shadows a package or says nothing"),
        ("newfolder/x.py", "", "folder 'newfolder' has no layer rule"),
    ],
)
def test_a_broken_layer_is_reported(tmp_path: Path, module: str, source: str,
                                     expected: str) -> None:
    copy = tmp_path / "harness"
    shutil.copytree(HARNESS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / module).parent.mkdir(exist_ok=True)
    (copy / module).write_text(source)
    found = violations(copy)
    assert any(expected in problem and module in problem for problem in found), found


def test_every_folder_has_a_rule_and_a_docstring() -> None:
    folders = {p.name for p in HARNESS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ALLOWED)
    for path in HARNESS.rglob("*.py"):
        if path.name != "__init__.py":
            assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), path
