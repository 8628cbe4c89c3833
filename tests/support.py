"""The one home of the test suite's shared paths and project-copy helper.

Importable as ``support`` from any test (pyproject sets ``pythonpath = ["tests"]``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["COPIED", "HARNESS", "NOTEBOOK", "NOTEBOOK_OPTIONS", "ROOT", "SAMPLES", "copy_project"]

ROOT = Path(__file__).resolve().parents[1]
"""The checkout under test."""
SAMPLES = ROOT / "tests" / "samples"
HARNESS = ROOT / "harness"
#: A committed notebook, and mkdocs-jupyter's options as the site sets them, for the
#: notebook-conversion tests.
NOTEBOOK = ROOT / "docs" / "cuadernos" / "que-es-pytorch.ipynb"
NOTEBOOK_OPTIONS = {
    "execute": False, "execute_ignore": [], "kernel_name": "", "theme": "",
    "allow_errors": False, "show_input": True, "no_input": False, "no_prompt": False,
    "remove_tag_config": {}, "highlight_extra_classes": "", "include_requirejs": False,
    "custom_mathjax_url": "", "toc_depth": 6, "ignore_h1_titles": True,
}
#: What a copy of the project needs to build and to run its page examples.
COPIED = ("docs", "snippets", "results", "overrides", "mkdocs.yml", "conftest.py")


def copy_project(target: Path, names: tuple[str, ...] = COPIED) -> Path:
    """Copy ``names`` of the checkout into ``target`` (created), for a test to break."""
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target
