"""Timing one trial: one :class:`~harness.core.types.TrialSpec` in, one
:class:`~harness.core.rows.TrialRow` out.

The phases the article «Medir PyTorch» asks to keep apart are timed apart:
loading (building inputs or the model), the first call (which may include work
that later disappears: kernel selection, lazy initialisation, allocator
growth) and the steady state. The steady state is
``torch.utils.benchmark.Timer.blocked_autorange``: it synchronizes the
accelerator inside its clock and runs at the thread count it is given, which is
always ``spec.threads`` here (its default of 1 would hide what a row used).
A trial whose ``params`` name a ``clock`` instead times a fixed number of calls per
block (:func:`fixed_calls`), to show what each way of reading a clock reports when
few calls are queued.

A failure at any phase is a row with its ``error`` and whatever was measured
before it, never a missing row.
"""

from __future__ import annotations

import gc
import statistics
import time
import timeit
from typing import Any

from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.run import devices, workloads
from harness.run.peaks import bounded_fraction, peak_for
from harness.sources.trials import shape_text

__all__ = ["NOISY_IQR_OVER_MEDIAN", "bare_loop", "fixed_calls", "run_trial"]

#: A row whose IQR exceeds this fraction of its median is flagged ``noisy``.
NOISY_IQR_OVER_MEDIAN = 0.1
_ERROR_CHARS = 300
#: Steady-state seconds of the warm-up pass: enough to run the timing path once.
_WARM_UP_RUN_TIME = 0.01


