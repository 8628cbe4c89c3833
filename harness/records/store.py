"""Record sets read as typed data (writing: :mod:`harness.records.commit`). No torch import.

``results/<torch build>/<device>.csv``            trial rows (:data:`CSV_HEADER`)
``results/<torch build>/<device>.control.csv``    a same-build control run's rows (optional)
``results/<torch build>/<device>.examples.jsonl`` observed example outputs, one per line
``results/<torch build>/<device>.env.json``       ``{"runs": {run_id: environment}}``
``results/<torch build>/<device>.sha256[.sig]``   a signed set's list (:mod:`.provenance`)

Each row and observation names the run that made it, and the environment file keeps one
environment per run still referenced, so rows of different runs share a file without
borrowing each other's conditions. The folder, every row, observation and environment
name the same torch build and device. A CSV cell is converted by its column's kind
(:data:`~harness.core.rows.COLUMNS`); a JSON value is checked against its dataclass
field's annotation by one rule (:func:`type_problem`), so a field added later is checked
too. Every message names the file and line.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import functools
import io
import itertools
import json
import math
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.core.errors import HarnessError, Location, read_text, relative, suggest
from harness.core.rows import COLUMNS, CSV_HEADER, Column, TrialRow
from harness.core.types import DEVICE_TYPES, OBSERVATION_KINDS, Environment, Observation
from harness.records.provenance import Provenance, unsigned_entries, verify_set

__all__ = [
    "CLOCK_SKEW", "MAX_OBSERVED_CHARS", "MAX_RECORD_BYTES", "NUMBER_DIGITS", "SAMPLE_DIGITS",
    "DeviceRecord", "Records", "SetPaths", "check_settled", "date_problem", "device_key",
    "format_rows", "load_all", "parse_rows", "read_environments", "read_observations",
    "read_rows", "version_key",
]

#: The largest record file read. A run of every trial and example writes under 100 kB;
#: benchmarks/bench_drift.py's full size (90,000 rows) writes a 22 MB examples.jsonl. A
#: 130 MB record once took 755 s and 9 GB to build; this refuses it in milliseconds.
MAX_RECORD_BYTES = 48 * 1024 * 1024
#: The largest observed value, as JSON: a snippet's output a reader can take in is far
#: smaller; a huge one is a runaway print or a hand edit.
MAX_OBSERVED_CHARS = 64 * 1024
#: How far in the future a date may lie: the recording machine's clock may run ahead.
CLOCK_SKEW = datetime.timedelta(minutes=10)
#: Significant digits a number cell keeps, and each of ``samples_s``'s numbers: a stored
#: value is within half a unit in the last kept digit of what was measured, so the checks
#: between cells (:mod:`harness.records.validate`) allow exactly that rounding.
NUMBER_DIGITS = 6
SAMPLE_DIGITS = 4

# .control.csv before .csv: the first suffix a name ends with decides its kind.
_SUFFIXES = {".control.csv": "control_rows", ".csv": "rows", ".examples.jsonl": "observations",
             ".env.json": "environments"}
_BY_NAME = {c.name: c for c in COLUMNS}
_REQUIRED_OBSERVATION = {"snippet", "name", "kind", "value", "snippet_sha256", "run_id"}
_REQUIRED_ENVIRONMENT = {f.name for f in dataclasses.fields(Environment)
                         if f.default is f.default_factory is dataclasses.MISSING}
T = typing.TypeVar("T")


def device_key(device_type: str, device_name: str = "") -> str:
    """File stem for a device: ``cpu`` or ``cuda-nvidia-h200``."""
    if device_type == "cpu" or not device_name:
        return device_type
    return f"{device_type}-{re.sub(r'[^a-z0-9]+', '-', device_name.lower()).strip('-')}"


def version_key(build: str) -> tuple[int, ...]:
    """Sort key for ``2.13.0+cpu``-like builds (numeric release, then text)."""
    release = re.match(r"[\d.]+", build)
    return tuple(int(p) for p in release.group(0).strip(".").split(".")) if release else ()


# --- JSON values against their dataclass field's annotation -------------------------------

def _describe(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def type_problem(value: Any, hint: Any) -> str | None:
    """What ``value`` (decoded JSON) should have been to fit ``hint``; ``None`` if it fits.
    A JSON array fills a ``tuple[...]`` field; floats are finite."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin in (typing.Union, types.UnionType):
        fits = any(type_problem(value, a) is None for a in args)
        return None if fits else " or ".join(_describe(a) for a in args)
    if origin is Literal:
        return None if value in args else f"one of {', '.join(map(repr, args))}"
    scalar = {type(None): (value is None, "null"),
              bool: (isinstance(value, bool), "true or false"),
              int: (number and isinstance(value, int), "an integer"),
              float: (number and (isinstance(value, int) or math.isfinite(value)),
                      "a finite number"),
              str: (isinstance(value, str), "text")}.get(hint)
    if scalar is not None:
        return None if scalar[0] else scalar[1]
    if origin is tuple:  # every stored tuple field is tuple[X, ...]
        if not isinstance(value, (list, tuple)):
            return f"a list ({_describe(hint)})"
        for index, item in enumerate(value):
            if type_problem(item, args[0]):
                return f"a list of {_describe(args[0])} (item {index} is {item!r})"
    elif origin is dict:
        if not isinstance(value, dict):
            return f"an object ({_describe(hint)})"
        for key, item in value.items():
            if type_problem(key, args[0]) or type_problem(item, args[1]):
                return f"an object of {_describe(args[1])} (key {key!r} holds {item!r})"
    return None  # Any, or a type no stored field has


