"""Publishing: the site names the home it is given and no other, the record workflows'
hand-over takes only record files and says what changed, and the doc stack's
deadlines are dated checks.

* mkdocs.yml takes site_url, repo_url, repo_name and edit_uri from the environment: a
  build without them has no repository widget, no edit or Colab link and nothing that
  asks GitHub's API; a build with them derives every repository link from repo_url.
* .github/scripts/take-records.sh copies only ``results/<build>/`` files of record
  names out of an artifact, and never lets an examples-only set replace trial rows.
* tools/records_diff.py lists what changed against the committed records, changed
  items first, and exits 0 (no pull request) when nothing did.
* No workflow job checks out code with this repository's rights for a fork's pull
  request: a small evaluator of GitHub's expression syntax runs every job's ``if:``
  for the events such a pull request causes.
* Every pin lives in exactly one file, so a Dependabot bump cannot contradict another.
* The doc stack's end of life is a reminder, never a gate: PUBLISHING_TODAY=YYYY-MM-DD
  moves this module's clock (e.g. past 2027-05-05) and the tests stay green, printing
  the reminder as a warning.
"""

from __future__ import annotations

import datetime
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import ROOT, copy_project, run, without_torch

TAKE = ROOT / ".github" / "scripts" / "take-records.sh"
DIFF = ROOT / "tools" / "records_diff.py"
HOME = ("SITE_URL", "REPO_URL", "REPO_NAME", "EDIT_URI")
OWNER = {"SITE_URL": "https://owner.github.io/repo/", "REPO_URL": "https://github.com/owner/repo",
         "REPO_NAME": "owner/repo", "EDIT_URI": "edit/trunk/docs/"}
UPKEEP = ROOT / ".github" / "scripts" / "upkeep.py"
LINKS = ROOT / ".github" / "scripts" / "check-links.py"
WORKFLOWS = ROOT / ".github" / "workflows"
#: Material 9.x's end of life (its maintainers' notice), as upkeep.py states it.
MATERIAL_END_OF_LIFE = datetime.date(2027, 5, 5)


def _today() -> datetime.date:
    """The day the dated checks judge: today, or PUBLISHING_TODAY (YYYY-MM-DD)."""
    moved = os.environ.get("PUBLISHING_TODAY")
    return datetime.date.fromisoformat(moved) if moved else datetime.date.today()


