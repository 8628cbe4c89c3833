"""The drift report's verdicts: the exact Mann–Whitney count, a Monte-Carlo proof of
both error rates on data shaped like the records (autocorrelated blocks, run-to-run
shifts, a shift per recording window, 2 to 6 builds), the committed same-build control,
and fabricated records whose answer is known (sessions, wheel variants, a trial's own
control)."""

from __future__ import annotations

import html
import math
import re
from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from support import ROOT

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Expectation, Observation
from harness.records.commit import commit_set
from harness.records.drift import (
    Drift,
    control_shifts,
    drift_report,
    setup_of,
    summaries,
    trial_drift,
)
from harness.records.drift_stats import (
    ALPHA,
    MIN_CONTROLS,
    mann_whitney_cdf,
    moses_rank,
    ratio_interval,
    run_summaries,
    runs_needed,
    timing_verdict,
    window_noise,
)
from harness.records.store import DeviceRecord, Records, SetPaths, load_all
from harness.sources.trials import Method, load_method
from harness.views.drift import detail, drift_markdown

METHOD = load_method()
RUNS, BLOCKS = METHOD.runs, METHOD.blocks


def samples(median: float, spread: float, *, runs: int = RUNS, seed: int = 1
            ) -> tuple[float, ...]:
    """``runs`` runs of BLOCKS blocks around ``median``: each run shifted by up to
    ± ``spread`` (relative), its blocks within 0.1 % of the run's level."""
    rng = np.random.default_rng(seed)
    levels = median * (1 + rng.uniform(-spread, spread, runs))
    return tuple(float(v) for level in levels
                 for v in level * (1 + rng.uniform(-1e-3, 1e-3, BLOCKS)))