@functools.cache
def _hints(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """``cls``'s resolved annotations and its tuple fields, once per class (resolving them
    per call was most of reading a set of many rows)."""
    hints = typing.get_type_hints(cls)
    return hints, frozenset(name for name, hint in hints.items() if any(
        typing.get_origin(h) is tuple for h in (hint, *typing.get_args(hint))))


def _instance(cls: type[T], raw: Any, where: str, what: str, required: set[str]) -> T:
    """``raw`` (decoded JSON) as a ``cls``, every field checked (JSON arrays as tuples)."""
    hints, tupled = _hints(typing.cast(type, cls))
    if not isinstance(raw, dict):
        raise HarnessError(f"{where}: {what} is {type(raw).__name__}; expected an object")
    unknown, missing = sorted(set(raw) - set(hints)), sorted(required - set(raw))
    if unknown or missing:
        raise HarnessError(f"{where}: {what} has {'unknown' if unknown else 'no'} key "
                           f"{(unknown or missing)[0]!r}; expected keys {', '.join(sorted(hints))}")
    for name, value in raw.items():
        if wrong := type_problem(value, hints[name]):
            raise HarnessError(f"{where}: {what} field {name!r} holds {value!r}; expected {wrong}")
    if wrong := date_problem(raw.get("date", "")):
        raise HarnessError(f"{where}: {what}: {wrong}")
    return cls(**{k: tuple(v) if k in tupled and isinstance(v, list) else v
                  for k, v in raw.items()})


def date_problem(text: str) -> str | None:
    """Why ``text`` is not a real recording date (ISO 8601, UTC unless it says otherwise,
    not beyond :data:`CLOCK_SKEW` in the future); ``None`` when it is one or is empty."""
    if not text:
        return None
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        return f"date {text!r} is not an ISO 8601 date (e.g. 2026-11-30T18:44:30+00:00)"
    now = datetime.datetime.now(datetime.UTC)
    if when.replace(tzinfo=when.tzinfo or datetime.UTC) > now + CLOCK_SKEW:
        return f"date {text!r} is in the future; a record is made before it is read"
    return None


class _TwiceError(ValueError):
    """A key twice in one JSON object (json keeps the last silently)."""


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _TwiceError(key)
        found[key] = value
    return found


def _json(text: str, shown: object, line: int = 1) -> Any:
    """``text`` as JSON; invalid or too deeply nested JSON, or a key twice in one object,
    names ``shown`` and the line."""
    try:
        return json.loads(text, object_pairs_hook=_once)
    except _TwiceError as exc:
        key = str(exc)
        seen = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
        at = line
        for first, second in itertools.pairwise(seen):  # the second of a pair in one object
            depth = list(itertools.accumulate({"{": 1, "}": -1}.get(c, 0)
                                              for c in text[first:second]))
            if min(depth, default=0) >= 0 and (depth or [0])[-1] == 0:
                at = line + text.count("\n", 0, second)
                break
        raise HarnessError(f"{shown}:{at}: key {key!r} twice in one object; a record holds "
                           "each field once (JSON would keep the last silently)") from None
    except json.JSONDecodeError as exc:
        raise HarnessError(f"{shown}:{line + exc.lineno - 1}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise HarnessError(f"{shown}:{line}: JSON nested too deeply to read (thousands of "
                           "levels); a record's values are a few levels deep") from None


def _record_text(path: Path, shown: Path) -> str:
    return read_text(path, shown, limit=MAX_RECORD_BYTES).removeprefix("\ufeff")


def read_environments(path: Path, shown: Path) -> dict[str, Environment]:
    """The runs of a ``.env.json`` file, by run id."""
    text = _record_text(path, shown)
    data = _json(text, shown)
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, dict) or not runs:
        got = "no runs" if isinstance(data, dict) else type(data).__name__
        raise HarnessError(f'{shown}:1: expected an object {{"runs": {{"<run id>": '
                           f"{{environment}}}}}} with at least one run, found {got}")
    lines: dict[str, int] = {}  # the line where each run's object opens
    for number, line in enumerate(text.splitlines(), start=1):
        if opened := re.match(r'\s*("(?:[^"\\]|\\.)*")\s*:\s*\{', line):
            lines.setdefault(json.loads(opened.group(1)), number)
    found: dict[str, Environment] = {}
    for run_id, raw in runs.items():
        where, run = f"{shown}:{lines.get(run_id, 1)}", f"run {run_id!r}"
        env = _instance(Environment, raw, where, run, _REQUIRED_ENVIRONMENT)
        if env.run_id != run_id:
            raise HarnessError(f"{where}: {run} names itself {env.run_id!r}")
        implied = device_key(env.device_key.split("-", 1)[0], env.device_name)
        if implied != env.device_key:
            raise HarnessError(
                f"{where}: {run} was made on {env.device_name!r}, whose device key is "
                f"{implied!r}, but it is filed as {env.device_key!r} (a hand-edited name?)")
        found[run_id] = env
    return found


def read_observations(path: Path, shown: Path) -> list[tuple[Location, Observation]]:
    lines: dict[tuple[str, str], tuple[Location, Observation]] = {}
    for number, line in enumerate(_record_text(path, shown).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{shown}:{number}"
        data = _json(line, shown, number)
        if isinstance(data, dict) and data.get("kind", "number") not in OBSERVATION_KINDS:
            raise HarnessError(f"{where}: unknown kind {data['kind']!r}."
                               f"{suggest(str(data['kind']), OBSERVATION_KINDS)}")
        size = len(json.dumps(data.get("value") if isinstance(data, dict) else None,
                              ensure_ascii=False))
        if size > MAX_OBSERVED_CHARS:
            raise HarnessError(
                f"{where}: an observed value of {size:,} characters; the largest accepted is "
                f"{MAX_OBSERVED_CHARS:,} (observe a summary of the value, not the value itself)")
        observation = _instance(Observation, data, where, "observation", _REQUIRED_OBSERVATION)
        key = (observation.snippet, observation.name)
        if key in lines:
            first, earlier = lines[key]
            same = "the same value" if earlier.value == observation.value else "another value"
            raise HarnessError(
                f"{where}: a second observation of {key[0]!r} {key[1]!r} ({same}) after "
                f"{first}; a record holds one observation per snippet and name (the checks "
                "would read one and the page another)")
        lines[key] = (Location(path=shown, line=number), observation)
    return list(lines.values())


# --- CSV rows ------------------------------------------------------------------------------

def _cell_text(column: Column, value: Any) -> str:
    if value is None:
        return ""
    if column.kind == "bool":
        return "true" if value else "false"
    if column.kind == "float":
        return f"{float(value):.{NUMBER_DIGITS}g}"
    if column.kind == "floats":
        return " ".join(f"{v:.{SAMPLE_DIGITS}g}" for v in value)
    return str(value)


def format_rows(rows: list[TrialRow], *, columns: tuple[str, ...] = CSV_HEADER) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_cell_text(_BY_NAME[c], getattr(row, c)) for c in columns] for row in rows)
    return out.getvalue()


