"""``python -m harness publish check|add|sign``: who vouches for each record set.

``check`` says, for every set, whether each file is signed by an allowed signer or
listed in results/unsigned.sha256 (as the docs build will), and its grade. ``add BUILD
DEVICE`` lists a set recorded by hand (a person vouching, seen in review). ``sign`` is
the recording workflow's step: it signs each set no one vouches for yet with the key in
``$RECORDS_SIGNING_KEY`` (:mod:`harness.records.provenance`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from harness.commands.checkout import add_results_option, records_folder, root_of
from harness.core.errors import HarnessError, relative
from harness.records.commit import locked
from harness.records.provenance import grade_text, listed_missing, sign_set, vouch
from harness.records.store import load_all

__all__ = ["INSTALL_HINT", "KEY_VARIABLE", "configure", "run"]

#: What installs the recording tools (torch, numpy, filelock).
INSTALL_HINT = "pip install '.[run]'"
#: The environment variable that holds the workflow's private signing key (its text).
KEY_VARIABLE = "RECORDS_SIGNING_KEY"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "add", "sign"),
                        help="check every set; add a set recorded by hand; sign new sets")
    parser.add_argument("torch_build", nargs="?", help="with add: e.g. 2.13.0+cpu")
    parser.add_argument("device", nargs="?", help="with add: a device key, e.g. cpu")
    parser.add_argument("--run", default=os.environ.get("GITHUB_RUN_ID", ""),
                        help="with sign: the workflow run (default: $GITHUB_RUN_ID)")
    add_results_option(parser)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    results = records_folder(args, root)
    shown = relative(results, root)
    if (args.action == "add") != bool(args.torch_build and args.device):
        raise HarnessError("publish add needs TORCH_BUILD and DEVICE (e.g. `python -m harness "
                           "publish add 2.13.0+cpu cpu`); check and sign take neither")
    if args.action != "check" and importlib.util.find_spec("filelock") is None:
        raise HarnessError(
            f"publish {args.action} writes records under a lock and needs the package "
            "filelock, which is not installed here; install the recording extra: "
            f"{INSTALL_HINT} (or pip install filelock)")
    if args.action == "add":
        with locked(results, shown=shown):
            changed = vouch(results, args.torch_build, args.device)
        print(f"{shown}/unsigned.sha256: {changed} line(s) changed for torch {args.torch_build} "
              f"on {args.device!r} (registrado fuera de CI, sin firma)", file=sys.stderr)
    if args.action == "sign":
        key = os.environ.get(KEY_VARIABLE, "")
        if not key or not args.run:
            raise HarnessError(f"publish sign needs the private key in ${KEY_VARIABLE} and the "
                               "workflow run (--run or $GITHUB_RUN_ID)")
        with locked(results, shown=shown):
            for record in load_all(results, root=root).items:
                if record.provenance.problems:  # recorded here, vouched for by no one yet
                    sign_set(results, record.torch_build, record.device_key, private_key=key,
                             run=args.run)
                    print(f"signed {shown}/{record.torch_build}/{record.device_key}",
                          file=sys.stderr)
    records = load_all(results, root=root).items
    problems = listed_missing(results, shown) if records else [
        f"{shown}: no record set; restore results/ from git, or record the sets"]
    for record in records:
        problems += record.provenance.problems
        print(f"torch {record.torch_build} on {record.device_key!r}: "
              f"{grade_text(record.provenance, 'en')}", file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0