def row(build: str, times: tuple[float, ...], *, run: str, error: str = "") -> TrialRow:
    return TrialRow(trial="mm", torch_build=build, device="cpu", dtype="float32", shape="4x4",
                    batch=1, task="compute", threads=1, tolerance=1e-3, spec_sha256="ab",
                    synchronized=True, run_id=run, latency=sorted(times)[len(times) // 2],
                    samples_s=times, quality_pass=not error, error=error)


def text_of(page: str) -> str:  # what a reader reads: no tags, entities resolved
    return html.unescape(re.sub(r"<[^>]*>", "", page))


def record(build: str, *, times: tuple[float, ...] | None = None, value: object = 6.0,
           cpu: str = "Sample CPU", error: str = "", session: str = "job-1",
           control: tuple[float, ...] | None = None, runs: int = RUNS) -> DeviceRecord:
    extra = {"runs": runs, "thread_cpu_s": {"mm": list(times or ())}}
    env = Environment(torch_build=build, device_key="cpu", device_name=cpu, run_id=build,
                      session=session, extra=extra)
    controls = []
    environments = {build: env}
    if control is not None:
        controls = [row(build, control, run=build + "-control")]
        environments[build + "-control"] = Environment(
            torch_build=build, device_key="cpu", device_name=cpu, run_id=build + "-control",
            session=session, extra={"runs": runs, "thread_cpu_s": {"mm": list(control)}})
    rows = [row(build, times, run=build, error=error)] if times is not None else []
    # value None: the build recorded examples, but not this one.
    observations = [Observation(
        snippet="p/s", name="g" if value is not None else "other", kind="tensor",
        value=value if value is not None else 1.0, dtype="torch.float32",
        snippet_sha256="ab", torch_build=build, device_key="cpu", run_id=build)]
    return DeviceRecord(torch_build=build, device_key="cpu", environments=environments,
                        rows=rows, control_rows=controls, observations=observations)


def drift(records: list[DeviceRecord], *, window: float | None = 0.01) -> Drift:
    """``trial_drift`` of trial mm, on a device whose controls (other trials', not
    fabricated here) put the drift between windows at ``window``."""
    setup = replace(setup_of("cpu", records), window=window, shifts=MIN_CONTROLS)
    return trial_drift("mm", "cpu", records, setup=setup, method=METHOD)


EXPECT = Expectation(snippet="p/s", name="g", value=6.0, derivation="2·3",
                     location=Location(path=Path("e.toml"), line=1))


def test_the_mann_whitney_count_is_exact() -> None:
    # Enumerate every split of m + n ranks: U counts the pairs with the y below the x.
    for m, n in ((1, 1), (2, 3), (3, 3), (4, 2), (5, 5)):
        seen = [0] * (m * n + 1)
        for xs in combinations(range(m + n), m):
            ys = [v for v in range(m + n) if v not in xs]
            seen[sum(y < x for x in xs for y in ys)] += 1
        total = math.comb(m + n, m)
        for u in range(m * n + 1):
            assert mann_whitney_cdf(m, n, u) == Fraction(sum(seen[: u + 1]), total)
    assert moses_rank(5, 5, ALPHA) == 3 and moses_rank(3, 3, ALPHA) is None
    # Five runs a build reach a verdict with up to four builds (three comparisons).
    assert runs_needed(1) == 5 and runs_needed(3) == 5 and runs_needed(5) == 6
    assert RUNS >= runs_needed(3)


#: Trials per simulated record: the window's drift is estimated from their controls.
GROUP = 25


def _simulate(rng: np.random.Generator, *, builds: int, rho: float, change: float,
              trials: int, window_sd: float, widen: bool = True,
              run_sd: float = 0.04) -> tuple[int, int]:
    """(false «cambió», false «sin diferencia medible») over ``trials`` simulated trials.

    Each trial's build (and its control) is recorded in a window of its own, shifted by
    a normal draw of sd ``window_sd`` that all its runs share. Each run: a run-to-run
    shift (lognormal, ``run_sd``), then BLOCKS blocks following an AR(1) with lag-1 correlation
    ``rho`` (2 % innovations). The first build's control is the same build again, in
    another window. ``change`` multiplies the last build's time (1.0: no change). The
    drift between windows is estimated from the controls of each record of GROUP trials,
    as the page does; ``widen=False`` ignores it (the rule before it, which fails)."""
    changed = equivalent = 0
    for start in range(0, trials, GROUP):
        size = min(GROUP, trials - start)
        shape = (size, builds + 1, RUNS)
        shift = rng.normal(0, run_sd, shape) + rng.normal(0, window_sd, shape[:2])[..., None]
        noise = rng.normal(0, 0.02, (*shape, BLOCKS))
        ar = np.empty_like(noise)
        ar[..., 0] = noise[..., 0] / math.sqrt(1 - rho * rho)
        for b in range(1, BLOCKS):
            ar[..., b] = rho * ar[..., b - 1] + noise[..., b]
        times = np.exp(shift[..., None] + ar) * 1e-3
        times[:, builds - 1] *= change  # the last build; index ``builds`` is the control
        medians = np.median(times, axis=-1)  # (trial, build, run): the run summaries
        shifts = [float(np.median(t[builds]) / np.median(t[0])) for t in medians]
        window = window_noise(shifts) if widen else 0.0
        for t, ratio in zip(medians, shifts, strict=True):
            summaries_ = [tuple(float(v) for v in runs) for runs in t]
            verdict, _ = timing_verdict(summaries_[0], summaries_[1:builds],
                                        floor=max(ratio, 1 / ratio), margin=METHOD.margin,
                                        window=window)
            changed += verdict == "changed"
            equivalent += verdict == "no-measurable-difference"
    return changed, equivalent


@pytest.mark.parametrize(("rho", "window_sd"), [(0.0, 0.0), (0.5, 0.04), (0.8, 0.04)])
def test_false_verdicts_stay_under_5_percent_on_autocorrelated_runs(
        rho: float, window_sd: float) -> None:
    """No change: «cambió» at most 5 % of trials; a real 10 % change: «sin diferencia
    medible» at most 5 %; for 2 to 6 builds, at the record's runs and blocks, with and
    without a shift per recording window (about what the committed control shows)."""
    rng = np.random.default_rng(20261202 + int(rho * 10))
    trials = 400
    for builds in range(2, 7):
        changed, _ = _simulate(rng, builds=builds, rho=rho, change=1.0, trials=trials,
                               window_sd=window_sd)
        assert changed / trials <= 0.05, f"{builds} builds, rho {rho}: {changed} of {trials}"
        _, equivalent = _simulate(rng, builds=builds, rho=rho, change=1.10, trials=trials,
                                  window_sd=window_sd)
        assert equivalent / trials <= 0.05, (builds, rho, equivalent)
    # The test could fail: a 50 % change reads «cambió» most of the time; on a quiet
    # machine (1 % between runs, no window shift) «sin diferencia medible» does happen
    # with no change; and where windows drift more, the rule that trusts the runs and the
    # trial's own control alone reads «cambió» far too often. (The controls' differences
    # carry the runs' noise too, so w overstates the windows' own drift: the rule errs
    # towards «no concluyente».)
    changed, _ = _simulate(rng, builds=2, rho=rho, change=1.5, trials=100, window_sd=window_sd)
    assert changed > 50, changed
    _, equivalent = _simulate(rng, builds=2, rho=0.0, change=1.0, trials=100, window_sd=0.0,
                              run_sd=0.01)
    assert equivalent > 0, equivalent
    if window_sd:
        naive, _ = _simulate(rng, builds=2, rho=rho, change=1.0, trials=200,
                             window_sd=2.5 * window_sd, widen=False)
        assert naive / 200 > 0.05, naive


def control_verdicts(results: Path, root: Path | None = None) -> tuple[int, int, int]:
    """(trials checked, of them with enough runs, of those read «cambió») when each
    same-build control is compared with its own build: with floor 1 (the control cannot
    be its own floor, which would make the check trust its input) and the drift between
    windows estimated from the *other* trials' controls."""
    checked = decided = changed = 0
    for record in load_all(results, root=root).items:
        for control in record.control_rows:
            main = record.row(control.trial)
            if main is None or main.failed or control.failed:
                continue
            ours, again = summaries(record, main), summaries(record, control)
            clock = "cpu" if ours.cpu and again.cpu else "wall"
            window = window_noise(control_shifts(record, leave_out=control.trial))
            verdict, _ = timing_verdict(ours.on(clock), [again.on(clock)], floor=1.0,
                                        margin=METHOD.margin, window=window)
            checked += 1
            if min(len(ours.on(clock)), len(again.on(clock))) < runs_needed(1):
                assert verdict == "inconclusive"  # too few runs: no verdict it cannot prove
                continue
            decided += 1
            changed += verdict == "changed"
    return checked, decided, changed


def test_the_committed_control_against_its_own_build_rarely_reads_changed() -> None:
    """The same build recorded twice must read «cambió» in at most 5 % of its trials; a
    record without enough runs reads «no concluyente», never a verdict it cannot prove."""
    checked, decided, changed = control_verdicts(ROOT / "results", ROOT)
    assert checked >= 20, "the committed records hold a same-build control"
    assert decided >= 20, "the committed control holds the runs a verdict needs"
    assert changed <= 0.05 * checked, f"{changed} of {checked} trials read «cambió»"


def test_run_summaries_are_the_median_of_each_runs_blocks() -> None:
    assert run_summaries((1, 2, 3, 10, 20, 30), 2) == (2, 20)
    assert run_summaries((1, 2, 3), 2) == ()  # uneven: no summaries, no verdict
    interval = ratio_interval((1.0, 1.1, 0.9, 1.05, 0.95), (2.0, 2.2, 1.8, 2.1, 1.9))
    assert interval is not None and interval.low <= interval.ratio <= interval.high
    assert interval.ratio == pytest.approx(2.0)


def test_a_tight_2x_change_outside_its_control_is_changed() -> None:
    base, other = samples(1e-3, 0.01, seed=1), samples(2e-3, 0.01, seed=2)
    found = drift([record("2.13", times=base, control=samples(1e-3, 0.01, seed=3)),
                   record("2.14", times=other)])
    assert found.verdict == "changed" and found.clock == "cpu" and found.runs == (5, 5)
    assert found.interval is not None and 1.85 < found.interval.low <= found.interval.high < 2.15
    assert "en tiempo de CPU" in detail(found, "es")
    # The same 2× on a device whose windows drift apart by 40 %: no longer told apart.
    assert drift([record("2.13", times=base, control=samples(1e-3, 0.01, seed=3)),
                  record("2.14", times=other)], window=0.4).verdict == "inconclusive"
    # And with too few controls to know the drift at all, nothing reads «cambió».
    assert drift([record("2.13", times=base, control=samples(1e-3, 0.01, seed=3)),
                  record("2.14", times=other)], window=None).verdict == "inconclusive"


def test_without_a_control_nothing_reads_changed() -> None:
    base, other = samples(1e-3, 0.01, seed=1), samples(2e-3, 0.01, seed=2)
    found = drift([record("2.13", times=base), record("2.14", times=other)])
    assert found.verdict == "inconclusive" and found.floor is None
    assert "sin control" in detail(found, "es")


def test_each_trial_takes_its_own_noise_floor() -> None:
    base = samples(1e-3, 0.01, seed=1)
    other = samples(1.12e-3, 0.01, seed=2)   # 12 % slower, tightly
    near = drift([record("2.13", times=base, control=samples(1.01e-3, 0.01, seed=3)),
                  record("2.14", times=other)])
    assert near.verdict == "changed" and near.floor == pytest.approx(1.01, abs=0.015)
    # The same build drifted 30 % in its own control: 12 % is inside that noise.
    far = drift([record("2.13", times=base, control=samples(1.3e-3, 0.01, seed=3)),
                 record("2.14", times=other)])
    assert far.verdict == "inconclusive" and far.floor == pytest.approx(1.3, rel=0.02)


def test_no_measurable_difference_needs_the_equivalence_test() -> None:
    base = samples(1e-3, 0.005, seed=1)
    same = drift([record("2.13", times=base, control=base),
                  record("2.14", times=samples(1.005e-3, 0.005, seed=2))])
    assert same.verdict == "no-measurable-difference", detail(same, "es")
    assert "dentro de ±5 %" in detail(same, "es")
    # A wide spread: the interval includes 1 but also reaches past ±5 %: «no concluyente».
    wide = drift([record("2.13", times=samples(1e-3, 0.3, seed=1), control=base),
                  record("2.14", times=samples(1e-3, 0.3, seed=5))])
    assert wide.verdict == "inconclusive"
    # Tight runs, but windows that drift 5 % apart: equivalence within ±5 % cannot hold.
    assert drift([record("2.13", times=base, control=base),
                  record("2.14", times=samples(1.005e-3, 0.005, seed=2))],
                 window=0.05).verdict == "inconclusive"


def test_below_the_needed_runs_a_2x_difference_is_inconclusive() -> None:
    base = samples(1e-3, 0.01, runs=1, seed=1)
    other = samples(2e-3, 0.01, runs=1, seed=2)
    found = drift([record("2.13", times=base, runs=1, control=base),
                   record("2.14", times=other, runs=1)])
    assert found.verdict == "inconclusive" and found.runs == (1, 1) and found.needed == 5
    assert "ejecuciones por versión: 1 (2.13) y 1 (2.14); un veredicto necesita 5; suelo " \
        "de ruido del control: 1,00" in detail(found, "es")
    assert timing_verdict((1e-3,), [(2e-3,)], floor=1.0, margin=0.05,
                          window=0.0)[0] == "inconclusive"


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


def with_controls(first: DeviceRecord, times: tuple[float, ...]) -> DeviceRecord:
    """``first`` with MIN_CONTROLS − 1 more trials, each with a control equal to its
    build: enough controls for the drift between windows to be known (here, none)."""
    build = first.torch_build
    for i in range(MIN_CONTROLS - 1):
        name = f"other_{i}"
        first.rows.append(replace(row(build, times, run=build), trial=name))
        first.control_rows.append(replace(row(build, times, run=build + "-control"), trial=name))
        for run in (build, build + "-control"):
            first.environments[run].extra["thread_cpu_s"][name] = list(times)  # type: ignore[index]
    return first


def test_the_report_says_what_else_differs_and_reads_in_both_languages() -> None:
    tight = samples(1e-3, 0.01)
    first = with_controls(record("2.13.0+cpu", times=tight, session="a", control=tight), tight)
    records = Records(items=[first,
                             record("2.14.1+cu130", times=samples(2e-3, 0.01), session="b")])
    report = drift_report(records, [EXPECT], ["mm"], method=METHOD)
    spanish, english = (text_of(drift_markdown(report, lang, method=METHOD))
                        for lang in ("es", "en"))
    assert "cambió" in spanish and "Resumen: 1 cambió" in spanish
    assert "1 salida observada idéntica en todas las versiones (2.13.0+cpu y 2.14.1+cu130)" in spanish
    assert "2.14.1+cu130 tarda 2,0" in spanish and "más lento; intervalo 1," in spanish
    assert "registradas en sesiones distintas" in spanish and "(cpu / cu130)" in spanish
    assert "control: 2.13.0+cpu registrada dos veces" in spanish
    assert "en 5 ejecuciones" in spanish and "dentro de ±5 %" in spanish
    assert "al menos 5 ejecuciones por versión" in spanish
    assert "estimada de 5 controles" in spanish and "from 5 controls" in english
    assert "takes 2.0" in english and "slower; interval 1." in english
    same = drift_report(Records(items=[record("2.13", times=tight), record("2.14", times=tight)]),
                        [], ["mm"])
    assert "registrado en una misma sesión" in drift_markdown(same, "es", method=METHOD)


def test_spanish_counts_agree_with_their_number() -> None:
    records = Records(items=[record("2.13", value=6.0), record("2.14", value=6.0)])
    report = drift_report(records, [EXPECT, EXPECT], [])
    assert "2 salidas observadas idénticas en todas las versiones" in drift_markdown(report, "es")


def test_a_record_set_holds_a_control_run_beside_its_rows(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = SetPaths.of(results, "2.13", "cpu")
    paths.folder.mkdir(parents=True)

    def env(run: str) -> Environment:
        return Environment(torch_build="2.13", device_key="cpu", device_name="Sample CPU",
                           run_id=run, session="job-1", date=f"2026-12-01T00:00:0{run[-1]}",
                           extra={"runs": RUNS})

    def one(run: str, median: float) -> TrialRow:
        return row("2.13", samples(median, 0.001, seed=len(run)), run=run)

    commit_set(paths, environment=env("run-1"), rows=[one("run-1", 1e-3)])
    commit_set(paths, environment=env("run-2"), rows=[one("run-2", 1.04e-3)], control=True)
    commit_set(paths, environment=env("run-3"), rows=[one("run-3", 1e-3)])  # replaces run-1
    (record,) = load_all(results, root=tmp_path).items
    assert [r.run_id for r in record.rows] == ["run-3"]
    assert [r.run_id for r in record.control_rows] == ["run-2"]
    assert set(record.environments) == {"run-2", "run-3"}  # the control's run stays described
    (found,) = drift_report(Records(items=[record, record_like("2.14", record)]), [], ["mm"],
                            method=METHOD)
    assert found.setup is not None and found.setup.controls == ("2.13",)
    assert found.floor == pytest.approx(1.04, rel=0.02) and found.clock == "wall"


def record_like(build: str, template: DeviceRecord) -> DeviceRecord:
    """``template``'s rows under another build name, recorded in the same session."""
    env = Environment(torch_build=build, device_key="cpu", device_name="Sample CPU",
                      run_id=build, session="job-1", extra={"runs": RUNS})
    rows = [row(build, r.samples_s, run=build) for r in template.rows]
    return DeviceRecord(torch_build=build, device_key="cpu", environments={build: env},
                        rows=rows)


def test_the_margin_and_runs_come_from_trials_toml_with_a_reason() -> None:
    assert METHOD.margin == 0.05 and METHOD.margin_reason and METHOD.margin_reason_en
    assert Method().runs == RUNS


def test_instruction_counts_sit_beside_time_with_their_control() -> None:
    base, other = samples(1e-3, 0.01, seed=1), samples(1e-3, 0.01, seed=2)
    first = record("2.13", times=base, control=base)
    first.environments["2.13"].extra["instructions"] = {"mm": 40_184_980.0}
    first.environments["2.13-control"].extra["instructions"] = {"mm": 40_184_616.0}
    second = record("2.14", times=other)
    second.environments["2.14"].extra["instructions"] = {"mm": 44_203_478.0}
    method = Method(margin=0.05, margin_reason="r", margin_reason_en="r", instructions=("mm",))
    report = drift_report(Records(items=[first, second]), [], ["mm"], method=method)
    assert report[0].instructions == (40_184_980.0, 44_203_478.0)
    page = text_of(drift_markdown(report, "es", method=method))
    assert "Instrucciones por llamada." in page and "1,10000×" in page and "0,999991×" in page
    assert "40\u202f184\u202f980" in page  # grouped as Spanish groups digits
    assert "dispersión del recuento: 0,0009058 %" in page
    # Not counted (valgrind missing): the cells read «sin medición».
    plain = drift_report(Records(items=[record("2.13", times=base, control=base),
                                        record("2.14", times=other)]), [], ["mm"],
                         method=method)
    assert "sin medición" in text_of(drift_markdown(plain, "es", method=method))
