"""The record command's second phase: carry out a :class:`~harness.commands.record_plan.RecordPlan`.

torch is imported here (through harness.run) and nowhere earlier. The
environment is described once, with the run's id and every setting of the
plan, before the first trial, and completed once with what the trials found
(:func:`_completed`); the trials and then the examples run with a progress
line each; what they produced is merged into the record set in one
atomic step (:func:`harness.records.commit.commit_set`), so a killed or failing
run leaves the previous set byte-identical.
"""

from __future__ import annotations

import datetime
import os
import secrets
import shutil
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from harness.commands.record_plan import RecordPlan
from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records import commit, store
from harness.run import devices, timing
from harness.run import environment as env
from harness.run.examples import ExampleReport, record_examples
from harness.sources.trials import spec_sha256, workload_sources

__all__ = ["GUARD_TRIES", "Outcome", "Progress", "execute", "new_run_id"]

#: Attempts per trial under --quiet-guard before the last one is kept anyway.
GUARD_TRIES = 3


class Progress:
    """A one-line progress bar on stderr (one line per step when not a terminal)."""

    def __init__(self, total: int, *, stream: TextIO | None = None, width: int = 24) -> None:
        # Looked up now, not at import: a test may have replaced sys.stderr since.
        self.total, self.stream, self.width = total, stream or sys.stderr, width
        self.done, self.start = 0, time.perf_counter()
        self.live = self.stream.isatty()

    def show(self, label: str, note: str = "") -> None:
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        text = (
            f"[{bar}] {self.done}/{self.total} {time.perf_counter() - self.start:6.1f} s  "
            f"{label}{'  ' + note if note else ''}"
        )
        if self.live:
            self.stream.write("\r\033[K" + text)
        elif note:
            self.stream.write(text + "\n")
        self.stream.flush()

    def step(self, label: str, note: str) -> None:
        self.done += 1
        self.show(label, note)

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
        self.stream.flush()


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What a run measured and observed, and where it was committed."""

    environment: Environment
    paths: store.SetPaths
    rows: list[TrialRow] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)
    """Trials that shared the CPUs with other work in every attempt (--quiet-guard)."""
    examples: ExampleReport = field(default_factory=ExampleReport)
    committed: commit.CommitReport | None = None
    """``None`` when nothing was recorded (nothing was written)."""


def new_run_id() -> str:
    """Sortable and unique: UTC time of the start and a random suffix."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{secrets.token_hex(3)}"


def _summary(row: TrialRow) -> str:
    if row.error:
        return f"error: {row.error}"
    quality = "quality ok" if row.quality_pass else f"QUALITY FAIL ({row.quality_error:.3g})"
    noisy = " noisy" if row.noisy else ""
    latency = row.latency or 0.0
    spread = "—" if row.iqr_over_median is None else f"{row.iqr_over_median:.1%}"
    return (f"{latency * 1e3:.4g} ms, IQR/median {spread}{noisy}, "
            f"{row.throughput or 0:.4g} {row.throughput_unit}, {quality}")


def _measure(spec: TrialSpec, plan: RecordPlan, *, device: object, environment: Environment,
             sources: dict[str, str], progress: Progress) -> tuple[timing.Measured, float]:
    """A trial's row, measured again under the guard while others shared the CPUs;
    with the share of other work in the attempt that was kept."""
    guard, shared = plan.guard, 0.0
    for attempt in range(1, (GUARD_TRIES if guard else 1) + 1):
        progress.show(spec.name, f"attempt {attempt}" if attempt > 1 else "")
        if guard:
            guard.wait()
        since = guard.mark() if guard else None
        measured = timing.run_trial(spec, device=device, environment=environment,
                                    spec_hash=spec_sha256(spec, sources=sources),
                                    min_run_time=plan.min_run_time, runs=plan.method.runs,
                                    blocks=plan.method.blocks, workloads=plan.workloads)
        shared = guard.others(since) if guard else 0.0
        if guard is None or shared <= guard.limit:
            break
    return measured, shared


