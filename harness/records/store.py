"""Record sets: reading them validated as data (writing: :mod:`harness.records.commit`).

``results/<torch build>/<device>.csv``            trial rows (:data:`CSV_HEADER`)
``results/<torch build>/<device>.control.csv``    a same-build control run's rows (optional)
``results/<torch build>/<device>.examples.jsonl`` observed example outputs, one per line
``results/<torch build>/<device>.env.json``       ``{"runs": {run_id: environment}}``
``results/<torch build>/<device>.sha256[.sig]``   a signed set's list (:mod:`.provenance`)

Each row and observation names the run that made it, and the environment file
keeps one environment per run still referenced, so rows from different runs can
share a file without borrowing each other's conditions. The folder name, every
row, observation and environment must name the same torch build and device.
No torch import.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError, Location, read_text, relative, suggest
from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, OBSERVATION_KINDS, Environment, Observation
from harness.records.envjson import (
    MAX_RECORD_BYTES,
    date_problem,
    device_key,
    json_value,
    read_environments,
    typed_fields,
)
from harness.records.files import check_settled
from harness.records.provenance import Provenance, set_files, unsigned_entries, verify_set
from harness.records.rows import parse_rows

__all__ = [
    "DeviceRecord",
    "Records",
    "SetPaths",
    "device_key",
    "load_all",
    "read_environments",
    "read_observations",
    "version_key",
]

# .control.csv before .csv: the first suffix a name ends with decides its kind.
_SUFFIXES = {".control.csv": "control_rows", ".csv": "rows", ".examples.jsonl": "observations",
             ".env.json": "environments"}
_OBSERVATION_FIELDS = {f.name for f in dataclasses.fields(Observation)}
#: The largest observed value, as JSON: a snippet's output a reader can take in is far
#: smaller; a huge one is a runaway print or a hand edit.
MAX_OBSERVED_CHARS = 64 * 1024
_REQUIRED_OBSERVATION = {"snippet", "name", "kind", "value", "snippet_sha256", "run_id"}


def version_key(build: str) -> tuple[int, ...]:
    """Sort key for ``2.13.0+cpu``-like builds (numeric release, then text)."""
    release = re.match(r"[\d.]+", build)
    return tuple(int(p) for p in release.group(0).strip(".").split(".")) if release else ()


@dataclass(frozen=True, kw_only=True)
class SetPaths:
    """The three files of one record set (torch build × device)."""

    folder: Path
    key: str

    @property
    def rows(self) -> Path:
        return self.folder / f"{self.key}.csv"

    @property
    def control_rows(self) -> Path:
        return self.folder / f"{self.key}.control.csv"

    @property
    def observations(self) -> Path:
        return self.folder / f"{self.key}.examples.jsonl"

    @property
    def environments(self) -> Path:
        return self.folder / f"{self.key}.env.json"

    @classmethod
    def of(cls, results: Path, torch_build: str, key: str) -> SetPaths:
        return cls(folder=results / torch_build, key=key)


def _json_lines(path: Path, shown: Path) -> list[tuple[int, dict[str, Any]]]:
    found = []
    text = read_text(path, shown, limit=MAX_RECORD_BYTES).removeprefix("\ufeff")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        data = json_value(line, shown, number)
        if not isinstance(data, dict):
            raise HarnessError(f"{shown}:{number}: expected a JSON object per line")
        found.append((number, data))
    return found


def read_observations(path: Path, shown: Path) -> list[tuple[Location, Observation]]:
    """Observations of a ``.examples.jsonl`` file with where each sits."""
    found: list[tuple[Location, Observation]] = []
    lines: dict[tuple[str, str], tuple[Location, Observation]] = {}
    for number, data in _json_lines(path, shown):
        unknown = set(data) - _OBSERVATION_FIELDS
        missing = _REQUIRED_OBSERVATION - set(data)
        if unknown or missing:
            what = (f"unknown key {sorted(unknown)[0]!r}" if unknown
                    else f"missing key {sorted(missing)[0]!r}")
            raise HarnessError(
                f"{shown}:{number}: {what}; expected keys {', '.join(sorted(_OBSERVATION_FIELDS))}"
            )
        where = f"{shown}:{number}"
        if data["kind"] not in OBSERVATION_KINDS:
            raise HarnessError(
                f"{where}: unknown kind {data['kind']!r}."
                f"{suggest(str(data['kind']), OBSERVATION_KINDS)}")
        line = json.dumps(data.get("value"), ensure_ascii=False)
        if len(line) > MAX_OBSERVED_CHARS:
            raise HarnessError(
                f"{where}: an observed value of {len(line):,} characters; the largest accepted is "
                f"{MAX_OBSERVED_CHARS:,} (observe a summary of the value, not the value itself)")
        observation = Observation(**typed_fields(Observation, data, where, "observation"))
        wrong = date_problem(observation.date)
        if wrong:
            raise HarnessError(f"{where}: observation {observation.name!r}: {wrong}")
        key = (observation.snippet, observation.name)
        if key in lines:
            first, earlier = lines[key]
            same = "the same value" if earlier.value == observation.value else "another value"
            raise HarnessError(
                f"{where}: a second observation of {key[0]!r} {key[1]!r} ({same}) after "
                f"{first}; a record holds one observation per snippet and name (the checks "
                "would read one and the page another)")
        location = Location(path=shown, line=number)
        lines[key] = (location, observation)
        found.append((location, observation))
    return found


@dataclass(frozen=True, kw_only=True)
class DeviceRecord:
    """One record set, validated: every part names this build and device."""

    torch_build: str
    device_key: str
    environments: dict[str, Environment] = field(default_factory=dict)
    rows: list[TrialRow] = field(default_factory=list)
    control_rows: list[TrialRow] = field(default_factory=list)
    """Rows of a control run: the same build measured again in the job that recorded
    :attr:`rows` (``<device>.control.csv``); the drift report's noise floor."""
    observations: list[Observation] = field(default_factory=list)
    observation_lines: dict[tuple[str, str], Location] = field(default_factory=dict)
    """Where each (snippet, name) observation sits in its record file."""
    provenance: Provenance = field(default_factory=Provenance)
    """Who vouches for the set's files (:mod:`harness.records.provenance`)."""

    @property
    def device_type(self) -> str:
        return self.device_key.split("-", 1)[0]

    @property
    def environment(self) -> Environment:
        """The newest run's environment (the set's device and build are the same in all)."""
        return max(self.environments.values(), key=lambda e: (e.date, e.run_id))

    def environment_of(self, run_id: str) -> Environment:
        return self.environments[run_id]

    def environment_of_runs(self, run_ids: set[str]) -> Environment:
        """The newest environment among ``run_ids`` (the runs that made what a view shows):
        a set may hold runs from several machines, and each figure is attributed to the
        run that made it, not to the set's newest run."""
        found = [self.environments[r] for r in run_ids if r in self.environments]
        return max(found, key=lambda e: (e.date, e.run_id)) if found else self.environment

    # Indexes built once, on first lookup: a drift report or a page asks for every trial
    # and every observation, so a scan per lookup made it quadratic in the rows (291 s
    # at 90,000 rows). cached_property stores into the instance's __dict__, which a
    # frozen dataclass allows; rows and observations are not changed after loading.
    @functools.cached_property
    def _rows_by_trial(self) -> dict[str, TrialRow]:
        found: dict[str, TrialRow] = {}
        for r in self.rows:
            found.setdefault(r.trial, r)  # the first row of a trial, as a scan would find
        return found

    def row(self, trial: str) -> TrialRow | None:
        """The (first) row of ``trial``; ``None`` if the set has none."""
        return self._rows_by_trial.get(trial)

    @functools.cached_property
    def _observations_by_snippet(self) -> dict[str, list[Observation]]:
        found: dict[str, list[Observation]] = {}
        for o in self.observations:
            found.setdefault(o.snippet, []).append(o)
        return found

    def observations_of(self, snippet: str) -> list[Observation]:
        """The observations of one snippet (indexed: a page asks for every snippet)."""
        return self._observations_by_snippet.get(snippet, [])

    def observation(self, snippet: str, name: str) -> Observation | None:
        """The (first) observation of ``name`` in ``snippet``; a snippet has a handful."""
        return next((o for o in self.observations_of(snippet) if o.name == name), None)


