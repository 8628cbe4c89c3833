"""The page runner (harness/run/runner.py, page.py) on small pages of its own: what a
snippet did is reported on that snippet, read where the snippet cannot reach, and
nothing another process does is charged to it. The fault tests (tests/faults,
tests/integration/test_pages_glue.py) show the same on real pages through pytest."""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from support import run

from harness.run.runner import Outcome, SnippetRequest, run_page

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="the page imports torch")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux namespaces")


def _run(tmp_path: Path, snippets: dict[str, str], *, checkout: Path | None = None,
         timeout: float = 600, imports: tuple[str, ...] = (),
         names: dict[str, list[str]] | None = None) -> dict[str, Outcome]:
    """Run ``snippets`` (name → source) as one page; each outcome by name."""
    folder = tmp_path / "snippets"
    folder.mkdir(exist_ok=True)
    requests = []
    for name, source in snippets.items():
        (folder / f"{name}.py").write_text(source)
        requests.append(SnippetRequest(path=folder / f"{name}.py", shown=Path(f"{name}.py"),
                                       id=name, names=(names or {}).get(name, [])))
    done = run_page(requests, checkout=checkout, timeout=timeout, imports=list(imports))
    return dict(zip(snippets, done, strict=True))


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    (root / ".git" / "hooks").mkdir(parents=True)
    return root


@needs_torch
def test_a_page_reports_each_snippet_on_its_own(tmp_path: Path) -> None:
    """Observations, exceptions, sys.exit, leaked settings and replaced methods, each on
    the snippet that did it; and every snippet starts with fresh random state."""
    page = _run(tmp_path, {
        "observe": "import os\nimport torch\nx = torch.ones(3).sum()\nhere = os.getcwd()\n"
                   "print('to the log, not to the answers')\n",
        "raises": "import torch\nbad = torch.ones(2) @ torch.ones(3)\n",
        "quits": "import sys\nsys.exit(3)\n",
        "seeds": "import torch\ntorch.manual_seed(0)\n",
        "first": "import torch\nfirst = torch.rand(1).item()\ntorch.manual_seed(0)\n",
        "second": "import torch\nsecond = torch.rand(1).item()\n",
        "replaces": "import torch\ntorch.Tensor.backward = lambda self, *a, **k: None\n",
        "innocent": "import torch\nx = torch.tensor(3.0, requires_grad=True)\n(x * x).backward()\n",
        "leaks": "import torch\ntorch.set_default_dtype(torch.float64)\n",
        "broken": "x = (\n",
        "harness": "import importlib\nimportlib.import_module('harness')\n",
    }, imports=("torch",), names={"observe": ["x", "here", "nothing"], "first": ["first"],
                                  "second": ["second"]})
    observed = page["observe"].observations
    assert observed[0]["value"] == 3.0 and observed[0]["dtype"] == "torch.float32"
    assert "harness-page-" in observed[1]["value"] and not page["observe"].failure
    assert observed[2] == {"name": "nothing", "missing": "'nothing' is not defined"}
    assert page["raises"].failure.startswith("raises.py:2: snippet 'raises' raised RuntimeError")
    assert page["quits"].failure.startswith("quits.py:2: snippet 'quits' called sys.exit(3)")
    assert page["first"].observations[0]["value"] != page["second"].observations[0]["value"]
    assert page["replaces"].changed == {"torch.Tensor.backward": ("original", "replaced")}
    assert page["innocent"].changed == {} and not page["innocent"].failure
    assert page["leaks"].changed == {"default dtype": ("torch.float32", "torch.float64")}
    assert page["broken"].failure.startswith("broken.py:1: snippet 'broken' is not valid Python")
    assert "No module named 'harness' (an example imports only torch" in page["harness"].failure


