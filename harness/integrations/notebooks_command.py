"""``python -m harness notebooks --write|--check``: regenerate or verify the
notebooks built from the pages (:mod:`harness.sources.notebooks`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.sources.notebooks import out_of_date
from harness.sources.project import Project

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="checkout to read pages and snippets from (default: .)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true",
                      help="regenerate docs/cuadernos/*.ipynb from the pages and snippets")
    mode.add_argument("--check", action="store_true",
                      help="exit 1, listing them, if committed notebooks differ from their sources")


def run(args: argparse.Namespace) -> int:
    project = Project.load(args.root.resolve())
    stale = out_of_date(project)
    for path, text in stale.items():
        shown = project.shown(path)
        if args.write:
            if text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                print(f"wrote {shown}")
            else:
                path.unlink()
                print(f"removed {shown} (its page has no Python example any more)")
        else:
            why = "has no page any more" if not text else "differs from its page and snippets"
            print(f"{shown}: {why}; run `python -m harness notebooks --write`", file=sys.stderr)
    return 1 if stale and args.check else 0
