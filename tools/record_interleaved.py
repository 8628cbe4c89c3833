"""Record several torch builds on one machine, interleaved, with a same-build control.

A difference between two torch builds means something only if the machine did not
change between their measurements. So this records the builds the way a comparison
needs: in one session (one ``HARNESS_RECORD_SESSION``), trial by trial, each trial
measured for every build in turn (A B …, then the control: A again), the order rotated
from trial to trial so no build always goes first. Each record call measures the trial in
``[method] runs`` fresh processes (the drift verdict's unit), so the windows of A, B and
A again are adjacent, seconds apart: what drifts on the machine between them shows as
the trial's own noise floor, the control's difference from the main run
(``<device>.control.csv``, ``record --control``). With ``--instructions`` callgrind counts
instructions per call beside time for the trials ``[method]`` names, in every build and
in the control. The examples are observed once per build.

    python tools/record_interleaved.py .venv/bin/python .venv-torch__2.14.1/bin/python

Each argument is a Python whose torch is one build (one virtual environment each, as the
Makefile makes them). Standard library only; it runs ``python -m harness record``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import secrets
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRIALS = ROOT / "trials" / "trials.toml"


def trials(*, device: str, mode: str, groups: list[str] | None = None,
           names: list[str] | None = None) -> list[str]:
    """The trials that apply to ``device`` (of ``groups``, or named, if given), in file
    order. A name that is no trial of ``device`` stops the run before anything records."""
    declared = [t for t in tomllib.loads(TRIALS.read_text(encoding="utf-8")).get("trial", [])
                if device in t.get("devices", [device])]
    if names:
        unknown = sorted(set(names) - {t["name"] for t in declared})
        if unknown:
            raise SystemExit(f"{TRIALS}: no {device} trial named {', '.join(unknown)}")
        return [t["name"] for t in declared if t["name"] in names]
    return [t["name"] for t in declared
            if (t.get("group") in groups if groups else mode == "full" or t.get("quick"))]


def _record(python: str, args: list[str], env: dict[str, str]) -> None:
    command = [python, "-m", "harness", "record", *args]
    print("$", " ".join(command), flush=True)
    done = subprocess.run(command, cwd=ROOT, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"record failed ({done.returncode}): {' '.join(command)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythons", nargs="+", help="one Python per torch build")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="only trials marked quick")
    parser.add_argument("--groups", nargs="+", help="only these trial groups")
    parser.add_argument("--trials", nargs="+", metavar="NAME",
                        help="only these trials (to finish a session: set "
                             "HARNESS_RECORD_SESSION to its name)")
    parser.add_argument("--no-control", action="store_true", help="skip the control runs")
    parser.add_argument("--no-examples", action="store_true",
                        help="skip observing the examples (a trial of the method)")
    parser.add_argument("--results", help="records folder (default: the checkout's)")
    parser.add_argument("--instructions", action="store_true",
                        help="passed on to record: count instructions with callgrind")
    parser.add_argument("--runs", type=int, help="passed on to record: runs per trial")
    parser.add_argument("--min-run-time", help="passed on to record: seconds per run")
    args = parser.parse_args(argv)
    mode = "quick" if args.quick else "full"
    # A CI job names its own session (record-cpu.yml); by hand, one is made here.
    session = os.environ.get("HARNESS_RECORD_SESSION") or (
        datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3))
    env = {**os.environ, "HARNESS_RECORD_SESSION": session, "OMP_NUM_THREADS": "1"}
    common = ["--device", args.device, f"--{mode}"]
    common += ["--results", args.results] if args.results else []
    common += ["--runs", str(args.runs)] if args.runs else []
    common += ["--min-run-time", args.min_run_time] if args.min_run_time else []
    counted = ["--instructions"] if args.instructions else []
    print(f"session {session}: {len(args.pythons)} builds", flush=True)
    for python in [] if args.no_examples else args.pythons:
        _record(python, [*common, "--only", "examples"], env)
    chosen = trials(device=args.device, mode=mode, groups=args.groups, names=args.trials)
    for turn, trial in enumerate(chosen):
        shift = turn % len(args.pythons)
        order = args.pythons[shift:] + args.pythons[:shift]
        for python in order:
            _record(python, [*common, *counted, "--only", "trials", "--trials", trial], env)
        if not args.no_control:
            _record(args.pythons[0], [*common, *counted, "--only", "trials", "--trials", trial,
                                      "--control"], env)
    print(f"session {session}: done; `python -m harness drift` reads the comparison", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
