#!/usr/bin/env python3
"""Dates this repository depends on, as reminders that never gate a build.

    python .github/scripts/upkeep.py [--today YYYY-MM-DD] [--last-activity YYYY-MM-DD]
                                     [--body FILE]

* The doc stack's end of life: Material for MkDocs 9.x is maintained until 2027-05-05
  (the notice it prints on every build). From WARN_BEFORE ahead of that day, while
  pyproject.toml's docs extra still pins 9.x, each run prints a warning: the plan is in
  CONTRIBUTING ("Publishing"), the candidates are built by pages.yml's jobs.
* Scheduled workflows of a public repository stop after 60 days without activity on it:
  given the date of the last commit, a warning from 45 days on.

Prints one ``::warning::`` line per finding (GitHub shows them on the run; elsewhere
they read as plain lines), writes them as Markdown to --body when given, and exits 0
whatever it finds: a deploy never depends on the calendar. The upkeep workflow turns
the body into one issue, opened or updated.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Package, the versions (a prefix of the pin) that end, the day, who says so.
END_OF_LIFE = (("mkdocs-material", "9.", datetime.date(2027, 5, 5),
                "Material for MkDocs 9.x (its maintainers' notice, printed on every build)"),)
WARN_BEFORE = datetime.timedelta(days=120)
#: GitHub disables a public repository's schedules after 60 days without activity.
SCHEDULES_LAPSE = datetime.timedelta(days=60)
SCHEDULES_WARN = datetime.timedelta(days=45)


def docs_pins(root: Path = ROOT) -> dict[str, str]:
    """``name -> version`` of the exact pins in pyproject.toml's docs extra."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    pins = {}
    for spec in project["project"]["optional-dependencies"]["docs"]:
        if match := re.fullmatch(r"([A-Za-z0-9_.-]+)==([^;\s]+)", spec.strip()):
            pins[match[1].lower()] = match[2]
    return pins


def findings(today: datetime.date, pins: dict[str, str],
             last_activity: datetime.date | None = None) -> list[str]:
    """One sentence per date that is near or past; empty when nothing is."""
    found = []
    for name, prefix, day, who in END_OF_LIFE:
        version = pins.get(name, "")
        if version.startswith(prefix) and today >= day - WARN_BEFORE:
            when = "reached its end of life on" if today > day else "reaches its end of life on"
            found.append(f"{who} {when} {day}; pyproject.toml pins {name}=={version}. "
                         "Move the docs extra to a maintained successor (the pages workflow "
                         "builds the candidates: CONTRIBUTING, \"Publishing\").")
    if last_activity is not None and today - last_activity >= SCHEDULES_WARN:
        stop = last_activity + SCHEDULES_LAPSE
        found.append(f"The last commit was on {last_activity}: GitHub disables this repository's "
                     f"scheduled workflows on about {stop} (60 days without activity). Push a "
                     "commit, or re-enable them under Actions afterwards.")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--today", type=datetime.date.fromisoformat,
                        default=datetime.datetime.now(datetime.UTC).date(),
                        help="the day to judge (default: today, UTC)")
    parser.add_argument("--last-activity", type=datetime.date.fromisoformat, default=None,
                        help="the date of the last commit on the default branch")
    parser.add_argument("--body", type=Path, default=None,
                        help="write the findings there as a Markdown list (empty if none)")
    args = parser.parse_args(argv)
    found = findings(args.today, docs_pins(), args.last_activity)
    for sentence in found:
        print(f"::warning title=upkeep::{sentence}")
    if not found:
        print(f"upkeep: nothing due as of {args.today}")
    if args.body is not None:
        args.body.write_text("".join(f"- {s}\n" for s in found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
