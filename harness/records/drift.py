"""What changed between recorded torch builds, per device key. No torch import.

Examples (per snippet and name): ``identical``, ``within-tolerance`` (within the analytic
tolerance of the first build's value), ``changed``, ``failing`` (holds in some builds
only) or ``missing``. Trials: ``missing``, ``failing`` (an error or a quality failure in
some builds only), ``other-hardware`` (not comparable), and for timings
:func:`~harness.records.drift_stats.timing_verdict` on run summaries. Each device's
:class:`Setup` says what differs besides torch (sessions, wheel variants) and how far two
recording windows drift apart (w, from the device's same-build controls); a trial's
noise floor is its own control run's (``<device>.control.csv``), if any.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Literal

from harness.core.compare import compare
from harness.core.rows import TrialRow
from harness.core.types import Expectation, Observation
from harness.records.drift_stats import (
    Interval,
    run_summaries,
    runs_needed,
    timing_verdict,
    window_noise,
)
from harness.records.store import DeviceRecord, Records
from harness.sources.trials import Method, load_method

__all__ = ["Drift", "Setup", "Summaries", "Verdict", "control_shifts", "drift_report", "machine",
           "setup_of", "summaries", "trial_drift"]

Verdict = Literal["identical", "within-tolerance", "changed", "failing", "missing",
                  "no-measurable-difference", "inconclusive", "other-hardware", "single-build"]


@dataclass(frozen=True, kw_only=True)
class Setup:
    """How the builds compared on one device key were recorded."""

    device: str
    builds: tuple[str, ...]
    one_session: bool  # every compared run names the same non-empty session
    variants: tuple[str, ...] = ()  # the builds' wheel variants when they differ
    controls: tuple[str, ...] = ()  # builds that hold a control run
    window: float | None = None  # w: the log shift between two windows of a build (its sd)
    shifts: int = 0  # the same-build controls w was estimated from


@dataclass(frozen=True, kw_only=True)
class Drift:
    kind: Literal["example", "trial"]
    item: str  # ``snippet name`` for an example, the trial's name for a trial
    device: str  # the device key; builds are compared on the same key only
    verdict: Verdict
    builds: tuple[str, ...]  # oldest first: the first is the baseline
    named: tuple[str, ...] = ()  # the builds missing or failing, the processors, the values
    other: str = ""  # the build whose timing is shown against the first (the widest change)
    interval: Interval | None = None  # the change interval of ``other`` against the first
    runs: tuple[int, ...] = ()  # runs (processes) per build
    needed: int = 0  # runs per build the verdict needs (Bonferroni over the builds)
    floor: float | None = None  # the noise floor (≥ 1) from the trial's own control
    clock: str = ""  # ``cpu`` (the timed thread's CPU time) or ``wall``
    margin: float = 0.0
    setup: Setup | None = None
    samples: tuple[tuple[float, ...], ...] = ()  # the run summaries of the first and ``other``
    instructions: tuple[float | None, ...] = ()  # callgrind's count per call, per build
    instructions_control: float | None = None  # the same count in the first build's control


@dataclass(frozen=True, kw_only=True)
class Summaries:
    wall: tuple[float, ...]
    cpu: tuple[float, ...]  # empty where the run did not record the thread's CPU time
    instructions: float | None = None

    def on(self, clock: str) -> tuple[float, ...]:
        return self.cpu if clock == "cpu" else self.wall


def summaries(record: DeviceRecord, row: TrialRow) -> Summaries:
    """The per-run medians of ``row``: its run's environment says how many processes its
    blocks came from (``runs``; one for a record made before runs were counted) and holds
    the timed thread's CPU time per block (``thread_cpu_s``) and callgrind's count."""
    extra = record.environments[row.run_id].extra
    runs = extra.get("runs", 1)
    runs = runs if isinstance(runs, int) and runs > 0 else 1
    cpu = extra.get("thread_cpu_s", {}).get(row.trial, ())
    counted = extra.get("instructions", {}).get(row.trial)
    return Summaries(wall=run_summaries(row.samples_s, runs),
                     cpu=run_summaries(tuple(cpu), runs) if len(cpu) == len(row.samples_s)
                     else (),
                     instructions=float(counted) if isinstance(counted, (int, float)) else None)


def _floor(base: tuple[float, ...], control: tuple[float, ...]) -> float | None:
    """How far a build's control run landed from it: their medians' ratio (≥ 1)."""
    if not base or not control:
        return None
    ratio = statistics.median(control) / statistics.median(base)
    return max(ratio, 1 / ratio)


def setup_of(device: str, records: list[DeviceRecord]) -> Setup:
    """What differs between ``records`` (one device key) besides torch."""
    builds = tuple(r.torch_build for r in records)
    # The runs that measured the compared timings: an examples run kept from another
    # session (its observations unchanged) measured nothing compared here. A comparison
    # is within one trial, so each trial's builds (and control) must share one session;
    # two trials may come from two sessions.
    sessions: dict[str, set[str]] = {}
    for r in records:
        for row in [*r.rows, *r.control_rows]:
            sessions.setdefault(row.trial, set()).add(r.environments[row.run_id].session)
    variants = tuple(dict.fromkeys(b.partition("+")[2] or "pypi" for b in builds))
    one_session = bool(sessions) and all(len(s) == 1 and "" not in s
                                         for s in sessions.values())
    shifts = control_shifts(records[0]) if records else []
    return Setup(device=device, builds=builds, one_session=one_session,
                 variants=variants if len(variants) > 1 else (),
                 controls=tuple(r.torch_build for r in records if r.control_rows),
                 window=window_noise(shifts), shifts=len(shifts))


def control_shifts(record: DeviceRecord, *, leave_out: str = "") -> list[float]:
    """Each same-build control's ratio to its build (median of run summaries, on the clock
    both recorded), one per trial but ``leave_out``: the draws of the window shift."""
    found = []
    for control in record.control_rows:
        main = record.row(control.trial)
        if control.trial == leave_out or main is None or main.failed or control.failed:
            continue
        ours, again = summaries(record, main), summaries(record, control)
        clock = "cpu" if ours.cpu and again.cpu else "wall"
        if ours.on(clock) and again.on(clock):
            found.append(statistics.median(again.on(clock)) / statistics.median(ours.on(clock)))
    return found


def machine(record: DeviceRecord, row: TrialRow) -> str:
    """The processor a row ran on: the device, its host CPU (on an accelerator) and the
    CPU's vendor numbering where the record keeps it."""
    env = record.environments[row.run_id]
    host = env.cpu_model if env.cpu_model != env.device_name else ""
    return " · ".join(p for p in (env.device_name, host, env.cpu_id) if p)


