"""``python -m harness record``: measure the trials and observe the examples of
this checkout on one device, and merge them into ``results/<torch build>/``.

Only the standard library and torch are needed, so the same command on a GPU
machine with nothing but torch writes the same files. Rows are merged one trial
at a time under the store's lock, so an interrupted run keeps what it measured
and two runs at once keep every row.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from harness.core.errors import HarnessError, relative, suggest
from harness.core.types import DEVICE_TYPES, Environment, TrialSpec
from harness.records import store
from harness.run import devices, timing
from harness.run import environment as env
from harness.run.cpu_guard import QuietGuard
from harness.sources.trials import TRIALS_FILE, load_trials, spec_sha256, workload_sources

__all__ = ["MIN_RUN_TIME", "Progress", "configure", "run", "select_trials"]

ROOT = Path(__file__).resolve().parent.parent
#: Seconds of steady state per trial: blocked_autorange is steady from about 1 s
#: on; the quick (CI) subset trades some of that for speed.
MIN_RUN_TIME = {"quick": 0.5, "full": 1.0}
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
    specs: dict[str, TrialSpec], *, mode: str, names: list[str] | None, device_type: str
) -> tuple[list[TrialSpec], list[TrialSpec]]:
    """(trials to run, trials skipped as not applicable to ``device_type``)."""
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


def _summary(row: dict[str, str]) -> str:
    if row["error"]:
        return f"error: {row['error']}"
    quality = (
        "quality ok" if row["quality_pass"] == "true" else f"QUALITY FAIL ({row['quality_error']})"
    )
    noisy = " noisy" if row["noisy"] == "true" else ""
    return (
        f"{float(row['latency']) * 1e3:.4g} ms, IQR/median {float(row['iqr_over_median']):.1%}"
        f"{noisy}, {float(row['throughput']):.4g} {row['throughput_unit']}, {quality}"
    )


def _record_trials(
    chosen: list[TrialSpec],
    *,
    device: object,
    environment: Environment,
    rows_path: Path,
    min_run_time: float,
    guard: QuietGuard | None,
) -> tuple[list[dict[str, str]], list[str]]:
    """(rows, names of trials that shared the CPUs with other work in every attempt)."""
    sources = workload_sources()
    progress = Progress(len(chosen))
    rows: list[dict[str, str]] = []
    shared_trials: list[str] = []
    for spec in chosen:
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
        store.merge_rows(rows_path, [row])
        rows.append(row)
        note = f", SHARED CPUs {shared:.2f}" if guard and shared > guard.limit else ""
        progress.step(spec.name, _summary(row) + note)
    progress.close()
    return rows, shared_trials


def _record_examples(environment: Environment, path: Path) -> int:
    from harness.run.examples import record_examples, timeout_from_env

    observations = record_examples(root=ROOT, environment=environment, timeout=timeout_from_env())
    store.merge_observations(path, observations)
    return len(observations)


def run(args: argparse.Namespace) -> int:
    """Record as ``args`` asks; returns the exit status."""
    # Trials are read and chosen before torch is imported, so a typo fails in a blink.
    specs = load_trials(args.trials_file) if args.only != "examples" else {}
    chosen, skipped = select_trials(
        specs, mode=args.mode, names=args.trials, device_type=args.device
    )
    for spec in skipped:
        print(
            f"skip {spec.name}: not applicable on {args.device} (devices = {list(spec.devices)})",
            file=sys.stderr,
        )
    device = devices.select(args.device)
    key = store.device_key(device.type, devices.device_name(device))
    min_run_time = args.min_run_time or MIN_RUN_TIME[args.mode]
    threads = max((s.threads for s in chosen), default=env.default_threads())
    extra = {
        "mode": args.mode,
        "min_run_time_s": min_run_time,
        "quiet_guard": args.quiet_guard,
        # glibc's dynamic mmap threshold can make small training steps noisy; say which applied.
        "malloc_mmap_threshold": os.environ.get(
            "MALLOC_MMAP_THRESHOLD_", "glibc default (dynamic)"
        ),
    }
    environment = env.describe(device, key=key, threads=threads, root=ROOT, extra=extra)
    paths = store.record_paths(args.results, env.torch_build(), key)
    # The environment goes first: a record is never without the conditions it was made in.
    # An examples-only run leaves the trials' environment (and its date) as measured:
    # each observation carries its own date.
    if args.only != "examples" or not paths["environment"].exists():
        store.write_environment(paths["environment"], environment)
    if args.only != "examples" and chosen:
        guard = QuietGuard() if args.quiet_guard else None
        rows, shared = _record_trials(
            chosen,
            device=device,
            environment=environment,
            rows_path=paths["rows"],
            min_run_time=min_run_time,
            guard=guard,
        )
        if guard:
            # Written again so the record says which trials other work may have slowed.
            extra = {**environment.extra, "quiet_guard_limit_cores": guard.limit}
            extra["shared_trials"] = shared
            environment = dataclasses.replace(environment, extra=extra)
            store.write_environment(paths["environment"], environment)
        failed = sum(1 for r in rows if r["error"])
        below = sum(1 for r in rows if not r["error"] and r["quality_pass"] != "true")
        noisy = sum(1 for r in rows if r["noisy"] == "true")
        print(
            f"{len(rows)} rows -> {relative(paths['rows'], ROOT)} ({failed} with errors, "
            f"{below} failing quality, {noisy} noisy)",
            file=sys.stderr,
        )
    if args.only != "trials":
        count = _record_examples(environment, paths["observations"])
        print(f"{count} observations -> {relative(paths['observations'], ROOT)}", file=sys.stderr)
    return 0
