"""Timing one trial: a :class:`~harness.core.types.TrialSpec` in, a
:class:`~harness.core.rows.TrialRow` out, from ``runs`` fresh processes
(``python -m harness.run.timing``), the drift verdict's unit.

A run times what «Medir PyTorch» keeps apart: loading, the first call (timed before
anything else calls the workload) and ``blocks`` steady blocks, each read as wall time
and as the timed thread's CPU time, which other tenants of a machine barely move. Memory
is the work's own: the peak is reset after loading and counted from the baseline before
it. A failure at any phase is a row with its ``error``, never a missing row.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.core.rows import NOISY_IQR_OVER_MEDIAN, TrialRow
from harness.core.types import Environment, TrialSpec
from harness.run import devices
from harness.run.peaks import bounded_fraction, peak_for
from harness.sources.trials import WORKLOADS_FILE, load_workloads, shape_text, spec_fields

__all__ = ["Measured", "bare_loop", "fixed_calls", "instructions", "one_run", "run_trial"]

_ERROR_CHARS = 300


def _error_text(stage: str, exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    message = f"{stage}: {type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return message[:_ERROR_CHARS]


def _release(device: Any) -> None:
    """Free what the trial held so the next trial's memory peak starts clean."""
    gc.collect()
    if device.type != "cpu":
        import torch

        for owner in (getattr(torch, "accelerator", None), getattr(torch, device.type, None)):
            if owner is not None and hasattr(owner, "empty_cache"):
                owner.empty_cache()
                break


#: Timed blocks per run when trials.toml's ``[method]`` does not say.
MIN_TIMED_BLOCKS = 10
#: A run silent this long is killed as a hang: far above seconds of timing and torch's import.
RUN_TIMEOUT_S = 900


def _block(step: Any, device: Any, number: int, clock: str) -> tuple[float, float]:
    """(wall, CPU time of this thread) per call over ``number`` calls: ``host`` reads the
    host clock once the calls are queued, ``synchronized`` after waiting for them, ``events``
    on the device itself (no CPU time then)."""
    if clock == "events":
        start, end = devices.timing_events(device)
        start.record()
        for _ in range(number):
            step()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1e3 / number, 0.0  # elapsed_time is in ms
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(number):
        step()
    if clock == "synchronized":
        devices.synchronize(device)
    return (time.perf_counter() - wall) / number, (time.thread_time() - cpu) / number


def _steady(step: Any, device: Any, synchronized: bool, min_run_time: float,
            blocks: int) -> tuple[list[float], list[float], int]:
    """(wall per call of each block, thread CPU per call of each block, calls per block):
    the calls per block double until one block lasts ``min_run_time / blocks``."""
    target, number = min_run_time / blocks, 1
    clock = "synchronized" if synchronized else "host"
    while _block(step, device, number, clock)[0] * number < target and number < 1 << 24:
        number *= 2
    wall: list[float] = []
    cpu: list[float] = []
    collecting = gc.isenabled()
    gc.disable()  # as timeit does: a collection inside a block is not the work's time
    try:
        for _ in range(blocks):
            w, c = _block(step, device, number, clock)
            wall.append(w)
            cpu.append(c)
    finally:
        if collecting:
            gc.enable()
    return wall, cpu, number


