"""mkdocs-jupyter's own conversion cache, one folder per language build (the harness
plugin's on_pre_build): under mkdocs-static-i18n one folder let each language evict the
other's entries, and every build converted every notebook again. Through real builds."""

from __future__ import annotations

import sys
from pathlib import Path

from support import ROOT, SITE_HOME, run, without_torch

NOTEBOOKS = sorted((ROOT / "docs" / "cuadernos").glob("*.ipynb"))


def _entries(cache: Path) -> dict[str, dict[str, int]]:
    return {folder.name: {entry.name: entry.stat().st_mtime_ns for entry in folder.glob("*.json")}
            for folder in sorted(cache.iterdir()) if folder.is_dir()}


def test_a_second_build_converts_no_notebook_again(site_build: tuple[Path, list[str]],
                                                   site_cache: Path, tmp_path: Path) -> None:
    _, problems = site_build  # the run's build, with its own cache (tests/conftest.py)
    assert not problems
    first = _entries(site_cache)
    assert {"es", "en"} <= set(first), first  # and templates/: Jinja's bytecode cache
    spanish = [n for n in NOTEBOOKS if not n.name.endswith(".en.ipynb")]
    assert len(first["es"]) == len(spanish) and len(first["en"]) == len(NOTEBOOKS) - len(spanish)
    done = run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT, env={**without_torch(tmp_path / "no-torch"), **SITE_HOME,
                       "HARNESS_CACHE": str(site_cache)},
        capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _entries(site_cache) == first  # every entry kept, none written again