def _build(tmp_path: Path, name: str, home: dict[str, str]) -> Path:
    site = tmp_path / name
    env = {k: v for k, v in without_torch(tmp_path / "no-torch").items() if k not in HOME}
    done = run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
        env={**env, **home}, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def _html(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The site built without a home (a contributor's build) and with one (Pages')."""
    tmp = tmp_path_factory.mktemp("publishing")
    return _build(tmp, "local", {}), _build(tmp, "owner", OWNER)


def test_a_local_build_names_no_repository(sites: tuple[Path, Path]) -> None:
    pages = _html(sites[0])
    assert len(pages) > 10
    for name, text in pages.items():
        assert "api.github.com" not in text, name
        assert 'data-md-component="source"' not in text and "md-source" not in text, name
        assert "colab.research.google.com" not in text, name
        assert not re.search(r"github\.com/(?!squidfunk|pytorch/pytorch/)", text), name
        assert 'rel="edit"' not in text, name


def test_a_published_build_derives_every_link_from_its_home(sites: tuple[Path, Path]) -> None:
    pages = _html(sites[1])
    index, notebook = pages["index.html"], pages["cuadernos/que-es-pytorch/index.html"]
    assert 'data-md-component="source"' in index and "owner/repo" in index
    assert 'href="https://github.com/owner/repo/edit/trunk/docs/index.md"' in index
    assert 'href="https://github.com/owner/repo/blob/trunk/LICENSE"' in index
    assert '<link rel="canonical" href="https://owner.github.io/repo/">' in index
    assert '<meta property="og:url" content="https://owner.github.io/repo/">' in index
    assert '<meta name="twitter:card"' in index and 'rel="icon" href="assets/favicon.svg"' in index
    # A notebook's canonical address is its article's.
    assert '<link rel="canonical" href="https://owner.github.io/repo/que-es-pytorch/">' in notebook
    colab = set(re.findall(r'https://colab\.research\.google\.com/github/[^"]+', "".join(pages.values())))
    assert colab and all(c.startswith("https://colab.research.google.com/github/owner/repo/blob/"
                                      "trunk/docs/") for c in colab), colab
    foreign = [n for n, t in pages.items()
               if re.search(r"github\.com/(?!owner/repo|squidfunk|pytorch/pytorch)", t)]
    assert not foreign, foreign
    sitemap = (sites[1] / "sitemap.xml").read_text(encoding="utf-8")
    assert all(u.startswith("https://owner.github.io/repo/")
               for u in re.findall(r"<loc>([^<]+)</loc>", sitemap))
    robots = (sites[1] / "robots.txt").read_text(encoding="utf-8")
    assert "Sitemap: https://owner.github.io/repo/sitemap.xml\n" in robots and "Allow: /" in robots
    for home in ("index.html", "en/index.html"):
        assert '<meta property="og:type" content="website">' in pages[home], home
    assert '<meta property="og:type" content="article">' in pages["en/medir-pytorch/index.html"]


def _last_commit(path: Path) -> str:
    return subprocess.run(["git", "log", "-1", "--format=%cI", "--", str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.strip()


def test_each_page_in_the_sitemap_is_dated_by_its_last_commit(sites: tuple[Path, Path]) -> None:
    """Not the build's date: the date git gives for the page's own source file (none
    at all from a shallow clone, whose one commit would date every page alike)."""
    entries = re.findall(r"<loc>https://owner\.github\.io/repo/([^<]*)</loc>(?:\s*<lastmod>([^<]+)</lastmod>)?",
                         (sites[1] / "sitemap.xml").read_text(encoding="utf-8"))
    assert len(entries) >= 10, entries
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT,
                             capture_output=True, text=True, check=False).stdout.strip() != "false"
    for url, lastmod in entries:
        english = url.startswith("en/")
        slug = url.removeprefix("en/").strip("/") or "index"
        source = ROOT / "docs" / f"{slug}{'.en' if english else ''}.md"
        assert source.is_file(), (url, source)
        assert lastmod == ("" if shallow else _last_commit(source)), (url, lastmod)
    if not shallow:
        assert len({lastmod for _, lastmod in entries}) > 1, "every page dated alike"


def test_the_view_button_opens_the_snippets_a_page_shows(sites: tuple[Path, Path]) -> None:
    """A page that includes snippets links to the file it includes, or to the folder
    holding the files it includes, in the repository; the folder exists and holds them."""
    pages = _html(sites[1])
    seen = 0
    for source in sorted((ROOT / "docs").glob("*.md")):
        included = {m.split(":")[0] for m in re.findall(r'--8<-- "([^"]+)"', source.read_text(encoding="utf-8"))}
        stem = source.name.removesuffix(".md")
        english = stem.endswith(".en")
        slug = stem.removesuffix(".en")
        name = ("en/" if english else "") + ("index.html" if slug == "index" else f"{slug}/index.html")
        view = re.findall(r'<a href="([^"]+)" title="[^"]*" class="md-content__button md-icon">\s*<svg',
                          pages[name])[-1]
        if not included:
            assert view == f"https://github.com/owner/repo/raw/trunk/docs/{source.name}", (name, view)
            continue
        seen += 1
        base = "https://github.com/owner/repo/"
        if len(included) == 1:
            assert view == f"{base}blob/trunk/snippets/{next(iter(included))}", (name, view)
        else:
            assert view.startswith(f"{base}tree/trunk/snippets/"), (name, view)
            folder = ROOT / "snippets" / view.removeprefix(f"{base}tree/trunk/snippets/")
            assert all((folder / Path(f).name).is_file() or (ROOT / "snippets" / f).is_file()
                       for f in included), (name, view, included)
            assert all((ROOT / "snippets" / f).resolve().is_relative_to(folder.resolve())
                       for f in included), (name, view)
    assert seen >= 4


#: Homes a tracked file may name: upstream projects the pages and comments cite, and
#: the example owner of a comment. The project's own home comes from the environment.
UPSTREAM = ("github.com/pytorch/pytorch", "squidfunk.github.io", "owner.github.io")


def test_no_project_file_names_a_home_of_its_own() -> None:
    """pyproject, CITATION.cff, CHANGELOG, the pages and the code name no repository or
    site of this project: one typed there would be an owner that may not exist."""
    tracked = subprocess.run(["git", "grep", "-h", "-o", "-I", "-E",
                              r"github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|[A-Za-z0-9-]+\.github\.io",
                              "--", ".", ":!tests", ":!results"],
                             cwd=ROOT, capture_output=True, text=True, check=False).stdout
    named = {home for home in tracked.split() if not home.startswith(UPSTREAM)}
    assert not named, sorted(named)


def _take(dest: Path, *artifacts: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(TAKE), str(dest), *map(str, artifacts)],
                          capture_output=True, text=True, check=False)


def test_take_records_copies_record_files_only(tmp_path: Path) -> None:
    good = tmp_path / "good" / "results" / "2.15.0+cpu"
    good.mkdir(parents=True)
    for name in ("cpu.env.json", "cpu.examples.jsonl", ".cpu.lock"):
        (good / name).write_text("{}\n")
    dest = tmp_path / "dest"
    done = _take(dest, tmp_path / "good")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2.15.0+cpu cpu\n"
    assert sorted(p.name for p in (dest / "2.15.0+cpu").iterdir()) == [
        "cpu.env.json", "cpu.examples.jsonl"]
    bad = tmp_path / "bad" / "results" / "2.16.0+cpu"
    bad.mkdir(parents=True)
    (bad / "cpu.env.json").write_text("{}\n")
    (bad / "cpu.csv").symlink_to("/etc/passwd")
    (tmp_path / "bad" / "results" / "..hidden").mkdir()
    refused = _take(dest, tmp_path / "bad")
    assert refused.returncode == 1
    assert "cpu.csv: not a record file" in refused.stderr and "not a torch build" in refused.stderr
    assert not (dest / "2.16.0+cpu").exists()


def test_an_examples_only_set_never_replaces_trial_rows(tmp_path: Path) -> None:
    dest = tmp_path / "dest" / "2.13.0+cpu"
    dest.mkdir(parents=True)
    (dest / "cpu.csv").write_text("rows\n")
    (dest / "cpu.env.json").write_text("rows' runs\n")
    examples = tmp_path / "examples" / "results" / "2.13.0+cpu"
    examples.mkdir(parents=True)
    (examples / "cpu.env.json").write_text("{}\n")
    (examples / "cpu.examples.jsonl").write_text("{}\n")
    done = _take(tmp_path / "dest", tmp_path / "examples")
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert "holds trial rows" in done.stderr
    assert (dest / "cpu.env.json").read_text() == "rows' runs\n"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    *args], check=True, capture_output=True)


def _diff(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(DIFF), "--against", "HEAD", "--root", str(root),
                           "--exit-code"], capture_output=True, text=True, check=False)


def test_records_diff_lists_what_changed_first_and_stays_quiet_otherwise(tmp_path: Path) -> None:
    root = copy_project(tmp_path / "project", names=("docs", "snippets", "trials", "results",
                                                     "mkdocs.yml"))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "records")
    same = _diff(root)
    assert same.returncode == 0, same.stderr
    assert "0 items changed beyond the noise" in same.stdout
    gone = sorted((root / "results").glob("*/cpu.examples.jsonl"))[0]
    build = gone.parent.name
    kept = [line for line in gone.read_text(encoding="utf-8").splitlines() if line.strip()]
    gone.write_text("\n".join(kept[:-1]) + "\n", encoding="utf-8")
    changed = _diff(root)
    assert changed.returncode == 1, changed.stderr
    section = changed.stdout.split(f"## torch {build} · cpu", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| example")]
    assert len(rows) == 1 and "| removed |" in rows[0], section
    assert "1 changed;" in section


def _upkeep(*args: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, str(UPKEEP), *args], cwd=ROOT, capture_output=True,
                          text=True, check=False)


def test_the_end_of_life_is_a_reminder_never_a_gate() -> None:
    """Material 9.x reaches its end of life on 2027-05-05 (the notice it prints on every
    build). From 120 days before, while the docs extra pins 9.x, upkeep.py (the weekly
    upkeep workflow, and a line in the Pages build's log) warns, and exits 0: nothing
    that deploys depends on the day. This test judges _today() (PUBLISHING_TODAY moves
    it) and shows the reminder as a pytest warning when it is due."""
    today = _today()
    pin = next(d for d in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
               ["project"]["optional-dependencies"]["docs"] if d.startswith("mkdocs-material"))
    done = _upkeep("--today", today.isoformat())
    assert done.returncode == 0, done.stderr
    due = pin.startswith("mkdocs-material==9.") and today >= MATERIAL_END_OF_LIFE - datetime.timedelta(days=120)
    reminder = [line for line in done.stdout.splitlines() if "end of life" in line]
    assert bool(reminder) == due, done.stdout
    for line in reminder:
        assert f"on {MATERIAL_END_OF_LIFE}" in line and pin in line, line
        warnings.warn(line.split("::", 2)[-1], UserWarning, stacklevel=1)
    # Past the day, the same reminder, still not a failure.
    late = _upkeep("--today", "2027-06-01", "--last-activity", "2027-03-01")
    assert late.returncode == 0, late.stderr
    if pin.startswith("mkdocs-material==9."):
        assert "reached its end of life on 2027-05-05" in late.stdout, late.stdout
    assert "scheduled workflows on about 2027-04-30" in late.stdout, late.stdout
    quiet = _upkeep("--today", "2026-12-01", "--last-activity", "2026-11-30")
    assert quiet.returncode == 0 and "::warning" not in quiet.stdout, quiet.stdout


def test_nothing_hides_materials_notice() -> None:
    """No workflow, Makefile, command, test or benchmark sets NO_MKDOCS_2_WARNING."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    this = Path(__file__).relative_to(ROOT).as_posix()
    silenced = [name for name in tracked if name and name != this and (ROOT / name).is_file()
                and b"NO_MKDOCS_2_WARNING" in (ROOT / name).read_bytes()]
    assert not silenced, silenced


@pytest.mark.skipif(any(shutil.which(t) is None and not (Path(sys.prefix) / "bin" / t).exists()
                        for t in ("actionlint", "check-jsonschema", "zizmor", "shellcheck")),
                    reason="actionlint, check-jsonschema, zizmor or shellcheck not installed")
def test_the_workflows_pass_their_three_checks() -> None:
    env = {**os.environ, "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = run(["bash", str(ROOT / "tools" / "check_workflows.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


# --- GitHub expressions: the subset the workflows use, evaluated -------------------------
# Literals ('text', numbers, true, false, null), context paths (github.event.x.y,
# needs.job.result, inputs.x, ...), ! == != && || and parentheses, and the functions
# below. Anything else raises Unsupported, so a workflow that starts using more syntax
# fails here until the evaluator learns it. Semantics as GitHub documents them: string
# comparison ignores case, other mixed types compare as numbers, && and || return an
# operand, a missing property is null.

class Unsupported(ValueError):
    """An expression uses syntax this evaluator does not implement."""


_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||!|\(|\)|,)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))")
_STATUS = ("success", "always", "cancelled", "failure")


