"""Shared fixtures: a copy of the tiny sample project that tests may break, and the
real site built once per test run (``built_site``), shared by xdist workers.

Every docs build of the run on one xdist worker (the broken copies of the fault
tests) shares one build cache of the run's own (``build_cache``: mkdocs-jupyter's
conversions, harness/site/site_output.py), so a copy's unchanged notebooks are not
converted again; the real site's one build has its own (``site_cache``), whichever
worker makes it. No test reads or fills the developer's ``.cache/harness``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from support import ROOT, SAMPLES, SITE_HOME, run, without_torch

#: pytest-playwright for the browser tests, loaded here rather than by its entry point
#: (pyproject: ``-p no:playwright``): a run of docs/ alone never loads this conftest.
pytest_plugins = ["pytester", "pytest_playwright.pytest_playwright"]


#: Modules that take seconds each, slowest first (as a `--durations` run of `make test`
#: measured them on 2026-12-02): under `-n 2 --dist loadfile` a worker takes whole
#: modules in this order, so the long ones start first and neither worker is left alone
#: with one at the end, and the worker that does not build the site has work of its own
#: meanwhile. Other modules follow in their order.
#: The Makefile passes xdist's --no-loadscope-reorder, without which xdist orders modules
#: by their number of tests and puts a long module with one test (the serve test) last.
SLOW_FIRST = (
    # Under CI=true it runs the whole suite again in a clone (its step 9): first, so the
    # rest of this run proceeds on the other worker meanwhile.
    "tests/faults/test_contributing_steps.py",
    "tests/browser/test_accessibility.py",
    "tests/integration/test_benchmarks.py",
    "tests/integration/test_check.py",
    "tests/browser/test_layout.py",
    "tests/browser/test_site_in_browser.py",
    "tests/browser/test_reading.py",
    "tests/browser/test_reader_row.py",
    "tests/integration/test_gpu_record_dry.py",
    "tests/faults/test_faults_record.py",
    "tests/browser/test_notebooks_and_search.py",
    "tests/integration/test_record.py",
    "tests/faults/test_faults_build.py",
    "tests/faults/test_faults_examples.py",
    "tests/integration/test_timing.py",
    "tests/browser/test_phone.py",
    "tests/integration/test_pages_glue.py",
    "tests/browser/test_serve.py",
    "tests/browser/test_chrome.py",
    "tests/integration/test_publishing.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: index for index, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run shared by its xdist workers: each worker's basetemp sits
    in the run's own folder; serially the parent would outlive the run."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's build cache (HARNESS_CACHE, which every docs build of the run inherits),
    never the developer's: a test must not depend on, or change, what a build left.
    One per xdist worker, whose builds run one at a time: mkdocs-jupyter writes its
    entries in place and evicts, after each build, those that build did not use, so
    two builds at once on one folder could read a half-written or evicted entry."""
    folder = tmp_path_factory.getbasetemp() / "build-cache"
    os.environ["HARNESS_CACHE"] = str(folder)
    return folder


@pytest.fixture
def mini(pytester: pytest.Pytester) -> Path:
    """tests/samples/mini copied into pytester's directory (its own rootdir).

    Run it with ``pytester.runpytest_subprocess``: an in-process run drops the
    modules it imported, and importing torch's C extension twice in one process
    crashes it.
    """

    shutil.copytree(SAMPLES / "mini", pytester.path, dirs_exist_ok=True)
    (pytester.path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return pytester.path


def build_site(root: Path, destination: Path, *, poison: Path, config: str = "mkdocs.yml",
               cache: Path | None = None):
    """``mkdocs build --strict`` of ``root`` in a subprocess where importing torch fails:
    the docs build reads records and must never run torch (CONTRIBUTING, promise 5).
    ``cache``: its build cache, else the worker's (``build_cache``)."""
    env = {**without_torch(poison), **SITE_HOME, **({"HARNESS_CACHE": str(cache)} if cache else {})}
    return run(  # under run's backstop: only a build that hangs reaches it
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", str(destination)],
        cwd=root, env=env, capture_output=True, text=True)


#: A line of a build's log that carries a problem, and the problem after its level.
_PROBLEM = re.compile(r"^(?:WARNING|ERROR)\s+-\s+(?P<message>.*)$")


def build_problems(log: str) -> list[str]:
    """The problems a strict build's ``log`` reports, ``file:line: …`` ones first, each
    once (the build's own framing lines, such as "Error reading page", after them)."""
    found = dict.fromkeys(m["message"] for m in map(_PROBLEM.match, log.splitlines()) if m)
    located = [p for p in found if re.match(r"^\S+:\d+: ", p)]
    return located + [p for p in found if p not in located] or log.strip().splitlines()[-3:]


@pytest.fixture(scope="session")
def site_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build cache of ``site_build``, its own: whichever worker builds the site, no
    other build of the run writes to it (each worker's builds use ``build_cache``)."""
    return _run_folder(tmp_path_factory) / "site-cache"


@pytest.fixture(scope="session")
def site_build(tmp_path_factory: pytest.TempPathFactory,
               site_cache: Path) -> tuple[Path, list[str]]:
    """The real site, built once per test run and shared by xdist workers: the first
    worker to ask builds it under a lock, the others wait and read the same folder.
    (site folder, the build's problems: none when it passed); never fails itself."""
    import fcntl

    shared = _run_folder(tmp_path_factory)
    site = shared / "built-site"
    with open(shared / "built-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = shared / "built-site.result"
        if not marker.exists():
            done = build_site(ROOT, site, poison=shared / "no-torch", cache=site_cache)
            marker.write_text(f"{done.returncode}\n{done.stdout}{done.stderr}")
        code, _, log = marker.read_text().partition("\n")
    return site, [] if code == "0" else build_problems(log)


@pytest.fixture(scope="session")
def built_site(site_build: tuple[Path, list[str]]) -> Path:
    """The real site, built strict (links, page structure, browser tests and anything
    else that reads a built site). When the build fails, one test fails with its
    problems (tests/integration/test_site_build.py::test_the_site_builds_strict) and
    every test that needs the site is skipped, naming the first problem, instead of
    each repeating the whole log."""
    site, problems = site_build
    if problems:
        first = problems[0] if len(problems[0]) <= 160 else problems[0][:159] + "…"
        pytest.skip(f"not run: mkdocs build --strict failed ({first}); "
                    "test_site_build.py::test_the_site_builds_strict lists its problems")
    return site
