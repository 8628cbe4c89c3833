"""The child side of :mod:`harness.run.sandbox`: runs one page's snippets in one
namespace, in a scratch working directory, and answers over a pipe.

Requests arrive as JSON lines on stdin (``{"path", "shown", "id", "names"}``);
each answer is one JSON line on the file descriptor named by ``argv[1]``:
``{"observations": [...], "failure": str, "state": {...}}``. A snippet's own
output goes to this process's stdout/stderr, which the parent keeps apart from
the answers. ``SystemExit`` (``sys.exit``) is caught and reported as a failure;
``os._exit`` and crashes end the process, which the parent sees as a closed pipe.

``python -m harness.run.worker --zygote FD`` is the fork server of
:mod:`harness.run.sandbox`: it imports torch once, runs no torch operation (so no
thread pool exists to be copied half-held), and for each request on the Unix socket
``FD`` forks a fresh page process that is exactly what the spawned worker is from its
first snippet on: its own pipes, log, scratch working directory, environment and
namespace. The fork server reaps its children and writes each exit code (as
:attr:`subprocess.Popen.returncode` would give it) to the status pipe of its request.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import traceback
from typing import Any

__all__ = ["main", "torch_state", "zygote"]


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


def _serve(answers_fd: int) -> int:
    answers = os.fdopen(answers_fd, "w", encoding="utf-8")
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


def main(argv: list[str]) -> int:
    if len(argv) > 2 and argv[1] == "--zygote":
        return zygote(int(argv[2]))
    return _serve(int(argv[1]))


#: Largest spawn request (JSON: scratch folder and environment) the fork server reads.
_REQUEST_BYTES = 1 << 20


def _become_page(request: dict[str, Any], fds: list[int], keep_closed: list[int]) -> None:
    """In the forked child: take the request's pipes, folder and environment, and
    serve the page; never returns into the fork server's loop."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in keep_closed:
            os.close(fd)
        requests, answers, log, status = fds
        os.close(status)
        os.dup2(requests, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(requests)
        os.close(log)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the page's stdin
        os.chdir(request["scratch"])
        # What ``python -m`` started in the scratch folder would have as sys.path[0].
        if sys.path and sys.path[0] == request["home"]:
            sys.path[0] = os.getcwd()
        os.environ.clear()
        os.environ.update(request["env"])
        numpy = sys.modules.get("numpy")
        if numpy is not None:  # a spawned page draws fresh entropy; so does a forked one
            numpy.random.seed()
        code = _serve(answers)
    except BaseException:  # noqa: BLE001 - reported in the page's log, as a crash would be
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - a closed stream must not hide the exit
                pass
        os._exit(code)


def _reap(children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = children.pop(pid, None)
        if fd is not None:
            try:
                os.write(fd, f"{os.waitstatus_to_exitcode(status)}\n".encode())
            except OSError:
                pass
            os.close(fd)


def zygote(control_fd: int) -> int:
    """The fork server's loop (see the module docstring); ends when the parent closes
    the socket, killing any page process still running."""
    control = socket.socket(fileno=control_fd)
    import torch  # noqa: F401 - once, for every page this server forks

    import harness.run.execute  # noqa: F401 - what every page's first answer imports

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, int] = {}
    home = os.getcwd()
    try:
        while True:
            ready, _, _ = select.select([control, wake_read], [], [])
            if wake_read in ready:
                try:
                    while os.read(wake_read, 512):
                        pass
                except BlockingIOError:
                    pass
                _reap(children)
            if control not in ready:
                continue
            message, fds, _, _ = socket.recv_fds(control, _REQUEST_BYTES, 4)
            if not message:
                return 0
            request = json.loads(message)
            if request["op"] == "kill":
                if request["pid"] in children:  # not reaped yet: the pid is still ours
                    os.kill(request["pid"], signal.SIGKILL)
                control.send(b'{"ok": true}')
                continue
            request["home"] = home
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _become_page(request, fds, [control.fileno(), wake_read, wake_write,
                                            *children.values()])
            children[pid] = fds[3]
            for fd in fds[:3]:
                os.close(fd)
            control.send(json.dumps({"pid": pid}).encode())
    finally:
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
