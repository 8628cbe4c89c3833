"""Records checked against what they claim to describe. No torch import.

:func:`~harness.records.store.load_all` checked each file as data and who vouches for it.
Here every derived field is recomputed, never trusted, so a one-cell edit cannot turn ✗
into ✓ or halve a latency: the quality verdict, latency, IQR, ``noisy``, repeats,
throughput and fraction of peak; the row against its trial's declaration; a run's trials
against the rows present. Across sets: a run's date against its id, a run id in one set
only, the build folder a PEP 440 version, one ``torch_git`` per build. Against the
checkout: every row names a declared trial, every observation an expectation, and no
observation contradicts its expectation unless it declares a known failure. Each
comparison allows the rounding of the stored digits
(:data:`~harness.records.store.NUMBER_DIGITS`, ``SAMPLE_DIGITS``) and nothing more.
"""

from __future__ import annotations

import datetime
import re
import statistics
from pathlib import Path

from harness.core.compare import compare, format_value
from harness.core.errors import relative, suggest
from harness.core.rows import NOISY_IQR_OVER_MEDIAN, TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records.provenance import listed_missing
from harness.records.store import NUMBER_DIGITS, SAMPLE_DIGITS, DeviceRecord, Records
from harness.sources.project import Project
from harness.sources.trials import shape_text

__all__ = ["CONTRADICTS", "check_records", "consistency_problems", "fraction_problems",
           "row_problems", "run_problems", "spec_problems"]

#: How a recorded value that an expectation rejects is reported (``make check`` knows the
#: page's examples would report the same mistake again).
CONTRADICTS = "contradicts the analytic expectation"
#: Half a unit in the last kept digit, relative: the rounding of one stored number.
_CELL = 0.5 * 10.0 ** (1 - NUMBER_DIGITS)
_SAMPLE = 0.5 * 10.0 ** (1 - SAMPLE_DIGITS)
_RUN_ID = re.compile(r"([0-9]{8}T[0-9]{6}Z)-[0-9a-f]+")
#: How long after its run id's time (the command's start) a run may be dated.
_RUN_LENGTH = datetime.timedelta(hours=1)
#: A torch build as PEP 440 writes it, ASCII only: 2.13.0, 2.6.0+cu124, 2.7.0rc1.
_BUILD = re.compile(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?"
                    r"(\+[a-z0-9]+(\.[a-z0-9]+)*)?", re.ASCII)


def _close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def _work(row: TrialRow) -> float | None:
    """What one call does in the throughput's unit: its samples, one call, or 2·m·k·m FLOP."""
    shape = re.fullmatch(r"(\d+)x(\d+)", row.shape)
    if row.throughput_unit == "FLOP/s" and shape:
        m, k = int(shape.group(1)), int(shape.group(2))
        return 2.0 * m * k * m * row.batch
    return {"samples/s": float(row.batch), "calls/s": 1.0}.get(row.throughput_unit)


def _quality(row: TrialRow) -> str | None:
    if row.error and row.quality_pass:
        return "quality_pass is true but the row has an error; a failed phase never passes"
    if row.quality_error is None:
        return ("quality_pass is true with no quality_error; a pass needs a measured error"
                if row.quality_pass else None)
    error, tolerance = f"quality_error {row.quality_error:g}", f"tolerance {row.tolerance:g}"
    if row.quality_pass and row.quality_error > row.tolerance * (1 + 2 * _CELL):
        return f"quality_pass is true but {error} exceeds the {tolerance}"
    if not row.quality_pass and not row.error and \
            row.quality_error < row.tolerance * (1 - 2 * _CELL):
        return f"quality_pass is false but {error} is within the {tolerance}"
    return None


def _timing(row: TrialRow) -> list[str]:
    samples, latency, iqr, ratio = (row.samples_s, row.latency, row.latency_iqr_s,
                                    row.iqr_over_median)
    if latency is None:
        return (["no latency, yet blocks or a throughput are recorded"]
                if samples or row.throughput is not None else [])
    if not samples:
        return ["a latency with no samples_s; the latency is the median of the blocks"]
    found: list[str] = []
    if row.repeats is not None and row.repeats != len(samples):
        found.append(f"repeats is {row.repeats} but samples_s holds {len(samples)} blocks")
    median = statistics.median(samples)
    if not _close(median, latency, _SAMPLE + _CELL):
        found.append(f"latency {latency:g} s is not the median of samples_s ({median:.4g} s)")
    if len(samples) >= 2 and iqr is not None:
        low, _, high = statistics.quantiles(samples, n=4, method="inclusive")
        if abs((high - low) - iqr) > 2 * _SAMPLE * high + _CELL * iqr:
            found.append(f"latency_iqr_s {iqr:g} s is not the IQR of samples_s "
                         f"({high - low:.4g} s)")
    if iqr is not None and ratio is not None and not _close(iqr / latency, ratio, 3 * _CELL):
        found.append(f"iqr_over_median {ratio:g} is not latency_iqr_s / latency "
                     f"({iqr / latency:.6g})")
    if ratio is not None:
        noisy = ratio > NOISY_IQR_OVER_MEDIAN
        if row.noisy != noisy and not _close(ratio, NOISY_IQR_OVER_MEDIAN, _CELL):
            found.append(f"noisy is {str(row.noisy).lower()} but iqr_over_median {ratio:g} is "
                         f"{'above' if noisy else 'within'} {NOISY_IQR_OVER_MEDIAN:g}")
    work = _work(row)
    if row.throughput is not None and work is None:
        found.append(f"throughput in {row.throughput_unit!r} of shape {row.shape!r}: the work "
                     "of a call is not known, so the throughput cannot be checked")
    elif row.throughput is not None and work is not None and not _close(
            row.throughput, work / latency, 3 * _CELL):
        found.append(f"throughput {row.throughput:g} {row.throughput_unit} is not the work of "
                     f"a call ({work:g}) / latency ({work / latency:.6g})")
    return found


