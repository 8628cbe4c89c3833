"""CONTRIBUTING's «Adding an example», followed from top to bottom in a copy of the
project, each step in its `make` form: a new example goes onto a page, and no step fails
(a step that fails until a later one is done is a defect of the guide's order).

The steps run through the real Makefile with the test run's own environment as `.venv`
(`-o` keeps make from reinstalling it), so what a contributor types is what runs here.
The copy is a clone of this checkout with its uncommitted changes. The guide's last step,
`make test` in the clone (the whole suite, with the new example recorded by one build),
runs under ``CI=true`` only: nested in the suite it doubles the suite's time, which a
contributor's own `make test` need not pay for a change that is not theirs. Inside that
nested run this walk skips itself (``HARNESS_WALK``), or it would clone the clone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import BACKSTOP_S, ROOT, inject, run

PAGE = "elegir-pytorch"
# Long on purpose: a snippet observed by one build is labelled «<page>/<snippet> <name>» on
# the drift page, and no label length may break a page at phone width (issue 30).
NAME = "derivada_del_cubo_con_backward_en_un_punto"
SNIPPET = """import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.backward()
print(x.grad)
"""
EXPECTATION = f"""
[[expect]]
snippet = "{NAME}"
name = "x.grad"
value = 12.0
derivation = "Para y = x³, dy/dx = 3x²; en x = 2 vale 3·4 = 12."
derivation_en = "For y = x³, dy/dx = 3x²; at x = 2 it is 3·4 = 12."
"""
LINES = (f'```python title="snippets/{PAGE}/{NAME}.py"\n--8<-- "{PAGE}/{NAME}.py"\n```\n\n'
         f'<!-- harness:observed snippet="{PAGE}/{NAME}" -->\n\n')
PROSE = {"es": '!!! info "Ampliación"\n\n    La derivada de x³ en x = 2 es 3·2².\n\n',
         "en": '!!! info "Extension"\n\n    The derivative of x³ at x = 2 is 3·2².\n\n'}


def _steps_of_the_guide() -> list[str]:
    """The `make` forms of «Adding an example», in the guide's order."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding an example"):text.index("\n## ", text.index(
        "## Adding an example") + 1)]
    return list(dict.fromkeys(re.findall(r"`make ([a-z-]+)", section)))


def _clone_with_changes(target: Path) -> Path:
    """This checkout as a contributor's clone holds it before committing: a git clone
    (history included: the sitemap dates pages by their commits), with the working tree's
    uncommitted changes laid over it (tracked and untracked-but-not-ignored files, as git
    lists them). The installed axe-core (ignored) is linked, as `make browser` leaves it."""
    def git(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
        return run(["git", *args], cwd=cwd, capture_output=True)

    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    cloned = git("clone", "-q", str(ROOT), str(target)) if listed.returncode == 0 else listed
    if cloned.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"git cannot clone the checkout: {cloned.stderr.decode()}")
        pytest.skip("not a git checkout: the guide's steps run in a clone of it")
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree stays deleted
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    for name in filter(None, git("ls-files", "-z", cwd=target).stdout.decode().split("\0")):
        if not (ROOT / name).is_file():
            (target / name).unlink()
    if (ROOT / "node_modules").is_dir():
        (target / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return target


#: Set in the environment of every step: inside step 9's `make test` it skips this walk.
NESTED = "HARNESS_WALK"


def _make(root: Path, target: str, backstop: float = BACKSTOP_S) -> tuple[int, str]:
    venv = Path(sys.executable).parent.parent
    # Not this run's own pytest settings (xdist's worker name, the current test): the
    # steps are a contributor's, started from a shell.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = run(["make", "--no-print-directory", "-o", f"{venv}/.installed-torch__2.13.0",
                f"VENV={venv}", target, f"PAGE={PAGE}"],
               cwd=root, capture_output=True, text=True, env={**clean, NESTED: "1"},
               backstop=backstop)
    return done.returncode, done.stdout + done.stderr


def test_the_guide_names_its_steps_in_order() -> None:
    assert _steps_of_the_guide()[:5] == ["examples", "record-examples", "notebooks", "check",
                                         "test"], _steps_of_the_guide()


@pytest.mark.skipif(not Path(sys.executable).with_name("codespell").exists(),
                    reason="the test extra is not installed in this environment")
@pytest.mark.skipif(os.environ.get(NESTED) == "1",
                    reason="this run is the walk's own step 9, in its clone")
# The nested suite runs beside the rest of this one: a backstop against a hang, at about
# three times a quiet run of both on two cores.
@pytest.mark.timeout(3 * 3600)
def test_adding_an_example_step_by_step_never_fails(tmp_path: Path) -> None:
    root = _clone_with_changes(tmp_path / "project")
    # 1. The snippet runs as a reader would run it.
    (root / "snippets" / PAGE / f"{NAME}.py").write_text(SNIPPET, encoding="utf-8")
    ran = run([sys.executable, f"snippets/{PAGE}/{NAME}.py"], cwd=root, capture_output=True,
              text=True)
    assert ran.returncode == 0 and "12." in ran.stdout, ran.stderr
    # 2. and 3. The include and the marker on the Spanish page, the expectation.
    inject(root / f"docs/{PAGE}.md", "## Fuentes\n", PROSE["es"] + LINES + "## Fuentes\n")
    toml = root / "snippets" / PAGE / "expectations.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + EXPECTATION, encoding="utf-8")
    # 4. The page's examples pass before the English twin has the example.
    code, out = _make(root, "examples")
    assert code == 0, f"step 4 (make examples) failed before step 5:\n{out}"
    assert re.search(r"\d+ passed", out), out
    # 5. The twin.
    inject(root / f"docs/{PAGE}.en.md", "## Sources\n", PROSE["en"] + LINES + "## Sources\n")
    # 6., 7. and 8.: record, notebooks, check.
    for step, target in ((6, "record-examples"), (7, "notebooks"), (8, "check")):
        code, out = _make(root, target)
        assert code == 0, f"step {step} (make {target}) failed:\n{out}"
    assert "every check `make test` runs for this page passes" in out
    # The notebook carries the new cell with the output step 6 recorded.
    notebook = (root / f"docs/cuadernos/{PAGE}.ipynb").read_text(encoding="utf-8")
    assert "x = torch.tensor(2.0, requires_grad=True)" in notebook
    assert re.search(r'"x\.grad += 12', notebook), notebook
    # 9. The whole suite, in the clone, with the example recorded by this one build.
    if os.environ.get("CI") != "true":
        return  # steps 1-8 passed; step 9 doubles the suite's time (see the module's text)
    code, out = _make(root, "test", backstop=3 * 3600)
    assert code == 0, f"step 9 (make test in the clone) failed:\n{out[-20000:]}"
    assert re.search(r"\d+ passed", out) and " failed" not in out, out[-5000:]
