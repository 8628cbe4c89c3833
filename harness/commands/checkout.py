"""The checkout a command works on, found from the working directory.

A checkout is a folder that holds both ``mkdocs.yml`` and ``snippets/``. Every
command takes ``--root``; without it the working directory and its parents are
searched, so ``python -m harness drift`` works from any folder of a clone and
fails, saying what it looked for, anywhere else (an installed copy of the
package is not a checkout: its records folder would be empty, and an empty
report is not a pass).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = ["MARKS", "add_results_option", "add_root_option", "find_checkout", "is_checkout",
           "records_folder", "root_of"]

#: What makes a folder a checkout of the site.
MARKS = ("mkdocs.yml", "snippets/")


def is_checkout(folder: Path) -> bool:
    return (folder / "mkdocs.yml").is_file() and (folder / "snippets").is_dir()


def _looked_for() -> str:
    return f"a folder holding both {' and '.join(MARKS)}"


def find_checkout(start: Path) -> Path:
    """The nearest checkout at or above ``start``, or a clear error."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if is_checkout(folder):
            return folder
    raise HarnessError(
        f"no checkout of the site found: looked for {_looked_for()} in {start} and each "
        "folder above it; run the command inside a clone of the repository, or pass "
        "--root CHECKOUT"
    )


def add_root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", type=Path, metavar="CHECKOUT",
        help="the checkout to work on (default: the nearest folder at or above the working "
             "directory that holds mkdocs.yml and snippets/)")


def root_of(args: argparse.Namespace) -> Path:
    """``--root`` when given (it must be a checkout itself), else the one found from the
    working directory."""
    if args.root is None:
        return find_checkout(Path.cwd())
    root = Path(args.root).resolve()
    if not is_checkout(root):
        missing = [m for m in MARKS if not (root / m.rstrip("/")).exists()]
        what = (f"no {', no '.join(missing)}" if missing
                else "mkdocs.yml is not a file or snippets/ not a folder")
        raise HarnessError(f"--root {args.root}: not a checkout of the site ({what}); "
                           f"expected {_looked_for()}")
    return root


def add_results_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path, metavar="FOLDER",
                        help="records folder (default: results/ of the checkout)")


def records_folder(args: argparse.Namespace, root: Path, *, must_exist: bool = True) -> Path:
    """``--results`` when given, else ``results/`` of the checkout; with ``must_exist``,
    a missing folder is an error rather than an empty set of records."""
    results = Path(args.results) if args.results is not None else root / "results"
    shown = f"--results {results}" if args.results is not None else str(results)
    if results.exists() and not results.is_dir():
        raise HarnessError(f"{shown}: exists and is not a folder")
    if must_exist and not results.is_dir():
        raise HarnessError(
            f"{shown}: no such folder; expected a records folder (results/ of a checkout, "
            "holding <torch build>/<device>.csv, .examples.jsonl and .env.json)")
    if not results.parent.is_dir():
        raise HarnessError(f"{shown}: its parent folder {results.parent} does not exist")
    return results
