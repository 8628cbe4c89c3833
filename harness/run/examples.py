"""One step shared by pytest and the record command: run a page's snippet in the
page's namespace, read every name its expectations ask for, and compare.

pytest raises on a mismatch; the record command writes what it saw. Both use
:func:`evaluate`, so what the site records is what the tests check.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.core.compare import Verdict, compare, format_value
from harness.core.errors import HarnessError
from harness.core.types import Environment, Expectation, Observation, Snippet
from harness.run.execute import SnippetFailed, assignment_line, observe, run_snippet
from harness.sources.pages import Include
from harness.sources.project import Project, page_includes

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Checked",
    "check_expectations",
    "evaluate",
    "failure_message",
    "record_examples",
    "timeout_from_env",
]

DEFAULT_TIMEOUT_S = 60.0
TIMEOUT_ENV = "HARNESS_EXAMPLE_TIMEOUT"


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
    raw = os.environ.get(TIMEOUT_ENV, "")
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise HarnessError(f"{TIMEOUT_ENV}={raw!r}: expected a number of seconds") from None


@dataclass(frozen=True, kw_only=True)
class Checked:
    expectation: Expectation
    observation: Observation
    verdict: Verdict


def check_expectations(
    project: Project, snippet: Snippet, namespace: dict[str, Any]
) -> list[Checked]:
    """Read every name ``snippet``'s expectations ask for in ``namespace`` and compare."""
    shown = project.shown(snippet.path)
    return [
        Checked(expectation=e, observation=o, verdict=compare(e, o))
        for e in project.expectations.get(snippet.id, [])
        for o in [observe(namespace, e, defined_in=shown)]
    ]


def evaluate(
    project: Project, snippet: Snippet, namespace: dict[str, Any], *, timeout: float
) -> list[Checked]:
    """Run a Python snippet in ``namespace`` and check its expectations."""
    run_snippet(snippet, namespace, shown_path=project.shown(snippet.path), timeout=timeout)
    return check_expectations(project, snippet, namespace)


def failure_message(project: Project, include: Include, snippet: Snippet, checked: Checked) -> str:
    """Everything a contributor needs at 11 pm: page, snippet, derivation, observation."""
    e, o = checked.expectation, checked.observation
    line = 1
    if snippet.language == "py":
        line = assignment_line(snippet.path.read_text(encoding="utf-8"), e.name) or 1
    dtype = f" ({o.dtype})" if o.dtype else ""
    return (
        f"{include.location}: analytic expectation does not hold for {e.name!r}\n"
        f"  snippet:     {project.shown(snippet.path)}:{line}\n"
        f"  expectation: {e.location}\n"
        f"  analytic:    {format_value(e.value)} — {e.derivation}\n"
        f"  observed:    {format_value(o.value, kind=o.kind)}{dtype}\n"
        f"  why:         {checked.verdict.reason}"
    )


def record_examples(*, root: Path, environment: Environment, timeout: float) -> list[Observation]:
    """Observe every example of every Spanish page, as pytest runs them, for the records."""
    project = Project.load(root)
    stamp = {
        "torch_build": environment.torch_build,
        "device_key": environment.device_key,
        "date": environment.date,
    }
    observations: list[Observation] = []
    for page in sorted((root / "docs").glob("*.md")):
        if page.name.endswith(".en.md"):
            continue
        namespace: dict[str, Any] = {}
        for _, snippet in page_includes(project, page):
            if snippet.language != "py":
                continue
            stamped = {**stamp, "snippet_sha256": snippet.sha256}
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # the reader's prints, not ours
                    checked = evaluate(project, snippet, namespace, timeout=timeout)
            except SnippetFailed as exc:
                observations += [
                    Observation(snippet=e.snippet, name=e.name, kind="error", value=str(exc),
                                holds=False, **stamped)
                    for e in project.expectations.get(snippet.id, [])
                ]
                continue
            observations += [
                replace(c.observation, holds=c.verdict.holds, **stamped) for c in checked
            ]
    return observations