def _tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    text = text.strip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if not match or match.end() == at:
            raise Unsupported(f"{text!r}: unsupported syntax at {text[at:]!r}")
        kind = match.lastgroup or ""
        found.append((kind, match[kind]))
        at = match.end()
    return found


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    try:
        return float(value.strip() or 0) if isinstance(value, str) else math.nan
    except ValueError:
        return math.nan


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if type(a) is type(b) and not isinstance(a, str):
        return bool(a == b)
    return _number(a) == _number(b)


def _truthy(value: Any) -> bool:
    return not (value is None or value is False or value == "" or
                (isinstance(value, int | float) and (value == 0 or math.isnan(value))))


def evaluate(expression: str, context: dict[str, Any],
             status: Callable[[str], bool] = lambda name: name != "cancelled" and name != "failure") -> Any:
    """The value of a GitHub `if:` expression (with or without ${{ }}) in ``context``."""
    text = expression.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    tokens, at = _tokens(text), 0

    def peek() -> str:
        return tokens[at][1] if at < len(tokens) else ""

    def take(expected: str | None = None) -> tuple[str, str]:
        nonlocal at
        if at >= len(tokens) or (expected is not None and tokens[at][1] != expected):
            raise Unsupported(f"{text!r}: expected {expected or 'more'} at token {at}")
        at += 1
        return tokens[at - 1]

    def either() -> Any:
        value = both()
        while peek() == "||":
            take()
            right = both()
            value = value if _truthy(value) else right
        return value

    def both() -> Any:
        value = compare()
        while peek() == "&&":
            take()
            right = compare()
            value = right if _truthy(value) else value
        return value

    def compare() -> Any:
        value = unary()
        while peek() in ("==", "!="):
            op = take()[1]
            same = _equal(value, unary())
            value = same if op == "==" else not same
        return value

    def unary() -> Any:
        if peek() == "!":
            take()
            return not _truthy(unary())
        return primary()

    def primary() -> Any:
        kind, value = take()
        if value == "(":
            inner = either()
            take(")")
            return inner
        if kind == "str":
            return value[1:-1].replace("''", "'")
        if kind == "num":
            return float(value)
        if kind != "name":
            raise Unsupported(f"{text!r}: unexpected {value!r}")
        if value in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[value]
        if peek() == "(":
            take("(")
            args = []
            while peek() != ")":
                args.append(either())
                if peek() == ",":
                    take()
            take(")")
            if value in _STATUS and not args:
                return status(value)
            if value == "contains" and len(args) == 2:
                hay, needle = args
                if isinstance(hay, list):
                    return any(_equal(item, needle) for item in hay)
                return str(needle).casefold() in str(hay if hay is not None else "").casefold()
            if value in ("startsWith", "endsWith") and len(args) == 2:
                a, b = (str(x if x is not None else "").casefold() for x in args)
                return a.startswith(b) if value == "startsWith" else a.endswith(b)
            raise Unsupported(f"{text!r}: function {value}() with {len(args)} arguments")
        node: Any = context
        for part in value.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    result = either()
    if at != len(tokens):
        raise Unsupported(f"{text!r}: unexpected {tokens[at][1]!r}")
    return result


