"""``python -m harness record``: measure the trials and observe the examples of
this checkout on one device, and merge them into results/<torch build>/.

:func:`make_plan` checks every argument before torch is imported (a typo fails before any
measurement is thrown away); :func:`execute` measures, observes and commits in one atomic
step (a killed or failing run leaves the previous set byte-identical) and says what was
recorded. Exit 1 if any example failed or nothing was recorded, 2 on bad input.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from harness.commands.checkout import add_results_option, records_folder, root_of
from harness.commands.publish import INSTALL_HINT
from harness.core.errors import HarnessError, parse_seconds, relative, suggest
from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, Environment, TrialSpec
from harness.records import commit, store
from harness.records.commit import locked
from harness.records.provenance import unsigned_entries, verify_set
from harness.run import devices, timing
from harness.run.examples import ExampleReport, record_examples, timeout_from_env
from harness.sources.checks import check_project, raise_problems
from harness.sources.project import Project
from harness.sources.trials import Method, load_method, load_trials, spec_sha256, workload_sources

__all__ = ["NOTHING_RECORDED", "RecordPlan", "configure", "execute", "make_plan", "run",
           "select_trials"]

NOTHING_RECORDED = "error: nothing was recorded; the previous records are unchanged"
#: Seconds of steady state per trial: blocked_autorange is steady from about 1 s
#: on; the quick (CI) subset trades some of that for speed.
MIN_RUN_TIME = {"quick": 0.5, "full": 1.0}


def _seconds(text: str) -> float:
    try:
        return parse_seconds(text, what=repr(text))
    except HarnessError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="cpu", choices=DEVICE_TYPES,
                        help="device type to record on (default: cpu)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="mode", action="store_const", const="quick",
                      help="only trials marked quick = true (the CI subset)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="every trial that applies to the device (default)")
    parser.set_defaults(mode="full")
    parser.add_argument("--only", choices=("examples", "trials"),
                        help="record only the examples' outputs or only the trials")
    add_results_option(parser)
    parser.add_argument("--trials", nargs="+", metavar="NAME",
                        help="record only these trials (regardless of --quick)")
    parser.add_argument("--groups", nargs="+", metavar="GROUP",
                        help="record only the trials of these groups (regardless of --quick)")
    parser.add_argument("--trials-file", type=Path,
                        help="trial declarations (default: trials/trials.toml of the checkout)")
    parser.add_argument("--workloads", type=Path,
                        help="the trials' workload functions (default: trials/workloads.py of "
                             "the checkout)")
    parser.add_argument("--bare-loop", metavar="NAME",
                        help="after the trials, time trial NAME's step again in a bare loop "
                             "timed with device events, in the same process, and store "
                             "harness / bare in the environment (NAME must be recorded too)")
    parser.add_argument("--control", action="store_true",
                        help="a same-build control run: the trials go to "
                             "<device>.control.csv, whose difference from the main rows is the "
                             "drift report's noise floor (with --only trials; record the builds "
                             "and the control interleaved in one job, with one "
                             "HARNESS_RECORD_SESSION)")
    parser.add_argument("--min-run-time", type=_seconds, metavar="S",
                        help="steady-state seconds per trial and run (default: 0.5 quick, "
                             "1.0 full)")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="fresh processes per trial (default: [method] runs of the "
                             "trials file); the drift verdict counts runs, not blocks")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions per call with callgrind (valgrind) for "
                             "the trials [method] instructions names (~100 s each)")


# ---------------------------------------------------------------- the plan, without torch

@dataclass(frozen=True, kw_only=True)
class RecordPlan:
    root: Path
    results: Path
    device_type: str
    mode: str
    trials: tuple[TrialSpec, ...]
    skipped: tuple[TrialSpec, ...]  # chosen trials that do not apply to device_type
    project: Project | None  # the pages and expectations when examples are observed
    min_run_time: float
    example_timeout: float
    bare_loop: str = ""
    control: bool = False
    method: Method = Method()
    instructions: bool = False
    workloads: Path = Path("trials/workloads.py")

    @property
    def empty(self) -> bool:
        return not self.trials and self.project is None


def select_trials(
    specs: dict[str, TrialSpec], *, mode: str, names: list[str] | None, device_type: str,
    groups: list[str] | None = None,
) -> tuple[list[TrialSpec], list[TrialSpec]]:
    """(trials to run, trials skipped as not applicable to ``device_type``)."""
    for flag, what, asked, known in (
            ("--groups", "group", groups, {s.group for s in specs.values()}),
            ("--trials", "trial", names, set(specs))):
        for name in asked or []:
            if name not in known:
                raise HarnessError(f"{flag}: unknown {what} {name!r}.{suggest(name, known)}")
    if groups:
        names = [s.name for s in specs.values() if s.group in groups] + list(names or [])
    chosen = ([specs[n] for n in dict.fromkeys(names)] if names
              else [s for s in specs.values() if mode == "full" or s.quick])
    return ([s for s in chosen if device_type in s.devices],
            [s for s in chosen if device_type not in s.devices])


def _require_writable(results: Path, shown: Path) -> None:
    """Fail now, not after every trial was measured, when ``results`` (or the folder it
    would be made in: :func:`records_folder` checked that it exists) cannot take a file."""
    try:
        with tempfile.TemporaryFile(dir=results if results.exists() else results.parent):
            pass
    except OSError as exc:
        raise HarnessError(
            f"{shown}: cannot write there ({exc.strerror or exc}); the record command writes "
            "its results into this folder, so make it writable (or pass --results) before "
            "measuring anything") from None


def make_plan(args: argparse.Namespace) -> RecordPlan:
    """Check every argument and environment variable; import nothing that needs torch."""
    root = root_of(args)
    # The site's trials and workloads are content of the --root checkout unless named.
    trials_file = args.trials_file or root / "trials" / "trials.toml"
    workloads = args.workloads or root / "trials" / "workloads.py"
    project = None
    if args.only != "trials":
        project = Project.load(root)
        raise_problems(check_project(project))
    results = records_folder(args, root, must_exist=False)
    specs, method = {}, Method()
    if args.only != "examples":
        specs = load_trials(trials_file, root=root, workloads=workloads)
        method = load_method(trials_file, root=root)
    chosen, skipped = select_trials(specs, mode=args.mode, names=args.trials,
                                    device_type=args.device, groups=args.groups)
    plan = RecordPlan(
        root=root, results=results, device_type=args.device, mode=args.mode,
        trials=tuple(chosen), skipped=tuple(skipped), project=project,
        min_run_time=args.min_run_time or MIN_RUN_TIME[args.mode],
        example_timeout=timeout_from_env(),
        bare_loop=args.bare_loop or "",
        control=args.control, method=replace(method, runs=args.runs) if args.runs else method,
        instructions=args.instructions, workloads=workloads)
    if plan.control and args.only != "trials":
        raise HarnessError("--control records a second run of the trials only; add "
                           "--only trials (the examples are observed once, by the main run)")
    if plan.bare_loop and plan.bare_loop not in {s.name for s in chosen}:
        raise HarnessError(f"--bare-loop {plan.bare_loop}: not among the trials this run "
                           "records on this device; name it with --trials too")
    if not plan.empty:
        _require_writable(results, relative(results, root))
        if importlib.util.find_spec("torch") is None:
            raise HarnessError(
                "record runs the trials and the examples with torch, which is not installed "
                f"here; install the recording extra: {INSTALL_HINT} (torch, numpy and "
                "filelock), or pip install torch")  # torch requires filelock (the lock)
    return plan


# ---------------------------------------------------------------- the run, with torch

class _Progress:
    """A progress line on stderr per finished step (and per callgrind count)."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def show(self, label: str, note: str) -> None:
        filled = 24 * self.done // max(self.total, 1)
        print(f"[{'#' * filled}{'-' * (24 - filled)}] {self.done}/{self.total} "
              f"{time.perf_counter() - self.start:6.1f} s  {label}  {note}",
              file=sys.stderr, flush=True)

    def step(self, label: str, note: str) -> None:
        self.done += 1
        self.show(label, note)


