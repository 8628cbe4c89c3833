"""The page runner: one page's snippets in one subprocess (:mod:`harness.run.page`), for
pytest and the record command alike. Standard library only. Checked here, where no
snippet reaches: a snippet past the limit (a generous backstop) is a hang, and the page's
process group is killed naming it; one that ends the process is named with the exit code.
The checkout's files (``.git`` included) are compared before the page starts and after its
process has exited (an exit handler's write counts); a change is charged to a snippet only
when the page's audit hook saw it write the path, or start a program before the change:
another process's write (pytest's redirected log) is no one's here. Processes left running
when the page ends are killed, and named. A guard against mistakes, not a security
boundary (CONTRIBUTING).
"""

from __future__ import annotations

import json
import os
import secrets
import selectors
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_TIMEOUT_S", "Outcome", "SnippetRequest", "network_open",
           "network_required", "run_page"]

#: The backstop per snippet: far beyond any example's time on a busy machine.
DEFAULT_TIMEOUT_S = 600.0
PAGE_SCRIPT = Path(__file__).with_name("page.py")
#: Folders of a checkout that are not its files: environments and build output.
_NOT_SOURCES = frozenset({"node_modules", "__pycache__", "site", ".cache", "test-artifacts",
                          "build", "dist", ".pytest_cache", ".mypy_cache", ".ruff_cache"})


@dataclass(frozen=True, kw_only=True)
class SnippetRequest:
    path: Path
    shown: Path
    """The path a contributor reads, in messages."""
    id: str
    names: list[str]
    """The names its expectations ask for."""


@dataclass(frozen=True, kw_only=True)
class Outcome:
    observations: list[dict[str, Any]] = field(default_factory=list)
    """One JSON-able observation per requested name (``missing`` when undefined)."""
    failure: str = ""
    """Why the snippet did not complete cleanly, one problem per line."""
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    """What it left changed in torch: setting or function → (before, after)."""


def network_required() -> bool:
    """Under CI a network guard that cannot be set up fails the run."""
    return os.environ.get("CI", "").lower() in ("true", "1")


def network_open() -> str:
    """Why a page process here cannot close its network ("" when it can): the page
    script's own attempt, in a process of its own."""
    done = subprocess.run([sys.executable, "-P", "-S", str(PAGE_SCRIPT), "--probe"],
                          capture_output=True, text=True, timeout=600)
    return done.stdout.strip() or (f"the probe failed: {done.stderr.strip()[-200:]}"
                                   if done.returncode else "")


Tree = dict[str, tuple[int, int, int] | None]


def _tree(root: Path) -> Tree:
    """Every file (mtime ns, size, inode) and folder (None) of the checkout, ``.git``
    included, relative to ``root``."""
    found: Tree = {}
    for folder, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f not in _NOT_SOURCES
                      and not f.startswith(".venv") and not f.endswith(".egg-info")]
        for name in folders + files:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            found[os.path.relpath(path, root)] = None if stat.S_ISDIR(info.st_mode) else (
                info.st_mtime_ns, info.st_size, info.st_ino)
    return found


def _changes(before: Tree, after: Tree) -> dict[str, str]:
    changes = {p: "created" for p in after.keys() - before.keys()}
    changes.update((p, "deleted") for p in before.keys() - after.keys())
    changes.update((p, "changed") for p in before.keys() & after.keys() if before[p] != after[p])
    return changes


class _Reader:
    """The page's answers as they come, each checked for this run's token."""

    def __init__(self, process: subprocess.Popen[bytes], token: str) -> None:
        assert process.stdout is not None
        self.process, self.token, self.buffer, self.closed = process, token, b"", False
        self.fd = process.stdout.fileno()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def next(self, deadline: float) -> dict[str, Any] | None:
        """The next answer; None at the end of the stream or when ``deadline`` passed."""
        while b"\n" not in self.buffer and not self.closed:
            wait = deadline - time.monotonic()
            if wait <= 0:
                return None
            if not self.selector.select(min(wait, 1.0)):
                if self.process.poll() is not None:
                    _kill_group(self.process)  # what it left holds the stream open
                continue
            chunk = os.read(self.fd, 65536)
            self.closed = not chunk
            self.buffer += chunk
        if b"\n" not in self.buffer:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            data: dict[str, Any] = json.loads(line)
        except ValueError:
            data = {}
        if not isinstance(data, dict) or data.get("token") != self.token:
            return {"forged": True}
        return data


