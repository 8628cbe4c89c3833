"""Records checked against the sources they claim to describe. No torch import.

:func:`harness.records.store.load_all` already checked each file as data
(types, ranges, attribution) and who vouches for each file. Here the record sets
meet the checkout: every file signed or listed, every derived field recomputed,
every row names a declared trial, every observation an existing expectation, and
no recorded observation contradicts its analytic expectation unless that
expectation declares a known failure.
"""

from __future__ import annotations

from pathlib import Path

from harness.core.compare import compare, format_value
from harness.core.errors import relative, suggest
from harness.core.types import TrialSpec
from harness.records.consistency import (
    fraction_problems,
    row_problems,
    run_problems,
    selection_problems,
    spec_problems,
)
from harness.records.provenance import listed_missing
from harness.records.store import DeviceRecord, Records
from harness.sources.project import Project

__all__ = ["CONTRADICTS", "check_records", "consistency_problems"]

#: How a recorded value that an expectation rejects is reported (``make check`` knows the
#: page's examples would report the same mistake again).
CONTRADICTS = "contradicts the analytic expectation"


def consistency_problems(record: DeviceRecord, *, results: Path, root: Path,
                         specs: dict[str, TrialSpec]) -> list[str]:
    """A record set's provenance, and its rows against each other, their trials and runs."""
    folder = relative(results / record.torch_build, root)
    files = {part: str(folder / f"{record.device_key}{suffix}") for part, suffix in (
        ("rows", ".csv"), ("control_rows", ".control.csv"), ("environment", ".env.json"))}
    every = [*record.rows, *record.control_rows]
    return [
        *record.provenance.problems,
        *row_problems(every),
        *spec_problems(every, specs, record.device_type),
        *fraction_problems(every, record.environments),
        *selection_problems(record.environments, rows=record.rows,
                            control_rows=record.control_rows, shown=files),
    ]


def check_records(
    records: Records, *, project: Project, specs: dict[str, TrialSpec], results: Path
) -> list[str]:
    """Every problem between the records and the checkout, one line each."""
    shown = relative(results, project.root)
    if not results.is_dir() or not records.items:
        state = "empty" if results.is_dir() else "missing"
        return [f"{shown}: the records folder is {state}; restore results/ from git, or "
                "record the sets"]
    problems = [*listed_missing(results, shown), *run_problems(records.items, results=shown)]
    expectations = {(e.snippet, e.name): e for items in project.expectations.values()
                    for e in items}
    # One wrong expectation is one mistake: its contradicting records are listed together.
    contradicted: dict[tuple[str, str], list[str]] = {}
    for record in records.items:
        problems += consistency_problems(record, results=results, root=project.root, specs=specs)
        for row in record.rows:
            if row.trial not in specs:
                problems.append(
                    f"{row.location}: record names unknown trial {row.trial!r} (not in "
                    f"trials/trials.toml).{suggest(row.trial, specs)}"
                )
        for (snippet, name), where in record.observation_lines.items():
            expectation = expectations.get((snippet, name))
            if expectation is None:
                known = sorted(f"{s} {n}" for s, n in expectations if s == snippet)
                problems.append(
                    f"{where}: record holds an observation of {snippet!r} {name!r}, which no "
                    f"expectation asks for (valid: {', '.join(known) or 'none'}); run "
                    "`python -m harness record --only examples` to drop it"
                )
                continue
            observation = record.observation(snippet, name)
            assert observation is not None
            snippet_now = project.snippets.get(snippet)
            if snippet_now is None or observation.snippet_sha256 != snippet_now.sha256:
                continue  # stale: the page marks it and the build warns separately
            verdict = compare(expectation, observation)
            if not verdict.holds and not expectation.known_failure:
                if (snippet, name) not in contradicted:
                    problems.append(
                        f"{where}: recorded {name!r} = "
                        f"{format_value(observation.value, kind=observation.kind)} "
                        f"{CONTRADICTS} at {expectation.location} "
                        f"({verdict.reason}); fix the derivation or the snippet, or declare "
                        'known_failure = "why" on the expectation so the page shows it as '
                        "such")
                contradicted.setdefault((snippet, name), []).append(str(where))
    for places in contradicted.values():
        if len(places) > 1:  # the first message above names the first; say where else
            index = next(i for i, p in enumerate(problems)
                         if p.startswith(places[0]) and CONTRADICTS in p)
            problems[index] += f" (so do {', '.join(places[1:])})"
    return problems
