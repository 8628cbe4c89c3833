"""Writing a run into its record set: rows, observations and their environment merged
in one atomic step (:func:`commit_set`), so a killed or failing run leaves the previous
set byte-identical. Reading is :mod:`harness.records.store`. No torch import.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import HarnessError, read_text
from harness.core.rows import TrialRow
from harness.core.types import Environment, Observation
from harness.records.digest import check_digests, run_digest
from harness.records.envjson import MAX_RECORD_BYTES
from harness.records.files import locked, replace_together
from harness.records.rows import format_rows, parse_rows
from harness.records.store import SetPaths, read_environments, read_observations

__all__ = ["CommitReport", "commit_set"]

_OBSERVATION_FIELDS = {f.name for f in dataclasses.fields(Observation)}


@dataclass(frozen=True, kw_only=True)
class CommitReport:
    recorded: int = 0
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    """``snippet name`` of observations dropped because no expectation asks for them."""


def _same_observation(a: Observation, b: Observation) -> bool:
    ignore = {"date", "run_id"}
    return all(getattr(a, f) == getattr(b, f) for f in _OBSERVATION_FIELDS - ignore)


def _dump_observations(items: list[Observation]) -> str:
    return "".join(json.dumps(dataclasses.asdict(o), ensure_ascii=False, sort_keys=True) + "\n"
                   for o in items)


def _rows(path: Path, shown: Path) -> list[TrialRow]:
    return (parse_rows(read_text(path, shown, limit=MAX_RECORD_BYTES), shown)
            if path.exists() else [])


def _digested(envs: dict[str, Environment], *, rows: list[TrialRow],
              control_rows: list[TrialRow], observations: list[Observation],
              new: str) -> dict[str, Environment]:
    """Each run's digest over what the set now holds of it. A run stored without one
    (recorded before digests) keeps none: stamping it now would vouch for edits."""
    return {k: dataclasses.replace(v, digest=run_digest(
                v, rows=rows, control_rows=control_rows, observations=observations))
            if v.digest or k == new else v for k, v in envs.items()}


def commit_set(
    paths: SetPaths,
    *,
    environment: Environment,
    rows: list[TrialRow] | None = None,
    observations: list[Observation] | None = None,
    expected: set[tuple[str, str]] | None = None,
    control: bool = False,
) -> CommitReport:
    """Merge a run's ``rows`` and ``observations`` into the set, in one atomic step.

    Rows replace rows of the same (trial, threads). An observation equal to the
    stored one keeps the stored date and run. With ``expected`` (every (snippet,
    name) an expectation asks for), stored observations outside it are removed.
    Environments no row or observation names any more are dropped. With ``control``,
    ``rows`` are a same-build control run's and merge into ``<device>.control.csv``.
    """
    shown = paths.folder
    target, beside = ((paths.control_rows, paths.rows) if control
                      else (paths.rows, paths.control_rows))
    with locked(paths.folder, paths.key):
        old_rows = _rows(target, shown / target.name)
        # The other rows file is not rewritten, but its runs must stay described.
        beside_rows = _rows(beside, shown / beside.name)
        located = (read_observations(paths.observations, paths.observations)
                   if paths.observations.exists() else [])
        old_obs = [o for _, o in located]
        envs = (read_environments(paths.environments, paths.environments)
                if paths.environments.exists() else {})
        main, other = (beside_rows, old_rows) if control else (old_rows, beside_rows)
        edited = check_digests(envs, rows=main, control_rows=other, observations=located,
                               files={p: shown / f"{paths.key}{x}" for p, x in (
                                   ("rows", ".csv"), ("control_rows", ".control.csv"),
                                   ("observations", ".examples.jsonl"),
                                   ("environment", ".env.json"))})
        edited = [e for e in edited if "«sin huella»" not in e]
        if edited:  # merging would re-hash a hand edit into a valid-looking record
            raise HarnessError(f"{edited[0]}; nothing was written")
        beside_runs = {r.run_id for r in beside_rows}
        if not environment.trials and rows:
            # Every trial a run measures gives a row (a failure too): these are its trials.
            environment = dataclasses.replace(
                environment, trials=tuple(dict.fromkeys(r.trial for r in rows)))
        envs[environment.run_id] = environment
        incoming = {r.key: r for r in rows or []}
        merged_rows = [r for r in old_rows if r.key not in incoming] + list(incoming.values())
        report = CommitReport()
        by_key = {(o.snippet, o.name): o for o in old_obs}
        recorded = unchanged = 0
        for new in observations or []:
            old = by_key.get((new.snippet, new.name))
            if old is not None and _same_observation(old, new):
                unchanged += 1
                continue
            by_key[(new.snippet, new.name)] = new
            recorded += 1
        removed = sorted(f"{s} {n}" for s, n in by_key if expected is not None
                         and (s, n) not in expected)
        kept = [o for k, o in by_key.items() if expected is None or k in expected]
        used = {r.run_id for r in merged_rows} | {o.run_id for o in kept} | beside_runs
        envs = {k: v for k, v in envs.items() if k in used}
        merged_main, merged_other = ((beside_rows, merged_rows) if control
                                     else (merged_rows, beside_rows))
        envs = _digested(envs, rows=merged_main, control_rows=merged_other,
                         observations=kept, new=environment.run_id)
        texts: dict[Path, str] = {}
        if merged_rows:
            texts[target] = format_rows(merged_rows)
        if kept or paths.observations.exists():
            texts[paths.observations] = _dump_observations(kept)
        texts[paths.environments] = json.dumps(
            {"runs": {k: dataclasses.asdict(v) for k, v in sorted(envs.items())}},
            indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        replace_together(paths.folder, paths.key, texts)
    return dataclasses.replace(report, recorded=recorded + len(incoming), unchanged=unchanged,
                               removed=removed)
