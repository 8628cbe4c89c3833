"""A run's digest: what it stored, hashed when it was written, so that a hand edit
that keeps every cell valid still fails the strict build. No torch import.

Each part a run stored (its rows, its control rows, its observations, its environment
without the digest itself) is serialised canonically and hashed with sha256: a row as
the CSV line the record holds (:func:`~harness.records.rows.row_line`, the same text
whether the row comes from the run or from the file), an observation as sorted-key
JSON. :func:`~harness.records.commit.commit_set` stores the digests; the build compares.

Runs recorded before digests existed have none («sin huella»): they are accepted only
when their date is before :data:`DIGEST_SINCE`, the one place that says so.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Observation
from harness.records.rows import row_line

__all__ = ["DIGEST_SINCE", "check_digests", "run_digest"]

#: Runs dated before this carry no digest (they were recorded before it was kept); every
#: later run must. The committed CPU and H200 sets predate it.
DIGEST_SINCE = "2026-12-01T22:30:00+00:00"


def _hash(lines: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


def _observation_line(observation: Observation) -> str:
    return json.dumps(dataclasses.asdict(observation), sort_keys=True, ensure_ascii=False)


def run_digest(
    environment: Environment,
    *,
    rows: Iterable[TrialRow],
    control_rows: Iterable[TrialRow],
    observations: Iterable[Observation],
) -> dict[str, str]:
    """The digest of ``environment``'s run over what the record holds of it."""
    run = environment.run_id
    described = {k: v for k, v in dataclasses.asdict(environment).items() if k != "digest"}
    return {
        "rows": _hash(row_line(r) for r in rows if r.run_id == run),
        "control_rows": _hash(row_line(r) for r in control_rows if r.run_id == run),
        "observations": _hash(_observation_line(o) for o in observations if o.run_id == run),
        "environment": _hash([json.dumps(described, sort_keys=True, ensure_ascii=False)]),
    }


def _before_digests(environment: Environment) -> bool:
    try:
        when = datetime.datetime.fromisoformat(environment.date)
    except ValueError:
        return False
    if when.tzinfo is None:  # read as UTC, as the date check does
        when = when.replace(tzinfo=datetime.UTC)
    return when < datetime.datetime.fromisoformat(DIGEST_SINCE)


def check_digests(
    environments: dict[str, Environment],
    *,
    rows: list[TrialRow],
    control_rows: list[TrialRow],
    observations: list[tuple[Location, Observation]],
    files: dict[str, Path],
) -> list[str]:
    """Every run whose stored parts differ from its digest, naming the file and the first
    line of that run in it; ``files`` maps a part to its record file (shown)."""
    problems: list[str] = []
    for run_id, env in sorted(environments.items()):
        if not env.digest:
            if not _before_digests(env):
                problems.append(
                    f"{files['environment']}:1: run {run_id!r} (dated {env.date or 'never'}) "
                    f"has no digest («sin huella»); only runs before {DIGEST_SINCE} may lack "
                    "one: re-record it with `python -m harness record`")
            continue
        now = run_digest(env, rows=rows, control_rows=control_rows,
                         observations=[o for _, o in observations])
        for part in ("rows", "control_rows", "observations", "environment"):
            if env.digest.get(part) == now[part]:
                continue
            lines: list[Location | None] = (
                [r.location for r in rows if r.run_id == run_id] if part == "rows" else
                [r.location for r in control_rows if r.run_id == run_id]
                if part == "control_rows" else
                [where for where, o in observations if o.run_id == run_id]
                if part == "observations" else [])
            first = next((str(w) for w in lines if w is not None), f"{files[part]}:1")
            problems.append(
                f"{first}: the {part.replace('_', ' ')} of run {run_id!r} differ from what the "
                f"run wrote (its digest in {files['environment']}); a record is evidence and "
                "is never edited by hand: restore it from git or record it again")
    return problems