def _kill_group(process: subprocess.Popen[bytes]) -> bool:
    """Kill what is left of the page's process group; True when something was."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return ("\n    " + "\n    ".join(lines[-6:])) if lines else ""


def run_page(requests: list[SnippetRequest], *, checkout: Path | None, timeout: float,
             imports: list[str]) -> list[Outcome]:
    """Run ``requests`` in page order in a fresh page process, one outcome each; ``imports``
    (what the snippets import) are imported before the first snippet's clock starts."""
    before = _tree(checkout) if checkout else {}
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="harness-page-") as scratch:
        work, log = Path(scratch) / "work", Path(scratch) / "page.log"
        work.mkdir()
        request = {"token": token, "log": str(log), "imports": imports,
                   "checkout": str(checkout.resolve()) if checkout else "/nonexistent",
                   "network_required": network_required(),
                   "snippets": [{"path": str(r.path), "shown": str(r.shown), "id": r.id,
                                 "names": r.names} for r in requests]}
        with open(log, "wb") as early:  # what Python says before the page moves fd 2
            process = subprocess.Popen(
                [sys.executable, "-P", str(PAGE_SCRIPT)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=early, cwd=work, start_new_session=True)
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps(request).encode())
            process.stdin.close()
            return _collect(requests, _Reader(process, token), timeout=timeout, log=log,
                            checkout=checkout, before=before)
        finally:
            _kill_group(process)
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def _collect(requests: list[SnippetRequest], reader: _Reader, *, timeout: float, log: Path,
             checkout: Path | None, before: Tree) -> list[Outcome]:
    names = [f"{r.shown} (snippet {r.id!r})" for r in requests]
    seen: list[dict[str, Any]] = []
    running, ended, fatal = -1, False, ""
    # The page's start (Python, then the snippets' imports: torch takes seconds, many
    # more on a loaded machine) is no snippet's: it gets the default backstop at least.
    startup = max(timeout, DEFAULT_TIMEOUT_S)
    deadline = time.monotonic() + startup
    while (data := reader.next(deadline)) is not None:
        seen.append({**data, "by": max(running, 0)} if "forged" in data else data)
        if "start" in data:
            running, deadline = data["start"], time.monotonic() + timeout
        ended = ended or "end" in data
    if not reader.closed and reader.process.poll() is None:
        _kill_group(reader.process)
        what = "" if running < 0 else names[running] + (
            " (or an exit handler one of the page's snippets registered)" if ended else "")
        fatal = (f"{what} ran longer than {timeout:g} s and was stopped: it hangs, or the "
                 "limit (HARNESS_EXAMPLE_TIMEOUT) is too short for this machine" if what else
                 f"the page's process did not reach its first snippet in {startup:g} s "
                 f"(importing what its snippets import) and was stopped{_tail(log)}")
    code = reader.process.wait()  # it has ended: its answers are closed, or it was killed
    left = _kill_group(reader.process)
    seen += iter(lambda: reader.next(time.monotonic() + 5), None)  # the exit's own writes
    network = next((d["network"] for d in seen if "network" in d), "")
    answers = {d["done"]: d for d in seen if "done" in d}
    writes = [d for d in seen if "write" in d]
    spawns = [d for d in seen if "spawn" in d]
    if network and network_required():
        reason = (f"not run: the page runner's network guard could not close the network "
                  f"({network}), and under CI=true no example runs with the network open")
        return [Outcome(failure=f"{n}: {reason}") for n in names]
    if not fatal and running >= 0 and running not in answers:
        how = "os._exit or a crash" if code >= 0 else f"signal {-code}"
        fatal = f"{names[running]} ended the page's process (exit code {code}: {how}){_tail(log)}"
    if not fatal and not ended and running < 0:
        fatal = f"the page's Python process did not start (exit code {code}){_tail(log)}"
    problems: dict[int, list[str]] = defaultdict(list)
    last = max(answers, default=0)
    for index in {d.get("by", max(running, 0)) for d in seen if "forged" in d}:
        problems[index].append(
            f"{names[index]} wrote to the harness's answer channel: what it answered is not "
            "the page's, so nothing it observed is trusted")
    if ended and fatal:
        problems[last].append(fatal)
    elif ended and code != 0:
        problems[last].append(
            f"{names[last]}: the page's process exited with code {code} after its last snippet "
            f"(an exit handler a snippet registered?){_tail(log)}")
    if left:
        starters = sorted({s["by"] if s["by"] >= 0 else last for s in spawns}) or [last]
        for index in starters:
            problems[index].append(
                f"{names[index]}: processes it started were still running when the page "
                "ended, and were killed; wait for what an example starts")
    if checkout is not None:
        _charge(_changes(before, _tree(checkout)), checkout, writes, spawns, names, problems,
                last)
    outcomes = []
    for index, name in enumerate(names):
        answer = answers.get(index)
        if answer is None:
            failure = fatal if index == running or (running < 0 and index == 0) else (
                f"{name} not run: an earlier snippet of this page failed fatally: "
                f"{(fatal or 'the page stopped').splitlines()[0]}")
            outcomes.append(Outcome(failure=failure))
            continue
        failure = "\n".join([answer["failure"], *problems.get(index, [])]).strip()
        outcomes.append(Outcome(observations=answer["observations"], failure=failure,
                                changed={k: (a, b) for k, (a, b) in answer["changed"].items()}))
    return outcomes


def _charge(changes: dict[str, str], checkout: Path, writes: list[dict[str, Any]],
            spawns: list[dict[str, Any]], names: list[str], problems: dict[int, list[str]],
            last: int) -> None:
    """Charge each change of the checkout to the snippet whose process made it."""
    root = str(checkout.resolve())
    charged: dict[int, list[str]] = {}
    for path, how in sorted(changes.items()):
        full = os.path.join(root, path)
        writers = {w["by"] for w in writes if w["write"] == full}
        if not writers:
            try:
                changed_at = os.stat(full, follow_symlinks=False).st_mtime
            except OSError:
                changed_at = time.time()
            started = [s for s in spawns if s["time"] <= changed_at]
            writers = {started[-1]["by"]} if started else set()
        for index in writers:
            charged.setdefault(index, []).append(f"{path} ({how})")
    for index, paths in charged.items():
        when = "" if index >= 0 else (" while the page's process was exiting (an atexit "
                                      "handler or a finalizer one of its snippets registered)")
        target = index if index >= 0 else last
        problems[target].append(
            f"{names[target]}: changed files of the checkout{when}: {', '.join(paths[:8])}; "
            "an example writes only to a temporary folder")
