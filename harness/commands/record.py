"""``python -m harness record``: measure the trials and observe the examples of
this checkout on one device, and merge them into results/<torch build>/.

It runs in three phases. The plan (:mod:`harness.commands.record_plan`) checks
every argument and environment variable before torch is imported; the execution
(:mod:`harness.commands.record_execute`) describes the environment once,
measures, observes and commits in one atomic step; the report says what was
recorded and how to publish a new set. Only the standard library, torch and
filelock are needed, so the same command on a GPU machine with nothing but torch
writes the same files. It exits 1 if any example failed or nothing was recorded,
and 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands.checkout import add_results_option, add_root_option
from harness.commands.record_execute import GUARD_TRIES, Outcome, execute
from harness.commands.record_plan import RecordPlan, make_plan, seconds
from harness.core.errors import relative
from harness.core.types import DEVICE_TYPES
from harness.records.files import locked
from harness.records.provenance import set_files, unsigned_entries, verify_set

__all__ = ["NOTHING_RECORDED", "configure", "report", "run"]

NOTHING_RECORDED = "error: nothing was recorded; the previous records are unchanged"


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``record`` subcommand's options."""
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
    add_root_option(parser)
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
    parser.add_argument("--quiet-guard", action="store_true",
                        help="before each trial wait for other processes to leave the CPUs, "
                             f"and measure a trial again (up to {GUARD_TRIES} times) when "
                             "they shared them")
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
    parser.add_argument("--min-run-time", type=seconds, metavar="S",
                        help="steady-state seconds per trial and run (default: 0.5 quick, "
                             "1.0 full)")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="fresh processes per trial (default: [method] runs of the "
                             "trials file); the drift verdict counts runs, not blocks")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions per call with callgrind (valgrind) for "
                             "the trials [method] instructions names (~100 s each)")


def report(plan: RecordPlan, outcome: Outcome) -> int:
    """Say what the run recorded; the exit status."""
    rows, examples = outcome.rows, outcome.examples
    if rows:
        failed = sum(1 for r in rows if r.error)
        below = sum(1 for r in rows if not r.error and not r.quality_pass)
        print(f"{len(rows)} trial rows ({failed} with errors, {below} failing quality, "
              f"{sum(r.noisy for r in rows)} noisy)", file=sys.stderr)
    if outcome.environment.bare_loop:
        print(f"bare loop: {outcome.environment.bare_loop}", file=sys.stderr)
    for name in outcome.shared:
        print(f"shared CPUs in every attempt: {name}; record it again on a quiet machine",
              file=sys.stderr)
    for failure in examples.failures:
        print(failure, file=sys.stderr)
    committed = outcome.committed
    if committed is None:
        print(NOTHING_RECORDED, file=sys.stderr)
        return 1
    for removed in committed.removed:
        print(f"removed observation {removed}: no expectation asks for it any more",
              file=sys.stderr)
    shown = relative(outcome.paths.folder, plan.root)
    print(f"{shown}/{outcome.paths.key}: {len(rows)} trial rows and "
          f"{committed.recorded - len(rows)} observations recorded, {committed.unchanged} "
          f"observations unchanged (date kept), {len(examples.failures)} examples failed",
          file=sys.stderr)
    folder, key = outcome.paths.folder, outcome.paths.key
    if verify_set(plan.results, folder.name, key, set_files(folder, key), shown=shown.parent,
                  unsigned=unsigned_entries(plan.results, shown.parent)).problems:
        where = "" if plan.results == plan.root / "results" else f" --results {plan.results}"
        print(f"the build accepts this set once the recording workflow signs it, or once you "
              f"vouch for it as recorded by hand: run `python -m harness publish add "
              f"{folder.name} {key}{where}`", file=sys.stderr)
    return 1 if examples.failures else 0


def run(args: argparse.Namespace) -> int:
    """Record as ``args`` asks; returns the exit status."""
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
        return report(plan, execute(plan))