def _workflows() -> dict[str, dict[str, Any]]:
    return {p.name: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(WORKFLOWS.glob("*.y*ml"))}


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    if isinstance(on, str):
        return {on: {}}
    if isinstance(on, list):
        return dict.fromkeys(on, {})
    return {k: v or {} for k, v in on.items()}


def _checks_out(job: dict[str, Any], workflows: dict[str, dict[str, Any]]) -> bool:
    if "uses" in job:  # a reusable workflow of this repository: any of its jobs
        called = workflows[Path(job["uses"]).name]
        return any(_checks_out(j, workflows) for j in called["jobs"].values())
    return any(str(step.get("uses", "")).startswith("actions/checkout@") for step in job.get("steps", []))


def run_jobs(workflow: dict[str, Any], github: dict[str, Any]) -> dict[str, bool]:
    """Which jobs of ``workflow`` run for the event in ``github`` (no job fails)."""
    jobs, ran = workflow["jobs"], {}
    while len(ran) < len(jobs):
        for name, job in jobs.items():
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            if name in ran or any(n not in ran for n in needs):
                continue
            context = {"github": github, "inputs": {}, "vars": {}, "secrets": {},
                       "needs": {n: {"result": "success" if ran[n] else "skipped", "outputs": {}}
                                 for n in needs}}

            def status(fn: str, needs: list[str] = needs) -> bool:
                return {"success": all(ran[n] for n in needs), "always": True}.get(fn, False)

            condition = str(job.get("if", "true"))
            uses_status = any(re.search(rf"\b{fn}\(", condition) for fn in _STATUS)
            ran[name] = bool(_truthy(evaluate(condition, context, status))
                             and (uses_status or status("success")))
    return ran


