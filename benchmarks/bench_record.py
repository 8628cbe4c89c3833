"""Wall time of the record command on this machine, quick and full, into a
temporary results folder (the repository's results/ is left alone).

    python benchmarks/bench_record.py            # both; exit 1 if over a limit
    python benchmarks/bench_record.py --quick    # only the CI subset
    python benchmarks/bench_record.py --smoke    # one trial, one run: the test suite's
                                                 # smoke run (a crash check, not a figure)

Limits: quick < 30 s (it runs in CI), full < 180 s. Run nothing else that
computes meanwhile: on a 2-core machine a second timing job skews both.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {"quick": 30.0, "full": 180.0}


#: The smallest record that still goes through the command's whole path.
SMOKE = ["--trials", "matmul_256_float32", "--runs", "1", "--min-run-time", "0.05"]


def timed_record(mode: str, results: Path, extra: list[str]) -> tuple[float, int, str]:
    command = [
        sys.executable,
        "-m",
        "harness",
        "record",
        "--device",
        "cpu",
        f"--{mode}",
        "--only",
        "trials",
        "--results",
        str(results),
        *extra,
    ]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    # The summary ("... trial rows and ... observations recorded"), else the last word.
    summary = [line for line in lines if "trial rows and" in line] or lines[-1:]
    return time.perf_counter() - start, done.returncode, summary[-1] if summary else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time only the quick record")
    parser.add_argument("--smoke", action="store_true",
                        help="one trial, one run, no limit (the test suite's crash check)")
    args = parser.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory(prefix="bench-record-smoke-") as folder:
            seconds, status, last = timed_record("quick", Path(folder), SMOKE)
        print(f"smoke: {seconds:6.1f} s (no limit), exit {status} | {last}")
        return 0 if status == 0 else 2  # the record failed: not a verdict
    failed = False
    for mode in ("quick",) if args.quick else ("quick", "full"):
        with tempfile.TemporaryDirectory(prefix=f"bench-record-{mode}-") as folder:
            seconds, status, last = timed_record(mode, Path(folder), [])
        within = status == 0 and seconds < LIMITS[mode]
        failed = failed or not within
        print(
            f"{mode:5s}: {seconds:6.1f} s (limit {LIMITS[mode]:.0f} s), exit {status} "
            f"{'ok' if within else 'OVER LIMIT OR FAILED'} | {last}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
