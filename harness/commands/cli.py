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
from types import ModuleType

from harness.core.errors import HarnessError
from harness.integrations import drift_command as drift
from harness.integrations import notebooks_command as notebooks
from harness.integrations import publish_command as publish
from harness.integrations import record_command as record

__all__ = ["COMMANDS", "main", "parser"]

#: name, module (its ``configure`` adds the options, its ``run`` returns the exit status),
#: one-line help.
COMMANDS: tuple[tuple[str, ModuleType, str], ...] = (
    ("record", record, "measure trials and observe examples into results/"),
    ("notebooks", notebooks, "generate docs/cuadernos/*.ipynb from the pages and snippets"),
    ("publish", publish, "add a record set to results/published.toml, or check the list"),
    ("drift", drift, "what changed between recorded torch builds (examples and trials)"),
)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m harness",
        description="Record measurements and observed outputs for the site «Qué es PyTorch».",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module, summary in COMMANDS:
        command = commands.add_parser(
            name, help=summary, description=(module.__doc__ or "").strip().splitlines()[0])
        module.configure(command)
        command.set_defaults(handler=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

