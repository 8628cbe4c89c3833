"""The drift report's verdicts: exact coverage of the median intervals, a Monte-Carlo
false-change rate at every block count the records use, and fabricated records whose
answer is known (sessions, wheel variants, a control's noise floor)."""

from __future__ import annotations

import csv
import html
import math
import random
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from support import ROOT

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Expectation, Observation
from harness.records.commit import commit_set
from harness.records.drift import drift_report, trial_drift
from harness.records.drift_stats import (
    MEDIAN_CONFIDENCE,
    MIN_BLOCKS,
    coverage,
    median_interval,
    median_ranks,
    ratio_interval,
    timing_verdict,
)
from harness.records.store import DeviceRecord, Records, SetPaths, load_all
from harness.views.drift import drift_markdown


def samples(median: float, spread: float, n: int = 40, seed: int = 1) -> tuple[float, ...]:
    """``n`` per-block means around ``median``, uniformly ± ``spread`` (relative)."""
    rng = random.Random(seed)
    return tuple(median * (1 + rng.uniform(-spread, spread)) for _ in range(n))


def row(build: str, times: tuple[float, ...], *, run: str, error: str = "") -> TrialRow:
    return TrialRow(trial="mm", torch_build=build, device="cpu", dtype="float32", shape="4x4",
                    batch=1, task="compute", threads=1, tolerance=1e-3, spec_sha256="ab",
                    synchronized=True, run_id=run, latency=sorted(times)[len(times) // 2],
                    samples_s=times, quality_pass=not error, error=error)


def text_of(page: str) -> str:  # what a reader reads: no tags, entities resolved
    return html.unescape(re.sub(r"<[^>]*>", "", page))


def record(build: str, *, times: tuple[float, ...] | None = None, value: object = 6.0,
           cpu: str = "Sample CPU", error: str = "", session: str = "job-1",
           control: tuple[float, ...] | None = None) -> DeviceRecord:
    env = Environment(torch_build=build, device_key="cpu", device_name=cpu, run_id=build,
                      session=session)
    rows = [row(build, times, run=build, error=error)] if times is not None else []
    controls = [row(build, control, run=build)] if control is not None else []
    # value None: the build recorded examples, but not this one.
    observations = [Observation(
        snippet="p/s", name="g" if value is not None else "other", kind="tensor",
        value=value if value is not None else 1.0, dtype="torch.float32",
        snippet_sha256="ab", torch_build=build, device_key="cpu", run_id=build)]
    return DeviceRecord(torch_build=build, device_key="cpu", environments={build: env},
                        rows=rows, control_rows=controls, observations=observations)


EXPECT = Expectation(snippet="p/s", name="g", value=6.0, derivation="2·3",
                     location=Location(path=Path("e.toml"), line=1))


def test_the_median_interval_coverage_is_the_exact_binomial_bound() -> None:
    for n in range(1, 16):
        for k in range(1, (n + 1) // 2 + 1):
            below = sum(math.comb(n, j) for j in range(k))  # P(B ≤ k−1) · 2ⁿ
            assert coverage(n, k) == 1 - Fraction(2 * below, 2**n)
    # n = 3: even [min, max] covers only 75 %; n = 7 is the first to reach 97.5 %.
    assert coverage(3, 1) == Fraction(3, 4) and coverage(7, 1) == Fraction(63, 64)
    assert MIN_BLOCKS == 7 and all(median_ranks(n) is None for n in range(1, 7))
    for n in range(7, 400):
        k, upper = median_ranks(n) or (0, 0)
        assert upper == n - k + 1 and coverage(n, k) >= MEDIAN_CONFIDENCE
        assert k == (n + 1) // 2 or coverage(n, k + 1) < MEDIAN_CONFIDENCE  # the narrowest


def _normal(rng: random.Random) -> float:
    return 1e-3 * (1 + 0.05 * rng.gauss(0, 1))


def _lognormal(rng: random.Random) -> float:
    return 1e-3 * rng.lognormvariate(0, 0.5)


def _bimodal(rng: random.Random) -> float:  # the 2-thread VM's two modes (FACTS.md)
    return rng.gauss(1e-3, 2e-5) if rng.random() < 0.6 else rng.gauss(1.2e-2, 5e-4)


SHAPES: dict[str, Callable[[random.Random], float]] = {
    "normal": _normal, "lognormal": _lognormal, "bimodal": _bimodal}


def recorded_block_counts() -> tuple[set[int], set[tuple[int, int]]]:
    """Every ``samples_s`` length in the committed records, and the (first, later) pairs
    of lengths that the drift report compares for one trial on one device key."""
    lengths: dict[tuple[str, str], dict[str, int]] = {}
    for path in sorted((ROOT / "results").glob("*/*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for line in csv.DictReader(handle):
                count = len(line["samples_s"].split())
                lengths.setdefault((path.stem, line["trial"]), {})[path.parent.name] = count
    counts = {n for by_build in lengths.values() for n in by_build.values()}
    pairs = {tuple(by_build[b] for b in sorted(by_build)[:2])
             for by_build in lengths.values() if len(by_build) > 1}
    return counts, pairs  # type: ignore[return-value]


def test_identical_distributions_read_changed_at_most_5_percent_of_the_time() -> None:
    counts, pairs = recorded_block_counts()
    assert counts and pairs, "the committed records hold timing samples"
    sizes = sorted({(n, n) for n in counts | set(range(1, 11))} | pairs)
    rng, worst = random.Random(20261201), 0.0
    for shape, draw in SHAPES.items():
        for first, second in sizes:
            # Many repeats where a verdict is borderline (few blocks), fewer where each
            # repeat costs hundreds of draws; the proof holds at every n regardless.
            repeats = 20 if min(first, second) < MIN_BLOCKS else max(
                40, min(400, 6000 // (first + second)))
            changed = 0
            for _ in range(repeats):
                verdict, _interval = timing_verdict([draw(rng) for _ in range(first)],
                                                    [draw(rng) for _ in range(second)])
                if min(first, second) < MIN_BLOCKS:
                    assert verdict == "inconclusive", (shape, first, second)
                changed += verdict == "changed"
            rate = changed / repeats
            worst = max(worst, rate)
            assert rate <= 0.05, f"{shape} at {first}/{second} blocks: {rate:.1%} read changed"
    assert worst > 0, "the simulation never produced a change: it tests nothing"


def test_each_median_interval_covers_the_true_median_at_least_97_5_percent() -> None:
    rng = random.Random(7)
    true_median = 1e-3  # lognormvariate(0, s) has median 1, scaled
    for n in (7, 8, 12, 40):
        covered = 0
        for _ in range(2000):
            low, high = median_interval([_lognormal(rng) for _ in range(n)]) or (0.0, 0.0)
            covered += low <= true_median <= high
        assert covered / 2000 >= 0.975, (n, covered)


def test_a_3_percent_difference_inside_the_spread_is_no_measurable_difference() -> None:
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


def test_below_the_needed_blocks_a_2x_difference_is_inconclusive() -> None:
    base, other = samples(1e-3, 0.01, n=6, seed=1), samples(2e-3, 0.01, n=40, seed=2)
    verdict = trial_drift("mm", "cpu", [record("2.13", times=base), record("2.14", times=other)])
    assert verdict.verdict == "inconclusive" and verdict.blocks == (6, 40)
    assert "6 (2.13) y 40 (2.14); un veredicto necesita 7" in verdict.detail_in("es")
    assert timing_verdict((1e-3,), (2e-3,)) == ("inconclusive", None)  # n = 1: no interval


def test_the_interval_brackets_the_ratio_and_narrows_with_more_samples() -> None:
    few = ratio_interval(samples(1.0, 0.2, n=10, seed=3), samples(1.1, 0.2, n=10, seed=4))
    many = ratio_interval(samples(1.0, 0.2, n=400, seed=3), samples(1.1, 0.2, n=400, seed=4))
    assert few is not None and many is not None
    for interval in (few, many):
        assert interval.low <= interval.ratio <= interval.high
    assert many.high - many.low < few.high - few.low
    assert many.excludes_one and not few.excludes_one


def test_a_difference_inside_the_controls_noise_floor_is_no_measurable_difference() -> None:
    base = samples(1e-3, 0.01, seed=1)
    other = samples(1.05e-3, 0.01, seed=2)   # 5 % slower, tightly: separate intervals
    without = trial_drift("mm", "cpu", [record("2.13", times=base), record("2.14", times=other)])
    assert without.verdict == "changed" and without.setup is not None
    assert without.setup.floor is None
    # The same build measured again in the job drifted by 8 %: 5 % is inside that noise.
    control = samples(1.08e-3, 0.01, seed=3)
    found = trial_drift("mm", "cpu", [record("2.13", times=base, control=control),
                                      record("2.14", times=other)])
    assert found.verdict == "no-measurable-difference"
    assert found.setup is not None and found.setup.floor == pytest.approx(1.08, rel=0.02)
    assert found.setup.controls == ("2.13",)
    band = f"{1 / found.setup.floor:.2f}–{found.setup.floor:.2f}".replace(".", ",")
    assert f"excluye el 1 pero entra en la banda de ruido {band}" in found.detail_in("es")
    assert found.samples == (base, other)  # what the worked example reads


def test_trials_failing_missing_and_on_other_hardware_are_named() -> None:
    tight = samples(1e-3, 0.01)
    assert trial_drift("mm", "cpu", [record("2.13", times=tight),
                                     record("2.14", times=tight, error="boom")]).verdict == "failing"
    assert trial_drift("mm", "cpu", [record("2.13", times=tight),
                                     record("2.14")]).verdict == "missing"
    other = trial_drift("mm", "cpu", [record("2.13", times=tight),
                                      record("2.14", times=tight, cpu="Other CPU")])
    assert other.verdict == "other-hardware" and other.named == ("Sample CPU", "Other CPU")
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


def test_the_report_says_what_else_differs_and_reads_in_both_languages() -> None:
    tight = samples(1e-3, 0.01)
    records = Records(items=[record("2.13.0+cpu", times=tight, session="a"),
                             record("2.14.1+cu130", times=samples(2e-3, 0.01), session="b")])
    report = drift_report(records, [EXPECT], ["mm"])
    spanish, english = (text_of(drift_markdown(report, lang)) for lang in ("es", "en"))
    assert "cambió" in spanish and "Resumen: 1 cambió" in spanish
    assert "1 ejemplo idéntico en todas las versiones (2.13.0+cpu y 2.14.1+cu130)" in spanish
    assert "2.14.1+cu130 tarda 2,0" in spanish and "más lento; intervalo 1," in spanish
    assert "registradas en sesiones distintas" in spanish and "(cpu / cu130)" in spanish
    assert "sin control: ruido desconocido" in spanish
    assert "al menos 7 bloques por versión" in spanish
    assert "takes 2.0" in english
    assert "noise unknown" in english and "slower; interval 1." in english
    same = drift_report(Records(items=[record("2.13", times=tight), record("2.14", times=tight)]),
                        [], ["mm"])
    assert "registradas en una misma sesión" in drift_markdown(same, "es")


def test_spanish_counts_agree_with_their_number() -> None:
    records = Records(items=[record("2.13", value=6.0), record("2.14", value=6.0)])
    report = drift_report(records, [EXPECT, EXPECT], [])
    assert "2 ejemplos idénticos en todas las versiones" in drift_markdown(report, "es")


def test_a_record_set_holds_a_control_run_beside_its_rows(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = SetPaths.of(results, "2.13", "cpu")
    paths.folder.mkdir(parents=True)

    def env(run: str) -> Environment:
        return Environment(torch_build="2.13", device_key="cpu", device_name="Sample CPU",
                           run_id=run, session="job-1", date=f"2026-12-01T00:00:0{run[-1]}")

    def one(run: str, median: float) -> TrialRow:
        return row("2.13", samples(median, 0.01, seed=len(run)), run=run)

    commit_set(paths, environment=env("run-1"), rows=[one("run-1", 1e-3)])
    commit_set(paths, environment=env("run-2"), rows=[one("run-2", 1.04e-3)], control=True)
    commit_set(paths, environment=env("run-3"), rows=[one("run-3", 1e-3)])  # replaces run-1
    (record,) = load_all(results, root=tmp_path).items
    assert [r.run_id for r in record.rows] == ["run-3"]
    assert [r.run_id for r in record.control_rows] == ["run-2"]
    assert set(record.environments) == {"run-2", "run-3"}  # the control's run stays described
    (found,) = drift_report(Records(items=[record, record_like("2.14", record)]), [], ["mm"])
    assert found.setup is not None and found.setup.controls == ("2.13",)
    assert found.setup.floor == pytest.approx(1.04, rel=0.02)


def record_like(build: str, template: DeviceRecord) -> DeviceRecord:
    """``template``'s rows under another build name, recorded in the same session."""
    env = Environment(torch_build=build, device_key="cpu", device_name="Sample CPU",
                      run_id=build, session="job-1")
    rows = [row(build, r.samples_s, run=build) for r in template.rows]
    return DeviceRecord(torch_build=build, device_key="cpu", environments={build: env},
                        rows=rows)


def test_trials_record_the_blocks_a_verdict_needs() -> None:
    """A row with fewer blocks than a verdict needs would read «no concluyente» forever."""
    import ast

    from support import HARNESS

    from harness.records.drift_stats import MIN_BLOCKS

    tree = ast.parse((HARNESS / "run" / "timing.py").read_text(encoding="utf-8"))
    values = [node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
              and any(getattr(t, "id", "") == "MIN_TIMED_BLOCKS" for t in node.targets)
              and isinstance(node.value, ast.Constant)]
    assert values and values[0] >= MIN_BLOCKS
