"""A sealed runner for one page's examples: a child process per page.

Each page runs in its own Python process (:mod:`harness.run.worker`), with one
namespace shared by its snippets in page order and a scratch working directory.
That seals the whole family of escapes by construction rather than one by one:

- a snippet that loops, even inside ``try/except BaseException``, is killed when
  its time is up: the clock is the parent's, which no snippet can catch or reset,
  and no SIGALRM is used, so pytest-timeout's own alarm is left alone;
- ``sys.exit`` is reported as a failure, and ``os._exit`` or a crash closes the
  pipe, which is a failure naming the snippet and the exit code;
- torch's global state (default dtype, grad mode, threads...) cannot leak into
  another page, and a snippet that changes it and does not restore it fails,
  naming the setting;
- relative writes land in the scratch directory, never in the checkout.

Where ``fork`` is safe (Linux), the page processes come from a fork server
(``python -m harness.run.worker --zygote``), one per parent process and environment:
it imports torch once and forks a fresh process per page before any torch operation
has started a thread pool, so a page no longer pays torch's import (about 1.5 s), and
every guarantee above holds as it does for a spawned process: the forked page has its
own pipes, log, scratch directory, environment and namespace; the parent's clock kills
it; the fork server reports its exit code. Elsewhere (macOS, Windows), or with
``HARNESS_SANDBOX=spawn``, or when the fork server cannot start, each page spawns
``python -m harness.run.worker`` as before.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import select
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["Answer", "PageRunner"]


@dataclass(frozen=True, kw_only=True)
class Answer:
    observations: list[dict[str, Any]] = field(default_factory=list)
    """One JSON-able observation per requested name (``missing`` when undefined)."""
    failure: str = ""
    """Why the snippet did not complete (raised, exited, timed out, crashed)."""
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    """torch settings that differ from when the page started: name → (before, after)."""


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _readable(fd: int, timeout: float | None) -> bool:
    """Whether ``fd`` can be read within ``timeout`` seconds (None: wait for it)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(None if timeout is None else int(timeout * 1000)))


SANDBOX_ENV = "HARNESS_SANDBOX"
#: How long the first page may wait for the fork server to import torch.
_START_S = 120.0
#: Environment variables that change from test to test, or that only this process reads:
#: a fork server started under other values still serves (the page gets the values).
_VOLATILE = frozenset({"PYTEST_CURRENT_TEST", SANDBOX_ENV})


class _ZygoteError(OSError):
    """The fork server is unusable; the page is spawned instead."""


class _Zygote:
    """One fork server (see :mod:`harness.run.worker`), for one environment."""

    def __init__(self, env: dict[str, str]) -> None:
        self.home = tempfile.TemporaryDirectory(prefix="harness-zygote-")
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = ours
        self.lock = threading.Lock()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.run.worker", "--zygote", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                cwd=self.home.name, env=env, pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()

    def alive(self) -> bool:
        return self.process.poll() is None

    def _ask(self, request: dict[str, Any], fds: list[int], timeout: float) -> dict[str, Any]:
        with self.lock:
            try:
                socket.send_fds(self.control, [json.dumps(request).encode()], fds)
                reply = self.control.recv(4096) if _readable(self.control.fileno(),
                                                             timeout) else b""
            except OSError as exc:
                raise _ZygoteError(str(exc)) from exc
        if not reply:
            raise _ZygoteError("the fork server did not answer")
        answer: dict[str, Any] = json.loads(reply)
        return answer

    def fork(self, *, scratch: str, env: dict[str, str], requests: int, answers: int,
             log: int) -> _Forked:
        status_read, status_write = os.pipe()
        try:
            reply = self._ask({"op": "spawn", "scratch": scratch, "env": env},
                              [requests, answers, log, status_write], _START_S)
        except _ZygoteError:
            os.close(status_read)
            raise
        finally:
            os.close(status_write)
        return _Forked(self, reply["pid"], status_read)

    def kill(self, pid: int) -> None:
        try:
            self._ask({"op": "kill", "pid": pid}, [], 10.0)
        except _ZygoteError:
            pass

    def close(self) -> None:
        self.control.close()  # the server sees the end of its socket and stops
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        self.home.cleanup()


