"""A sealed runner for one page's examples: a child process per page, on
:mod:`multiprocessing`.

Each page runs in its own process (:func:`harness.run.worker.serve`), with one
namespace shared by its snippets in page order and a scratch working directory.
That seals the whole family of escapes by construction rather than one by one:

- a snippet that loops, even inside ``try/except BaseException``, is killed when its
  time is up: the clock is the parent's (``Connection.poll(timeout)``), which no
  snippet can catch or reset, and no SIGALRM is used, so pytest-timeout's own alarm
  is left alone;
- ``sys.exit`` is reported as a failure, and ``os._exit`` or a crash closes the
  connection, which is a failure naming the snippet and the process's exit code;
- torch's global state (default dtype, grad mode, threads...) cannot leak into
  another page, and a snippet that changes it and does not restore it fails,
  naming the setting;
- relative writes land in the scratch directory, never in the checkout.

Where it is available (Linux, macOS) the page processes come from multiprocessing's
``forkserver``, which imports torch and the modules snippets pull in on first use
(:data:`harness.run.worker.PRELOAD`) once, so neither a page's start nor a snippet's
clock pays for them. Elsewhere, or with ``HARNESS_SANDBOX=spawn``, each page is
spawned and imports torch itself (its first answer waits for that, not its snippets).
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import tempfile
import weakref
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from harness.run import guards, worker

__all__ = ["SANDBOX_ENV", "Answer", "PageRunner", "context"]

SANDBOX_ENV = "HARNESS_SANDBOX"
#: How long a page may take to start: a spawned page imports torch first.
_START_S = 120.0
#: How long a page that was asked to end, or was killed, may take to go.
_END_S = 10.0


@dataclass(frozen=True, kw_only=True)
class Answer:
    observations: list[dict[str, Any]] = field(default_factory=list)
    """One JSON-able observation per requested name (``missing`` when undefined)."""
    failure: str = ""
    """Why the snippet did not complete (raised, exited, timed out, crashed)."""
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    """torch settings that differ from when the page started: name → (before, after)."""
    imported: tuple[str, ...] = ()
    """Modules the snippet imported for the first time in its page process."""


def context() -> BaseContext:
    """``forkserver`` with :data:`~harness.run.worker.PRELOAD`, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if os.environ.get(SANDBOX_ENV, "") == "spawn" or "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    forkserver = multiprocessing.get_context("forkserver")
    # The preload is read once, when the fork server starts (the first page of this
    # process); setting it again later is harmless.
    forkserver.set_forkserver_preload(list(worker.PRELOAD))
    return forkserver


class PageRunner:
    """One child process for one page; :meth:`run` executes a snippet in it."""

    def __init__(self, *, checkout: Path | None = None) -> None:
        self.checkout = checkout
        """Whose files no snippet may change (None: not watched)."""
        self.scratch = tempfile.TemporaryDirectory(prefix="harness-page-")
        self.log = Path(self.scratch.name) / "page.log"
        self.work = Path(self.scratch.name) / "work"
        """The page's working directory (the log lies beside it, out of its reach)."""
        self.work.mkdir()
        ctx = context()
        self.connection, theirs = ctx.Pipe()
        self.process = ctx.Process(  # type: ignore[attr-defined]
            target=worker.serve, args=(theirs, str(self.work), str(self.log), dict(os.environ)),
            name="harness-page")
        # Not a daemon, so a snippet may start processes of its own (a DataLoader's
        # workers); a page left open is killed when its runner goes, or at exit.
        self.process.start()
        theirs.close()
        self._kill = weakref.finalize(self, self.process.kill)
        self.initial: dict[str, str] | None = None
        self.broken = ""
        self.network = ""
        """Why the page's network stays open ("" when it is closed: harness.run.seal)."""

    def _next(self, timeout: float) -> dict[str, Any] | None:
        """The page's next answer, or None when ``timeout`` passed; EOFError if it died."""
        if not self.connection.poll(timeout):
            return None
        data: dict[str, Any] = self.connection.recv()
        return data

    def _tail(self) -> str:
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return ("\n    " + "\n    ".join(lines[-6:])) if lines else ""

    def _dead(self, what: str) -> str:
        self.process.join(_END_S)
        code = self.process.exitcode
        how = ("os._exit or a crash" if code is None or code >= 0 else f"signal {-code}")
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
                # The page imports torch before answering; that is not the snippet's time.
                ready = self._next(timeout=max(timeout, _START_S))
                if ready is None:
                    self.close()
                    return Answer(failure=f"{what}: the page's Python process did not start")
                self.initial, self.network = ready["state"], ready["network"]
            before = guards.fingerprint(self.checkout) if self.checkout else None
            token = secrets.token_hex(16)
            self.connection.send({"token": token, "path": str(path), "shown": str(shown),
                                  "id": snippet_id, "names": names})
            data = self._next(timeout=timeout)
        except (EOFError, OSError):
            return Answer(failure=self._dead(what))
        if data is None:
            self.process.kill()
            self.process.join(_END_S)
            self.broken = f"{what} ran longer than its {timeout:g} s limit and was stopped"
            return Answer(failure=self.broken)
        if data.get("token") != token or self.connection.poll(0):
            self.broken = (f"{what} wrote to the harness's answer channel: its answer is not "
                           "the page's, so nothing it observed is trusted")
            return Answer(failure=self.broken)
        assert self.initial is not None
        changed = {k: (self.initial.get(k, "original"), v) for k, v in data["state"].items()
                   if self.initial.get(k) != v}
        problems = [data["failure"], *self._left_behind(shown, snippet_id, data, before)]
        return Answer(observations=data["observations"],
                      failure="\n".join(p for p in problems if p),
                      changed=changed,
                      imported=tuple(data["imported"]))

    def _left_behind(self, shown: Path, snippet_id: str, data: dict[str, Any],
                     before: guards.Fingerprint | None) -> list[str]:
        """What the snippet changed outside its namespace, read where it cannot reach:
        the checkout's files, the working directory, processes and threads left running.
        Processes are killed; a thread cannot be, so the page stops (it is killed)."""
        what = f"{shown}: snippet {snippet_id!r}"
        found = []
        pid = self.process.pid
        assert pid is not None
        cwd = guards.cwd_of(pid)
        if cwd is not None and Path(cwd) != self.work.resolve():
            found.append(f"{what} changed the working directory to {cwd}; an example must "
                         "leave it as it found it (use paths, not os.chdir)")
        stray = guards.descendants(pid)
        if stray:
            listed = ", ".join(f"{p} ({guards.command_of(p)[:60]})" for p in stray)
            guards.kill_all(stray)
            found.append(f"{what} left processes running, now killed: {listed}; wait for "
                         "what an example starts")
        if data["threads"]:
            self.broken = (f"{what} left threads running: {', '.join(data['threads'])}; join "
                           "them (or make them daemons) before the snippet ends")
            found.append(self.broken)
        if before is not None and self.checkout is not None:
            changes = guards.changed_files(before, guards.fingerprint(self.checkout))
            if changes:
                found.append(f"{what} changed files of the checkout: {', '.join(changes[:8])}; "
                             "an example writes only to a temporary folder")
        return found

    def close(self) -> None:
        """End the page: ask it to stop, and kill it if it does not."""
        if self.process.is_alive() and self.broken:
            self.process.kill()  # a thread it left running would keep it from ending
        if self.process.is_alive():
            try:
                self.connection.send(None)
            except OSError:
                pass
            self.process.join(_END_S)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(_END_S)
        self._kill.detach()
        self.connection.close()
        self.process.close()
        self.scratch.cleanup()
