"""The child side of :mod:`harness.run.sandbox`: one page's snippets, run in one
namespace in a scratch working directory, answering over a ``multiprocessing``
connection.

:func:`serve` is the target of the page's :class:`multiprocessing.Process`. Each
request is ``{"token", "path", "shown", "id", "names"}`` (``None`` ends the page); each
answer is ``{"token", "observations": [...], "failure": str, "state": {...},
"imported": [...], "threads": [...]}``, the token being the request's. Before each
snippet the page gets what a standalone run starts with (working directory, fresh random
state); the page process itself is sealed by :mod:`harness.run.seal`. A snippet's own
output goes to the page's log file, kept apart from the answers. ``SystemExit``
(``sys.exit``) is caught and reported as a failure; ``os._exit`` and crashes end the
process, which the parent sees as a closed connection and an exit code.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from harness.run.seal import seal

__all__ = ["PRELOAD", "serve"]

#: Imported once by the fork server, before any page forks from it. Beyond ``torch``,
#: these are what the first optimizer step (``torch._dynamo``, about 1 s), the first
#: symbolic-shape error path and the timing snippet import on first use: imported in
#: the page they would land on a snippet's clock, which is the hang guard's clock.
#: tests/unit/test_sandbox.py checks that no real snippet imports much beyond them.
PRELOAD = (
    "torch",
    "torch._dynamo",
    "torch.fx.experimental.symbolic_shapes",
    "torch.utils.benchmark",
    "harness.run.execute",
)


def _state_readers() -> dict[str, Callable[[], object]]:
    """torch's process-wide settings a snippet could change and forget to restore, each
    with the function that reads it, taken now (a snippet replacing one later is seen,
    not believed)."""
    import torch

    readers: dict[str, Callable[[], object]] = {
        "default dtype": torch.get_default_dtype,
        "grad mode": torch.is_grad_enabled,
        "inference mode": torch.is_inference_mode_enabled,
        "anomaly detection": torch.is_anomaly_enabled,
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled,
        "threads": torch.get_num_threads,
        "float32 matmul precision": torch.get_float32_matmul_precision,
    }
    if hasattr(torch, "get_default_device"):
        readers["default device"] = torch.get_default_device
    return readers


class _Page:
    """What the page process keeps between snippets: the namespace, and the state readers
    and torch's functions as they were before any snippet could replace them."""

    def __init__(self, work: str) -> None:
        import torch

        self.work = work
        self.namespace: dict[str, Any] = {}
        self.readers = _state_readers()
        # Functions only: torch rebinds some classes itself (set_default_dtype rebinds
        # torch.Storage), never its functions.
        self.functions = {name: id(getattr(torch, name)) for name in dir(torch)
                          if not name.startswith("_") and inspect.isroutine(getattr(torch, name))}

    def read_state(self) -> dict[str, str]:
        return {name: str(read()) for name, read in self.readers.items()}

    def replaced(self) -> dict[str, str]:
        """torch functions a snippet replaced (``torch.x = ...``), as state changes."""
        import torch

        return {f"torch.{name}": "replaced" for name, ident in self.functions.items()
                if id(getattr(torch, name, None)) != ident}

    def fresh(self) -> None:
        """What a standalone ``python snippet.py`` starts with: the working directory, and
        fresh random state (a seed an earlier snippet set must not make this one's
        unseeded values reproducible in the page but not on its own)."""
        import random

        import torch

        os.chdir(self.work)
        torch.seed()
        random.seed()
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed()


def _failure(exc: BaseException, shown: str, snippet_id: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == shown]
    line = frames[-1].lineno if frames else 1
    text = (frames[-1].line or "") if frames else ""
    if isinstance(exc, SystemExit):
        return (f"{shown}:{line}: snippet {snippet_id!r} called sys.exit({exc.code!r}); an "
                f"example must run to its end\n    {text}")
    return (f"{shown}:{line}: snippet {snippet_id!r} raised {type(exc).__name__}: {exc}"
            f"\n    {text}")


def _left_running() -> list[str]:
    """Threads a snippet started and left running that would keep the page alive."""
    main = threading.main_thread()
    return sorted(t.name for t in threading.enumerate()
                  if t is not main and not t.daemon and t.is_alive())


def _answer(request: dict[str, Any], page: _Page) -> dict[str, Any]:
    from harness.run.execute import observe_name

    shown, snippet_id = request["shown"], request["id"]
    with open(request["path"], encoding="utf-8") as handle:
        code = compile(handle.read(), shown, "exec")
    page.namespace.setdefault("__name__", "__main__")
    page.fresh()
    before = set(sys.modules)
    failure = ""
    try:
        exec(code, page.namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        failure = _failure(exc, shown, snippet_id)
    common = {"token": request["token"],
              "imported": sorted(set(sys.modules) - before), "threads": _left_running(),
              "state": {**page.read_state(), **page.replaced()}}
    if failure:
        return {"failure": failure, "observations": [], **common}
    observations = []
    for name in request["names"]:
        try:
            observations.append(observe_name(page.namespace, name))
        except LookupError as exc:
            observations.append({"name": name, "missing": str(exc)})
    return {"failure": "", "observations": observations, **common}


def _isolate(*, scratch: str, log: str, env: dict[str, str]) -> None:
    """Make this process what ``python snippet.py`` started in ``scratch`` would be:
    its own output file, working directory and environment."""
    with open(log, "a", encoding="utf-8") as handle:
        os.dup2(handle.fileno(), 1)
        os.dup2(handle.fileno(), 2)
    with open(os.devnull, encoding="utf-8") as null:
        os.dup2(null.fileno(), 0)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(env)


def serve(connection: Connection, scratch: str, log: str, env: dict[str, str]) -> None:
    """The page process: answer requests until the parent sends ``None`` or goes away."""
    _isolate(scratch=scratch, log=log, env=env)
    network = seal()
    import torch  # noqa: F401 - before the first snippet, so its clock starts clean

    page = _Page(scratch)
    connection.send({"ready": True, "state": {**page.read_state(), **page.replaced()},
                     "network": network})
    while True:
        try:
            request = connection.recv()
        except EOFError:
            break
        if request is None:
            break
        connection.send(_answer(request, page))
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
