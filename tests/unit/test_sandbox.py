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
        # First imports differ between the two ways of starting a page.
        answer = dataclasses.replace(answer, imported=())
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


#: Snippets that reach outside their page, each with what the runner must say. The
#: checkout here is a folder of the test's own, which a snippet writes into by path.
ESCAPES = {
    "writes_checkout": ("open(CHECKOUT + '/docs/x.md', 'w').write('x')\n",
                        "changed files of the checkout: docs/x.md (created)"),
    "changes_cwd": ("import os\nos.chdir('/')\n", "changed the working directory to /"),
    "leaves_process": ("import subprocess\nchild = subprocess.Popen(['sleep', '60'])\n",
                       "left processes running, now killed: "),
    "daemonizes": ("import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                   "    if os.fork() == 0:\n        time.sleep(60)\n    os._exit(0)\n"
                   "os.wait()\n", "left processes running, now killed: "),
    "forges_answer": ("import gc\nfrom multiprocessing.connection import Connection\n"
                      "for o in gc.get_objects():\n    if isinstance(o, Connection):\n"
                      "        o.send({'failure': '', 'observations': [], 'state': {}})\n",
                      "wrote to the harness's answer channel"),
    "patches_state": ("import torch\ntorch.set_default_dtype(torch.float64)\n"
                      "torch.get_default_dtype = lambda: torch.float32\n", ""),
    "leaves_thread": ("import threading, time\n"
                      "threading.Thread(target=time.sleep, args=(60,)).start()\n",
                      "left threads running: Thread-1"),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("name", list(ESCAPES))
def test_a_snippet_reaching_outside_its_page_fails_naming_it(tmp_path: Path, name: str) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "docs").mkdir(parents=True)
    source, message = ESCAPES[name]
    snippet = tmp_path / f"{name}.py"
    snippet.write_text(f"CHECKOUT = {str(checkout)!r}\n" + source)
    runner = PageRunner(checkout=checkout)
    try:
        answer = runner.run(path=snippet, shown=Path(f"{name}.py"), snippet_id=name,
                            names=[], timeout=30)
        after = runner.run(path=snippet, shown=Path("after.py"), snippet_id="after",
                           names=[], timeout=30) if name == "leaves_thread" else None
        pid = runner.process.pid
    finally:
        runner.close()
    if name == "patches_state":  # the leak is seen through the patch, and so is the patch
        assert answer.changed == {
            "default dtype": ("torch.float32", "torch.float64"),
            "torch.get_default_dtype": ("original", "replaced")}, answer
        return
    assert message in answer.failure, answer
    assert answer.failure.startswith(f"{name}.py"), answer.failure
    if name == "leaves_thread":
        assert after is not None and "failed fatally" in after.failure
    if "processes" in message:
        left = [p for p in Path("/proc").iterdir() if p.name.isdigit()
                and b"sleep" in (p / "cmdline").read_bytes() and (p / "cmdline").read_bytes()
                .endswith(b"60\0")]
        assert pid not in [int(p.name) for p in left]
        assert not [p for p in left if _parent_of(int(p.name)) == pid], left


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="network namespaces")
def test_a_snippet_cannot_open_a_network_connection(tmp_path: Path) -> None:
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    snippet = tmp_path / "connects.py"
    snippet.write_text(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 5)\n")
    runner = PageRunner()
    try:
        answer = runner.run(path=snippet, shown=Path("connects.py"), snippet_id="connects",
                            names=[], timeout=30)
        network = runner.network
    finally:
        runner.close()
        server.close()
    if network:
        pytest.skip(network)
    assert "connects.py:2: snippet 'connects' raised" in answer.failure, answer
    assert "Network is unreachable" in answer.failure, answer


def test_an_earlier_seed_does_not_make_a_later_snippet_reproducible(tmp_path: Path) -> None:
    """Standalone, an unseeded torch.rand differs from run to run; in a page it must not
    repeat because an earlier snippet seeded torch."""
    (tmp_path / "seeds.py").write_text("import torch\ntorch.manual_seed(0)\n")
    (tmp_path / "draws.py").write_text("import torch\nvalue = torch.rand(1).item()\n")
    values = []
    for _ in range(2):
        runner = PageRunner()
        try:
            for name in ("seeds", "draws"):
                answer = runner.run(path=tmp_path / f"{name}.py", shown=Path(f"{name}.py"),
                                    snippet_id=name, names=["value"] if name == "draws" else [],
                                    timeout=30)
                assert not answer.failure, answer
            values.append(answer.observations[0]["value"])
        finally:
            runner.close()
    assert values[0] != values[1]
