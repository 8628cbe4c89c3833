"""The page process: one page's snippets, in page order, in one namespace. Standard
library only, run as a script by :mod:`harness.run.runner`, so that it imports only what
the snippets import; the harness is not importable here (promise 4). It reads one JSON
request on stdin and answers JSON lines carrying its token; the snippets' output goes to
the page's log. Each snippet starts in the working directory with fresh random state;
after it the page reports its observations, what stopped it (file and line), and what it
left changed: torch's settings and functions, the working directory, threads. An audit
hook reports every write under the checkout and every program started, with the snippet
running then (``-1`` while exiting); without a network namespace it refuses connections.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import random
import sys
import threading
import time
import traceback
from typing import Any

__all__ = ["observe", "observe_name", "resolve"]

#: Audit events that change a path (its index in the event's arguments).
_PATH_EVENTS = {"os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.rename": (0, 1),
                "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,), "os.chmod": (0,),
                "os.chown": (0,), "os.utime": (0,), "shutil.rmtree": (0,)}
#: Audit events that start a program, whose own writes no hook of this process sees.
_SPAWN_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn"}
#: Audit events of a connection or a name lookup, refused when the network stays open.
_NETWORK_EVENTS = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                   "socket.gethostbyaddr", "socket.sendto", "socket.sendmsg"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: torch's settings a snippet must leave as it found them, and their readers (torch 2.6+).
_SETTINGS = {"default dtype": "get_default_dtype", "grad mode": "is_grad_enabled",
             "inference mode": "is_inference_mode_enabled",
             "anomaly detection": "is_anomaly_enabled",
             "deterministic algorithms": "are_deterministic_algorithms_enabled",
             "threads": "get_num_threads",
             "float32 matmul precision": "get_float32_matmul_precision",
             "default device": "get_default_device"}
#: Linux's unshare flags: a network namespace, inside a user namespace when not root.
_CLONE_NEWNET, _CLONE_NEWUSER = 0x40000000, 0x10000000
#: Set it (to anything) to make the page behave as if the kernel refused namespaces:
#: how the tests reach the fallback on a machine that allows them.
REFUSE_ENV = "HARNESS_REFUSE_NAMESPACES"


def resolve(namespace: dict[str, Any], dotted: str) -> Any:
    """Value of ``x`` or ``x.grad`` in ``namespace``; LookupError if absent."""
    head, *attributes = dotted.split(".")
    if head not in namespace:
        raise LookupError(f"{head!r} is not defined")
    value = namespace[head]
    for attribute in attributes:
        if not hasattr(value, attribute):
            raise LookupError(f"{type(value).__name__} has no attribute {attribute!r}")
        value = getattr(value, attribute)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value.tolist() if hasattr(value, "tolist") else value


def observe_name(namespace: dict[str, Any], name: str) -> dict[str, Any]:
    """``{"name", "kind", "value", ...}`` for ``name``, ``kind`` an ObservationKind; values
    are recognised by duck typing (no torch import), so the YAML examples use it too. An
    unsupported type is kind ``error`` naming the type: the comparison says so."""
    value = resolve(namespace, name)
    type_name = type(value).__name__
    if type_name == "Tensor":
        plain = value.detach().cpu().tolist()
        return {"name": name, "kind": "bool" if isinstance(plain, bool) else "tensor",
                "value": plain, "dtype": str(value.dtype), "device": str(value.device),
                "shape": list(value.shape)}
    if value is None or isinstance(value, (bool, int, float)):
        kind = "none" if value is None else "bool" if isinstance(value, bool) else "number"
    elif isinstance(value, BaseException):
        kind, value = "exception", {"type": type_name,
                                    "types": [cls.__name__ for cls in type(value).__mro__],
                                    "message": str(value)}
    elif isinstance(value, (list, tuple)):  # torch.Size is a tuple
        kind, value = "sequence", _plain(value)
    elif isinstance(value, str) or type_name in ("dtype", "device"):
        kind, value = "text", str(value)
    else:
        kind, value = "error", (
            f"{name!r} is a {type_name}; expected a tensor, number, bool, None, exception, "
            "list/tuple/torch.Size, str, torch.dtype or torch.device")
    return {"name": name, "kind": kind, "value": value}


def observe(namespace: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """:func:`observe_name` of each name; ``{"name", "missing": why}`` for an undefined one."""
    found = []
    for name in names:
        try:
            found.append(observe_name(namespace, name))
        except LookupError as exc:
            found.append({"name": name, "missing": str(exc)})
    return found


def close_network() -> str:
    """Move this (single-threaded, fresh) process into a network namespace of its own,
    whose only interface is a loopback that is down; "" on success, else why not."""
    if os.environ.get(REFUSE_ENV):
        return f"unshare refused (as if: {REFUSE_ENV} is set)"
    if sys.platform != "linux":
        return f"{sys.platform} has no network namespaces"
    flags = _CLONE_NEWNET if os.geteuid() == 0 else _CLONE_NEWUSER | _CLONE_NEWNET
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        return f"unshare refused ({os.strerror(ctypes.get_errno())})"
    return ""


class _NoHarness:
    """A finder that refuses the harness: an example imports only what a reader has."""

    @staticmethod
    def find_spec(name: str, *args: object) -> None:
        if name.partition(".")[0] == "harness":
            raise ModuleNotFoundError(f"No module named {name!r} (an example imports only "
                                      "torch, the standard library and numpy)", name=name)


class _Page:
    """The page process's state: its answer channel, the namespace, the snippet running
    now (for the audit hook), and torch as it was before the snippet now running."""

    def __init__(self, request: dict[str, Any], answers: int, *, block_network: bool) -> None:
        self.token, self.answers = request["token"], answers
        self.checkout = request["checkout"]
        self.block_network = block_network
        self.current = 0  # the imports before the first snippet are the snippets' own
        self.seen: set[tuple[int, str]] = set()
        self.namespace: dict[str, Any] = {"__name__": "__main__"}
        self.work = os.getcwd()
        self.torch: Any = None
        self.readers: dict[str, Any] = {}
        self.state: dict[str, str] = {}
        self.identities: dict[str, object] = {}

    def send(self, **fields: Any) -> None:
        line = json.dumps({"token": self.token, **fields}, default=repr) + "\n"
        os.write(self.answers, line.encode())

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            if isinstance(args[2], int) and args[2] & _WRITE_FLAGS:
                self._wrote(event, args[0])
        elif event in _PATH_EVENTS:
            for index in _PATH_EVENTS[event]:
                self._wrote(event, args[index])
        elif event in _SPAWN_EVENTS:
            self.send(spawn=str(args[0])[:100], by=self.current, time=time.time())
        elif event in _NETWORK_EVENTS and self.block_network:
            raise OSError(errno.ENETUNREACH, "Network is unreachable (the page runner's "
                          "network guard blocks connections: no network namespace here)")

    def _wrote(self, event: str, path: Any) -> None:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return  # a file descriptor
        full = os.path.abspath(os.fsdecode(path))
        if full.startswith(self.checkout + os.sep) and (self.current, full) not in self.seen:
            self.seen.add((self.current, full))
            self.send(write=full, by=self.current, event=event)

    def watch_torch(self) -> None:
        """Start watching torch's settings and functions once a snippet imported it. The
        readers are taken now: a snippet that replaces one is reported for that, and the
        setting it hid is still read."""
        if self.torch is None and "torch" in sys.modules:
            self.torch = sys.modules["torch"]
            self.readers = {name: getattr(self.torch, read) for name, read in _SETTINGS.items()}
            self.state, self.identities = self.torch_now()

    def torch_now(self) -> tuple[dict[str, str], dict[str, object]]:
        """torch's settings, and every torch function and ``torch.Tensor`` attribute."""
        torch = self.torch
        found = {f"torch.{name}": value for name, value in vars(torch).items()
                 if callable(value) and not isinstance(value, type)}
        found.update((f"torch.Tensor.{name}", value) for name, value in vars(torch.Tensor).items())
        return {name: str(read()) for name, read in self.readers.items()}, found

    def changed(self) -> dict[str, tuple[str, str]]:
        """What the snippet just run changed in torch: settings (before, after), and the
        functions it replaced (torch wraps some itself, e.g. when it imports dynamo: a
        replacement defined in torch is torch's); the next snippet is compared with what
        it left."""
        if self.torch is None:
            return {}
        state, identities = self.torch_now()
        changed = {name: (before, state[name]) for name, before in self.state.items()
                   if state.get(name) != before}
        changed.update(
            (name, ("original", "replaced")) for name, value in self.identities.items()
            if (new := identities.get(name, value)) is not value
            and not str(getattr(new, "__module__", None)).startswith("torch"))
        self.state, self.identities = state, identities
        return changed

    def fresh(self) -> None:
        """Fresh random state, as a standalone run has: a seed an earlier snippet set must
        not make this one's unseeded values reproducible in the page but not alone."""
        random.seed()
        if self.torch is not None:
            self.torch.seed()
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed()

    def run(self, index: int, snippet: dict[str, Any]) -> bool:
        """Run one snippet and answer for it; False when the page must stop after it."""
        shown, snippet_id = snippet["shown"], snippet["id"]
        self.current = index
        self.send(start=index)
        self.fresh()
        failure = ""
        try:
            with open(snippet["path"], encoding="utf-8") as handle:
                code = compile(handle.read(), shown, "exec")
            exec(code, self.namespace)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            failure = _failure(exc, shown, snippet_id)
        self.watch_torch()
        problems = [failure] if failure else []
        if os.getcwd() != self.work:
            problems.append(f"{shown}: snippet {snippet_id!r} changed the working directory to "
                            f"{os.getcwd()}; an example must leave it as it found it (use "
                            "paths, not os.chdir)")
            os.chdir(self.work)
        threads = sorted(t.name for t in threading.enumerate()
                         if t is not threading.main_thread() and not t.daemon and t.is_alive())
        if threads:
            problems.append(f"{shown}: snippet {snippet_id!r} left threads running: "
                            f"{', '.join(threads)}; join them (or make them daemons) before the "
                            "snippet ends")
        observations = observe(self.namespace, snippet["names"] if not failure else [])
        self.send(done=index, failure="\n".join(problems), observations=observations,
                  changed=self.changed())
        return not threads