@dataclass(frozen=True, kw_only=True)
class Records:
    items: list[DeviceRecord]
    """Ordered by torch version, then device."""

    @property
    def builds(self) -> list[str]:
        return sorted({r.torch_build for r in self.items}, key=version_key)


def _attribution(record: DeviceRecord, shown_folder: Path) -> None:
    build, key = record.torch_build, record.device_key
    for run_id, env in record.environments.items():
        if (env.torch_build, env.device_key) != (build, key):
            raise HarnessError(
                f"{shown_folder / (key + '.env.json')}:1: run {run_id!r} was made with torch "
                f"{env.torch_build} on {env.device_key!r}, but the file is the record of torch "
                f"{build} on {key!r} (a copied or renamed folder?)"
            )
    for row in [*record.rows, *record.control_rows]:
        if (row.torch_build, row.device) != (build, key):
            raise HarnessError(
                f"{row.location}: row names torch {row.torch_build} on {row.device!r} in the "
                f"record of torch {build} on {key!r}"
            )
        if row.run_id not in record.environments:
            raise HarnessError(
                f"{row.location}: row names run {row.run_id!r}, which {key}.env.json does not "
                "describe; every row needs the environment it was measured in"
            )
    for (snippet, name), where in record.observation_lines.items():
        found = record.observation(snippet, name)
        assert found is not None
        if (found.torch_build, found.device_key) != (build, key):
            raise HarnessError(
                f"{where}: observation names torch {found.torch_build} on {found.device_key!r} "
                f"in the record of torch {build} on {key!r}"
            )
        if found.run_id not in record.environments:
            raise HarnessError(f"{where}: observation names run {found.run_id!r}, which "
                               f"{key}.env.json does not describe")


