"""``python -m harness check PAGE``: every check ``make test`` runs for one page,
fastest first: spelling, the page's sources (twin parity, includes, expectations),
its markers against the records (unknown marker ids, stale records, claims), seed
fidelity, then the page's examples, its notebooks, the strict build and the browser
tests that name the page.

Each problem is printed once, as its check wrote it, with its own next step; a step
that would only repeat an earlier step's problem says so and does not run. The exit
status is 1 when any check failed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.commands.checkout import root_of
from harness.core.errors import HarnessError, read_text
from harness.records.store import load_all
from harness.records.validate import CONTRADICTS, check_records
from harness.sources.checks import check_project
from harness.sources.pages import find_markers
from harness.sources.project import Project, resolve_includes
from harness.sources.seed_fidelity import seed_problems
from harness.sources.trials import load_trials, workload_sources
from harness.views.markers import PageContext, Site, render_marker
from harness.views.notebooks import notebook_path, out_of_date

__all__ = ["Outcome", "configure", "run"]

#: Words of a strict build's log that carry a problem (the rest is progress).
_BUILD_LINES = ("WARNING", "ERROR", "Error", "Aborted")


#: What a step found: its problems, each with its own next step, or why it did not run.
Outcome = list[str] | str


@dataclass(kw_only=True)
class _Page:
    """The page under check and what the earlier steps found (filled in as they run)."""

    root: Path
    slug: str
    project: Project | None = None
    sources_failed: bool = False  # the sources have a problem the examples would repeat
    blocking: bool = False  # an earlier step's problem the notebooks and build would repeat
    contradicted: bool = False  # a record contradicts one of the page's expectations

    @property
    def shown(self) -> Path:
        return Path("docs") / f"{self.slug}.md"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", metavar="PAGE", help="the page's slug: docs/PAGE.md")


def _spelling(page: _Page) -> Outcome:
    beside = Path(sys.executable).with_name("codespell")  # the environment's own, else PATH
    codespell = str(beside) if beside.exists() else shutil.which("codespell")
    if codespell is None:
        return ["codespell is not installed: install the test extra "
                "(`pip install -e \".[test]\"`, which `make check` does)"]
    paths = [str(p.relative_to(page.root)) for p in (
        page.root / "docs" / f"{page.slug}.md", page.root / "docs" / f"{page.slug}.en.md",
        page.root / "snippets" / page.slug) if p.exists()]
    done = subprocess.run([codespell, *paths], cwd=page.root, capture_output=True, text=True)
    return [
        f"{line}; fix the typo, or, if it is a correct Spanish word, add it (lowercase) to "
        ".codespell-words.txt" for line in done.stdout.splitlines() if line.strip()]


def _sources(page: _Page) -> Outcome:
    try:
        page.project = Project.load(page.root)
    except HarnessError as exc:
        page.sources_failed = page.blocking = True
        return [str(exc)]
    found = [p for p in check_project(page.project) if page.shown in p.pages or not p.pages]
    page.sources_failed = any(not p.twin for p in found)
    page.blocking = bool(found)
    return [p.message for p in found]


def marker_problems(project: Project, slug: str) -> list[str]:
    """Every problem the strict build would find in ``docs/<slug>.md`` and its twin's
    markers and records, each once, record problems first: the build's own path
    (:func:`check_records`, :func:`render_marker`), collecting instead of stopping."""
    results = project.root / "results"
    try:
        records = load_all(results, root=project.root)
        workloads = project.root / "trials" / "workloads.py"
        specs = load_trials(workloads.with_name("trials.toml"), root=project.root,
                            workloads=workloads)
    except HarnessError as exc:
        return [str(exc)]
    found: dict[str, None] = dict.fromkeys(
        check_records(records, project=project, specs=specs, results=results))
    site = Site(project=project, records=records, specs=specs,
                sources=workload_sources(workloads=workloads))
    for name, lang in ((f"{slug}.md", "es"), (f"{slug}.en.md", "en")):
        path = project.root / "docs" / name
        if not path.is_file():
            continue  # the sources step names a missing twin
        shown = project.shown(path)
        try:
            text = read_text(path, shown)
            included = {include.snippet_id for include, _ in resolve_includes(project, text, shown)}
            page = PageContext(lang=lang, slug=slug, included=included)
            for marker in find_markers(text, shown):
                try:
                    found.update(dict.fromkeys(render_marker(marker, site, page).stale))
                except HarnessError as exc:
                    found.setdefault(str(exc))
        except HarnessError as exc:
            found.setdefault(str(exc))
    return list(found)


def _markers(page: _Page) -> Outcome:
    if page.project is None:
        return "the page's sources could not be read (above)"
    problems = marker_problems(page.project, page.slug)
    page.blocking = page.blocking or bool(problems)
    page.contradicted = any(CONTRADICTS in p for p in problems)
    return problems


def _seeds(page: _Page) -> Outcome:
    try:
        return seed_problems(page.root, page.slug)
    except HarnessError as exc:
        return [str(exc)]


def _examples(page: _Page) -> Outcome:
    if page.project is None or page.sources_failed:
        return "the page's sources have the problems above; its examples would report them again"
    if page.contradicted:  # one mistake, one message: the example would fail on it too
        return ("a recorded value contradicts an expectation (above); the example would "
                "report the same mistake")
    return _pytest(page, "--tb=short", str(page.shown))


def _notebooks(page: _Page) -> Outcome:
    if page.project is None or page.blocking:
        return "they are built from the sources and records checked above"
    ours = {notebook_path(page.root / "docs" / name)
            for name in (f"{page.slug}.md", f"{page.slug}.en.md")}
    try:
        stale = out_of_date(page.project, load_all(page.root / "results", root=page.root))
    except HarnessError as exc:
        return [str(exc)]
    return [
        f"{page.project.shown(path)}: differs from what docs/{page.slug}.md, its twin, "
        f"snippets/{page.slug}/ (code and expectations.toml) and results/ make of it; run "
        "`make notebooks` (python -m harness notebooks --write)"
        for path in sorted(stale) if path in ours]


def _build(page: _Page) -> Outcome:
    if page.blocking:
        return "it would stop on the problems above"
    with tempfile.TemporaryDirectory(prefix="check-site-") as site:
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", site], cwd=page.root,
            capture_output=True, text=True)
    if done.returncode == 0:
        return []
    log = (done.stdout + done.stderr).splitlines()
    problems = [line for line in log if line.startswith(_BUILD_LINES)]
    # MkDocs' closing "Aborted with …" line can precede the problems in the joined log.
    problems.sort(key=lambda line: line.startswith("Aborted"))
    return problems or log[-20:]


def _browser(page: _Page) -> Outcome:
    """The browser tests whose ids name the page (both languages, every width): what CI's
    `make test` would find in a real Chromium about this page only."""
    if page.blocking:
        return "the site would not build (above)"
    if not (page.root / "tests" / "browser").is_dir():
        return "this checkout has no tests/browser"
    if shutil.which("chromium") is None:
        return ("no `chromium` on PATH: run `make browser` (root, apt), then `make check` "
                "again; `make test` runs them, and CI fails without")
    # 5: no browser test names this page
    return _pytest(page, "--tb=line", "-m", "browser", "-k", page.slug, "tests/browser", ok=(0, 5))


def _pytest(page: _Page, *args: str, ok: tuple[int, ...] = (0,)) -> Outcome:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--no-header", "-p", "no:randomly",
         "-p", "no:cacheprovider", *args], cwd=page.root, capture_output=True, text=True)
    return [] if done.returncode in ok else [(done.stdout + done.stderr).strip()]


#: (name, what it checks, step), in the order they run.
STEPS: tuple[tuple[str, str, Callable[[_Page], Outcome]], ...] = (
    ("spelling", "codespell", _spelling),
    ("sources", "twin parity, includes, expectations", _sources),
    ("markers", "unknown ids, stale records, claims", _markers),
    ("seeds", "seed fidelity: added prose inside «Ampliación»", _seeds),
    ("examples", "pytest docs/PAGE.md", _examples),
    ("notebooks", "docs/cuadernos/PAGE.ipynb and PAGE.en.ipynb", _notebooks),
    ("build", "mkdocs build --strict", _build),
    ("browser", "tests/browser whose ids name PAGE, both languages", _browser),
)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    slug = str(args.page).removeprefix("docs/").removesuffix(".md")
    if not (root / "docs" / f"{slug}.md").is_file():
        pages = sorted(p.stem for p in (root / "docs").glob("*.md") if ".en." not in p.name)
        raise HarnessError(f"no page docs/{slug}.md; pages: {', '.join(pages)}")
    page = _Page(root=root, slug=slug)
    failed: list[str] = []
    for name, what, step in STEPS:
        print(f"== {name} ({what.replace('PAGE', slug)})", flush=True)
        outcome = step(page)
        if isinstance(outcome, str):
            print(f"   not run: {outcome}")
            continue
        for problem in outcome:
            print(problem)
        if outcome:
            failed.append(name)
    if failed:
        print(f"check {slug}: FAILED: {', '.join(failed)}")
        return 1
    print(f"check {slug}: every check `make test` runs for this page passes")
    return 0
