"""The child side of :mod:`harness.run.sandbox`: one page's snippets, run in one
namespace in a scratch working directory, answering over a ``multiprocessing``
connection.

:func:`serve` is the target of the page's :class:`multiprocessing.Process`. Each
request is ``{"path", "shown", "id", "names"}`` (``None`` ends the page); each answer
is ``{"observations": [...], "failure": str, "state": {...}, "seconds": float,
"imported": [...]}``. A snippet's own output goes to the page's log file, kept apart
from the answers. ``SystemExit`` (``sys.exit``) is caught and reported as a failure;
``os._exit`` and crashes end the process, which the parent sees as a closed
connection and an exit code.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["PRELOAD", "serve", "torch_state"]

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


def torch_state() -> dict[str, str]:
    """torch's process-wide settings a snippet could change and forget to restore."""
    import torch

    state = {
        "default dtype": str(torch.get_default_dtype()),
        "grad mode": str(torch.is_grad_enabled()),
        "inference mode": str(torch.is_inference_mode_enabled()),
        "anomaly detection": str(torch.is_anomaly_enabled()),
        "deterministic algorithms": str(torch.are_deterministic_algorithms_enabled()),
        "threads": str(torch.get_num_threads()),
        "float32 matmul precision": torch.get_float32_matmul_precision(),
    }
    if hasattr(torch, "get_default_device"):
        state["default device"] = str(torch.get_default_device())
    return state


def _failure(exc: BaseException, shown: str, snippet_id: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == shown]
    line = frames[-1].lineno if frames else 1
    text = (frames[-1].line or "") if frames else ""
    if isinstance(exc, SystemExit):
        return (f"{shown}:{line}: snippet {snippet_id!r} called sys.exit({exc.code!r}); an "
                f"example must run to its end\n    {text}")
    return (f"{shown}:{line}: snippet {snippet_id!r} raised {type(exc).__name__}: {exc}"
            f"\n    {text}")


def _answer(request: dict[str, Any], namespace: dict[str, Any]) -> dict[str, Any]:
    from harness.run.execute import observe_name

    shown, snippet_id = request["shown"], request["id"]
    with open(request["path"], encoding="utf-8") as handle:
        code = compile(handle.read(), shown, "exec")
    namespace.setdefault("__name__", "__main__")
    before = set(sys.modules)
    start = time.perf_counter()
    failure = ""
    try:
        exec(code, namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        failure = _failure(exc, shown, snippet_id)
    timing = {"seconds": time.perf_counter() - start,
              "imported": sorted(set(sys.modules) - before)}
    if failure:
        return {"failure": failure, "observations": [], "state": torch_state(), **timing}
    observations = []
    for name in request["names"]:
        try:
            observations.append(observe_name(namespace, name))
        except LookupError as exc:
            observations.append({"name": name, "missing": str(exc)})
    return {"failure": "", "observations": observations, "state": torch_state(), **timing}


def _isolate(*, scratch: str, log: str, env: dict[str, str]) -> None:
    """Make this process what ``python snippet.py`` started in ``scratch`` would be:
    its own output file, working directory, environment, and fresh random state."""
    with open(log, "a", encoding="utf-8") as handle:
        os.dup2(handle.fileno(), 1)
        os.dup2(handle.fileno(), 2)
    with open(os.devnull, encoding="utf-8") as null:
        os.dup2(null.fileno(), 0)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(env)
    numpy = sys.modules.get("numpy")
    if numpy is not None:  # a spawned page draws fresh entropy; so does a forked one
        numpy.random.seed()


def serve(connection: Connection, scratch: str, log: str, env: dict[str, str]) -> None:
    """The page process: answer requests until the parent sends ``None`` or goes away."""
    _isolate(scratch=scratch, log=log, env=env)
    import torch  # noqa: F401 - before the first snippet, so its clock starts clean

    connection.send({"ready": True, "state": torch_state()})
    namespace: dict[str, Any] = {}
    while True:
        try:
            request = connection.recv()
        except EOFError:
            break
        if request is None:
            break
        connection.send(_answer(request, namespace))
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
