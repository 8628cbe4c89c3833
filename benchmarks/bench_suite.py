"""Shows the speed targets of the site, on this machine, without timed assertions in the tests.

    python benchmarks/bench_suite.py                  # build and suite against their budgets
    python benchmarks/bench_suite.py --compare-serial # also: -n 2 and serial give the same results

- `mkdocs build --strict` (both languages, notebooks rendered, no execution): budget 10 s.
- The suite as the README runs it (`pytest -n 2 --dist loadfile`) without the real-browser
  tests: budget 20 s. The whole suite, browser included, is timed and reported too: its
  30 browser tests load 18 pages in Chromium, which on 2 cores alone takes about 20 s.
Each is run ``--repeat`` times; the median is compared with the budget (the machine is shared
and noisy, so one slow run proves little). Exit status 1 when a budget is missed or when the
parallel and serial runs disagree on any test's outcome.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = {"build": 10.0, "suite": 20.0, "full": float("inf")}


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def outcomes(junit: Path) -> dict[str, str]:
    """test id → passed/failed/error/skipped, from a JUnit XML report."""
    found: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        tags = {child.tag for child in case}
        state = next((t for t in ("failure", "error", "skipped") if t in tags), "passed")
        found[name] = state
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (median)")
    parser.add_argument("--compare-serial", action="store_true",
                        help="also run the suite serially and compare outcomes with -n 2")
    args = parser.parse_args()
    python = sys.executable
    missed = False
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "build": [python, "-m", "mkdocs", "build", "--strict", "-d", f"{scratch}/site"],
            "suite": [python, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
                      "-m", "not browser"],
            "full": [python, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
                     f"--junitxml={scratch}/parallel.xml"],
        }
        for name, command in commands.items():
            times = []
            for _ in range(args.repeat):
                seconds, done = timed(command)
                if done.returncode != 0:
                    print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
                    print(f"{name}: failed (exit {done.returncode})")
                    return 1
                times.append(seconds)
            median = statistics.median(times)
            ok = median <= BUDGETS[name]
            missed |= not ok
            runs = ", ".join(f"{t:.1f}" for t in times)
            budget = f"budget {BUDGETS[name]:.0f} s  {'ok' if ok else 'MISSED'}" \
                if BUDGETS[name] != float("inf") else "(reported, no budget)"
            print(f"{name:6s} median {median:5.1f} s  (runs: {runs})  {budget}")
        if args.compare_serial:
            seconds, done = timed([python, "-m", "pytest", "-q", "-p", "no:xdist",
                                   f"--junitxml={scratch}/serial.xml"])
            parallel, serial = outcomes(Path(f"{scratch}/parallel.xml")), outcomes(
                Path(f"{scratch}/serial.xml"))
            names = parallel.keys() | serial.keys()
            differ = {k for k in names if parallel.get(k) != serial.get(k)}
            print(f"serial {seconds:5.1f} s; {len(serial)} tests; -n 2 and serial "
                  f"{'agree' if not differ else 'DISAGREE on ' + ', '.join(sorted(differ))}")
            missed |= bool(differ)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
