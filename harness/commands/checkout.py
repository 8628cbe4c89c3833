"""The checkout a command works on: a folder holding both ``mkdocs.yml`` and
``snippets/``, given by ``--root`` or found at or above the working directory.

Anywhere else a command fails saying what it looked for: an installed copy of the
package is not a checkout, its records folder would be empty, and an empty report
is not a pass.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = ["add_results_option", "records_folder", "root_of"]

_LOOKED_FOR = "a folder holding both mkdocs.yml and snippets/"


def _is_checkout(folder: Path) -> bool:
    return (folder / "mkdocs.yml").is_file() and (folder / "snippets").is_dir()


def add_results_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path, metavar="FOLDER",
                        help="records folder (default: results/ of the checkout)")


def root_of(args: argparse.Namespace) -> Path:
    """``--root`` (itself a checkout), else the nearest checkout at or above the working folder."""
    if args.root is None:
        start = Path.cwd().resolve()
        found = next((f for f in (start, *start.parents) if _is_checkout(f)), None)
        if found is None:
            raise HarnessError(
                f"no checkout of the site found: looked for {_LOOKED_FOR} in {start} and each "
                "folder above it; run the command inside a clone of the repository, or pass "
                "--root CHECKOUT")
        return found
    root = Path(args.root).resolve()
    if not _is_checkout(root):
        missing = [m for m in ("mkdocs.yml", "snippets/") if not (root / m).exists()]
        what = (f"no {', no '.join(missing)}" if missing
                else "mkdocs.yml is not a file or snippets/ not a folder")
        raise HarnessError(f"--root {args.root}: not a checkout of the site ({what}); "
                           f"expected {_LOOKED_FOR}")
    return root


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
