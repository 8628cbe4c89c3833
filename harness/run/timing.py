"""Timing one trial: one :class:`~harness.core.types.TrialSpec` in, one
:class:`~harness.core.rows.TrialRow` out.

The phases the article «Medir PyTorch» asks to keep apart are timed apart:
loading (building inputs or the model), the first call (which may include work
that later disappears: kernel selection, lazy initialisation, allocator
growth) and the steady state. The steady state is
``torch.utils.benchmark.Timer.blocked_autorange``: it synchronizes the
accelerator inside its clock and runs at the thread count it is given, which is
always ``spec.threads`` here (its default of 1 would hide what a row used).

A failure at any phase is a row with its ``error`` and whatever was measured
before it, never a missing row.
"""

from __future__ import annotations

import gc
import time
import timeit
from typing import Any

from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.run import devices, workloads
from harness.run.peaks import bounded_fraction, peak_for
from harness.sources.trials import shape_text

__all__ = ["NOISY_IQR_OVER_MEDIAN", "run_trial"]

#: A row whose IQR exceeds this fraction of its median is flagged ``noisy``.
NOISY_IQR_OVER_MEDIAN = 0.1
_ERROR_CHARS = 300


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


def _steady(step: Any, spec: TrialSpec, synchronized: bool, min_run_time: float) -> Any:
    from torch.utils.benchmark import Timer

    # The unsynchronized variant exists to show the mistake it makes: a plain
    # host clock stops while an accelerator may still be working.
    clock = {} if synchronized else {"timer": timeit.default_timer}
    timer = Timer(
        stmt="step()", globals={"step": step}, num_threads=spec.threads, label=spec.name, **clock
    )
    return timer.blocked_autorange(min_run_time=min_run_time)


def _warm_up(spec: TrialSpec, device: Any) -> None:
    """Build and call the workload once, untimed, then free it.

    One-off initialisation (thread pools, allocator arenas, kernel libraries, lazy
    modules) would otherwise land in the first trial's load time and memory peak,
    so a row would measure its predecessors' set-up rather than its own work.
    """
    try:
        work = getattr(workloads, spec.workload)(spec=spec, device=device)
        work.step()
        devices.synchronize(device)
        del work
    except Exception:  # noqa: BLE001 - the measured pass below reports the failure
        pass
    _release(device)


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

    synchronized = bool(spec.params.get("synchronize", True))
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
        _warm_up(spec, device)
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
        measurement = _steady(work.step, spec, synchronized, min_run_time)
        devices.synchronize(device)  # drain what an unsynchronized run left queued
        median, iqr = float(measurement.median), float(measurement.iqr)
        fields.update(
            latency=median,
            latency_iqr_s=iqr,
            iqr_over_median=iqr / median,
            noisy=iqr / median > NOISY_IQR_OVER_MEDIAN,
            # repeats counts the timed blocks behind the median and IQR (each block
            # runs number_per_run calls; the statistics are over blocks).
            repeats=len(measurement.times),
            samples_s=tuple(float(t) for t in measurement.times),
            number_per_run=int(measurement.number_per_run),
        )
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
