"""The child side of :mod:`harness.run.sandbox`: runs one page's snippets in one
namespace, in a scratch working directory, and answers over a pipe.

Requests arrive as JSON lines on stdin (``{"path", "shown", "id", "names"}``);
each answer is one JSON line on the file descriptor named by ``argv[1]``:
``{"observations": [...], "failure": str, "state": {...}}``. A snippet's own
output goes to this process's stdout/stderr, which the parent keeps apart from
the answers. ``SystemExit`` (``sys.exit``) is caught and reported as a failure;
``os._exit`` and crashes end the process, which the parent sees as a closed pipe.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

__all__ = ["main", "torch_state"]


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
    try:
        exec(code, namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        return {"failure": _failure(exc, shown, snippet_id), "observations": [],
                "state": torch_state()}
    observations = []
    for name in request["names"]:
        try:
            observations.append(observe_name(namespace, name))
        except LookupError as exc:
            observations.append({"name": name, "missing": str(exc)})
    return {"failure": "", "observations": observations, "state": torch_state()}


def main(argv: list[str]) -> int:
    answers = os.fdopen(int(argv[1]), "w", encoding="utf-8")
    import torch  # noqa: F401 - imported before the first snippet so its clock starts clean

    namespace: dict[str, Any] = {}
    before = torch_state()
    answers.write(json.dumps({"ready": True, "state": before}) + "\n")
    answers.flush()
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(_answer(request, namespace)) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
