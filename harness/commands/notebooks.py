"""``python -m harness notebooks --write|--check``: regenerate or verify the
notebooks built from the pages, their code cells carrying the outputs recorded in
results/.

The notebooks are :mod:`harness.views.notebooks`'s. Outside a checkout (no
mkdocs.yml and snippets/) both modes fail, saying what they looked for.
"""

from __future__ import annotations

import argparse
import sys

from harness.commands.checkout import root_of
from harness.records.store import Records, load_all
from harness.sources.pages import find_includes
from harness.sources.project import Project
from harness.views.notebooks import choose_record, notebook_path, out_of_date, pages_with_code

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true",
                      help="regenerate docs/cuadernos/*.ipynb from the pages, snippets and records")
    mode.add_argument("--check", action="store_true",
                      help="exit 1, listing them, if committed notebooks differ from their sources")


def stale_outputs(project: Project, records: Records) -> list[str]:
    """One line per code cell whose embedded output is not that of its snippet's code
    (recorded from other code) or is missing (no record), with what to run."""
    found: dict[str, None] = {}
    for page in pages_with_code(project):
        shown = project.shown(notebook_path(page))
        for include in find_includes(page.read_text(encoding="utf-8"), page):
            snippet = project.snippets.get(include.snippet_id)
            if snippet is None or snippet.language != "py" \
                    or not project.expectations.get(snippet.id):
                continue
            record = choose_record(records.items, snippet.id)
            where = f"{shown}: the cell of {project.shown(snippet.path)}"
            if record is None:
                found.setdefault(f"{where} has no recorded output (no record observed it)")
            elif any(o.snippet == snippet.id and o.snippet_sha256 != snippet.sha256
                     for o in record.observations):
                found.setdefault(f"{where} shows stale outputs (torch {record.torch_build} on "
                                 f"{record.device_key} recorded other code)")
    return [f"{line}; run `python -m harness record --device cpu --only examples`, then "
            "`python -m harness notebooks --write` again" for line in found]


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    project = Project.load(root)
    records = load_all(root / "results", root=root)
    stale = out_of_date(project, records)
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
                   else "differs from what its page, its twin, its snippets, their "
                        "expectations.toml and the records make of it")
            print(f"{shown}: {why}; run `python -m harness notebooks --write`", file=sys.stderr)
    if args.write:
        for line in stale_outputs(project, records):
            print(line)
    if args.check and not stale:
        print(f"notebooks of {root}: up to date", file=sys.stderr)
    return 1 if stale and args.check else 0
