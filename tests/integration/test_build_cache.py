"""The build's caches are never wrong, on the real site (harness/site/: notebooks.py,
page_cache.py, search_cache.py, the theme's compiled templates):

* a build with the caches off, a cold cached build and a warm one make the same site,
  byte for byte;
* each language build keeps its own caches, so a warm build converts no notebook and
  writes no entry in either language;
* a snippet edit reaches the built page through the cache, and a warm build imports
  neither nbconvert nor jupytext (harness/site/lazy_imports.py);
* a page whose rendering warns is never served from the cache: it warns on every build.
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
#: The pages of one language that are not notebooks.
ARTICLES = [p for p in (ROOT / "docs").glob("*.md") if p.suffixes == [".md"]]
LANGUAGES = ("es", "en")


@dataclass(frozen=True)
class Build:
    site: Path
    log: str


def _build(root: Path, site: Path, cache: str, *, strict: bool = True) -> Build:
    """``mkdocs build --strict`` of ``root`` into ``site`` with HARNESS_CACHE=``cache``
    ("" turns the caches off), its log kept (INFO: mkdocs-jupyter's cache hits)."""
    env = {**os.environ, "HARNESS_CACHE": cache,
           "SOURCE_DATE_EPOCH": "1796000000"}  # one sitemap date for every build
    command = [sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else []),
               "-d", str(site)]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                          timeout=180)
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


def _entries(cache: Path) -> dict[str, float]:
    """Every file of the cache, with the time it was last written."""
    return {str(p.relative_to(cache)): p.stat().st_mtime_ns
            for p in cache.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    """The real site built three ways in one copy: caches off, cold, warm (and the
    cache's files after the cold build and after the warm one)."""
    base = tmp_path_factory.mktemp("cache-builds")
    root = copy_project(base / "copy", BUILT)
    cache = base / "cache"
    found = {"off": _build(root, base / "off", ""),
             "cold": _build(root, base / "cold", str(cache))}
    after_cold = _entries(cache)
    found["warm"] = _build(root, base / "warm", str(cache))
    return {**found, "cache": Build(site=cache, log=repr(after_cold)),
            "root": Build(site=root, log="")}


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
    # Every other page, in each language, has its rendering and its search entries.
    for kind in ("pages", "search"):
        (version,) = (builds["cache"].site / kind).iterdir()
        for language in LANGUAGES:
            assert len(list((version / language).glob("*.json"))) == len(ARTICLES), kind


def test_a_warm_build_writes_no_entry(builds) -> None:
    """Served from the caches, not made again: no entry is written, none is evicted."""
    assert repr(_entries(builds["cache"].site)) == builds["cache"].log


def test_a_page_that_warns_warns_on_every_build(tmp_path) -> None:
    """A rendering that logs a warning (what --strict counts) is never cached."""
    root = copy_project(tmp_path / "copy", BUILT)
    page = root / "docs" / "index.md"
    page.write_text(page.read_text() + "\n[perdido](no-existe.md)\n")
    for site in ("first", "second"):
        log = _build(root, tmp_path / site, str(tmp_path / "cache"), strict=False).log
        assert "no-existe.md" in log, log


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
    env = {**os.environ}

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