def _float(text: str, where: str, column: Column) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (column.positive and value == 0):
        raise HarnessError(f"{where}: column {column.name!r} holds {text!r}; expected a finite "
                           f"number {'> 0' if column.positive else '≥ 0'}")
    return value


def _cell(column: Column, text: str, where: str) -> Any:
    wrong = f"{where}: column {column.name!r} holds {text!r}; expected"
    if text == "":
        if column.required:
            raise HarnessError(f"{where}: column {column.name!r} is empty; it is required")
        return column.default
    if column.kind == "bool":
        if text not in ("true", "false"):
            raise HarnessError(f"{wrong} true or false")
        return text == "true"
    if column.kind == "int":
        if not (text.isascii() and text.isdigit()):
            raise HarnessError(f"{wrong} an integer ≥ 0")
        return int(text)
    if column.kind == "floats":
        return tuple(_float(part, where, column) for part in text.split())
    return text if column.kind == "text" else _float(text, where, column)


def parse_rows(text: str, shown: Path) -> list[TrialRow]:
    """Rows of a record file's ``text`` (a BOM accepted): one per (trial, threads), at least one."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    header = next(reader, None)
    expected = ",".join(CSV_HEADER)
    if header is None:
        raise HarnessError(f"{shown}:1: empty record; expected the header {expected}")
    missing = [c for c in CSV_HEADER if c not in header]
    unknown = [c for c in header if c not in CSV_HEADER]
    repeated = sorted({c for c in header if header.count(c) > 1})
    if missing or unknown or repeated:
        what = (f"missing column {missing[0]!r}" if missing else
                f"unknown column {unknown[0]!r}" if unknown else f"column {repeated[0]!r} twice")
        raise HarnessError(f"{shown}:1: {what}; expected the header {expected}")
    rows: list[TrialRow] = []
    seen: dict[tuple[str, int], int] = {}
    start = reader.line_num + 1  # a row's first line: a quoted cell may run past it
    for cells in reader:
        line, where, start = start, f"{shown}:{start}", reader.line_num + 1
        if not any(cells):
            continue
        if len(cells) != len(header):
            runs = (f" (a quote opened on this line runs to line {reader.line_num}: a quoted "
                    "cell not closed?)" if reader.line_num > line else "")
            raise HarnessError(f"{where}: {len(cells)} cells where the header has "
                               f"{len(header)}{runs}")
        row = TrialRow(**{name: _cell(_BY_NAME[name], cell, where)
                          for name, cell in zip(header, cells, strict=True)},
                       location=Location(path=shown, line=line))
        if row.key in seen:
            raise HarnessError(
                f"{where}: trial {row.trial!r} with {row.threads} thread(s) already has a row "
                f"at line {seen[row.key]}; a record holds one row per trial and thread count")
        seen[row.key] = line
        rows.append(row)
    if not rows:
        raise HarnessError(f"{shown}:2: the record has a header and no row; expected at least one")
    return rows


def read_rows(path: Path, shown: Path) -> list[TrialRow]:
    """The rows of a ``.csv`` record file; none when it is missing."""
    return parse_rows(_record_text(path, shown), shown) if path.exists() else []


# --- Sets ----------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class SetPaths:
    """The files of one record set (torch build × device)."""

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
    provenance: Provenance = field(default_factory=Provenance)  # who vouches for its files

    @property
    def device_type(self) -> str:
        return self.device_key.split("-", 1)[0]

    @property
    def environment(self) -> Environment:
        """The newest run's environment."""
        return self.environment_of_runs(set(self.environments))

    def environment_of_runs(self, run_ids: set[str]) -> Environment:
        """The newest environment among ``run_ids`` (the runs that made what a view shows):
        a set may hold runs from several machines, and each figure is attributed to the
        run that made it, not to the set's newest run."""
        found = [self.environments[r] for r in run_ids if r in self.environments]
        return max(found or self.environments.values(), key=lambda e: (e.date, e.run_id))

    # Indexes built on first lookup: a drift report or a page asks for every trial and
    # observation, and a scan per lookup was quadratic (291 s at 90,000 rows).
    @functools.cached_property
    def _rows_by_trial(self) -> dict[str, TrialRow]:
        return {r.trial: r for r in reversed(self.rows)}  # the first row of a trial wins

    def row(self, trial: str) -> TrialRow | None:
        return self._rows_by_trial.get(trial)

    @functools.cached_property
    def _observations_by_snippet(self) -> dict[str, list[Observation]]:
        found: dict[str, list[Observation]] = {}
        for o in self.observations:
            found.setdefault(o.snippet, []).append(o)
        return found

    def observations_of(self, snippet: str) -> list[Observation]:
        return self._observations_by_snippet.get(snippet, [])

    def observation(self, snippet: str, name: str) -> Observation | None:
        return next((o for o in self.observations_of(snippet) if o.name == name), None)