def _failure(exc: BaseException, shown: str, snippet_id: str) -> str:
    if isinstance(exc, SyntaxError) and exc.filename == shown:
        return (f"{shown}:{exc.lineno}: snippet {snippet_id!r} is not valid Python: "
                f"{exc.msg}\n    {(exc.text or '').strip()}")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == shown]
    line, text = (frames[-1].lineno, frames[-1].line or "") if frames else (1, "")
    if isinstance(exc, SystemExit):
        return (f"{shown}:{line}: snippet {snippet_id!r} called sys.exit({exc.code!r}); an "
                f"example must run to its end\n    {text}")
    return f"{shown}:{line}: snippet {snippet_id!r} raised {type(exc).__name__}: {exc}\n    {text}"


def main() -> None:
    if sys.argv[1:] == ["--probe"]:  # can a page close its network here? (runner.py)
        print(close_network())
        return
    request = json.loads(sys.stdin.read())
    answers = os.dup(1)
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    for fd in (1, 2):
        os.dup2(log, fd)
    os.close(log)
    network = close_network()
    page = _Page(request, answers, block_network=bool(network))
    sys.addaudithook(page.audit)
    sys.meta_path.insert(0, _NoHarness)
    page.send(network=network)
    if network and request["network_required"]:
        return
    for name in request["imports"]:
        with contextlib.suppress(Exception):  # the snippet that imports it says why
            __import__(name)
    page.watch_torch()
    stopped = not all(page.run(index, snippet)
                      for index, snippet in enumerate(request["snippets"]))
    page.current = -1
    page.send(end=True)
    sys.stdout.flush()
    sys.stderr.flush()
    if stopped:  # a thread left running would keep the interpreter from ending
        os._exit(0)


if __name__ == "__main__":
    main()