#: A fork's pull request from a branch named main (the case issue 29 found).
FORK = {"repository": "owner/repo", "repository_owner": "owner", "head_ref": "main",
        "base_ref": "main", "ref": "refs/pull/7/merge", "server_url": "https://github.com",
        "event": {"number": 7, "repository": {"full_name": "owner/repo", "default_branch": "main"},
                  "pull_request": {"number": 7, "head": {"ref": "main", "sha": "f0f0f0",
                                                         "repo": {"full_name": "fork/repo", "fork": True}},
                                   "base": {"ref": "main", "repo": {"full_name": "owner/repo"}}}}}


def base_context_checkouts(workflows: dict[str, dict[str, Any]]) -> list[str]:
    """The jobs that run in the base repository's context (its token, secrets and
    caches) because of FORK's pull request, and check out code: none may exist."""
    ran_on_pr = {w["name"] for w in workflows.values() if "pull_request" in _triggers(w)
                 and any(run_jobs(w, {**FORK, "event_name": "pull_request"}).values())}
    found = []
    for file, workflow in workflows.items():
        triggers = _triggers(workflow)
        events = []
        if "pull_request_target" in triggers:
            events.append({**FORK, "event_name": "pull_request_target", "ref": "refs/heads/main"})
        follow = triggers.get("workflow_run")
        if follow is not None and ran_on_pr & set(follow.get("workflows", [])) and (
                "main" in follow.get("branches", ["main"]) and "main" not in follow.get("branches-ignore", [])):
            events.append({**FORK, "event_name": "workflow_run", "ref": "refs/heads/main", "event": {
                "repository": FORK["event"]["repository"],
                "workflow_run": {"conclusion": "success", "event": "pull_request", "head_branch": "main",
                                 "head_sha": "f0f0f0", "head_repository": {"full_name": "fork/repo"}}}})
        for github in events:
            for job, ran in run_jobs(workflow, github).items():
                if ran and _checks_out(workflow["jobs"][job], workflows):
                    found.append(f"{file}: {job} ({github['event_name']})")
    return found