@dataclass(frozen=True, kw_only=True)
class Records:
    items: list[DeviceRecord]  # ordered by torch version, then device

    @property
    def builds(self) -> list[str]:
        return sorted({r.torch_build for r in self.items}, key=version_key)


def check_settled(results: Path, shown: Path) -> None:
    """A reader's guard: an interrupted write (:mod:`.commit`) must not publish half a folder."""
    for new in sorted(results.glob(".*.new")):
        raise HarnessError(
            f"{shown / new.name}: a recording run was interrupted while replacing "
            f"{shown / new.name[1:-len('.new')]}; run `python -m harness record` again (it "
            "moves this complete folder into place first) or delete it to keep the old one")


def _attribution(record: DeviceRecord, shown_folder: Path) -> None:
    build, key = record.torch_build, record.device_key
    here = f"the record of torch {build} on {key!r}"
    for run_id, env in record.environments.items():
        if (env.torch_build, env.device_key) != (build, key):
            raise HarnessError(
                f"{shown_folder / (key + '.env.json')}:1: run {run_id!r} was made with torch "
                f"{env.torch_build} on {env.device_key!r}, but the file is {here} (a copied or "
                "renamed folder?)")
    named = [(row.location, "row", row.torch_build, row.device, row.run_id)
             for row in [*record.rows, *record.control_rows]]
    named += [(where, "observation", o.torch_build, o.device_key, o.run_id)
              for where, o in zip(record.observation_lines.values(), record.observations,
                                  strict=True)]
    for where, what, torch_build, device, run_id in named:
        if (torch_build, device) != (build, key):
            raise HarnessError(f"{where}: {what} names torch {torch_build} on {device!r} in {here}")
        if run_id not in record.environments:
            why = "; every row needs the environment it was measured in" if what == "row" else ""
            raise HarnessError(f"{where}: {what} names run {run_id!r}, which {key}.env.json "
                               f"does not describe{why}")


