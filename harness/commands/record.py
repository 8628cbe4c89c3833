"""``python -m harness record``: measure the trials and observe the examples of
this checkout on one device, and merge them into ``results/<torch build>/``.

Only the standard library and torch are needed, so the same command on a GPU
machine with nothing but torch writes the same files. Everything a run measured
is merged into the record set in one atomic step at its end
(:func:`harness.records.store.commit_set`): a killed or failing run leaves the
previous set byte-identical, and two runs at once keep every row. It exits 1 if
any example failed or nothing was recorded, and prints what it recorded.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import secrets
import sys
import time
from pathlib import Path
from typing import TextIO

from harness.core.errors import HarnessError, relative, suggest
from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, Environment, TrialSpec
from harness.integrations.checkout import ROOT
from harness.records import published, store
from harness.run import devices, timing
from harness.run import environment as env
from harness.run.cpu_guard import QuietGuard
from harness.run.examples import ExampleReport, record_examples, timeout_from_env
from harness.sources.checks import check_project, raise_problems
from harness.sources.project import Project
from harness.sources.trials import TRIALS_FILE, load_trials, spec_sha256, workload_sources

__all__ = ["MIN_RUN_TIME", "Progress", "configure", "new_run_id", "run", "select_trials"]

#: Seconds of steady state per trial: blocked_autorange is steady from about 1 s
#: on; the quick (CI) subset trades some of that for speed.
MIN_RUN_TIME = {"quick": 0.5, "full": 1.0}
NOTHING_RECORDED = "error: nothing was recorded; the previous records are unchanged"
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


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``record`` subcommand's options."""
    parser.add_argument(
        "--device",
        default="cpu",
        choices=DEVICE_TYPES,
        help="device type to record on (default: cpu)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        dest="mode",
        action="store_const",
        const="quick",
        help="only trials marked quick = true (the CI subset)",
    )
    mode.add_argument(
        "--full",
        dest="mode",
        action="store_const",
        const="full",
        help="every trial that applies to the device (default)",
    )
    parser.set_defaults(mode="full")
    parser.add_argument(
        "--only",
        choices=("examples", "trials"),
        help="record only the examples' outputs or only the trials",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=ROOT / "results",
        help="records folder (default: results/ of this checkout)",
    )
    parser.add_argument(
        "--trials",
        nargs="+",
        metavar="NAME",
        help="record only these trials (regardless of --quick)",
    )
    parser.add_argument(
        "--groups",
        nargs="+",
        metavar="GROUP",
        help="record only the trials of these groups (regardless of --quick)",
    )
    parser.add_argument(
        "--trials-file",
        type=Path,
        default=TRIALS_FILE,
        help="trial declarations (default: harness/trials.toml)",
    )
    parser.add_argument(
        "--quiet-guard",
        action="store_true",
        help="before each trial wait for other processes to leave the CPUs, and measure a "
        f"trial again (up to {GUARD_TRIES} times) when they shared them",
    )
    parser.add_argument(
        "--min-run-time",
        type=float,
        metavar="S",
        help="steady-state seconds per trial (default: 0.5 quick, 1.0 full)",
    )


def select_trials(
    specs: dict[str, TrialSpec], *, mode: str, names: list[str] | None, device_type: str,
    groups: list[str] | None = None,
) -> tuple[list[TrialSpec], list[TrialSpec]]:
    """(trials to run, trials skipped as not applicable to ``device_type``)."""
    if groups:
        known = {s.group for s in specs.values()}
        for group in groups:
            if group not in known:
                raise HarnessError(f"--groups: unknown group {group!r}.{suggest(group, known)}")
        names = [s.name for s in specs.values() if s.group in groups] + list(names or [])
    if names:
        for name in names:
            if name not in specs:
                raise HarnessError(f"--trials: unknown trial {name!r}.{suggest(name, set(specs))}")
        chosen = [specs[n] for n in dict.fromkeys(names)]
    else:
        chosen = [s for s in specs.values() if mode == "full" or s.quick]
    return (
        [s for s in chosen if device_type in s.devices],
        [s for s in chosen if device_type not in s.devices],
    )


def _summary(row: TrialRow) -> str:
    if row.error:
        return f"error: {row.error}"
    quality = "quality ok" if row.quality_pass else f"QUALITY FAIL ({row.quality_error:.3g})"
    noisy = " noisy" if row.noisy else ""
    latency, spread = row.latency or 0.0, row.iqr_over_median or 0.0
    return (f"{latency * 1e3:.4g} ms, IQR/median {spread:.1%}{noisy}, "
            f"{row.throughput or 0:.4g} {row.throughput_unit}, {quality}")


def _record_trials(
    chosen: list[TrialSpec],
    *,
    device: object,
    environment: Environment,
    min_run_time: float,
    guard: QuietGuard | None,
) -> tuple[list[TrialRow], list[str]]:
    """(rows, names of trials that shared the CPUs with other work in every attempt)."""
    sources = workload_sources()
    progress = Progress(len(chosen))
    rows: list[TrialRow] = []
    shared_trials: list[str] = []
    for spec in chosen:
        shared = 0.0
        for attempt in range(1, (GUARD_TRIES if guard else 1) + 1):
            progress.show(spec.name, f"attempt {attempt}" if attempt > 1 else "")
            if guard:
                guard.wait()
            since = guard.mark() if guard else None
            row = timing.run_trial(
                spec,
                device=device,
                environment=environment,
                spec_hash=spec_sha256(spec, sources=sources),
                min_run_time=min_run_time,
            )
            shared = guard.others(since) if guard else 0.0
            if guard is None or shared <= guard.limit:
                break
        if guard and shared > guard.limit:
            shared_trials.append(f"{spec.name} ({shared:.2f} other cores)")
        rows.append(row)
        note = f", SHARED CPUs {shared:.2f}" if guard and shared > guard.limit else ""
        progress.step(spec.name, _summary(row) + note)
    progress.close()
    return rows, shared_trials