def row_problems(rows: list[TrialRow]) -> list[str]:
    """Every relation between a row's cells that does not hold, ``file:line: ...``."""
    return [f"{row.location}: trial {row.trial!r}: {wrong} (a record is evidence: restore it "
            "from git or record it again)"
            for row in rows for wrong in [_quality(row), *_timing(row)] if wrong]


def spec_problems(rows: list[TrialRow], specs: dict[str, TrialSpec], device_type: str) -> list[str]:
    """Rows that differ from what their trial declares, or whose trial does not run on
    this device (a CPU-only trial's row in a GPU record)."""
    problems = []
    for row in (r for r in rows if r.trial in specs):
        spec = specs[row.trial]
        where = spec.location or "trials/trials.toml"
        if device_type not in spec.devices:
            problems.append(f"{row.location}: trial {row.trial!r} runs on {', '.join(spec.devices)}"
                            f" only ({where}), yet this {device_type} record holds a row of it")
        declared = {"threads": spec.threads, "dtype": spec.dtype, "batch": spec.batch,
                    "shape": shape_text(spec.shape), "tolerance": spec.tolerance}
        for name, value in declared.items():
            held = getattr(row, name)
            if held != value and not (name == "tolerance" and _close(held, spec.tolerance, _CELL)):
                problems.append(f"{row.location}: trial {row.trial!r} has {name} = {held!r}, "
                                f"but {where} declares {name} = {value!r}")
    return problems


def fraction_problems(rows: list[TrialRow], environments: dict[str, Environment]) -> list[str]:
    """``peak_fraction`` recomputed: throughput over the run's peak for the row's dtype
    (times its threads on a CPU whose threads each have a core; none otherwise), none
    where there is no peak or the throughput beats it (a beaten peak bounds nothing)."""
    problems = []
    for row in rows:
        env = environments.get(row.run_id)
        peak = env.peak.get(row.dtype) if env and row.throughput_unit == "FLOP/s" else None
        if peak and env and env.device_key == "cpu":
            peak = peak * row.threads if row.threads == 1 or env.own_cores else None
        want = row.throughput / peak if peak and row.throughput and row.throughput <= peak else None
        held = row.peak_fraction
        if (want is None) != (held is None) or (
                want is not None and held is not None and not _close(want, held, 3 * _CELL)):
            problems.append(
                f"{row.location}: trial {row.trial!r}: peak_fraction "
                f"{'empty' if held is None else f'{held:g}'} is not throughput / the run's "
                f"peak ({'none' if want is None else f'{want:.6g}'})")
    return problems


def _misdated(run_id: str, date: str) -> str | None:
    """Why ``date`` is not when run ``run_id`` says it started; ``None`` when it is."""
    started = _RUN_ID.fullmatch(run_id)
    try:
        begun = datetime.datetime.strptime(started.group(1), "%Y%m%dT%H%M%SZ").replace(
            tzinfo=datetime.UTC) if started else None
        when = datetime.datetime.fromisoformat(date)
    except ValueError:
        begun = None
    if begun and begun - _RUN_LENGTH / 60 <= when.replace(tzinfo=when.tzinfo or datetime.UTC) \
            <= begun + _RUN_LENGTH:
        return None
    return (f"run {run_id!r} is dated {date!r}, not when its id says it started (<UTC start>-"
            "<hex>, dated within an hour); a record's date is not edited")