def _trials(plan: RecordPlan, *, device: object, environment: Environment
            ) -> tuple[list[TrialRow], list[str], dict[str, object]]:
    """The rows, the trials that shared the CPUs, and what the environment keeps beside
    the rows: runs per trial, the timed thread's CPU time per block, each run's first
    call, accelerator reserved peaks and callgrind's instruction counts."""
    sources = workload_sources(workloads=plan.workloads)
    progress = Progress(len(plan.trials))
    rows: list[TrialRow] = []
    shared_trials: list[str] = []
    beside: dict[str, dict[str, object]] = {"thread_cpu_s": {}, "first_calls_s": {},
                                            "memory_reserved": {}, "instructions": {}}
    counting = plan.instructions and shutil.which("valgrind") is not None
    for spec in plan.trials:
        measured, shared = _measure(spec, plan, device=device, environment=environment,
                                    sources=sources, progress=progress)
        row = measured.row
        over = plan.guard is not None and shared > plan.guard.limit
        if over:
            shared_trials.append(f"{spec.name} ({shared:.2f} other cores)")
        rows.append(row)
        if measured.cpu_s:
            beside["thread_cpu_s"][spec.name] = list(measured.cpu_s)
        if measured.first_calls_s:
            beside["first_calls_s"][spec.name] = list(measured.first_calls_s)
        if measured.memory_reserved is not None:
            beside["memory_reserved"][spec.name] = measured.memory_reserved
        if counting and spec.name in plan.method.instructions and not row.error:
            progress.show(spec.name, "callgrind")
            beside["instructions"][spec.name] = timing.instructions(
                spec, workloads=plan.workloads)
        progress.step(spec.name, _summary(row) + (f", SHARED CPUs {shared:.2f}" if over else ""))
    progress.close()
    extra: dict[str, object] = {"runs": plan.method.runs, "blocks_per_run": plan.method.blocks,
                                **{k: v for k, v in beside.items() if v}}
    if plan.instructions and not counting:
        extra["instructions_missing"] = "valgrind not found: no instruction counts"
    return rows, shared_trials, extra


def _examples(plan: RecordPlan, environment: Environment) -> ExampleReport:
    assert plan.project is not None
    project = plan.project
    progress = Progress(len(project.spanish_pages()))
    seen = [0, 0]  # observations and failures before this page

    def on_page(page: Path, report: ExampleReport) -> None:
        observed, failed = len(report.observations) - seen[0], len(report.failures) - seen[1]
        seen[:] = [len(report.observations), len(report.failures)]
        progress.step(project.shown(page).name,
                      f"{observed} observed{f', {failed} FAILED' if failed else ''}")

    progress.show("examples")
    report = record_examples(project=project, environment=environment,
                             timeout=plan.example_timeout, on_page=on_page)
    progress.close()
    return report


def _environment(plan: RecordPlan, device: object, key: str) -> Environment:
    threads = max((s.threads for s in plan.trials), default=env.default_threads())
    extra: dict[str, object] = {
        "mode": plan.mode,
        "min_run_time_s": plan.min_run_time,
        "quiet_guard": plan.guard is not None,
        # glibc's dynamic mmap threshold can make small training steps noisy; say which applied.
        "malloc_mmap_threshold": os.environ.get(
            "MALLOC_MMAP_THRESHOLD_", "glibc default (dynamic)"
        ),
        "first_call": "each run is a fresh process: the workload is built and its first "
                      "call timed before anything else calls it",
    }
    if plan.guard is not None:
        extra["quiet_guard_limit_cores"] = plan.guard.limit
    return env.describe(device, key=key, threads=threads, root=plan.root, extra=extra,
                        run_id=new_run_id())


def _completed(plan: RecordPlan, environment: Environment, rows: list[TrialRow],
               shared: list[str], device: object, beside: dict[str, object]) -> Environment:
    """The environment with what the trial phase found: the trials that shared the CPUs
    under --quiet-guard, and the --bare-loop comparison.

    It is described once, before the first trial (every row names its run id), and
    completed once, here, before the examples and the commit: the examples, the rows and
    the stored environment are one run's, and nothing else changes it.
    """
    extra = {**environment.extra, **beside}
    extra = {**extra, "shared_trials": shared} if plan.guard else extra
    bare_loop = environment.bare_loop
    timed = next((r for r in rows if r.trial == plan.bare_loop and r.latency), None)
    if timed is not None and timed.latency:  # only a measured row has a latency to compare
        spec = next(s for s in plan.trials if s.name == timed.trial)
        bare_loop = timing.bare_loop(spec, device=device, harness_s=timed.latency,
                                     workloads=plan.workloads)
    return replace(environment, extra=extra, bare_loop=bare_loop)


def execute(plan: RecordPlan) -> Outcome:
    """Measure, observe and commit; nothing is written when nothing was recorded."""
    device = devices.select(plan.device_type)
    key = store.device_key(device.type, devices.device_name(device))
    environment = _environment(plan, device, key)
    paths = store.SetPaths.of(plan.results, environment.torch_build, key)
    rows, shared, beside = _trials(plan, device=device, environment=environment) \
        if plan.trials else ([], [], {})
    environment = _completed(plan, environment, rows, shared, device, beside)
    examples = _examples(plan, environment) if plan.project is not None else ExampleReport()
    committed = None
    if rows or examples.observations:
        # One atomic step: rows, observations and their environment, or nothing at all.
        committed = commit.commit_set(
            paths, environment=environment, rows=rows, observations=examples.observations,
            expected=plan.project.expected_keys() if plan.project is not None else None,
            control=plan.control,
        )
    return Outcome(environment=environment, paths=paths, rows=rows, shared=shared,
                   examples=examples, committed=committed)
