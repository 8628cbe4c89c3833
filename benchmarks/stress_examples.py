"""The page examples under load: `pytest docs` many times in a row while every core
runs a busy loop, as a busy 2-core CI machine or a contributor's laptop would.

Every run must pass: a failure here is spurious (the pages pass on a quiet machine), and
that is what made `make test` flaky once, when the hang limit was short. Prints each
run's wall time and the count of spurious failures; exits 1 if there was one.
A script, not a timed test:

    python benchmarks/stress_examples.py            # 20 loaded runs
    python benchmarks/stress_examples.py --quick    # 1 run, for the smoke test
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _spin() -> None:
    while True:
        pass


def _run_pages(timeout: float) -> tuple[bool, float, str]:
    """One `pytest docs` run: (passed, wall seconds, its last lines)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "docs", "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly"],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
    return done.returncode == 0, time.perf_counter() - start, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="loaded runs (default 20)")
    parser.add_argument("--quick", action="store_true", help="one run (the smoke test)")
    parser.add_argument("--spinners", type=int, default=os.cpu_count() or 1,
                        help="busy loops beside the runs (default: one per core)")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else args.runs
    spinners = [multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
                for _ in range(args.spinners)]
    for spinner in spinners:
        spinner.start()
    failures: list[str] = []
    walls: list[float] = []
    try:
        for number in range(1, runs + 1):
            passed, wall, tail = _run_pages(timeout=600)
            walls.append(wall)
            print(f"run {number:2d}/{runs}: {'pass' if passed else 'FAIL'}  "
                  f"{wall:6.1f} s", flush=True)
            if not passed:
                failures.append(f"run {number}:\n{tail}")
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.join()
    print(f"{runs} runs beside {len(spinners)} busy loops: {len(failures)} spurious failures; "
          f"wall median {statistics.median(walls):.1f} s, max {max(walls):.1f} s")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