def _summary(row: TrialRow) -> str:
    if row.error:
        return f"error: {row.error}"
    quality = "quality ok" if row.quality_pass else f"QUALITY FAIL ({row.quality_error:.3g})"
    spread = "—" if row.iqr_over_median is None else f"{row.iqr_over_median:.1%}"
    return (f"{(row.latency or 0.0) * 1e3:.4g} ms, IQR/median {spread}"
            f"{' noisy' if row.noisy else ''}, {row.throughput or 0:.4g} {row.throughput_unit}, "
            f"{quality}")


def _trials(plan: RecordPlan, *, device: object, environment: Environment
            ) -> tuple[list[TrialRow], Environment]:
    """The rows, and the environment (described before the first trial: every row names
    its run id) with what it keeps beside them: runs per trial, the timed thread's CPU time
    per block, each run's first call, accelerator reserved peaks, callgrind's instruction
    counts and the --bare-loop ratio."""
    sources = workload_sources(workloads=plan.workloads)
    progress = _Progress(len(plan.trials))
    rows: list[TrialRow] = []
    beside: dict[str, dict[str, object]] = {"thread_cpu_s": {}, "first_calls_s": {},
                                            "memory_reserved": {}, "instructions": {}}
    counting = plan.instructions and shutil.which("valgrind") is not None
    for spec in plan.trials:
        measured = timing.run_trial(spec, device=device, environment=environment,
                                    spec_hash=spec_sha256(spec, sources=sources),
                                    min_run_time=plan.min_run_time, runs=plan.method.runs,
                                    blocks=plan.method.blocks, workloads=plan.workloads)
        row = measured.row
        rows.append(row)
        kept = {"thread_cpu_s": list(measured.cpu_s), "first_calls_s": list(measured.first_calls_s),
                "memory_reserved": measured.memory_reserved}
        for name, value in kept.items():
            if value not in ([], None):
                beside[name][spec.name] = value
        if counting and spec.name in plan.method.instructions and not row.error:
            progress.show(spec.name, "callgrind")
            beside["instructions"][spec.name] = timing.instructions(spec, workloads=plan.workloads)
        progress.step(spec.name, _summary(row))
    extra: dict[str, object] = {"runs": plan.method.runs, "blocks_per_run": plan.method.blocks,
                                **{k: v for k, v in beside.items() if v}}
    if plan.instructions and not counting:
        extra["instructions_missing"] = "valgrind not found: no instruction counts"
    bare_loop = environment.bare_loop
    timed = next((r for r in rows if r.trial == plan.bare_loop and r.latency), None)
    if timed is not None and timed.latency:  # only a measured row has a latency to compare
        spec = next(s for s in plan.trials if s.name == timed.trial)
        bare_loop = timing.bare_loop(spec, device=device, harness_s=timed.latency,
                                     workloads=plan.workloads)
    return rows, replace(environment, extra={**environment.extra, **extra}, bare_loop=bare_loop)


