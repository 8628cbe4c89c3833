"""Sybil glue: every snippet a page includes is a pytest item, run in page order in the
page's process (:mod:`harness.run.runner`) and checked against its expectations. Sybil's
Markdown parser cannot read a ``--8<--`` include and skips fences with ``title=``, hence
this parser. The only harness module that imports sybil; only ``conftest.py`` imports it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sybil import Document, Example, Region, Sybil

from harness.core.errors import HarnessError
from harness.core.rows import ARTICLE_COLUMNS, CSV_HEADER
from harness.core.types import Snippet
from harness.run.examples import (
    Checked,
    PageSession,
    checked_from,
    failure_messages,
    timeout_from_env,
)
from harness.run.page import observe
from harness.run.runner import network_open, network_required
from harness.sources.checks import check_project
from harness.sources.pages import Include
from harness.sources.project import Project, page_includes

__all__ = ["PageExamples", "make_sybil", "pytest_terminal_summary"]

#: Where a page's session lives in Sybil's per-document namespace.
_SESSION = "__harness_session__"


def _namespace(value: Any) -> Any:
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    return value


class PageExamples:
    """Parser and evaluators for one checkout. An evaluator returns the failure text (Sybil
    reports it without a traceback), or ``None`` when every expectation holds."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @cached_property
    def project(self) -> Project:
        return Project.load(self.root)

    @cached_property
    def problems(self) -> dict[str, list[str]]:
        """The project's static problems by Spanish page; the whole project's go to the
        first page, so pytest always shows them. A twin's differences are the build's."""
        found: dict[str, list[str]] = {}
        first = str(self.project.shown(self.project.spanish_pages()[0]))
        for problem in check_project(self.project):
            if problem.twin:
                continue
            for page in problem.pages or (first,):
                found.setdefault(str(page), []).append(problem.message)
        return found

    def __call__(self, document: Document) -> Iterator[Region]:
        """The page's examples; a problem with its sources is one failing item saying it."""
        problems: list[str] = []
        includes: list[tuple[Include, Snippet]] = []
        try:
            page = Path(document.path)
            problems += self.problems.get(str(self.project.shown(page)), [])
            includes = page_includes(self.project, page)
        except HarnessError as exc:
            problems.append(str(exc))
        if problems:
            yield Region(0, 0, "\n".join(problems), lambda example: example.parsed)
            return
        for include, snippet in includes:  # evaluate_py, evaluate_csv or evaluate_yaml
            yield Region(include.start, include.end, (include, snippet),
                         getattr(self, f"evaluate_{snippet.language}"))

    def evaluate_py(self, example: Example) -> str | None:
        include, snippet = example.parsed
        session = example.namespace.setdefault(_SESSION, PageSession(
            project=self.project, page=Path(example.path), timeout=timeout_from_env()))
        try:
            checked = session.run(include, snippet)
        except HarnessError as exc:
            return f"{include.location}: {exc}"
        return self._failures(include, snippet, checked)

    def _failures(self, include: Include, snippet: Snippet, checked: list[Checked]) -> str | None:
        return "\n".join(failure_messages(self.project, include, snippet, checked)) or None

    def evaluate_csv(self, example: Example) -> str | None:
        include, snippet = example.parsed
        shown = self.project.shown(snippet.path)
        reader = csv.reader(io.StringIO(snippet.path.read_text(encoding="utf-8")))
        header = next(reader, [])
        if tuple(header) not in (CSV_HEADER, ARTICLE_COLUMNS):
            return (
                f"{include.location}: {shown}:1: header is not one the harness writes\n"
                f"  expected: {','.join(ARTICLE_COLUMNS)}\n"
                f"  or:       {','.join(CSV_HEADER)}\n  found:    {','.join(header)}"
            )
        for cells in reader:
            if len(cells) != len(header):
                return (f"{shown}:{reader.line_num}: {len(cells)} cells, the header has "
                        f"{len(header)}")
        return self._check_static(include, snippet, {})

    def _check_static(self, include: Include, snippet: Snippet,
                      namespace: dict[str, Any]) -> str | None:
        if snippet.id in self.project.unchecked:
            return None
        observed = observe(namespace, [e.name for e in
                                       self.project.expectations.get(snippet.id, [])])
        try:
            checked = checked_from(self.project, snippet, observed)
        except HarnessError as exc:
            return str(exc)
        return self._failures(include, snippet, checked)

    def evaluate_yaml(self, example: Example) -> str | None:
        import yaml  # a docs dependency; the record path never comes here

        include, snippet = example.parsed
        shown = self.project.shown(snippet.path)
        try:
            data = yaml.safe_load(snippet.path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark else 1
            return f"{shown}:{line}: not valid YAML: {exc}"
        if not isinstance(data, dict):
            return f"{shown}:1: expected a mapping at the top level"
        namespace = {k: _namespace(v) for k, v in data.items()}
        return self._check_static(include, snippet, namespace)


def make_sybil(root: Path) -> Sybil:
    """The Sybil that collects ``docs/*.md`` (Spanish pages only: examples run once)."""
    return Sybil(
        parsers=[PageExamples(root)],
        path=str(root / "docs"),
        patterns=["*.md"],
        excludes=["*.en.md"],
        name="pages",
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """A pytest hook (conftest.py imports it): one line in the summary when a page
    process here cannot close its network (asked only when a page's examples ran)."""
    reports = (r for kind in terminalreporter.stats.values() for r in kind)
    if not any(".md::" in getattr(r, "nodeid", "") for r in reports):
        return
    why = network_open()
    if not why:
        return
    line = (f"page examples: the network guard cannot close the network ({why}): they fail"
            if network_required() else
            f"page examples: the network was not closed ({why}); connections are refused "
            "in-process only, and under CI=true the examples fail")
    terminalreporter.write_line(line, yellow=True)