def fixed_calls(step: Any, *, device: Any, clock: str, calls: int, blocks: int) -> list[float]:
    """Per-call seconds of ``blocks`` blocks of ``calls`` calls (:func:`_block`'s
    ``clock``), each block from a drained queue."""
    times: list[float] = []
    for _ in range(blocks):
        devices.synchronize(device)
        times.append(_block(step, device, calls, clock)[0])
    devices.synchronize(device)  # drain what the host clock did not wait for
    return times


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
              blocks: int = 5, workloads: Path = WORKLOADS_FILE) -> dict[str, Any]:
    """``spec``'s step in a bare loop timed with device events (the host clock on a
    CPU, where every call has finished when it returns), against ``harness_s``: the
    latency the harness recorded for it in this process."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(spec.threads)
    clock = "synchronized" if device.type == "cpu" else "events"
    try:
        work = getattr(load_workloads(workloads), spec.workload)(spec=spec, device=device)
        bare = statistics.median(fixed_calls(work.step, device=device, clock=clock,
                                             calls=calls, blocks=blocks + 1)[1:])  # 1: warm-up
        del work
    finally:
        torch.set_num_threads(previous)
        _release(device)
    return dict(trial=spec.name, clock="host clock (cpu)" if clock != "events" else "device events",
                calls=calls, blocks=blocks, harness_s=harness_s, bare_s=bare,
                ratio=harness_s / bare)


def _memory(spec: TrialSpec, device: Any, workloads: ModuleType) -> dict[str, int]:
    """The work's own peak: built again once the first call has set up the libraries,
    its temporaries of other dtypes freed before the peak is reset, then called a few
    times; counted from the baseline before building, so the inputs it keeps count."""
    _release(device)
    baseline = devices.reset_peak_memory(device)
    module = devices.memory_module(device)
    module = module if hasattr(module, "max_memory_reserved") else None
    reserved = int(module.memory_reserved()) if module is not None else 0
    work = getattr(workloads, spec.workload)(spec=spec, device=device)
    gc.collect()
    devices.reset_peak_memory(device)
    for _ in range(3):
        work.step()
    found = {"memory": devices.peak_memory(device, baseline)}
    if module is not None:
        found["memory_reserved"] = max(0, int(module.max_memory_reserved()) - reserved)
    del work
    _release(device)
    return found


def one_run(spec: TrialSpec, *, device: Any, synchronized: bool, min_run_time: float,
            blocks: int, workloads: ModuleType) -> dict[str, Any]:
    """One run of ``spec`` in this process, which must be fresh: nothing has called the
    workload before its first call is timed (``calls_before_first`` says so)."""
    import torch

    torch.set_num_threads(spec.threads)
    out: dict[str, Any] = {}
    stage, work = "load", None
    calls = [0]
    try:
        start = time.perf_counter()
        built = getattr(workloads, spec.workload)(spec=spec, device=device)
        devices.synchronize(device)
        out["load_s"] = time.perf_counter() - start

        def counted(call: Any = built.step) -> object:
            calls[0] += 1
            return call()

        # Only the counted step stays reachable: any call before the first is seen.
        work = dataclasses.replace(built, step=counted)
        del built
        stage = "first call"
        out["calls_before_first"] = calls[0]
        start = time.perf_counter()
        work.step()
        devices.synchronize(device)
        out["first_call_s"] = time.perf_counter() - start
        step = work.step

        stage = "steady state"
        if "clock" in spec.params:
            number = int(spec.params["calls"])
            wall = fixed_calls(step, device=device, clock=str(spec.params["clock"]),
                               calls=number, blocks=int(spec.params["blocks"]))
            cpu: list[float] = []
        else:
            wall, cpu, number = _steady(step, device, synchronized, min_run_time, blocks)
        devices.synchronize(device)  # drain what an unsynchronized run left queued
        out.update(wall=wall, cpu=cpu if device.type == "cpu" else [], number=number,
                   flops=work.flops, items=work.items, items_unit=work.items_unit)
        stage = "quality"
        out["quality_error"] = work.error()
        stage = "memory"
        del work
        out.update(_memory(spec, device, workloads))
    except Exception as exc:  # noqa: BLE001 - every failure becomes the row's error
        out["error"] = _error_text(stage, exc)
    return out


def _job(spec: TrialSpec, workloads: Path, **more: Any) -> str:
    """What a fresh process needs to build ``spec``'s work, as JSON (:func:`_load`)."""
    return json.dumps(dict(spec=spec_fields(spec), workloads=str(workloads), **more),
                      default=list)


def _load(job: dict[str, Any]) -> tuple[TrialSpec, ModuleType]:
    raw = job["spec"]
    spec = TrialSpec(**{**raw, "shape": tuple(raw["shape"]), "devices": tuple(raw["devices"])})
    return spec, load_workloads(Path(job["workloads"]))


