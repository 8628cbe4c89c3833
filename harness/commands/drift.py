"""``python -m harness drift``: what changed between the recorded torch builds, for
every observed example and every trial (:mod:`harness.records.drift`).

Written as Markdown (a pull request's description, a CI artifact) or plain text.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.integrations.checkout import ROOT
from harness.records.drift import drift_report
from harness.records.store import load_all
from harness.sources.project import Project
from harness.sources.trials import load_trials
from harness.views.drift import drift_markdown

__all__ = ["configure", "report_for", "run"]



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="records folder (default: results/ of this checkout)")
    parser.add_argument("--lang", choices=("es", "en"), default="en",
                        help="language of the report (default: en, for reviewers)")
    parser.add_argument("--format", choices=("markdown", "text"), default="markdown",
                        help="markdown (a page or a pull request) or one line per item")
    parser.add_argument("--output", type=Path, help="write the report here (default: stdout)")
    parser.add_argument("--fail-on-change", action="store_true",
                        help="exit 1 when any item changed, fails in one build or is missing")


def report_for(root: Path, results: Path) -> list:  # list[Drift]
    """The drift report of a checkout: Python examples' expectations and every trial."""
    project = Project.load(root)
    return drift_report(load_all(results, root=root), project.python_expectations(),
                        list(load_trials()))


def run(args: argparse.Namespace) -> int:
    report = report_for(ROOT, args.results)
    if args.format == "markdown":
        text = f"# Drift between torch builds\n\n{drift_markdown(report, args.lang)}"
    else:
        text = "".join(f"{d.kind} {d.device} {d.item}: {d.verdict}"
                       f"{' (' + d.detail + ')' if d.detail else ''}\n" for d in report)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    news = [d for d in report if d.verdict in ("changed", "failing", "missing")]
    print(f"{len(report)} items, {len(news)} changed, failing in one build or missing",
          file=sys.stderr)
    return 1 if args.fail_on_change and news else 0
