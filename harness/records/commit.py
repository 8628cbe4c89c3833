"""Writing a run into its record set: rows, observations and their environment merged
and moved into place with one rename (:func:`commit_set`,
:func:`~harness.records.files.replace_folder`), so a killed or failing run leaves the
previous set byte-identical. Reading is :mod:`harness.records.store`. No torch import.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import read_text
from harness.core.rows import TrialRow
from harness.core.types import Environment, Observation
from harness.records.envjson import MAX_RECORD_BYTES
from harness.records.files import locked, replace_folder
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
    with locked(paths.folder.parent, shown=shown.parent):
        old_rows = _rows(target, shown / target.name)
        # The other rows file is not rewritten, but its runs must stay described.
        beside_rows = _rows(beside, shown / beside.name)
        located = (read_observations(paths.observations, paths.observations)
                   if paths.observations.exists() else [])
        old_obs = [o for _, o in located]
        envs = (read_environments(paths.environments, paths.environments)
                if paths.environments.exists() else {})
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
        # The set's signature no longer covers it: the workflow signs it again, or a
        # person vouches for it (`publish add`).
        texts: dict[str, str | None] = {f"{paths.key}.sha256": None,
                                        f"{paths.key}.sha256.sig": None}
        if merged_rows:
            texts[target.name] = format_rows(merged_rows)
        if kept or paths.observations.exists():
            texts[paths.observations.name] = _dump_observations(kept)
        texts[paths.environments.name] = json.dumps(
            {"runs": {k: dataclasses.asdict(v) for k, v in sorted(envs.items())}},
            indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        replace_folder(paths.folder, texts, shown=shown)
    return dataclasses.replace(report, recorded=recorded + len(incoming), unchanged=unchanged,
                               removed=removed)