def trial_drift(trial: str, device: str, records: list[DeviceRecord], *,
                setup: Setup | None = None, method: Method | None = None) -> Drift:
    """One trial across ``records`` (one device key, oldest build first)."""
    method = method or Method()
    builds = tuple(r.torch_build for r in records)
    setup = setup or setup_of(device, records)
    base_drift = Drift(kind="trial", item=trial, device=device, verdict="missing",
                       builds=builds, setup=setup, margin=method.margin)
    rows = {r.torch_build: r.row(trial) for r in records}
    absent = tuple(b for b, row in rows.items() if row is None)
    if absent:
        return replace(base_drift, named=absent)
    present = [row for row in rows.values() if row is not None]
    failed = tuple(row.torch_build for row in present if row.failed)
    if failed and len(failed) < len(present):
        return replace(base_drift, verdict="failing", named=failed)
    machines = tuple(dict.fromkeys(machine(r, row) for r, row in zip(records, present,
                                                                       strict=True)))
    if len(machines) > 1:
        return replace(base_drift, verdict="other-hardware", named=machines)
    if len(present) < 2:
        return replace(base_drift, verdict="single-build")
    if any(not row.samples_s for row in present):
        return replace(base_drift, verdict="failing")
    found = [summaries(r, row) for r, row in zip(records, present, strict=True)]
    control_row = next((c for c in records[0].control_rows if c.trial == trial), None)
    control = summaries(records[0], control_row) if control_row is not None else None
    clock = "cpu" if all(s.cpu for s in found) and (control is None or control.cpu) else "wall"
    runs = tuple(len(s.on(clock)) for s in found)
    needed = runs_needed(len(found) - 1)
    floor = _floor(found[0].on(clock), control.on(clock)) if control is not None else None
    counted = replace(base_drift, runs=runs, needed=needed, floor=floor, clock=clock,
                      instructions=tuple(s.instructions for s in found),
                      instructions_control=control.instructions if control else None)
    if min(runs) < needed:
        return replace(counted, verdict="inconclusive")
    base, others = found[0].on(clock), [s.on(clock) for s in found[1:]]
    verdict, intervals = timing_verdict(base, others, floor=floor, margin=method.margin,
                                        window=setup.window)
    # The build shown is the one farthest from the reference.
    distance = [abs(math.log(i.ratio)) if i is not None else -1.0 for i in intervals]
    index = distance.index(max(distance))
    return replace(counted, verdict=verdict, other=builds[index + 1],
                   interval=intervals[index], samples=(base, others[index]))