#: pages.yml's trigger and ProperDocs job before issue 29, the case to catch.
OLD_PAGES = """
name: pages
on:
  workflow_run:
    workflows: [test]
    types: [completed]
    branches: [main]
  pull_request:
jobs:
  properdocs:
    if: >-
      github.event_name == 'pull_request' ||
      github.event.workflow_run.conclusion == 'success'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1
        with:
          ref: ${{ github.event.workflow_run.head_sha }}
"""


def test_the_evaluator_follows_githubs_rules() -> None:
    ctx = {"github": {"event_name": "Push", "event": {"n": 3}}, "needs": {"a": {"result": "success"}}}
    assert evaluate("github.event_name == 'push'", ctx) is True  # strings ignore case
    assert evaluate("${{ github.event.n == '3' }}", ctx) is True  # mixed types: numbers
    assert evaluate("github.event.missing.deeper", ctx) is None
    assert evaluate("github.event.missing || 'x'", ctx) == "x"
    assert evaluate("!cancelled() && needs.a.result != 'skipped'", ctx) is True
    assert evaluate("contains('Hello', 'ELL') && startsWith('refs/heads/main', 'refs/')", ctx) is True
    for bad in ("fromJSON('1')", "github.event['n']", "github.event.n > 1", "a ==", "'a' 'b'"):
        with pytest.raises(Unsupported):
            evaluate(bad, ctx)


def test_every_condition_of_every_workflow_is_understood() -> None:
    """Job and step conditions all parse in the subset above (else the dry runs below
    would judge expressions they cannot read)."""
    ctx = {"github": {**FORK, "event_name": "push"}}
    count = 0
    for workflow in _workflows().values():
        for job in workflow["jobs"].values():
            for condition in [job.get("if")] + [s.get("if") for s in job.get("steps", [])]:
                if condition is not None:
                    evaluate(str(condition), ctx)
                    count += 1
    assert count >= 10


