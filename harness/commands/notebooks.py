"""``python -m harness notebooks --write|--check``: regenerate or verify the
notebooks built from the pages, their code cells carrying the outputs recorded in
results/.

The notebooks are :mod:`harness.views.notebooks`'s. Outside a checkout (no
mkdocs.yml and snippets/) both modes fail, saying what they looked for.
"""

from __future__ import annotations

import argparse
import sys

from harness.commands.checkout import add_root_option, root_of
from harness.records.store import load_all
from harness.sources.project import Project
from harness.views.notebooks import out_of_date

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    add_root_option(parser)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true",
                      help="regenerate docs/cuadernos/*.ipynb from the pages, snippets and records")
    mode.add_argument("--check", action="store_true",
                      help="exit 1, listing them, if committed notebooks differ from their sources")


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    project = Project.load(root)
    stale = out_of_date(project, load_all(root / "results", root=root))
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
            why = ("has no page any more" if not text
                   else "differs from its page, snippets and records")
            print(f"{shown}: {why}; run `python -m harness notebooks --write`", file=sys.stderr)
    if args.check and not stale:
        print(f"notebooks of {root}: up to date", file=sys.stderr)
    return 1 if stale and args.check else 0