def _error_text(stage: str, exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    message = f"{stage}: {type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return message[:_ERROR_CHARS]


def _release(device: Any) -> None:
    # Free what the trial held so the next trial's memory peak starts clean.
    gc.collect()
    if device.type != "cpu":
        import torch

        if hasattr(torch, "accelerator") and hasattr(torch.accelerator, "empty_cache"):
            torch.accelerator.empty_cache()
        elif hasattr(getattr(torch, device.type, None), "empty_cache"):
            getattr(torch, device.type).empty_cache()


#: Fewest timed blocks a row keeps. The drift report needs at least
#: harness.records.drift_stats.MIN_BLOCKS per build for a verdict with proven coverage
#: (tests/unit/test_drift.py checks this is not below it); blocked_autorange alone
#: stops after 3 or 4 blocks when one call takes a sizeable part of min_run_time.
MIN_TIMED_BLOCKS = 10


def _steady(step: Any, spec: TrialSpec, synchronized: bool,
            min_run_time: float) -> tuple[list[float], int]:
    """(per-call seconds of each timed block, calls per block) from the Timer: its
    blocked_autorange, then more blocks of the same size up to MIN_TIMED_BLOCKS."""
    from torch.utils.benchmark import Timer

    # The unsynchronized variant exists to show the mistake it makes: a plain
    # host clock stops while an accelerator may still be working.
    clock: dict[str, Any] = {} if synchronized else {"timer": timeit.default_timer}
    timer = Timer(
        stmt="step()", globals={"step": step}, num_threads=spec.threads, label=spec.name, **clock
    )
    measurement = timer.blocked_autorange(min_run_time=min_run_time)
    times, number = [float(t) for t in measurement.times], int(measurement.number_per_run)
    while len(times) < MIN_TIMED_BLOCKS:
        times += [float(t) for t in timer.timeit(number).times]
    return times, number


def fixed_calls(step: Any, *, device: Any, clock: str, calls: int, blocks: int) -> list[float]:
    """Per-call seconds of ``blocks`` blocks of ``calls`` calls, read with ``clock``.

    Each block starts with the device's queue drained, so what a clock reports is
    this block's work alone: ``host`` reads the host clock as soon as the calls are
    queued, ``synchronized`` after waiting for them, ``events`` on the device itself.
    """
    times: list[float] = []
    for _ in range(blocks):
        devices.synchronize(device)
        if clock == "events":
            start, end = devices.timing_events(device)
            start.record()
            for _ in range(calls):
                step()
            end.record()
            end.synchronize()
            seconds = float(start.elapsed_time(end)) / 1e3  # elapsed_time is in ms
        else:
            begin = time.perf_counter()
            for _ in range(calls):
                step()
            if clock == "synchronized":
                devices.synchronize(device)
            seconds = time.perf_counter() - begin
        times.append(seconds / calls)
    devices.synchronize(device)  # drain what the host clock did not wait for
    return times


def _timed(step: Any, spec: TrialSpec, device: Any, synchronized: bool,
           min_run_time: float) -> tuple[list[float], int]:
    if "clock" in spec.params:
        calls = int(spec.params["calls"])
        return fixed_calls(step, device=device, clock=str(spec.params["clock"]), calls=calls,
                           blocks=int(spec.params["blocks"])), calls
    return _steady(step, spec, synchronized, min_run_time)


def _warm_up(spec: TrialSpec, device: Any, synchronized: bool) -> None:
    """Build the workload, call it and run it through the timing path once, then free it.

    One-off initialisation (thread pools, allocator arenas, kernel libraries, lazy
    modules, and the timing path's own imports and buffers) would otherwise land in
    the first trial's load time and memory peak, so a row would measure its
    predecessors' set-up rather than its own work.
    """
    try:
        work = getattr(workloads, spec.workload)(spec=spec, device=device)
        work.step()
        devices.synchronize(device)
        _timed(work.step, spec, device, synchronized, _WARM_UP_RUN_TIME)
        del work
    except Exception:  # noqa: BLE001 - the measured pass below reports the failure
        pass
    _release(device)


def _statistics(times: list[float]) -> dict[str, Any]:
    """Median and spread of the blocks; with fewer than two there is no spread to give."""
    median = statistics.median(times)
    fields: dict[str, Any] = dict(latency=median, repeats=len(times), samples_s=tuple(times))
    if len(times) >= 2:
        # Linear interpolation between order statistics, as the Timer's Measurement.iqr.
        low, _, high = statistics.quantiles(times, n=4, method="inclusive")
        fields.update(latency_iqr_s=high - low, iqr_over_median=(high - low) / median,
                      noisy=(high - low) / median > NOISY_IQR_OVER_MEDIAN)
    return fields


def bare_loop(spec: TrialSpec, *, device: Any, harness_s: float, calls: int = 50,
              blocks: int = 5) -> dict[str, Any]:
    """``spec``'s step in a bare loop timed with device events (the host clock on a
    CPU, where every call has finished when it returns), against ``harness_s``: the
    latency the harness recorded for it in this process."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(spec.threads)
    clock = "synchronized" if device.type == "cpu" else "events"
    try:
        work = getattr(workloads, spec.workload)(spec=spec, device=device)
        fixed_calls(work.step, device=device, clock=clock, calls=calls, blocks=1)  # warm-up
        bare = statistics.median(fixed_calls(work.step, device=device, clock=clock,
                                             calls=calls, blocks=blocks))
        del work
    finally:
        torch.set_num_threads(previous)
        _release(device)
    return dict(trial=spec.name, clock="host clock (cpu)" if clock != "events" else "device events",
                calls=calls, blocks=blocks, harness_s=harness_s, bare_s=bare,
                ratio=harness_s / bare)


def run_trial(
    spec: TrialSpec,
    *,
    device: Any,
    environment: Environment,
    spec_hash: str,
    min_run_time: float,
) -> TrialRow:
    """Measure ``spec`` on ``device``; failures are a row with its ``error``."""
    import torch

    clock = spec.params.get("clock")
    synchronized = (clock != "host" if clock is not None
                    else bool(spec.params.get("synchronize", True)))
    fields: dict[str, Any] = dict(
        trial=spec.name,
        torch_build=environment.torch_build,
        device=environment.device_key,
        dtype=spec.dtype,
        shape=shape_text(spec.shape),
        batch=spec.batch,
        task=spec.task,
        threads=spec.threads,
        tolerance=spec.tolerance,
        memory_method=devices.memory_method(device),
        synchronized=synchronized,
        spec_sha256=spec_hash,
        run_id=environment.run_id,
    )
    previous_threads = torch.get_num_threads()
    # Load and first call run at the trial's thread count too, not only the Timer.
    torch.set_num_threads(spec.threads)
    stage, work = "load", None
    try:
        _warm_up(spec, device, synchronized)
        # The reset comes last before the measured part: nothing between it and the
        # load allocates but what this trial itself builds.
        baseline = devices.reset_peak_memory(device)
        start = time.perf_counter()
        work = getattr(workloads, spec.workload)(spec=spec, device=device)
        devices.synchronize(device)
        fields["load_s"] = time.perf_counter() - start

        stage = "first call"
        start = time.perf_counter()
        work.step()
        devices.synchronize(device)
        fields["first_call_s"] = time.perf_counter() - start

        stage = "steady state"
        times, per_run = _timed(work.step, spec, device, synchronized, min_run_time)
        devices.synchronize(device)  # drain what an unsynchronized run left queued
        # repeats counts the timed blocks behind the median and IQR (each block
        # runs number_per_run calls; the statistics are over blocks).
        fields.update(_statistics(times), number_per_run=per_run)
        median = fields["latency"]
        fields["memory"] = devices.peak_memory(device, baseline)
        if work.flops:
            throughput = work.flops / median
            fields.update(throughput=throughput, throughput_unit="FLOP/s")
            fields["peak_fraction"] = bounded_fraction(
                throughput, peak_for(environment, spec.dtype, spec.threads))
        elif work.items:
            fields.update(throughput=work.items / median, throughput_unit=work.items_unit)

        stage = "quality"
        error = work.error()
        fields.update(quality_error=error, quality_pass=error <= spec.tolerance)
    except Exception as exc:  # noqa: BLE001 - every failure becomes the row's error
        fields["error"] = _error_text(stage, exc)
        fields["quality_pass"] = False
    finally:
        torch.set_num_threads(previous_threads)
        del work
        _release(device)
    return TrialRow(**fields)
