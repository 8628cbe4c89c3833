"""The sealed page runner answers the same whether its page process was forked by the
fork server (Linux) or spawned (``HARNESS_SANDBOX=spawn``, the macOS and Windows path):
same observations, same failure messages, same exit codes, a scratch working directory.
The fault tests (tests/faults, tests/integration/test_pages_glue.py) prove the sealing on
real pages; this pins the fallback to the same answers."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from support import ROOT

from harness.run import sandbox
from harness.run.sandbox import PageRunner

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
        return re.sub(r"harness-page-\w+", "SCRATCH", repr(answer))

    kinds = []
    first = PageRunner(root=ROOT)
    try:
        kinds.append(type(first.process).__name__)
        answers = [run(first, "observe", ["x", "here"]), run(first, "quits", []),
                   run(first, "leaks", []), run(first, "hangs", [], timeout=0.5),
                   run(first, "after", ["y"])]
        scratch = Path(first.scratch.name)
        assert not (ROOT / "escrito.txt").exists()
        assert (scratch / "escrito.txt").read_text() == "x"
    finally:
        first.close()
    second = PageRunner(root=ROOT)
    try:
        kinds.append(type(second.process).__name__)
        answers += [run(second, "crashes", []), run(second, "after", ["y"])]
    finally:
        second.close()
    expected = "Popen" if mode == "spawn" else "_Forked"
    assert kinds == [expected, expected]
    return answers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is Linux-only")
def test_forked_and_spawned_pages_answer_alike(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    forked = _page(tmp_path / "fork", "fork", monkeypatch)
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
