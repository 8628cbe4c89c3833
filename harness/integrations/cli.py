"""The command line, ``python -m harness COMMAND``: a small dispatcher; each
command lives in its own module.

A command is a subparser whose ``configure`` adds its options and whose
``handler`` (set with ``set_defaults``) returns the exit status. Input problems
(:class:`~harness.core.errors.HarnessError`) print one message naming file and line
and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import sys

from harness.core.errors import HarnessError
from harness.integrations import drift_command as drift
from harness.integrations import notebooks_command as notebooks
from harness.integrations import publish_command as publish
from harness.integrations import record_command as record

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m harness",
        description="Record measurements and observed outputs for the site «Qué es PyTorch».",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    recorder = commands.add_parser(
        "record",
        help="measure trials and observe examples into results/",
        description=(record.__doc__ or "").strip().splitlines()[0],
    )
    record.configure(recorder)
    recorder.set_defaults(handler=record.run)
    generator = commands.add_parser(
        "notebooks", help="generate docs/cuadernos/*.ipynb from the pages and snippets",
        description=(notebooks.__doc__ or "").strip().splitlines()[0],
    )
    notebooks.configure(generator)
    generator.set_defaults(handler=notebooks.run)
    publisher = commands.add_parser(
        "publish", help="add a record set to results/published.toml, or check the list",
        description=(publish.__doc__ or "").strip().splitlines()[0],
    )
    publish.configure(publisher)
    publisher.set_defaults(handler=publish.run)
    reporter = commands.add_parser(
        "drift", help="what changed between recorded torch builds (examples and trials)",
        description=(drift.__doc__ or "").strip().splitlines()[0],
    )
    drift.configure(reporter)
    reporter.set_defaults(handler=drift.run)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