def load_all(results: Path, *, root: Path | None = None) -> Records:
    """Every record set under ``results``, validated; errors name the file and line."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    base = root or results.parent
    shown_results = relative(results, base)
    check_settled(results, shown_results)  # nothing to glob in a missing folder
    folders = sorted(p for p in results.iterdir()
                     if p.is_dir() and not p.name.startswith(".")) if results.is_dir() else []
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.name.endswith((".sha256", ".sha256.sig")):
                continue  # a signed set's list and signature: read by its provenance
            shown = relative(path, base)
            suffix = next((s for s in _SUFFIXES if path.name.endswith(s)), None)
            if suffix is None:
                raise HarnessError(f"{shown}:1: not a record file; expected "
                                   f"<device>{', <device>'.join(_SUFFIXES)}")
            key = path.name[: -len(suffix)]
            if key.split("-", 1)[0] not in DEVICE_TYPES:
                raise HarnessError(
                    f"{shown}:1: unknown device {key!r}.{suggest(key, DEVICE_TYPES)}")
            slot, kind = found.setdefault((folder.name, key), {}), _SUFFIXES[suffix]
            if kind == "observations":
                located = read_observations(path, shown)
                slot["observations"] = [o for _, o in located]
                slot["observation_lines"] = {(o.snippet, o.name): loc for loc, o in located}
            else:
                slot[kind] = (read_environments(path, shown) if kind == "environments"
                              else read_rows(path, shown))
    unsigned = unsigned_entries(results, shown_results) if found else {}
    items = []
    for (build, key), parts in sorted(found.items(),
                                      key=lambda item: (version_key(item[0][0]), item[0])):
        if "environments" not in parts:
            raise HarnessError(
                f"{shown_results}/{build}/{key}.env.json:1: missing; every record "
                "needs the environment it was made in (re-run the record command)")
        provenance = verify_set(results, build, key, shown=shown_results, unsigned=unsigned)
        record = DeviceRecord(torch_build=build, device_key=key, provenance=provenance, **parts)
        _attribution(record, relative(results / build, base))
        items.append(record)
    return Records(items=items)
