"""One step shared by pytest and the record command: run a page's snippets in its
sealed runner (:mod:`harness.run.sandbox`), observe every name their expectations
ask for, and compare.

pytest fails on a mismatch; the record command writes what it saw. Both use
:class:`PageSession`, so what the site records is what the tests check.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.compare import Verdict, compare, format_value
from harness.core.errors import HarnessError
from harness.core.seconds import parse_seconds
from harness.core.types import Environment, Expectation, Observation, Snippet
from harness.run.sandbox import Answer, PageRunner
from harness.sources.pages import Include
from harness.sources.project import Project, page_includes
from harness.sources.snippets import assignment_line

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Checked",
    "ExampleReport",
    "PageSession",
    "checked_from",
    "failure_message",
    "record_examples",
    "timeout_from_env",
]

DEFAULT_TIMEOUT_S = 60.0
TIMEOUT_ENV = "HARNESS_EXAMPLE_TIMEOUT"


def timeout_from_env(default: float = DEFAULT_TIMEOUT_S) -> float:
    """The per-snippet limit from ``HARNESS_EXAMPLE_TIMEOUT`` (read strictly: ``nan`` would
    turn the hang guard off, ``inf`` overflow the clock)."""
    raw = os.environ.get(TIMEOUT_ENV, "")
    return parse_seconds(raw, what=f"{TIMEOUT_ENV}={raw!r}") if raw else default


@dataclass(frozen=True, kw_only=True)
class Checked:
    expectation: Expectation
    observation: Observation
    verdict: Verdict


class SnippetFailed(HarnessError):
    """A snippet did not complete, or changed torch's global state; the message says how."""


def _observation(expectation: Expectation, raw: dict[str, Any], project: Project,
                 snippet: Snippet) -> Observation:
    if "missing" in raw:
        raise HarnessError(
            f"{expectation.location}: expectation names {expectation.name!r}, which "
            f"{project.shown(snippet.path)} never produces ({raw['missing']})."
        )
    shape = raw.get("shape")
    return Observation(snippet=expectation.snippet, name=expectation.name, kind=raw["kind"],
                       value=raw["value"], dtype=raw.get("dtype"), device=raw.get("device"),
                       shape=tuple(shape) if shape is not None else None)


def checked_from(
    project: Project, snippet: Snippet, observed: list[dict[str, Any]]
) -> list[Checked]:
    """Compare each expectation of ``snippet`` with what was observed for its name."""
    expectations = project.expectations.get(snippet.id, [])
    return [
        Checked(expectation=e, observation=o, verdict=compare(e, o))
        for e, raw in zip(expectations, observed, strict=True)
        for o in [_observation(e, raw, project, snippet)]
    ]


def _state_message(shown: Path, snippet_id: str, changed: dict[str, tuple[str, str]]) -> str:
    listed = "; ".join(f"{k}: {a} → {b}" for k, a, b in
                       ((k, *v) for k, v in sorted(changed.items())))
    return (f"{shown}: snippet {snippet_id!r} changed torch's global state and left it "
            f"changed ({listed}); restore it before the snippet ends (e.g. a with-block or a "
            "reset at the end), so later examples do not run under it")


@dataclass
class PageSession:
    """The examples of one page, run in page order in one sealed runner."""

    project: Project
    timeout: float
    runner: PageRunner | None = None
    leaked: str = ""
    """The first global-state change met: later snippets are not trusted after it."""

    def run(self, snippet: Snippet) -> list[Checked]:
        """Run a Python snippet; raises SnippetFailed when it did not complete cleanly."""
        if self.runner is None:
            self.runner = PageRunner(checkout=self.project.root)
        shown = self.project.shown(snippet.path)
        if self.leaked:
            raise SnippetFailed(f"{shown}: not trusted: it ran after {self.leaked}")
        names = [e.name for e in self.project.expectations.get(snippet.id, [])]
        answer: Answer = self.runner.run(path=snippet.path, shown=shown, snippet_id=snippet.id,
                                         names=names, timeout=self.timeout)
        if answer.failure:
            raise SnippetFailed(answer.failure)
        if answer.changed:
            self.leaked = f"snippet {snippet.id!r} changed torch's global state"
            raise SnippetFailed(_state_message(shown, snippet.id, answer.changed))
        return checked_from(self.project, snippet, answer.observations)

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
            self.runner = None


def failure_message(project: Project, include: Include, snippet: Snippet, checked: Checked) -> str:
    """Everything a contributor needs at 11 pm: page, snippet, derivation, observation."""
    e, o = checked.expectation, checked.observation
    line = 1
    if snippet.language == "py":
        line = assignment_line(snippet.path.read_text(encoding="utf-8"), e.name) or 1
    dtype = f" ({o.dtype})" if o.dtype else ""
    analytic = (f"raises {e.raises}" + (f" with {e.message!r}" if e.message else "")
                if e.raises else format_value(e.value))
    return (
        f"{include.location}: analytic expectation does not hold for {e.name!r}\n"
        f"  snippet:     {project.shown(snippet.path)}:{line}\n"
        f"  expectation: {e.location}\n"
        f"  analytic:    {analytic} — {e.derivation}\n"
        f"  observed:    {format_value(o.value, kind=o.kind)}{dtype}\n"
        f"  why:         {checked.verdict.reason}"
    )


@dataclass(frozen=True, kw_only=True)
class ExampleReport:
    observations: list[Observation] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """One message per snippet that failed, or per expectation that did not hold."""


def record_examples(
    *, project: Project, environment: Environment, timeout: float,
    on_page: Callable[[Path, ExampleReport], None] | None = None,
) -> ExampleReport:
    """Observe every example of every Spanish page, as pytest runs them, for the records.
    ``on_page`` is called after each page with the report so far (the record command's
    progress line).

    A snippet that fails, or runs after one that leaked global state, is a failure
    and none of its observations are stored: the previous ones stay.
    """
    stamp: dict[str, Any] = {"torch_build": environment.torch_build,
                             "device_key": environment.device_key,
                             "date": environment.date, "run_id": environment.run_id}
    report = ExampleReport()
    for page in project.spanish_pages():
        session = PageSession(project=project, timeout=timeout)
        try:
            for include, snippet in page_includes(project, page):
                if snippet.language != "py":
                    continue
                try:
                    checked = session.run(snippet)
                except SnippetFailed as exc:
                    report.failures.append(f"{include.location}: {exc}")
                    continue
                for item in checked:
                    known = bool(item.expectation.known_failure)
                    if not item.verdict.holds and not known:
                        report.failures.append(failure_message(project, include, snippet, item))
                    report.observations.append(
                        replace(item.observation, **stamp, snippet_sha256=snippet.sha256))
        finally:
            session.close()
        if on_page is not None:
            on_page(page, report)
    return report
