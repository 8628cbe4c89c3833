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
"""

from __future__ import annotations

import json
import os
import queue
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


class PageRunner:
    """One child process for one page; :meth:`run` executes a snippet in it."""

    def __init__(self, *, root: Path) -> None:
        self.scratch = tempfile.TemporaryDirectory(prefix="harness-page-")
        read_end, write_end = os.pipe()
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
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