def load_all(results: Path, *, root: Path | None = None) -> Records:
    """Every record set under ``results``, validated; errors name the file and line."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    base = root or results.parent
    shown_results = relative(results, base)
    folders = sorted(p for p in results.iterdir()
                     if p.is_dir() and not p.name.startswith(".")) if results.is_dir() else []
    if results.is_dir():
        check_settled(results, shown_results)
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.name.endswith((".sha256", ".sha256.sig")):
                continue  # a signed set's list and signature: read by its provenance
            shown = relative(path, base)
            suffix = next((s for s in _SUFFIXES if path.name.endswith(s)), None)
            if suffix is None:
                raise HarnessError(
                    f"{shown}:1: not a record file; expected <device>{', <device>'.join(_SUFFIXES)}"
                )
            key = path.name[: -len(suffix)]
            if key.split("-", 1)[0] not in DEVICE_TYPES:
                raise HarnessError(
                    f"{shown}:1: unknown device {key!r}.{suggest(key, DEVICE_TYPES)}")
            slot = found.setdefault((folder.name, key), {})
            kind = _SUFFIXES[suffix]
            if kind in ("rows", "control_rows"):
                slot[kind] = parse_rows(read_text(path, shown, limit=MAX_RECORD_BYTES), shown)
            elif kind == "observations":
                located = read_observations(path, shown)
                slot["observations"] = [o for _, o in located]
                slot["observation_lines"] = {(o.snippet, o.name): loc for loc, o in located}
            else:
                slot["environments"] = read_environments(path, shown)
    unsigned = unsigned_entries(results, shown_results) if found else {}
    items = []
    for (build, key), parts in sorted(found.items(),
                                      key=lambda item: (version_key(item[0][0]), item[0])):
        if "environments" not in parts:
            raise HarnessError(
                f"{shown_results}/{build}/{key}.env.json:1: missing; every record "
                "needs the environment it was made in (re-run the record command)"
            )
        provenance = verify_set(results, build, key, set_files(results / build, key),
                                shown=shown_results, unsigned=unsigned)
        record = DeviceRecord(torch_build=build, device_key=key, provenance=provenance, **parts)
        _attribution(record, relative(results / build, base))
        items.append(record)
    return Records(items=items)