def test_what_a_snippet_leaves_behind_is_charged_to_it(tmp_path: Path, checkout: Path) -> None:
    """Writes into the checkout (.git included, by a program it started too, or late, by an
    exit handler), a changed working directory, processes and a forged answer."""
    child = tmp_path / "child.pid"
    page = _run(tmp_path, {
        "clean": "x = 1\n",
        "writes": f"open({str(checkout)!r} + '/docs/x.md', 'w').write('x')\n",
        "hooks": f"open({str(checkout)!r} + '/.git/hooks/pre-commit', 'w').write('#!/bin/sh')\n",
        "moves": "import os\nos.chdir('/')\n",
        "spawns": "import subprocess, sys\nsubprocess.run([sys.executable, '-c', "
                  f"\"open({str(checkout)!r} + '/docs/hijo.md', 'w').write('x')\"], check=True)\n",
        "leaves": "import subprocess\nchild = subprocess.Popen(['sleep', '600'])\n"
                  f"open({str(child)!r}, 'w').write(str(child.pid))\n",
        "forges": "import os\nfor fd in range(3, 20):\n    try:\n"
                  "        os.write(fd, b'{\"done\": 0, \"failure\": \"\"}\\n')\n"
                  "    except OSError:\n        pass\n",
        "late": "import atexit\natexit.register(lambda: open("
                f"{str(checkout)!r} + '/docs/tarde.md', 'w').write('x'))\n",
    }, checkout=checkout)
    assert page["clean"].failure == ""
    assert ("writes.py (snippet 'writes'): changed files of the checkout: docs/x.md (created)"
            in page["writes"].failure)
    assert "changed files of the checkout: .git/hooks/pre-commit (created)" in page["hooks"].failure
    assert "spawns.py (snippet 'spawns'): changed files of the checkout: docs/hijo.md (created)" \
        in page["spawns"].failure
    assert page["moves"].failure.startswith("moves.py: snippet 'moves' changed the working "
                                            "directory to /")
    assert "leaves.py (snippet 'leaves'): processes it started were still running" \
        in page["leaves"].failure
    pid, killed = int(child.read_text()), time.monotonic() + 60  # SIGKILL takes a moment
    while _alive(pid) and time.monotonic() < killed:
        time.sleep(0.05)
    assert not _alive(pid)
    assert "forges.py (snippet 'forges') wrote to the harness's answer channel" \
        in page["forges"].failure
    assert ("late.py (snippet 'late'): changed files of the checkout while the page's process "
            "was exiting (an atexit handler or a finalizer one of its snippets registered): "
            "docs/tarde.md (created)") in page["late"].failure


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_another_process_writing_into_the_checkout_is_not_charged(tmp_path: Path,
                                                                   checkout: Path) -> None:
    """`pytest ... > run.log` from the checkout's root: pytest writes its log while the
    page runs; the page's snippets did not."""
    stop = threading.Event()

    def log_progress() -> None:
        with open(checkout / "run.log", "a") as log:
            while not stop.is_set():
                log.write(".")
                log.flush()
                time.sleep(0.005)

    writer = threading.Thread(target=log_progress)
    writer.start()
    try:
        page = _run(tmp_path, {"slow": "import time\ntime.sleep(0.3)\n",
                               "reads": f"open({str(checkout)!r} + '/run.log').read()\n"},
                    checkout=checkout)
    finally:
        stop.set()
        writer.join()
    assert [o.failure for o in page.values()] == ["", ""]


