"""The sealed page runner answers the same whether its page process came from
multiprocessing's fork server (Linux, macOS) or was spawned (``HARNESS_SANDBOX=spawn``,
the Windows path): same observations, same failure messages, same exit codes, a scratch
working directory. The fault tests (tests/faults, tests/integration/test_pages_glue.py)
prove the sealing on real pages; this pins the fallback to the same answers, and keeps
the cause of an old flaky failure from coming back (see the last test)."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import pytest
from support import ROOT

from harness.run import sandbox
from harness.run.sandbox import PageRunner
from harness.sources.project import Project, page_includes

if importlib.util.find_spec("torch") is None:  # find_spec: the runner imports torch itself
    pytest.skip("the page runner needs torch", allow_module_level=True)

SNIPPETS = {
    "observe": "import os\nimport torch\nx = torch.ones(3).sum()\nhere = os.getcwd()\n"
               "open('escrito.txt', 'w').write('x')\nprint('visible in the log')\n",
    "quits": "import sys\nsys.exit(3)\n",
    "leaks": "import torch\ntorch.set_default_dtype(torch.float64)\n",
    "hangs": "while True:\n    try:\n        pass\n    except BaseException:\n        pass\n",
    "crashes": "import os\nos._exit(7)\n",
    "after": "y = 1\n",
}


def _page(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every answer of two pages, as text, with the scratch folder's name blanked."""
    monkeypatch.setenv(sandbox.SANDBOX_ENV, mode)
    tmp_path.mkdir()
    for name, source in SNIPPETS.items():
        (tmp_path / f"{name}.py").write_text(source)

    def run(runner: PageRunner, name: str, names: list[str], timeout: float = 30) -> str:
        answer = runner.run(path=tmp_path / f"{name}.py", shown=Path(f"{name}.py"),
                            snippet_id=name, names=names, timeout=timeout)
        # Timing and first imports differ between the two ways of starting a page.
        answer = dataclasses.replace(answer, seconds=0.0, imported=())
        return re.sub(r"harness-page-\w+", "SCRATCH", repr(answer))

    assert sandbox.context().get_start_method() == mode
    first = PageRunner()
    try:
        answers = [run(first, "observe", ["x", "here"]), run(first, "quits", []),
                   run(first, "leaks", []), run(first, "hangs", [], timeout=0.5),
                   run(first, "after", ["y"])]
        scratch = first.work
        assert not (ROOT / "escrito.txt").exists()
        assert (scratch / "escrito.txt").read_text() == "x"
    finally:
        first.close()
    second = PageRunner()
    try:
        answers += [run(second, "crashes", []), run(second, "after", ["y"])]
    finally:
        second.close()
    return answers


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork server")
def test_forked_and_spawned_pages_answer_alike(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    forked = _page(tmp_path / "fork", "forkserver", monkeypatch)
    spawned = _page(tmp_path / "spawn", "spawn", monkeypatch)
    assert forked == spawned
    observe, quits, leaks, hangs, after, crashes, after_crash = forked
    assert "'value': 3.0" in observe and "SCRATCH" in observe and "failure=''" in observe
    assert "called sys.exit(3)" in quits
    assert "'default dtype': ('torch.float32', 'torch.float64')" in leaks
    assert "ran longer than its 0.5 s limit and was stopped" in hangs
    assert "not run: an earlier snippet of this page failed fatally" in after
    assert "ended the page's process (exit code 7: os._exit or a crash)" in crashes
    assert "visible in the log" not in crashes  # the second page has its own log
    assert "failed fatally" in after_crash


#: Most modules a real snippet may import for the first time in its page process.
FIRST_IMPORTS = 25


def test_no_real_snippet_pays_for_imports_on_the_hang_guards_clock() -> None:
    """The cause of a flaky `make test` (two runs in three on a busy 2-core machine):
    `segundo_paso.py`'s first optimizer step imported torch._dynamo (830 modules, about
    1 s quiet, over 3 s loaded), on the clock the fault copies' 3 s hang limit reads, so
    healthy snippets were stopped as hangs and the pages' other faults went unreported.
    The fork server now preloads what snippets import on first use (worker.PRELOAD); a
    snippet that imports much more than that fails here, before it makes a run flaky."""
    project = Project.load(ROOT)
    heavy = []
    for page in project.spanish_pages():
        runner = PageRunner()
        try:
            for _include, snippet in page_includes(project, page):
                if snippet.language != "py":
                    continue
                answer = runner.run(path=snippet.path, shown=project.shown(snippet.path),
                                    snippet_id=snippet.id, names=[], timeout=60)
                assert not answer.failure, answer.failure
                if len(answer.imported) > FIRST_IMPORTS:
                    heavy.append(f"{snippet.id}: {len(answer.imported)} modules, e.g. "
                                 f"{', '.join(answer.imported[:5])}")
        finally:
            runner.close()
    assert not heavy, ("snippets import modules the page runner does not preload; add the "
                       "package to harness.run.worker.PRELOAD:\n" + "\n".join(heavy))