def _examples(plan: RecordPlan, environment: Environment) -> ExampleReport:
    project = plan.project
    assert project is not None
    progress = _Progress(len(project.spanish_pages()))
    seen = [0, 0]  # observations and failures before this page

    def on_page(page: Path, report: ExampleReport) -> None:
        observed, failed = len(report.observations) - seen[0], len(report.failures) - seen[1]
        seen[:] = [len(report.observations), len(report.failures)]
        progress.step(project.shown(page).name,
                      f"{observed} observed{f', {failed} FAILED' if failed else ''}")

    return record_examples(project=project, environment=environment,
                           timeout=plan.example_timeout, on_page=on_page)


def _environment(plan: RecordPlan, device: object, key: str) -> Environment:
    threads = max((s.threads for s in plan.trials), default=None)
    extra: dict[str, object] = {
        "mode": plan.mode,
        "min_run_time_s": plan.min_run_time,
        # glibc's dynamic mmap threshold can make small training steps noisy; say which applied.
        "malloc_mmap_threshold": os.environ.get(
            "MALLOC_MMAP_THRESHOLD_", "glibc default (dynamic)"),
        "first_call": "each run is a fresh process: the workload is built and its first "
                      "call timed before anything else calls it",
    }
    run_id = f"{datetime.datetime.now(datetime.UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"
    return devices.describe(device, key=key, threads=threads, root=plan.root, extra=extra,
                        run_id=run_id)


def execute(plan: RecordPlan) -> int:
    """Measure, observe and commit in one atomic step (nothing is written when nothing was
    recorded), then say what was recorded."""
    device = devices.select(plan.device_type)
    key = store.device_key(device.type, devices.device_name(device))
    environment = _environment(plan, device, key)
    paths = store.SetPaths.of(plan.results, environment.torch_build, key)
    rows, environment = _trials(plan, device=device, environment=environment) \
        if plan.trials else ([], environment)
    examples = _examples(plan, environment) if plan.project is not None else ExampleReport()
    committed = commit.commit_set(
        paths, environment=environment, rows=rows, observations=examples.observations,
        expected=plan.project.expected_keys() if plan.project is not None else None,
        control=plan.control) if rows or examples.observations else None
    if rows:
        failed = sum(1 for r in rows if r.error)
        below = sum(1 for r in rows if not r.error and not r.quality_pass)
        print(f"{len(rows)} trial rows ({failed} with errors, {below} failing quality, "
              f"{sum(r.noisy for r in rows)} noisy)", file=sys.stderr)
    if environment.bare_loop:
        print(f"bare loop: {environment.bare_loop}", file=sys.stderr)
    for failure in examples.failures:
        print(failure, file=sys.stderr)
    if committed is None:
        print(NOTHING_RECORDED, file=sys.stderr)
        return 1
    for removed in committed.removed:
        print(f"removed observation {removed}: no expectation asks for it any more",
              file=sys.stderr)
    shown = relative(paths.folder, plan.root)
    print(f"{shown}/{key}: {len(rows)} trial rows and "
          f"{committed.recorded - len(rows)} observations recorded, {committed.unchanged} "
          f"observations unchanged (date kept), {len(examples.failures)} examples failed",
          file=sys.stderr)
    if verify_set(plan.results, paths.folder.name, key, shown=shown.parent,
                  unsigned=unsigned_entries(plan.results, shown.parent)).problems:
        where = "" if plan.results == plan.root / "results" else f" --results {plan.results}"
        print(f"the build accepts this set once the recording workflow signs it, or once you "
              f"vouch for it as recorded by hand: run `python -m harness publish add "
              f"{paths.folder.name} {key}{where}`", file=sys.stderr)
    return 1 if examples.failures else 0


def run(args: argparse.Namespace) -> int:
    plan = make_plan(args)
    for spec in plan.skipped:
        print(f"skip {spec.name}: not applicable on {plan.device_type} "
              f"(devices = {list(spec.devices)})", file=sys.stderr)
    if plan.empty:
        # Known before torch is imported (seconds): nothing would be recorded.
        print(NOTHING_RECORDED, file=sys.stderr)
        return 1
    # A second record waits here, naming the lock, before it runs anything.
    with locked(plan.results, shown=relative(plan.results, plan.root)):
        return execute(plan)
