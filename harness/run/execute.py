"""Running a snippet and reading what it produced. torch is never imported here:
values are recognised by duck typing, so this module also serves the tests
that run without torch.
"""

from __future__ import annotations

import ast
import signal
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.types import Expectation, Observation, Snippet

__all__ = [
    "ExampleTimeout",
    "SnippetFailed",
    "assignment_line",
    "observe",
    "resolve",
    "run_snippet",
    "time_limit",
]


class ExampleTimeout(HarnessError):
    """A snippet ran past its time limit."""


class SnippetFailed(HarnessError):
    """A snippet raised; the message points at the snippet's own line."""


@contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Raise :class:`ExampleTimeout` after ``seconds`` (main thread, POSIX only)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise ExampleTimeout(f"{what} ran longer than its {seconds:g} s limit")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_snippet(
    snippet: Snippet, namespace: dict[str, Any], *, shown_path: Path, timeout: float
) -> None:
    """Execute ``snippet`` in ``namespace`` as ``python snippets/<id>.py`` would."""
    source = snippet.path.read_text(encoding="utf-8")
    code = compile(source, str(shown_path), "exec")
    namespace.setdefault("__name__", "__main__")
    try:
        with time_limit(timeout, f"{shown_path} (snippet {snippet.id!r})"):
            exec(code, namespace)
    except ExampleTimeout:
        raise
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if f.filename == str(shown_path)]
        line = frames[-1].lineno if frames else 1
        text = frames[-1].line if frames else ""
        raise SnippetFailed(
            f"{shown_path}:{line}: snippet {snippet.id!r} raised "
            f"{type(exc).__name__}: {exc}\n    {text}"
        ) from exc


def resolve(namespace: dict[str, Any], dotted: str) -> Any:
    """Value of ``x`` or ``x.grad`` in ``namespace``; KeyError/AttributeError if absent."""
    head, *attributes = dotted.split(".")
    value = namespace[head]
    for attribute in attributes:
        value = getattr(value, attribute)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def observe(
    namespace: dict[str, Any], expectation: Expectation, *, defined_in: Path | None = None
) -> Observation:
    """What the run produced for ``expectation.name``, as plain JSON-able data."""
    try:
        value = resolve(namespace, expectation.name)
    except (KeyError, AttributeError):
        names = sorted(k for k in namespace if not k.startswith("__"))
        where = f"{defined_in}" if defined_in else expectation.snippet
        raise HarnessError(
            f"{expectation.location}: expectation names {expectation.name!r}, which {where} "
            f"never produces. Names it defines: {', '.join(names) or '(none)'}."
        ) from None
    common = {"snippet": expectation.snippet, "name": expectation.name}
    type_name = type(value).__name__
    if value is None:
        return Observation(**common, kind="none", value=None)
    if isinstance(value, bool):
        return Observation(**common, kind="bool", value=value)
    if isinstance(value, (int, float)):
        return Observation(**common, kind="number", value=value)
    if type_name == "Tensor":
        plain = value.detach().cpu().tolist()
        kind = "bool" if isinstance(plain, bool) else "tensor"
        return Observation(
            **common,
            kind=kind,
            value=plain,
            dtype=str(value.dtype),
            device=str(value.device),
            shape=tuple(value.shape),
        )
    if isinstance(value, (list, tuple)):  # torch.Size is a tuple
        return Observation(**common, kind="sequence", value=_plain(value))
    if isinstance(value, str) or type_name in ("dtype", "device"):
        return Observation(**common, kind="text", value=str(value))
    raise HarnessError(
        f"{expectation.location}: {expectation.name!r} is a {type_name}; expected a tensor, "
        "number, bool, None, list/tuple/torch.Size, str, torch.dtype or torch.device."
    )


def assignment_line(source: str, dotted: str) -> int | None:
    """Last line of ``source`` that binds the root of ``dotted`` (for failure messages)."""
    root = dotted.split(".")[0]
    line: int | None = None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == root and isinstance(node.ctx, ast.Store):
            line = max(line or 0, node.lineno)
    return line
