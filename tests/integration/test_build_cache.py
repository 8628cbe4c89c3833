"""The build's caches are never wrong, on the real site (harness/site/notebooks.py):

* a build with the caches off, a cold cached build and a warm one make the same site,
  byte for byte;
* each language build keeps its own notebook cache, so a warm build converts no
  notebook in either language;
* a snippet edit reaches the built page through the cache, and a warm build imports
  neither nbconvert nor jupytext (harness/site/lazy_imports.py).
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import ROOT, copy_project

from harness.site.notebooks import converter_digest

#: What a copy of the project needs to build (the harness is the installed one).
BUILT = ("docs", "snippets", "results", "overrides", "mkdocs.yml")
NOTEBOOKS = sorted(p.name for p in (ROOT / "docs" / "cuadernos").glob("*.ipynb"))
LANGUAGES = ("es", "en")


@dataclass(frozen=True)
class Build:
    site: Path
    log: str


def _build(root: Path, site: Path, cache: str) -> Build:
    """``mkdocs build --strict`` of ``root`` into ``site`` with HARNESS_CACHE=``cache``
    ("" turns the caches off), its log kept (INFO: mkdocs-jupyter's cache hits)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HARNESS_CACHE": cache,
           "SOURCE_DATE_EPOCH": "1796000000"}  # one sitemap date for every build
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                          cwd=root, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return Build(site=site, log=done.stdout + done.stderr)


def _differences(left: Path, right: Path) -> list[str]:
    """Paths (relative to the sites) that exist in one site only or differ in bytes."""
    found: list[str] = []
    names = {p.relative_to(left) for p in left.rglob("*") if p.is_file()}
    others = {p.relative_to(right) for p in right.rglob("*") if p.is_file()}
    found += sorted(str(p) for p in names ^ others)
    found += sorted(str(p) for p in names & others
                    if not filecmp.cmp(left / p, right / p, shallow=False))
    return found


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    """The real site built three ways in one copy: caches off, cold, warm."""
    base = tmp_path_factory.mktemp("cache-builds")
    root = copy_project(base / "copy", BUILT)
    cache = base / "cache"
    return {"off": _build(root, base / "off", ""),
            "cold": _build(root, base / "cold", str(cache)),
            "warm": _build(root, base / "warm", str(cache)),
            "cache": Build(site=cache, log=""), "root": Build(site=root, log="")}


def test_a_build_without_caches_is_byte_identical_to_a_cached_one(builds) -> None:
    assert _differences(builds["off"].site, builds["warm"].site) == []
    assert _differences(builds["off"].site, builds["cold"].site) == []
    # Off means off: mkdocs-jupyter wrote no cache of its own either.
    assert not (builds["root"].site / ".cache").exists()


def test_each_language_keeps_its_own_notebook_cache(builds) -> None:
    cold, warm = builds["cold"].log, builds["warm"].log
    assert cold.count("Converting notebook") == len(NOTEBOOKS)
    assert "Converting notebook" not in warm, warm
    assert warm.count("Cache hit") == len(NOTEBOOKS)
    folder = builds["cache"].site / "notebooks"
    assert [p.name for p in folder.iterdir()] == [converter_digest()]
    for language in LANGUAGES:
        entries = list((folder / converter_digest() / language).glob("*.json"))
        # One per notebook the language renders: every notebook has its twin.
        assert len(entries) == len(NOTEBOOKS) // 2, (language, entries)


BUILD = """
import runpy, sys
sys.argv = ["mkdocs", "build", "-q", "-d", sys.argv[1]]
try:
    runpy.run_module("mkdocs", run_name="__main__")
finally:
    # jupytext itself stays in sys.modules as a stand-in until first used.
    print("IMPORTED:", *[m for m in ("nbconvert", "jupytext.formats") if m in sys.modules])
"""


def test_a_snippet_edit_reaches_the_page_through_the_cache(tmp_path):
    """Two builds of a copy with the run's cache (HARNESS_CACHE, tests/conftest.py: the
    copy's notebooks are hits); between them a snippet changes (not strict: its records
    are then stale). The second build imports no notebook tooling."""
    root = copy_project(tmp_path / "copy", BUILT)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

    def build(site: str) -> str:
        done = subprocess.run([sys.executable, "-c", BUILD, str(tmp_path / site)], cwd=root,
                              env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    build("first")
    snippet = root / "snippets" / "que-es-pytorch" / "derivada_cuadrado.py"
    snippet.write_text(snippet.read_text() + "# una línea nueva del fragmento\n")
    second = build("second")
    assert second.strip().endswith("IMPORTED:"), second
    for language in ("", "en/"):
        page = (tmp_path / "second" / language / "que-es-pytorch" / "index.html").read_text()
        assert "una línea nueva del fragmento" in page
