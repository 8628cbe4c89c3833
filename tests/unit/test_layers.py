"""The imports point one way (DESIGN.md), and the docs build never imports torch."""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).parents[2] / "harness"
# Modules the MkDocs build imports: none may import torch at module level.
BUILD_PATH = {"model", "snippets", "pages", "compare", "execute", "store", "render",
              "examples", "measured", "measured_context", "measured_tables", "units",
              "svgplot", "trials", "mkdocs_plugin", "notebooks", "words"}
# Modules that integrate a tool are imported by nobody inside harness.
INTEGRATIONS = {"mkdocs_plugin", "pytest_pages", "__main__"}


def top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in tree.body:  # module level only: lazy imports inside functions are fine
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def modules() -> dict[str, set[str]]:
    return {p.stem: top_level_imports(p) for p in HARNESS.glob("*.py")}


def test_model_uses_the_standard_library_only() -> None:
    assert {n for n in modules()["model"] if not n.startswith("__")} <= {
        "dataclasses", "pathlib", "typing"}


def test_docs_build_path_never_imports_torch() -> None:
    for name, imports in modules().items():
        if name in BUILD_PATH:
            assert not any(i == "torch" or i.startswith("torch.") for i in imports), name


def test_integrations_are_leaves() -> None:
    for name, imports in modules().items():
        for integration in INTEGRATIONS:
            assert f"harness.{integration}" not in imports, (name, integration)


def test_no_module_shadows_a_package_it_integrates() -> None:
    assert not {p.stem for p in HARNESS.glob("*.py")} & {"sybil", "mkdocs", "pytest", "torch", "utils"}