def test_a_forks_pull_request_named_main_runs_no_checkout_with_this_repositorys_rights() -> None:
    workflows = _workflows()
    assert base_context_checkouts(workflows) == []
    # The same dry run finds the job issue 29 found in the old pages.yml.
    old = {**workflows, "pages.yml": yaml.safe_load(OLD_PAGES)}
    assert base_context_checkouts(old) == ["pages.yml: properdocs (workflow_run)"]
    # In the fork's own context the pull request builds and tests, and deploys nothing.
    pages = workflows["pages.yml"]
    on_pr = run_jobs(pages, {**FORK, "event_name": "pull_request"})
    assert on_pr["build"] and on_pr["properdocs"] and not on_pr["deploy"] and not on_pr["test"], on_pr
    on_push = run_jobs(pages, {**FORK, "event_name": "push", "ref": "refs/heads/main",
                               "event": FORK["event"]["repository"]})
    assert on_push["deploy"] and on_push["test"] and on_push["preflight"], on_push
    by_hand = run_jobs(pages, {**FORK, "event_name": "workflow_dispatch", "ref": "refs/heads/topic",
                               "event": FORK["event"]["repository"]})
    assert by_hand["test"] and by_hand["build"] and not by_hand["deploy"], by_hand
    gpu = run_jobs(workflows["gpu-record.yml"], {**FORK, "event_name": "pull_request"})
    assert not any(gpu.values()), gpu


def _tagged(text: str) -> Any:
    """YAML with MkDocs' tags kept as (tag, value) pairs, values typed."""
    class Loader(yaml.SafeLoader):
        pass

    def keep(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> tuple[str, Any]:
        if isinstance(node, yaml.SequenceNode):
            return ("!" + suffix, loader.construct_sequence(node))
        return ("!" + suffix, loader.construct_scalar(node))  # type: ignore[arg-type]

    Loader.add_multi_constructor("!", keep)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda _l, s, _n: ("python/name", s))
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader


def _derive(target: str) -> str:
    done = run([sys.executable, str(ROOT / ".github" / "scripts" / "derive-config.py"), target],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_candidates_configurations_are_mkdocs_yml_but_for_what_each_stack_needs() -> None:
    """pages.yml's MaterialX and Zensical jobs build from configurations derived from
    mkdocs.yml: a difference in their sites is the stack's, not a stale copy's."""
    original = _tagged((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(original))
    expected["theme"]["name"] = "materialx"
    expected["plugins"] = ["search" if isinstance(p, dict) and "search" in p else p for p in expected["plugins"]]
    assert json.loads(json.dumps(_tagged(_derive("materialx")))) == expected
    zensical = yaml.safe_load(_derive("zensical"))  # no tag left: a plain YAML file
    assert "custom_dir" not in zensical["theme"] and zensical["nav"] == original["nav"]
    snippets = next(e["pymdownx.snippets"] for e in zensical["markdown_extensions"]
                    if isinstance(e, dict) and "pymdownx.snippets" in e)
    assert snippets["base_path"] == [str(ROOT / "snippets")]
    assert zensical["site_url"] == os.environ.get("SITE_URL", "http://127.0.0.1:8000/")


# --- Pins: one place each ------------------------------------------------------------------
_PIN = re.compile(r"(?<![\w.-])([A-Za-z0-9][A-Za-z0-9_.-]*)==([0-9][^\s\"',;\]]*)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins_in(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        extras = tomllib.loads(text)["project"]["optional-dependencies"]
        text = "\n".join(d for deps in extras.values() for d in deps)
    return {_norm(m[1]): m[2] for m in _PIN.finditer(text) if _norm(m[1]) != "torch"}


def test_every_pin_lives_in_exactly_one_file() -> None:
    """pyproject.toml's extras pin what the project uses directly, constraints/ci.txt
    everything else CI installs; workflows, scripts, the Makefile and the pre-commit
    hooks name packages without versions (torch aside: the test matrix chooses it).
    Then a Dependabot bump of any one pin changes one line and contradicts nothing, so
    `pip install -c constraints/ci.txt -e .[docs]` and the other installs resolve."""
    project, ci = _pins_in(ROOT / "pyproject.toml"), _pins_in(ROOT / "constraints" / "ci.txt")
    assert project and ci
    assert not set(project) & set(ci), sorted(set(project) & set(ci))
    elsewhere = [ROOT / ".pre-commit-config.yaml", ROOT / "Makefile", ROOT / "tools" / "check_workflows.sh",
                 *sorted((ROOT / ".github").rglob("*.y*ml")), *sorted((ROOT / ".github" / "scripts").iterdir())]
    stray = {p.relative_to(ROOT).as_posix(): pins for p in elsewhere if (pins := _pins_in(p))}
    assert not stray, stray
    # What a workflow installs under the constraints is pinned there or in pyproject.
    for path in sorted(WORKFLOWS.glob("*.yml")):
        text = path.read_text(encoding="utf-8")
        named = [re.split(r";|&&|\|\||#", line)[0].split()
                 for line in re.findall(r"pip install [^\n]*-c constraints/ci\.txt([^\n]*)", text)]
        # Names a matrix hands to such a line ($INSTALL, $OVER).
        for job in yaml.safe_load(text)["jobs"].values():
            for entry in job.get("strategy", {}).get("matrix", {}).get("include", []):
                named += [str(entry.get(key, "")).split() for key in ("install", "over")]
        for name in (w for words in named for w in words if not w.startswith(("-", '"', "$", "'"))):
            assert _norm(name) in ci or _norm(name) in project, f"{path.name}: {name} is not pinned"
    # axe-core: package.json's exact version is the lock's.
    wanted = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    locked = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    for name, version in wanted.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"package.json: {name} {version} is not exact"
        assert locked[f"node_modules/{name}"]["version"] == version, name
    ecosystems = {u["package-ecosystem"] for u in
                  yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))["updates"]}
    assert ecosystems == {"github-actions", "pip", "npm"}, ecosystems


def test_a_bumped_pin_stays_in_one_place(tmp_path: Path) -> None:
    """What Dependabot's pull request does to constraints/ci.txt (one version moves)
    leaves no second, older pin of that package anywhere the check above reads."""
    ci = (ROOT / "constraints" / "ci.txt").read_text(encoding="utf-8")
    bumped = re.sub(r"^zizmor==\S+$", "zizmor==99.0.0", ci, flags=re.M)
    assert bumped != ci
    (tmp_path / "ci.txt").write_text(bumped, encoding="utf-8")
    assert _pins_in(tmp_path / "ci.txt")["zizmor"] == "99.0.0"
    others = [ROOT / "pyproject.toml", ROOT / ".pre-commit-config.yaml", *WORKFLOWS.glob("*.yml"),
              ROOT / "tools" / "check_workflows.sh"]
    assert all("zizmor" not in _pins_in(p) for p in others)


# --- External links ------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 - the standard library's name
            self.send_response(200 if self.path == "/ok" else 405 if self.path == "/get-only" else 404)
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            self.send_response(404 if self.path == "/gone" else 200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def test_the_link_check_names_each_dead_link_and_its_pages(tmp_path: Path, server: str) -> None:
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "index.html").write_text(f'<a href="{server}/ok#x">ok</a><img src="{server}/get-only">'
                                     '<a href="https://owner.github.io/repo/a/">own</a>', encoding="utf-8")
    (site / "a" / "index.html").write_text(f'<a href="{server}/gone">gone</a><a href="/relative">r</a>',
                                           encoding="utf-8")
    (site / "sitemap.xml").write_text("<urlset><url><loc>https://owner.github.io/repo/</loc></url></urlset>",
                                      encoding="utf-8")
    done = run([sys.executable, str(LINKS), str(site)], capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"::error::{server}/gone answered 404 (named in a/index.html)" in done.stdout
    assert f"ok 200 {server}/ok\n" in done.stdout and f"ok 200 {server}/get-only" in done.stdout
    assert "3 external addresses, 1 dead" in done.stdout