def _example_drift(expectation: Expectation, device: str,
                   found: dict[str, Observation | None]) -> Drift:
    builds = tuple(found)
    item = f"{expectation.snippet} {expectation.name}"
    drift = Drift(kind="example", item=item, device=device, verdict="missing", builds=builds)
    absent = tuple(b for b, o in found.items() if o is None)
    if absent:
        return replace(drift, named=absent)
    seen = {b: o for b, o in found.items() if o is not None}
    if len(seen) == 1:
        return replace(drift, verdict="single-build")
    holds = {b: compare(expectation, o).holds for b, o in seen.items()}
    if len(set(holds.values())) > 1:
        return replace(drift, verdict="failing", named=tuple(b for b, ok in holds.items()
                                                             if not ok))
    first, *rest = seen.values()
    if all((o.kind, o.value, o.dtype) == (first.kind, first.value, first.dtype) for o in rest):
        return replace(drift, verdict="identical")
    if first.kind in ("number", "tensor", "sequence"):
        against_first = replace(expectation, value=first.value, raises="")
        if all(compare(against_first, o).holds for o in rest):
            return replace(drift, verdict="within-tolerance")
    return replace(drift, verdict="changed",
                   named=tuple(f"{b}: {o.value!r}"[:80] for b, o in seen.items()))


def drift_report(records: Records, expectations: list[Expectation],
                 trials: list[str], *, method: Method | None = None) -> list[Drift]:
    """Every example expectation and every trial, per device key, classified; a device
    with one recorded build reads ``single-build`` (nothing to compare it with). The
    margin and runs come from ``method`` (default: trials.toml's ``[method]``)."""
    method = method or load_method()
    by_device: dict[str, list[DeviceRecord]] = {}
    for record in records.items:  # already ordered by torch version
        by_device.setdefault(record.device_key, []).append(record)
    found: list[Drift] = []
    for device, items in sorted(by_device.items()):
        observed = [r for r in items if r.observations]
        found += [_example_drift(e, device, {r.torch_build: r.observation(e.snippet, e.name)
                                             for r in observed})
                  for e in (expectations if observed else [])]
        with_rows = [r for r in items if r.rows]
        recorded = {row.trial for r in with_rows for row in r.rows}
        setup = setup_of(device, with_rows)
        found += [trial_drift(t, device, with_rows, setup=setup, method=method)
                  for t in trials if t in recorded]
    return found
