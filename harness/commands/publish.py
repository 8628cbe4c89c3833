"""``python -m harness publish add BUILD DEVICE`` lists a record set in
results/published.toml (one command, not a hand edit); ``publish check`` says
whether the list and results/ agree, as the docs build will.

The list is :mod:`harness.records.published`'s. Recording never publishes: a new
set is published by this command, which the record command prints as a hint.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from harness.commands.checkout import add_results_option, add_root_option, records_folder, root_of
from harness.core.errors import HarnessError
from harness.records.published import add_set, check_published
from harness.records.store import load_all

__all__ = ["INSTALL_HINT", "configure", "require_filelock", "run"]

#: What installs the recording tools (torch, numpy, filelock).
INSTALL_HINT = "pip install '.[run]'"


def require_filelock(command: str) -> None:
    """A clear error, naming the extra, where writers cannot lock (no filelock)."""
    if importlib.util.find_spec("filelock") is None:
        raise HarnessError(
            f"{command} writes records under a lock and needs the package filelock, which is "
            f"not installed here; install the recording extra: {INSTALL_HINT} "
            "(or pip install filelock)")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("add", "check"), help="add a set, or check the list")
    parser.add_argument("torch_build", nargs="?", help="with add: e.g. 2.13.0+cpu")
    parser.add_argument("device", nargs="?", help="with add: a device key, e.g. cpu")
    add_root_option(parser)
    add_results_option(parser)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    results = records_folder(args, root)
    if args.action == "add":
        if not args.torch_build or not args.device:
            raise HarnessError("publish add needs TORCH_BUILD and DEVICE, e.g. "
                               "`python -m harness publish add 2.13.0+cpu cpu`")
        require_filelock("publish add")
        added = add_set(results, args.torch_build, args.device)
        print(f"{'added' if added else 'already listed'}: torch {args.torch_build} on "
              f"{args.device!r}", file=sys.stderr)
    elif args.torch_build or args.device:
        raise HarnessError("publish check takes no TORCH_BUILD or DEVICE")
    problems = check_published(load_all(results, root=root), results, root=root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{results / 'published.toml'}: every listed set is recorded and every "
              "recorded set is listed", file=sys.stderr)
    return 1 if problems else 0