def test_the_pages_imports_are_not_on_a_snippets_clock(tmp_path: Path, monkeypatch) -> None:
    """Importing torch takes many seconds on a loaded machine: the page's start has its
    own backstop, so a short snippet limit stops hanging snippets, not slow imports."""
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "slow_to_import.py").write_text("import time\ntime.sleep(4)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "modules"))
    page = _run(tmp_path, {"uses": "import slow_to_import\ny = 1\n"}, timeout=2,
                imports=("slow_to_import",))
    assert page["uses"].failure == "", page


def test_a_hang_and_a_crash_stop_their_page_naming_the_snippet(tmp_path: Path) -> None:
    # It sleeps rather than spins, and swallows every exception: only a clock outside
    # the snippet's reach stops it, and the wait costs no CPU.
    hang = _run(tmp_path, {
        "hangs": "import time\nwhile True:\n    try:\n        time.sleep(1)\n"
                 "    except BaseException:\n        pass\n",
        "after": "y = 1\n"}, timeout=3)
    assert hang["hangs"].failure.startswith("hangs.py (snippet 'hangs') ran longer than 3 s and "
                                            "was stopped: it hangs"), hang
    assert hang["after"].failure.startswith("after.py (snippet 'after') not run: an earlier "
                                            "snippet of this page failed fatally")
    exits = _run(tmp_path, {"registers": "import atexit, time\natexit.register(time.sleep, 600)\n"},
                 timeout=3)
    assert exits["registers"].failure.startswith(
        "registers.py (snippet 'registers') (or an exit handler one of the page's snippets "
        "registered) ran longer than 3 s"), exits
    crash = _run(tmp_path, {"crashes": "print('last words')\nimport os\nos._exit(7)\n",
                            "after": "y = 1\n"})
    assert crash["crashes"].failure.startswith(
        "crashes.py (snippet 'crashes') ended the page's process (exit code 7: os._exit or a "
        "crash)\n    last words")
    assert "not run" in crash["after"].failure
    threads = _run(tmp_path, {"threads": "import threading, time\n"
                                         "threading.Thread(target=time.sleep, args=(600,)).start()\n",
                              "after": "y = 1\n"})
    assert "threads.py: snippet 'threads' left threads running: Thread-1" \
        in threads["threads"].failure
    assert "not run" in threads["after"].failure


@linux
@pytest.mark.parametrize("refused", [False, True], ids=["namespace", "in-process block"])
def test_a_snippet_cannot_open_a_network_connection(tmp_path: Path, refused: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    if refused:
        # The in-process block is what a local run falls back to; under CI=true the page
        # refuses to run instead (the next test), so this case runs as a contributor would.
        monkeypatch.setenv("HARNESS_REFUSE_NAMESPACES", "1")
        monkeypatch.delenv("CI", raising=False)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    try:
        page = _run(tmp_path, {"connects": "import socket\n"
                               f"socket.create_connection(('127.0.0.1', {port}), 5)\n"})
    finally:
        server.close()
    assert "connects.py:2: snippet 'connects' raised" in page["connects"].failure
    assert "Network is unreachable" in page["connects"].failure


@linux
@pytest.mark.parametrize("ci", [False, True], ids=["local", "CI"])
def test_a_network_guard_that_cannot_be_set_up_fails_under_ci(mini: Path, ci: bool) -> None:
    """Where user namespaces are refused (as on GitHub's ubuntu-24.04 runners), `CI=true
    pytest docs/<page>.md` fails naming the guard and its reason; a local run passes and
    says, in one line, that the network was not closed."""
    env = {**os.environ, "HARNESS_REFUSE_NAMESPACES": "1", "CI": "true" if ci else ""}
    done = run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                           "docs/pagina.md"], cwd=mini, env=env, capture_output=True, text=True)
    out = done.stdout + done.stderr
    reason = "unshare refused (as if: HARNESS_REFUSE_NAMESPACES is set)"
    if ci:
        assert done.returncode == 1, out
        assert (f"the page runner's network guard could not close the network ({reason}), "
                "and under CI=true no example runs with the network open") in out
    else:
        assert done.returncode == 0, out
        said = [line for line in out.splitlines() if "network" in line]
        assert said == [f"page examples: the network was not closed ({reason}); connections "
                        "are refused in-process only, and under CI=true the examples fail"], out



def test_a_run_of_a_page_imports_neither_playwright_nor_torch_in_pytest() -> None:
    """The page's process imports torch; pytest's own, collecting the page, must not pay
    for it, nor for Playwright (issue 25: pyproject no longer passes its options)."""
    from support import ROOT

    # -s: pytest would capture what -X importtime writes while the conftest imports.
    done = run([sys.executable, "-X", "importtime", "-m", "pytest", "--collect-only",
                           "-q", "-s", "docs/que-es-pytorch.md"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "pytest" in imported and "sybil" in imported
    assert not {m for m in imported if m.split(".")[0] in ("torch", "playwright",
                                                            "pytest_playwright")}
