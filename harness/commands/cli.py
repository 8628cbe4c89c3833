"""The command line, ``python -m harness COMMAND``: a small dispatcher; each
command lives in its own module of this folder.

Every command takes ``--root`` (:func:`~harness.commands.checkout.root_of`); a command
module has a ``configure`` that adds its own options and a ``run`` that returns the exit
status; the first paragraph of its docstring is the command's description in ``--help``.
Input problems (:class:`~harness.core.errors.HarnessError`) print one message naming file
and line and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import sys
from pathlib import Path
from types import ModuleType

from harness.commands import check, drift, notebooks, publish, record
from harness.core.errors import HarnessError

__all__ = ["COMMANDS", "DISTRIBUTION", "description", "main", "parser", "version"]

DISTRIBUTION = "que-es-pytorch"
#: name, module, one-line help.
COMMANDS: tuple[tuple[str, ModuleType, str], ...] = (
    ("record", record, "measure trials and observe examples into results/"),
    ("notebooks", notebooks, "generate or check docs/cuadernos/*.ipynb"),
    ("publish", publish, "check who vouches for each record set; vouch for one, or sign it"),
    ("drift", drift, "what changed between recorded torch builds (examples and trials)"),
    ("check", check, "every check `make test` runs for one page, each with what to do"),
)
# reST a terminal should not show: ":mod:`x`" and "``x``" read as x.
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def description(module: ModuleType) -> str:
    """The first paragraph of ``module``'s docstring, whole, as plain text."""
    paragraph = (module.__doc__ or "").strip().split("\n\n", 1)[0]
    text = _LITERAL.sub(r"\1", _ROLE.sub(r"\1", " ".join(paragraph.split())))
    return text.replace("`", "")


def version() -> str:
    try:
        return f"{DISTRIBUTION} {importlib.metadata.version(DISTRIBUTION)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{DISTRIBUTION} (not installed: run from a checkout)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m harness",
        description="Record measurements and observed outputs for the site «Qué es PyTorch».",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s: {version()}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module, summary in COMMANDS:
        command = commands.add_parser(name, help=summary, description=description(module))
        command.add_argument(
            "--root", type=Path, metavar="CHECKOUT",
            help="the checkout to work on (default: the nearest folder at or above the working "
                 "directory that holds mkdocs.yml and snippets/)")
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
