"""Checks between the cells of a row, and between a record and the run that wrote it.
No torch import.

Each cell was already checked on its own (:mod:`harness.records.rows`); here the
relations a row implies are checked, so a one-cell edit cannot turn ✗ into ✓ or halve
a latency: the quality verdict against error and tolerance, the latency against the
median of its blocks, the spread against the blocks, ``noisy`` against its threshold,
the throughput against the work one call does, the fraction of peak against the
throughput and the run's peak, the repeats against the blocks kept, the threads,
dtype, shape, batch, tolerance and devices against the trial's declaration, a run's
trials against the rows present; across sets, a run id's time against its date, each
run id in one set only, the build folder a PEP 440 version, one ``torch_git`` per build.
Stored numbers keep :data:`~harness.records.rows.NUMBER_DIGITS` significant digits
(blocks :data:`~harness.records.rows.SAMPLE_DIGITS`), so each comparison allows that
rounding and nothing more.
"""

from __future__ import annotations

import datetime
import re
import statistics
from pathlib import Path

from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records.rows import NUMBER_DIGITS, SAMPLE_DIGITS
from harness.records.store import DeviceRecord
from harness.sources.trials import shape_text

__all__ = ["NOISY_IQR_OVER_MEDIAN", "fraction_problems", "row_problems", "run_problems",
           "selection_problems", "spec_problems"]

#: The ``noisy`` threshold: harness.run.timing's (which the build cannot import, as it
#: imports torch); tests/unit/test_records_consistency.py keeps the two equal.
NOISY_IQR_OVER_MEDIAN = 0.1
#: Half a unit in the last kept digit, relative: the rounding of one stored number.
_CELL = 0.5 * 10.0 ** (1 - NUMBER_DIGITS)
_SAMPLE = 0.5 * 10.0 ** (1 - SAMPLE_DIGITS)


def _close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def _work(row: TrialRow) -> float | None:
    """What one call does in the throughput's unit, where the row alone says it: a
    batch of samples, one call, or a square product's 2·m·k·m FLOP."""
    if row.throughput_unit == "samples/s":
        return float(row.batch)
    if row.throughput_unit == "calls/s":
        return 1.0
    shape = re.fullmatch(r"(\d+)x(\d+)", row.shape)
    if row.throughput_unit == "FLOP/s" and shape:
        m, k = int(shape.group(1)), int(shape.group(2))
        return 2.0 * m * k * m * row.batch
    return None


def _quality(row: TrialRow) -> str | None:
    if row.error and row.quality_pass:
        return "quality_pass is true but the row has an error; a failed phase never passes"
    if row.quality_error is None:
        return ("quality_pass is true with no quality_error; a pass needs a measured error"
                if row.quality_pass else None)
    within = row.quality_error <= row.tolerance * (1 + 2 * _CELL)
    beyond = row.quality_error >= row.tolerance * (1 - 2 * _CELL)
    if row.quality_pass and not within:
        return (f"quality_pass is true but quality_error {row.quality_error:g} exceeds the "
                f"tolerance {row.tolerance:g}")
    if not row.quality_pass and not row.error and not beyond:
        return (f"quality_pass is false but quality_error {row.quality_error:g} is within the "
                f"tolerance {row.tolerance:g}")
    return None


def _timing(row: TrialRow) -> list[str]:
    found: list[str] = []
    samples = row.samples_s
    if row.latency is None:
        if samples or row.throughput is not None:
            found.append("no latency, yet blocks or a throughput are recorded")
        return found
    if not samples:
        return ["a latency with no samples_s; the latency is the median of the blocks"]
    if row.repeats is not None and row.repeats != len(samples):
        found.append(f"repeats is {row.repeats} but samples_s holds {len(samples)} blocks")
    median = statistics.median(samples)
    if not _close(median, row.latency, _SAMPLE + _CELL):
        found.append(f"latency {row.latency:g} s is not the median of samples_s ({median:.4g} s)")
    if len(samples) >= 2 and row.latency_iqr_s is not None:
        low, _, high = statistics.quantiles(samples, n=4, method="inclusive")
        if abs((high - low) - row.latency_iqr_s) > 2 * _SAMPLE * high + _CELL * row.latency_iqr_s:
            found.append(f"latency_iqr_s {row.latency_iqr_s:g} s is not the IQR of samples_s "
                         f"({high - low:.4g} s)")
    if row.latency_iqr_s is not None and row.iqr_over_median is not None and not _close(
            row.latency_iqr_s / row.latency, row.iqr_over_median, 3 * _CELL):
        found.append(f"iqr_over_median {row.iqr_over_median:g} is not latency_iqr_s / latency "
                     f"({row.latency_iqr_s / row.latency:.6g})")
    if row.iqr_over_median is not None:
        noisy = row.iqr_over_median > NOISY_IQR_OVER_MEDIAN
        edge = _close(row.iqr_over_median, NOISY_IQR_OVER_MEDIAN, _CELL)
        if row.noisy != noisy and not edge:
            found.append(f"noisy is {str(row.noisy).lower()} but iqr_over_median "
                         f"{row.iqr_over_median:g} is {'above' if noisy else 'within'} "
                         f"{NOISY_IQR_OVER_MEDIAN:g}")
    work = _work(row)
    if row.throughput is not None and work is None:
        found.append(f"throughput in {row.throughput_unit!r} of shape {row.shape!r}: the work "
                     "of a call is not known, so the throughput cannot be checked")
    elif row.throughput is not None and work is not None and not _close(
            row.throughput, work / row.latency, 3 * _CELL):
        found.append(f"throughput {row.throughput:g} {row.throughput_unit} is not the work of "
                     f"a call ({work:g}) / latency ({work / row.latency:.6g})")
    return found