class _Forked:
    """A page process forked by the fork server, with the part of
    :class:`subprocess.Popen` that :class:`PageRunner` uses."""

    def __init__(self, zygote: _Zygote, pid: int, status: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self.status = status
        self.returncode: int | None = None
        self.stdin: IO[str] | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            if _readable(self.status, 0):
                self._read()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not _readable(self.status, timeout):
                raise subprocess.TimeoutExpired(f"page process {self.pid}", timeout or 0)
            self._read()
        assert self.returncode is not None
        return self.returncode

    def _read(self) -> None:
        text = os.read(self.status, 64).decode().strip()
        os.close(self.status)
        # No code: the fork server itself ended, which kills its children.
        self.returncode = int(text) if text else -9

    def kill(self) -> None:
        if self.returncode is None:
            self.zygote.kill(self.pid)


_zygotes: dict[frozenset[tuple[str, str]], _Zygote] = {}
_zygotes_lock = threading.Lock()


def _fork_allowed() -> bool:
    if os.environ.get(SANDBOX_ENV, "") == "spawn":
        return False
    return sys.platform == "linux" and hasattr(socket, "send_fds")


def _zygote(env: dict[str, str]) -> _Zygote:
    key = frozenset((k, v) for k, v in env.items() if k not in _VOLATILE)
    with _zygotes_lock:
        zygote = _zygotes.get(key)
        if zygote is None or not zygote.alive():
            if zygote is not None:
                zygote.close()
            zygote = _zygotes[key] = _Zygote(env)
        return zygote


@atexit.register
def _close_zygotes() -> None:
    with _zygotes_lock:
        for zygote in _zygotes.values():
            zygote.close()
        _zygotes.clear()


class PageRunner:
    """One child process for one page; :meth:`run` executes a snippet in it."""

    def __init__(self, *, root: Path) -> None:
        self.scratch = tempfile.TemporaryDirectory(prefix="harness-page-")
        read_end, write_end = os.pipe()
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.process: subprocess.Popen[str] | _Forked
        try:
            self.process = self._fork(env, write_end)
        except _ZygoteError:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.run.worker", str(write_end)],
                stdin=subprocess.PIPE, stdout=self.log, stderr=self.log, text=True,
                cwd=self.scratch.name, env=env, pass_fds=(write_end,),
            )
        os.close(write_end)
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_reader, args=(os.fdopen(read_end, encoding="utf-8"),
                                               self.answers), daemon=True).start()
        self.initial: dict[str, str] | None = None
        self.broken = ""

    def _fork(self, env: dict[str, str], answers: int) -> _Forked:
        if not _fork_allowed():
            raise _ZygoteError("fork is not used here")
        requests_read, requests_write = os.pipe()
        try:
            forked = _zygote(env).fork(scratch=self.scratch.name, env=env,
                                       requests=requests_read, answers=answers,
                                       log=self.log.fileno())
        except BaseException:
            os.close(requests_write)
            raise
        finally:
            os.close(requests_read)
        forked.stdin = os.fdopen(requests_write, "w", encoding="utf-8")
        return forked

    def _next(self, timeout: float) -> dict[str, Any] | None:
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            raise EOFError
        data: dict[str, Any] = json.loads(line)
        return data

    def _tail(self) -> str:
        self.log.seek(0)
        lines = self.log.read().strip().splitlines()[-6:]
        return ("\n    " + "\n    ".join(lines)) if lines else ""

    def _dead(self, what: str) -> str:
        code = self.process.wait(timeout=10)
        how = "os._exit or a crash" if code >= 0 else f"signal {-code}"
        self.broken = f"{what} ended the page's process (exit code {code}: {how}){self._tail()}"
        return self.broken

    def run(self, *, path: Path, shown: Path, snippet_id: str, names: list[str],
            timeout: float) -> Answer:
        """Execute ``path`` in the page's namespace and observe ``names``."""
        what = f"{shown} (snippet {snippet_id!r})"
        if self.broken:
            return Answer(failure=f"{what} not run: an earlier snippet of this page "
                                  f"failed fatally: {self.broken.splitlines()[0]}")
        try:
            if self.initial is None:
                # The child imports torch before answering; that is not the snippet's time.
                ready = self._next(timeout=max(timeout, 120.0))
                if ready is None:
                    self.close()
                    return Answer(failure=f"{what}: the page's Python process did not start")
                self.initial = ready["state"]
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"path": str(path), "shown": str(shown),
                                                 "id": snippet_id, "names": names}) + "\n")
            self.process.stdin.flush()
            data = self._next(timeout=timeout)
        except (EOFError, BrokenPipeError):
            return Answer(failure=self._dead(what))
        if data is None:
            self.process.kill()
            self.process.wait()
            self.broken = f"{what} ran longer than its {timeout:g} s limit and was stopped"
            return Answer(failure=self.broken)
        assert self.initial is not None
        changed = {k: (self.initial.get(k, ""), v) for k, v in data["state"].items()
                   if self.initial.get(k) != v}
        return Answer(observations=data["observations"], failure=data["failure"], changed=changed)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.log.close()
        self.scratch.cleanup()