def _checkout(root: Path) -> Project:
    """The checkout to record, or a clear error when the harness runs from elsewhere
    (an installed copy would otherwise record nothing into site-packages)."""
    missing = [name for name in ("docs", "snippets", "mkdocs.yml") if not (root / name).exists()]
    if missing:
        raise HarnessError(
            f"{root}: not a checkout of the site (no {', '.join(missing)}); run "
            "`python -m harness record` from a clone of the repository, where harness/ sits "
            "beside docs/ and snippets/"
        )
    project = Project.load(root)
    raise_problems(check_project(project))
    return project


def _results_folder(path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise HarnessError(f"--results {path}: exists and is not a folder")
    if not path.parent.is_dir():
        raise HarnessError(f"--results {path}: its parent folder {path.parent} does not exist")
    return path


def new_run_id() -> str:
    """Sortable and unique: UTC time of the start and a random suffix."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{secrets.token_hex(3)}"


def run(args: argparse.Namespace) -> int:
    """Record as ``args`` asks; returns the exit status."""
    # Everything a contributor could have mistyped is checked before torch is imported.
    project = _checkout(ROOT) if args.only != "trials" else None
    results = _results_folder(args.results)
    specs = load_trials(args.trials_file) if args.only != "examples" else {}
    chosen, skipped = select_trials(
        specs, mode=args.mode, names=args.trials, device_type=args.device, groups=args.groups
    )
    for spec in skipped:
        print(
            f"skip {spec.name}: not applicable on {args.device} (devices = {list(spec.devices)})",
            file=sys.stderr,
        )
    if args.only == "trials" and not chosen:
        # Known before torch is imported (seconds): nothing would be recorded.
        print(NOTHING_RECORDED, file=sys.stderr)
        return 1
    device = devices.select(args.device)
    key = store.device_key(device.type, devices.device_name(device))
    min_run_time = args.min_run_time or MIN_RUN_TIME[args.mode]
    threads = max((s.threads for s in chosen), default=env.default_threads())
    extra: dict[str, object] = {
        "mode": args.mode,
        "min_run_time_s": min_run_time,
        "quiet_guard": args.quiet_guard,
        # glibc's dynamic mmap threshold can make small training steps noisy; say which applied.
        "malloc_mmap_threshold": os.environ.get(
            "MALLOC_MMAP_THRESHOLD_", "glibc default (dynamic)"
        ),
        "warm_up": "each trial's workload is built, called and freed once before its "
                   "memory baseline and timing",
    }
    environment = env.describe(device, key=key, threads=threads, root=ROOT, extra=extra)
    environment = dataclasses.replace(environment, run_id=new_run_id())
    paths = store.SetPaths.of(results, environment.torch_build, key)
    rows: list[TrialRow] = []
    if args.only != "examples" and chosen:
        guard = QuietGuard() if args.quiet_guard else None
        rows, shared = _record_trials(chosen, device=device, environment=environment,
                                      min_run_time=min_run_time, guard=guard)
        if guard:
            extra = {**environment.extra, "quiet_guard_limit_cores": guard.limit,
                     "shared_trials": shared}
            environment = dataclasses.replace(environment, extra=extra)
        failed = sum(1 for r in rows if r.error)
        below = sum(1 for r in rows if not r.error and not r.quality_pass)
        print(f"{len(rows)} trial rows ({failed} with errors, {below} failing quality, "
              f"{sum(r.noisy for r in rows)} noisy)", file=sys.stderr)
    report = ExampleReport()
    if project is not None:
        report = record_examples(project=project, environment=environment,
                                 timeout=timeout_from_env())
    if not rows and not report.observations:
        for failure in report.failures:
            print(failure, file=sys.stderr)
        print(NOTHING_RECORDED, file=sys.stderr)
        return 1
    # One atomic step: rows, observations and their environment, or nothing at all.
    committed = store.commit_set(
        paths, environment=environment, rows=rows, observations=report.observations,
        expected=project.expected_keys() if project is not None else None,
    )
    shown = relative(paths.folder, ROOT)
    for removed in committed.removed:
        print(f"removed observation {removed}: no expectation asks for it any more",
              file=sys.stderr)
    for failure in report.failures:
        print(failure, file=sys.stderr)
    print(f"{shown}/{key}: {len(rows)} trial rows and {committed.recorded - len(rows)} "
          f"observations recorded, {committed.unchanged} observations unchanged (date kept), "
          f"{len(report.failures)} examples failed", file=sys.stderr)
    if published.add_set(results, environment.torch_build, key):
        print(f"published: added torch {environment.torch_build} on {key!r} to "
              f"{relative(results / published.PUBLISHED_FILE, ROOT)}", file=sys.stderr)
    return 1 if report.failures else 0
