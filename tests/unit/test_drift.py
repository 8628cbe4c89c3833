"""The drift report's verdicts, on fabricated records whose answer is known."""

from __future__ import annotations

import random
from pathlib import Path

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Expectation, Observation
from harness.records.drift import drift_report, ratio_interval, trial_drift
from harness.records.store import DeviceRecord, Records
from harness.views.drift import drift_markdown


def samples(median: float, spread: float, n: int = 40, seed: int = 1) -> tuple[float, ...]:
    """``n`` per-block means around ``median``, uniformly ± ``spread`` (relative)."""
    rng = random.Random(seed)
    return tuple(median * (1 + rng.uniform(-spread, spread)) for _ in range(n))


def record(build: str, *, times: tuple[float, ...] | None = None, value: object = 6.0,
           cpu: str = "Sample CPU", error: str = "") -> DeviceRecord:
    env = Environment(torch_build=build, device_key="cpu", device_name=cpu, run_id=build)
    rows = []
    if times is not None:
        rows.append(TrialRow(trial="mm", torch_build=build, device="cpu", dtype="float32",
                             shape="4x4", batch=1, task="compute", threads=1, tolerance=1e-3,
                             spec_sha256="ab", synchronized=True, run_id=build,
                             latency=sorted(times)[len(times) // 2], samples_s=times,
                             quality_pass=not error, error=error))
    # value None: the build recorded examples, but not this one.
    observations = [Observation(
        snippet="p/s", name="g" if value is not None else "other", kind="tensor",
        value=value if value is not None else 1.0, dtype="torch.float32",
        snippet_sha256="ab", torch_build=build, device_key="cpu", run_id=build)]
    return DeviceRecord(torch_build=build, device_key="cpu", environments={build: env},
                        rows=rows, observations=observations)


EXPECT = Expectation(snippet="p/s", name="g", value=6.0, derivation="2·3",
                     location=Location(path=Path("e.toml"), line=1))


def test_a_3_percent_difference_inside_the_spread_is_no_measurable_difference() -> None:
    # The same spread (±15 % per block) shifted by exactly 3 %: the medians differ by 3 %,
    # well inside what 40 such blocks can resolve.
    base = samples(1e-3, 0.15, seed=1)
    other = tuple(t * 1.03 for t in reversed(base))
    verdict = trial_drift("mm", "cpu", [record("2.13", times=base), record("2.14", times=other)])
    assert verdict.verdict == "no-measurable-difference", verdict
    assert verdict.interval is not None and verdict.interval.low < 1 < verdict.interval.high


def test_a_2x_difference_with_tight_samples_is_changed() -> None:
    base, other = samples(1e-3, 0.01, seed=1), samples(2e-3, 0.01, seed=2)
    verdict = trial_drift("mm", "cpu", [record("2.13", times=base), record("2.14", times=other)])
    assert verdict.verdict == "changed"
    assert verdict.interval is not None and 1.9 < verdict.interval.low <= verdict.interval.high < 2.1


def test_the_interval_brackets_the_ratio_and_narrows_with_more_samples() -> None:
    few = ratio_interval(samples(1.0, 0.2, n=10, seed=3), samples(1.1, 0.2, n=10, seed=4))
    many = ratio_interval(samples(1.0, 0.2, n=400, seed=3), samples(1.1, 0.2, n=400, seed=4))
    for interval in (few, many):
        assert interval.low <= interval.ratio <= interval.high
    assert many.high - many.low < few.high - few.low
    assert many.excludes_one and not few.excludes_one


def test_trials_failing_missing_and_on_other_hardware_are_named() -> None:
    tight = samples(1e-3, 0.01)
    assert trial_drift("mm", "cpu", [record("2.13", times=tight),
                                     record("2.14", times=tight, error="boom")]).verdict == "failing"
    assert trial_drift("mm", "cpu", [record("2.13", times=tight),
                                     record("2.14")]).verdict == "missing"
    assert trial_drift("mm", "cpu", [record("2.13", times=tight),
                                     record("2.14", times=tight, cpu="Other CPU")]
                       ).verdict == "other-hardware"
    assert trial_drift("mm", "cpu", [record("2.13", times=tight)]).verdict == "single-build"


def test_examples_are_identical_within_tolerance_changed_failing_or_missing() -> None:
    def verdict(*values: object) -> str:
        records = Records(items=[record(f"2.1{i}", value=v) for i, v in enumerate(values)])
        (found,) = drift_report(records, [EXPECT], [])
        return found.verdict

    assert verdict(6.0, 6.0) == "identical"
    assert verdict(6.0, 6.000001) == "within-tolerance"   # float32's rtol 1.3e-6
    assert verdict(6.0, 7.0) == "failing"                 # holds in one build only
    assert verdict(7.0, 8.0) == "changed"                 # fails in both, and moved
    assert verdict(6.0, None) == "missing"


def test_the_report_reads_in_both_languages() -> None:
    tight = samples(1e-3, 0.01)
    records = Records(items=[record("2.13", times=tight), record("2.14", times=samples(2e-3, 0.01))])
    report = drift_report(records, [EXPECT], ["mm"])
    spanish, english = drift_markdown(report, "es"), drift_markdown(report, "en")
    assert "**cambió**" in spanish and "idéntico" in spanish
    assert "**changed**" in english and "identical" in english
