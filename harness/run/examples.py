"""Run a page's snippets (:mod:`harness.run.runner`), observe what their expectations ask
for, and compare: pytest fails on a mismatch, the record command writes what it saw. Both
use :class:`PageSession`, so what the site records is what the tests check.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.compare import Verdict, compare, format_value
from harness.core.errors import HarnessError, parse_seconds
from harness.core.types import Environment, Expectation, Observation, Snippet
from harness.run.runner import DEFAULT_TIMEOUT_S, Outcome, SnippetRequest, run_page
from harness.sources.pages import Include
from harness.sources.project import Project, page_includes
from harness.sources.snippets import assignment_line, imported_modules

__all__ = ["Checked", "ExampleReport", "PageSession", "checked_from", "failure_messages",
           "record_examples", "timeout_from_env"]

TIMEOUT_ENV = "HARNESS_EXAMPLE_TIMEOUT"


def timeout_from_env() -> float:
    """The per-snippet backstop from ``HARNESS_EXAMPLE_TIMEOUT`` (read strictly: ``nan``
    would turn the hang guard off, ``inf`` overflow the clock)."""
    raw = os.environ.get(TIMEOUT_ENV, "")
    return parse_seconds(raw, what=f"{TIMEOUT_ENV}={raw!r}") if raw else DEFAULT_TIMEOUT_S


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


def checked_from(project: Project, snippet: Snippet,
                 observed: list[dict[str, Any]]) -> list[Checked]:
    """Compare each expectation of ``snippet`` with what was observed for its name."""
    expectations = project.expectations.get(snippet.id, [])
    return [
        Checked(expectation=e, observation=o, verdict=compare(e, o))
        for e, raw in zip(expectations, observed, strict=True)
        for o in [_observation(e, raw, project, snippet)]
    ]


def _state_message(shown: Path, snippet_id: str, changed: dict[str, tuple[str, str]]) -> str:
    listed = "; ".join(f"{k}: {a} → {b}" for k, (a, b) in sorted(changed.items()))
    return (f"{shown}: snippet {snippet_id!r} changed torch's global state and left it "
            f"changed ({listed}); restore it before the snippet ends (e.g. a with-block or a "
            "reset at the end), so later examples do not run under it")


@dataclass
class PageSession:
    """The Python examples of one page, run in page order in one page process, the first
    time one of them is asked for (the process has exited before any is reported, so
    what it changes on its way out counts)."""

    project: Project
    page: Path
    timeout: float
    _outcomes: dict[int, Outcome] | None = None

    def _run(self) -> dict[int, Outcome]:
        includes = [(i, s) for i, s in page_includes(self.project, self.page)
                    if s.language == "py"]
        requests = [SnippetRequest(path=s.path, shown=self.project.shown(s.path), id=s.id,
                                   names=[e.name for e in self.project.expectations.get(s.id, [])])
                    for _, s in includes]
        imports = sorted({module for _, s in includes for _, module in
                          imported_modules(s.path.read_text(encoding="utf-8"))})
        done = run_page(requests, checkout=self.project.root, timeout=self.timeout,
                        imports=imports)
        outcomes, leaked = {}, ""
        for (include, snippet), outcome in zip(includes, done, strict=True):
            shown = self.project.shown(snippet.path)
            if leaked:  # what it did itself is still said
                untrusted = f"{shown}: not trusted: it ran after {leaked}"
                outcome = Outcome(failure="\n".join(filter(None, (untrusted, outcome.failure))))
            elif outcome.changed:
                leaked = f"snippet {snippet.id!r} changed torch's global state"
                failure = _state_message(shown, snippet.id, outcome.changed)
                outcome = Outcome(failure="\n".join(filter(None, (outcome.failure, failure))))
            outcomes[include.start] = outcome
        return outcomes

    def run(self, include: Include, snippet: Snippet) -> list[Checked]:
        """The checks of one Python include of the page; raises SnippetFailed when its
        snippet did not complete cleanly."""
        if self._outcomes is None:
            self._outcomes = self._run()
        outcome = self._outcomes[include.start]
        if outcome.failure:
            raise SnippetFailed(outcome.failure)
        return checked_from(self.project, snippet, outcome.observations)


def failure_messages(project: Project, include: Include, snippet: Snippet,
                     checked: list[Checked]) -> list[str]:
    """One message per expectation that does not hold and is not a known failure, with
    everything a contributor needs at 11 pm: page, snippet, derivation, observation."""
    messages = []
    for c in checked:
        e, o = c.expectation, c.observation
        if c.verdict.holds or e.known_failure:
            continue
        line = 1
        if snippet.language == "py":
            line = assignment_line(snippet.path.read_text(encoding="utf-8"), e.name) or 1
        dtype = f" ({o.dtype})" if o.dtype else ""
        analytic = (f"raises {e.raises}" + (f" with {e.message!r}" if e.message else "")
                    if e.raises else format_value(e.value))
        messages.append(
            f"{include.location}: analytic expectation does not hold for {e.name!r}\n"
            f"  snippet:     {project.shown(snippet.path)}:{line}\n"
            f"  expectation: {e.location}\n"
            f"  analytic:    {analytic} — {e.derivation}\n"
            f"  observed:    {format_value(o.value, kind=o.kind)}{dtype}\n"
            f"  why:         {c.verdict.reason}")
    return messages


@dataclass(frozen=True, kw_only=True)
class ExampleReport:
    observations: list[Observation] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """One message per snippet that failed, or per expectation that did not hold."""


def record_examples(*, project: Project, environment: Environment, timeout: float,
                    on_page: Callable[[Path, ExampleReport], None] | None = None
                    ) -> ExampleReport:
    """Observe every example of every Spanish page, as pytest runs them, for the records;
    ``on_page`` gets each page's report so far. A snippet that fails, or runs after one
    that leaked global state, is a failure and none of its observations are stored."""
    stamp: dict[str, Any] = {"torch_build": environment.torch_build,
                             "device_key": environment.device_key,
                             "date": environment.date, "run_id": environment.run_id}
    report = ExampleReport()
    for page in project.spanish_pages():
        session = PageSession(project=project, page=page, timeout=timeout)
        for include, snippet in page_includes(project, page):
            if snippet.language != "py":
                continue
            try:
                checked = session.run(include, snippet)
            except SnippetFailed as exc:
                report.failures.append(f"{include.location}: {exc}")
                continue
            report.failures.extend(failure_messages(project, include, snippet, checked))
            report.observations.extend(replace(c.observation, **stamp,
                                               snippet_sha256=snippet.sha256) for c in checked)
        if on_page is not None:
            on_page(page, report)
    return report
