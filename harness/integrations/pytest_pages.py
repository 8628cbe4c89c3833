"""Sybil glue: every snippet a page includes becomes a pytest item, run in the
page's namespace in page order, and checked against its analytic expectations.

Sybil's stock Markdown parser cannot read a fence whose body is a
``--8<--`` include and skips fences with ``title=``, so this module brings its
own parser (built on :mod:`harness.pages`) and evaluators. It is the only
harness module that imports sybil, and only the root ``conftest.py`` imports it.
"""

from __future__ import annotations

import csv
import importlib
import importlib.util
import io
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sybil import Document, Example, Region, Sybil

from harness.core.errors import HarnessError
from harness.core.types import CSV_HEADER, Snippet
from harness.run.examples import (
    Checked,
    check_expectations,
    evaluate,
    failure_message,
    timeout_from_env,
)
from harness.sources.pages import Include
from harness.sources.project import Project, page_includes

__all__ = ["PageExamples", "make_sybil"]


def _namespace(value: Any) -> Any:
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    return value


class PageExamples:
    """Parser and evaluators for one checkout; reads snippets and expectations once."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @cached_property
    def project(self) -> Project:
        return Project.load(self.root)

    def __call__(self, document: Document) -> Iterator[Region]:
        page = Path(document.path)
        for include, snippet in page_includes(self.project, page):
            evaluator = {
                "py": self.evaluate_python,
                "csv": self.evaluate_csv,
                "yaml": self.evaluate_yaml,
            }[snippet.language]
            yield Region(include.start, include.end, (include, snippet), evaluator)

    def evaluate_python(self, example: Example) -> None:
        include, snippet = example.parsed
        checked = evaluate(self.project, snippet, example.namespace, timeout=timeout_from_env())
        self._fail_unless_all_hold(include, snippet, checked)

    def _fail_unless_all_hold(self, include: Include, snippet: Snippet,
                              checked: list[Checked]) -> None:
        failures = [failure_message(self.project, include, snippet, c)
                    for c in checked if not c.verdict.holds]
        if failures:
            raise AssertionError("\n".join(failures))

    def evaluate_csv(self, example: Example) -> None:
        include, snippet = example.parsed
        shown = self.project.shown(snippet.path)
        reader = csv.reader(io.StringIO(snippet.path.read_text(encoding="utf-8")))
        header = next(reader, [])
        if tuple(header) != CSV_HEADER:
            raise AssertionError(
                f"{include.location}: {shown}:1: header is not the one the harness writes\n"
                f"  expected: {','.join(CSV_HEADER)}\n  found:    {','.join(header)}"
            )
        for cells in reader:
            if len(cells) != len(CSV_HEADER):
                raise AssertionError(
                    f"{shown}:{reader.line_num}: {len(cells)} cells, the header has "
                    f"{len(CSV_HEADER)}"
                )

    def evaluate_yaml(self, example: Example) -> None:
        import yaml  # a docs dependency; the record path never comes here

        include, snippet = example.parsed
        shown = self.project.shown(snippet.path)
        try:
            data = yaml.safe_load(snippet.path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark else 1
            raise HarnessError(f"{shown}:{line}: not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise AssertionError(f"{shown}:1: expected a mapping at the top level")
        namespace = {k: _namespace(v) for k, v in data.items()}
        if not self.project.expectations.get(snippet.id):
            raise AssertionError(f"{shown}: no [[expect]] names a field of this YAML snippet")
        checked = check_expectations(self.project, snippet, namespace)
        self._fail_unless_all_hold(include, snippet, checked)


def _import_torch_first(namespace: dict[str, Any]) -> None:
    """Import torch before any example's clock starts: the per-example timeout is
    for the example, and a signal arriving inside torch's first import crashes it."""
    if importlib.util.find_spec("torch") is not None:
        importlib.import_module("torch")


def make_sybil(root: Path) -> Sybil:
    """The Sybil that collects ``docs/*.md`` (Spanish pages only: examples run once)."""
    return Sybil(
        parsers=[PageExamples(root)],
        path=str(root / "docs"),
        patterns=["*.md"],
        excludes=["*.en.md"],
        setup=_import_torch_first,
        name="pages",
    )