def row_problems(rows: list[TrialRow]) -> list[str]:
    """Every relation between a row's cells that does not hold, ``file:line: ...``."""
    problems = []
    for row in rows:
        for wrong in [_quality(row), *_timing(row)]:
            if wrong:
                problems.append(f"{row.location}: trial {row.trial!r}: {wrong} (a record is "
                                "evidence: restore it from git or record it again)")
    return problems


def spec_problems(rows: list[TrialRow], specs: dict[str, TrialSpec],
                  device_type: str) -> list[str]:
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
    where there is no peak or the throughput beats it (a peak that is beaten bounds
    nothing)."""
    problems = []
    for row in rows:
        env = environments.get(row.run_id)
        peak = env.peak.get(row.dtype) if env and row.throughput_unit == "FLOP/s" else None
        if peak and env and env.device_key == "cpu":
            peak = peak * row.threads if row.threads == 1 or env.own_cores else None
        want = row.throughput / peak if peak and row.throughput and row.throughput <= peak \
            else None
        if (want is None) != (row.peak_fraction is None) or (
                want is not None and row.peak_fraction is not None
                and not _close(want, row.peak_fraction, 3 * _CELL)):
            problems.append(
                f"{row.location}: trial {row.trial!r}: peak_fraction "
                f"{'empty' if row.peak_fraction is None else f'{row.peak_fraction:g}'} is not "
                f"throughput / the run's peak ({'none' if want is None else f'{want:.6g}'})")
    return problems


_RUN_ID = re.compile(r"([0-9]{8}T[0-9]{6}Z)-[0-9a-f]+")
#: How long after its run id's time (the command's start) a run may be dated.
_RUN_LENGTH = datetime.timedelta(hours=1)
#: A torch build as PEP 440 writes it, ASCII only: 2.13.0, 2.6.0+cu124, 2.7.0rc1.
_BUILD = re.compile(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?"
                    r"(\+[a-z0-9]+(\.[a-z0-9]+)*)?", re.ASCII)


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
            wrong = _misdated(run_id, env.date)
            problems += [f"{env_file}:1: {wrong}"] if wrong else []
        for (snippet, name), where in record.observation_lines.items():
            found = record.observation(snippet, name)
            wrong = _misdated(found.run_id, found.date) if found else None
            problems += [f"{where}: observation {name!r}: {wrong}"] if wrong else []
    return problems


def selection_problems(
    environments: dict[str, Environment], *, rows: list[TrialRow],
    control_rows: list[TrialRow], shown: dict[str, str],
) -> list[str]:
    """A run that says it measured some trials must leave a row of each (a failure is a
    row too): deleting failing rows would turn ✗ into «sin medición»."""
    problems = []
    for run_id, env in sorted(environments.items()):
        if not env.trials:
            continue
        control = any(r.run_id == run_id for r in control_rows)
        held = {r.trial for r in (control_rows if control else rows)}
        missing = [t for t in env.trials if t not in held]
        if missing:
            part = "control_rows" if control else "rows"
            problems.append(
                f"{shown[part]}:1: run {run_id!r} measured {len(env.trials)} trial(s) "
                f"({shown['environment']}), but this file has no row of "
                f"{', '.join(repr(t) for t in missing[:5])}"
                f"{' …' if len(missing) > 5 else ''}; every trial a run measures leaves a "
                "row, a failure included")
    return problems
