"""Checks between the cells of a row, and between a record and the run that wrote it.
No torch import.

Each cell was already checked on its own (:mod:`harness.records.rows`); here the
relations a row implies are checked, so a one-cell edit cannot turn ✗ into ✓ or halve
a latency: the quality verdict against error and tolerance, the latency against the
median of its blocks, the spread against the blocks, ``noisy`` against its threshold,
the throughput against the work one call does, the repeats against the blocks kept, the
threads against the trial's declaration, and a run's trials against the rows present.
Stored numbers keep :data:`~harness.records.rows.NUMBER_DIGITS` significant digits
(blocks :data:`~harness.records.rows.SAMPLE_DIGITS`), so each comparison allows that
rounding and nothing more.
"""

from __future__ import annotations

import re
import statistics

from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records.rows import NUMBER_DIGITS, SAMPLE_DIGITS

__all__ = ["NOISY_IQR_OVER_MEDIAN", "row_problems", "selection_problems", "spec_problems"]

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
    if row.throughput is not None and work is not None and not _close(
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


def spec_problems(rows: list[TrialRow], specs: dict[str, TrialSpec]) -> list[str]:
    """Rows whose threads differ from what their trial declares."""
    return [f"{row.location}: trial {row.trial!r} ran with {row.threads} thread(s), but "
            f"trials/trials.toml declares threads = {specs[row.trial].threads}"
            for row in rows if row.trial in specs and row.threads != specs[row.trial].threads]


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
