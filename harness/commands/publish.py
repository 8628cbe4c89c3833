"""``python -m harness publish``: the list of record sets the site publishes
(``results/published.toml``, read by :mod:`harness.records.published`).

``publish add BUILD DEVICE`` lists a set (one command, not a hand edit);
``publish check`` says whether the list and ``results/`` agree, as the docs build will.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.integrations.checkout import ROOT
from harness.records.published import add_set, check_published
from harness.records.store import load_all

__all__ = ["configure", "run"]



def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("add", "check"), help="add a set, or check the list")
    parser.add_argument("torch_build", nargs="?", help="with add: e.g. 2.13.0+cpu")
    parser.add_argument("device", nargs="?", help="with add: a device key, e.g. cpu")
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="records folder (default: results/ of this checkout)")


def run(args: argparse.Namespace) -> int:
    if args.action == "add":
        if not args.torch_build or not args.device:
            print("error: publish add needs TORCH_BUILD and DEVICE", file=sys.stderr)
            return 2
        added = add_set(args.results, args.torch_build, args.device)
        print(f"{'added' if added else 'already listed'}: torch {args.torch_build} on "
              f"{args.device!r}", file=sys.stderr)
    problems = check_published(load_all(args.results, root=ROOT), args.results, root=ROOT)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0