def run_problems(records: list[DeviceRecord], *, results: Path) -> list[str]:
    """Across the sets: each build folder a PEP 440 version, one ``torch_git`` per build,
    each run id in one set only, each run and observation dated when its run started."""
    problems: list[str] = []
    owner: dict[str, Path] = {}
    git: dict[str, tuple[str, Path]] = {}
    for record in records:
        env_file = results / record.torch_build / f"{record.device_key}.env.json"
        if not _BUILD.fullmatch(record.torch_build):
            problems.append(
                f"{env_file}:1: {record.torch_build!r} is not a torch build as PEP 440 writes "
                "it in ASCII (e.g. 2.13.0+cpu); a look-alike letter makes a second build")
        for run_id, env in sorted(record.environments.items()):
            if run_id in owner:
                problems.append(f"{env_file}:1: run {run_id!r} is also a run of "
                                f"{owner[run_id]}; a run records one set")
            owner.setdefault(run_id, env_file)
            seen = git.setdefault(record.torch_build, (env.torch_git, env_file))
            if env.torch_git and seen[0] and env.torch_git != seen[0]:
                problems.append(f"{env_file}:1: run {run_id!r} was made with torch_git "
                                f"{env.torch_git[:12]}, {seen[1]} with {seen[0][:12]}: one "
                                "build has one commit")
            if wrong := _misdated(run_id, env.date):
                problems.append(f"{env_file}:1: {wrong}")
        for (snippet, name), where in record.observation_lines.items():
            found = record.observation(snippet, name)
            if found and (wrong := _misdated(found.run_id, found.date)):
                problems.append(f"{where}: observation {name!r}: {wrong}")
    return problems


def _selection_problems(record: DeviceRecord, folder: Path) -> list[str]:
    """A run that says it measured some trials must leave a row of each (a failure is a
    row too): deleting failing rows would turn ✗ into «sin medición»."""
    problems = []
    for run_id, env in sorted(record.environments.items()):
        control = any(r.run_id == run_id for r in record.control_rows)
        held = {r.trial for r in (record.control_rows if control else record.rows)}
        missing = [t for t in env.trials if t not in held]
        if missing:
            rows_file = f"{record.device_key}{'.control' if control else ''}.csv"
            problems.append(
                f"{folder / rows_file}:1: run {run_id!r} measured {len(env.trials)} trial(s) "
                f"({folder / record.device_key}.env.json), but this file has no row of "
                f"{', '.join(repr(t) for t in missing[:5])}"
                f"{' …' if len(missing) > 5 else ''}; every trial a run measures leaves a "
                "row, a failure included")
    return problems


def consistency_problems(record: DeviceRecord, *, results: Path, root: Path,
                         specs: dict[str, TrialSpec]) -> list[str]:
    """A record set's provenance, and its rows against each other, their trials and runs."""
    every = [*record.rows, *record.control_rows]
    return [*record.provenance.problems, *row_problems(every),
            *spec_problems(every, specs, record.device_type),
            *fraction_problems(every, record.environments),
            *_selection_problems(record, relative(results / record.torch_build, root))]


def check_records(records: Records, *, project: Project, specs: dict[str, TrialSpec],
                  results: Path) -> list[str]:
    """Every problem between the records and the checkout, one line each."""
    shown = relative(results, project.root)
    if not results.is_dir() or not records.items:
        state = "empty" if results.is_dir() else "missing"
        return [f"{shown}: the records folder is {state}; restore results/ from git, or "
                "record the sets"]
    problems = [*listed_missing(results, shown), *run_problems(records.items, results=shown)]
    expectations = {(e.snippet, e.name): e for items in project.expectations.values()
                    for e in items}
    # One wrong expectation is one mistake: its contradicting records are listed together,
    # in the first one's message (at its index in ``problems``).
    contradicted: dict[tuple[str, str], tuple[int, list[str]]] = {}
    for record in records.items:
        problems += consistency_problems(record, results=results, root=project.root, specs=specs)
        problems += [f"{row.location}: record names unknown trial {row.trial!r} (not in "
                     f"trials/trials.toml).{suggest(row.trial, specs)}"
                     for row in record.rows if row.trial not in specs]
        for (snippet, name), where in record.observation_lines.items():
            expectation = expectations.get((snippet, name))
            if expectation is None:
                known = sorted(f"{s} {n}" for s, n in expectations if s == snippet)
                problems.append(
                    f"{where}: record holds an observation of {snippet!r} {name!r}, which no "
                    f"expectation asks for (valid: {', '.join(known) or 'none'}); run "
                    "`python -m harness record --only examples` to drop it")
                continue
            observation = record.observation(snippet, name)
            assert observation is not None
            snippet_now = project.snippets.get(snippet)
            if snippet_now is None or observation.snippet_sha256 != snippet_now.sha256:
                continue  # stale: the page marks it and the build warns separately
            verdict = compare(expectation, observation)
            if verdict.holds or expectation.known_failure:
                continue
            index, places = contradicted.setdefault((snippet, name), (len(problems), []))
            if not places:
                problems.append(
                    f"{where}: recorded {name!r} = "
                    f"{format_value(observation.value, kind=observation.kind)} {CONTRADICTS} "
                    f"at {expectation.location} ({verdict.reason}); fix the derivation or the "
                    'snippet, or declare known_failure = "why" on the expectation so the page '
                    "shows it as such")
            places.append(str(where))
    for index, places in contradicted.values():
        if len(places) > 1:
            problems[index] += f" (so do {', '.join(places[1:])})"
    return problems
