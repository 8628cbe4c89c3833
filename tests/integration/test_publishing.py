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
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support import ROOT, copy_project, without_torch

TAKE = ROOT / ".github" / "scripts" / "take-records.sh"
DIFF = ROOT / "tools" / "records_diff.py"
HOME = ("SITE_URL", "REPO_URL", "REPO_NAME", "EDIT_URI")
OWNER = {"SITE_URL": "https://owner.github.io/repo/", "REPO_URL": "https://github.com/owner/repo",
         "REPO_NAME": "owner/repo", "EDIT_URI": "edit/trunk/docs/"}
#: Material 9.x's end of life (its maintainers' notice): after it, the pin must move.
MATERIAL_END_OF_LIFE = datetime.date(2027, 5, 5)


def _build(tmp_path: Path, name: str, home: dict[str, str]) -> Path:
    site = tmp_path / name
    env = {k: v for k, v in without_torch(tmp_path / "no-torch").items() if k not in HOME}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
        env={**env, **home}, capture_output=True, text=True, timeout=300, check=False)
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


def test_material_end_of_life_is_a_dated_check() -> None:
    """Material 9.x reaches its end of life on 2027-05-05 (the notice it prints on every
    build): after that day this fails until the pin moves off 9.x. Nothing the
    project runs hides the notice (NO_MKDOCS_2_WARNING)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [d for d in project["project"]["optional-dependencies"]["docs"]
            if d.startswith("mkdocs-material")]
    assert pins, "pyproject.toml's docs extra pins no mkdocs-material"
    if datetime.date.today() > MATERIAL_END_OF_LIFE:
        assert not re.match(r"mkdocs-material==9\.", pins[0]), (
            f"{pins[0]}: Material 9.x reached its end of life on {MATERIAL_END_OF_LIFE}; "
            "move to its successor (Zensical, see the pages workflow's job) or a maintained fork")
    # Nothing the project runs hides it: no workflow, Makefile, command, test or benchmark.
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
    done = subprocess.run(["bash", str(ROOT / "tools" / "check_workflows.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
