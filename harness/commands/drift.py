"""``python -m harness drift``: what changed between the recorded torch builds, for
every observed example and every trial, written as Markdown (a pull request's
description, a CI artifact) or as one line per item.

The classification is :mod:`harness.records.drift`'s. A records folder that is
missing or holds no record set is an error, not an empty report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands.checkout import add_results_option, records_folder, root_of
from harness.core.errors import HarnessError
from harness.core.types import TrialSpec
from harness.records.drift import Drift, drift_report
from harness.records.store import load_all
from harness.sources.project import Project
from harness.sources.trials import Method, load_method, load_trials
from harness.views.drift import detail, drift_markdown

__all__ = ["configure", "report_for", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    add_results_option(parser)
    parser.add_argument("--lang", choices=("es", "en"), default="en",
                        help="language of the report (default: en, for reviewers)")
    parser.add_argument("--format", choices=("markdown", "text"), default="markdown",
                        help="markdown (a page or a pull request) or one line per item")
    parser.add_argument("--output", type=Path, help="write the report here (default: stdout)")
    parser.add_argument("--fail-on-change", action="store_true",
                        help="exit 1 when any item changed, fails in one build or is missing")


def _trials(root: Path) -> tuple[dict[str, TrialSpec], Method]:
    trials = root / "trials" / "trials.toml"
    return (load_trials(trials, root=root, workloads=trials.with_name("workloads.py")),
            load_method(trials, root=root))


def report_for(root: Path, results: Path) -> list[Drift]:
    """The drift report of a checkout: Python examples' expectations and every trial."""
    records = load_all(results, root=root)
    if not records.items:
        raise HarnessError(
            f"{results}: no record set; expected <torch build>/<device>.env.json and its "
            "rows or observations (record one with `python -m harness record`)")
    project = Project.load(root)
    specs, method = _trials(root)
    return drift_report(records, project.python_expectations(), list(specs), method=method)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    report = report_for(root, records_folder(args, root))
    if args.format == "markdown":
        specs, method = _trials(root)
        body = drift_markdown(report, args.lang, method=method, specs=specs)
        text = f"# Drift between torch builds\n\n{body}"
    else:
        details = [detail(d, "en") for d in report]
        text = "".join(f"{d.kind} {d.device} {d.item}: {d.verdict}{f' ({x})' if x else ''}\n"
                       for d, x in zip(report, details, strict=True))
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    news = [d for d in report if d.verdict in ("changed", "failing", "missing")]
    print(f"{len(report)} items, {len(news)} changed, failing in one build or missing",
          file=sys.stderr)
    return 1 if args.fail_on_change and news else 0