def _fresh_run(spec: TrialSpec, device: Any, synchronized: bool, min_run_time: float,
               blocks: int, workloads: Path) -> dict[str, Any]:
    """:func:`one_run` in a new Python process; its failure is the run's error."""
    job = _job(spec, workloads, device=str(device), synchronized=synchronized,
               min_run_time=min_run_time, blocks=blocks)
    try:
        done = subprocess.run([sys.executable, "-m", "harness.run.timing"], input=job,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"run: no answer after {RUN_TIMEOUT_S} s (a hang)"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return {"error": f"run: process exited {done.returncode}: {last}"[:_ERROR_CHARS]}
    answer: dict[str, Any] = json.loads(lines[-1])
    return answer


@dataclass(frozen=True, kw_only=True)
class Measured:
    """A trial's row and what the record keeps beside it (in its run's environment)."""

    row: TrialRow
    runs: int
    cpu_s: tuple[float, ...] = ()
    """The timed thread's CPU time per call of every block, in ``samples_s`` order."""
    first_calls_s: tuple[float, ...] = ()
    """Each run's first call (the row's ``first_call_s`` is their median)."""
    memory_reserved: int | None = None
    calls_before_first: int = 0
    """Calls of the workload before its first timed call, over all runs: 0."""


def run_trial(spec: TrialSpec, *, device: Any, environment: Environment, spec_hash: str,
              min_run_time: float, runs: int = 1, blocks: int = MIN_TIMED_BLOCKS,
              workloads: Path = WORKLOADS_FILE) -> Measured:
    """Measure ``spec`` on ``device`` in ``runs`` fresh processes of ``blocks`` blocks
    (``min_run_time`` seconds of blocks each); failures are a row with its ``error``."""
    clock = spec.params.get("clock")
    synchronized = (clock != "host" if clock is not None
                    else bool(spec.params.get("synchronize", True)))
    fields: dict[str, Any] = dict(
        trial=spec.name, torch_build=environment.torch_build, device=environment.device_key,
        dtype=spec.dtype, shape=shape_text(spec.shape), batch=spec.batch, task=spec.task,
        threads=spec.threads, tolerance=spec.tolerance, synchronized=synchronized,
        memory_method=devices.memory_method(device), spec_sha256=spec_hash,
        run_id=environment.run_id)
    done = [_fresh_run(spec, device, synchronized, min_run_time, blocks, workloads)
            for _ in range(runs)]
    firsts = tuple(r["first_call_s"] for r in done if "first_call_s" in r)
    loads = [r["load_s"] for r in done if "load_s" in r]
    fields.update(load_s=statistics.median(loads) if loads else None,
                  first_call_s=statistics.median(firsts) if firsts else None)
    failed = next((r for r in done if "error" in r), None)
    if failed is not None or not done:
        fields.update(error=failed["error"] if failed else "run: no run", quality_pass=False)
        return Measured(row=TrialRow(**fields), runs=runs, first_calls_s=firsts)
    times = [t for r in done for t in r["wall"]]
    cpu = tuple(t for r in done for t in r["cpu"])
    fields.update(_statistics(times), number_per_run=done[0]["number"],
                  memory=int(statistics.median(r["memory"] for r in done)))
    median = fields["latency"]
    first = done[0]
    if first["flops"]:
        throughput = first["flops"] / median
        fields.update(throughput=throughput, throughput_unit="FLOP/s")
        fields["peak_fraction"] = bounded_fraction(
            throughput, peak_for(environment, spec.dtype, spec.threads))
    elif first["items"]:
        fields.update(throughput=first["items"] / median, throughput_unit=first["items_unit"])
    error = max(r["quality_error"] for r in done)
    fields.update(quality_error=error, quality_pass=error <= spec.tolerance)
    reserved = [r["memory_reserved"] for r in done if "memory_reserved" in r]
    return Measured(row=TrialRow(**fields), runs=runs,
                    cpu_s=cpu if len(cpu) == len(times) else (), first_calls_s=firsts,
                    memory_reserved=int(statistics.median(reserved)) if reserved else None,
                    calls_before_first=sum(r["calls_before_first"] for r in done))


#: Calls per callgrind collection: a few, since each runs under valgrind (~50× slower).
CALLGRIND_CALLS = 10


def instructions(spec: TrialSpec, *, workloads: Path = WORKLOADS_FILE) -> float:
    """Instructions per call of ``spec``'s step on the CPU, counted by callgrind
    (``Timer.collect_callgrind``, denoised): deterministic where time is not. It starts
    a separate ``python`` found on PATH, so this Python's folder goes first."""
    from torch.utils.benchmark import Timer

    setup = ("import json, torch\n"
             "from harness.run.timing import _load\n"
             f"spec, workloads = _load(json.loads({json.dumps(_job(spec, workloads))}))\n"
             "work = getattr(workloads, spec.workload)(spec=spec, device=torch.device('cpu'))\n"
             "work.step()")
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), path])
    try:
        stats = Timer(stmt="work.step()", setup=setup, num_threads=spec.threads
                      ).collect_callgrind(number=CALLGRIND_CALLS, repeats=None,
                                          collect_baseline=True, retain_out_file=False)
    finally:
        os.environ["PATH"] = path
    return float(stats.counts(denoise=True)) / CALLGRIND_CALLS


def _main() -> None:
    """A run: the job as JSON on stdin, its result as one JSON line on stdout."""
    import torch

    job = json.loads(sys.stdin.read())
    spec, workloads = _load(job)
    out = one_run(spec, device=torch.device(job["device"]), synchronized=job["synchronized"],
                  min_run_time=job["min_run_time"], blocks=job["blocks"], workloads=workloads)
    print(json.dumps(out))


if __name__ == "__main__":
    _main()
