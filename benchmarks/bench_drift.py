"""The drift report's cost against the number of record rows: it must stay linear.

    python benchmarks/bench_drift.py           # 90, 900, 9,000 and 90,000 rows per build
    python benchmarks/bench_drift.py --quick   # 90, 900 and 9,000 (the smoke test's run)

For each size, two torch builds are written with the record store itself (as many
observations as rows, each with its expectation) into a temporary folder, then read
and compared as ``python -m harness drift`` does (:func:`harness.records.store.load_all`
and :func:`harness.records.drift.drift_report`). The figure is CPU seconds of this
process, and the cost per row beside the previous size's: a linear report keeps the
ratio near 1, a scan per lookup makes it grow with the size (before the store indexed
its rows, drift took 0.13 s at 90 rows and 291 s at 90,000). Exit 1 when the cost per
row at the largest size is over 3× that at the size before it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.core.errors import Location  # noqa: E402
from harness.core.rows import TrialRow  # noqa: E402
from harness.core.types import Environment, Expectation, Observation  # noqa: E402
from harness.records.commit import commit_set  # noqa: E402
from harness.records.drift import drift_report  # noqa: E402
from harness.records.store import SetPaths, load_all  # noqa: E402

BUILDS = ("2.13.0+cpu", "2.14.1+cpu")
SIZES = {"quick": (90, 900, 9_000), "full": (90, 900, 9_000, 90_000)}
#: Cost per row at the largest size over that at the size before it.
LIMIT = 3.0


def write_set(results: Path, build: str, size: int) -> None:
    run = f"bench-{build}"
    environment = Environment(torch_build=build, device_key="cpu", device_name="cpu",
                              run_id=run, date="2026-12-01T00:00:00")
    # Two builds 5 % apart, so the intervals have something to decide.
    scale = 1.0 if build == BUILDS[0] else 1.05
    rows = [TrialRow(trial=f"t{i}", torch_build=build, device="cpu", dtype="float32",
                     shape="4x4", batch=1, task="compute", threads=1, tolerance=1e-3,
                     spec_sha256="ab", synchronized=True, run_id=run, quality_pass=True,
                     latency=1e-3 * scale, samples_s=tuple(1e-3 * scale * (1 + k / 100)
                                                           for k in range(10)))
            for i in range(size)]
    observations = [Observation(snippet=f"p/s{i}", name="v", kind="number", value=1.0,
                                snippet_sha256="ab", torch_build=build, device_key="cpu",
                                run_id=run, date="2026-12-01")
                    for i in range(size)]
    commit_set(SetPaths.of(results, build, "cpu"), environment=environment, rows=rows,
               observations=observations)


def expectations(size: int) -> list[Expectation]:
    where = Location(path=Path("p/expectations.toml"), line=1)
    return [Expectation(snippet=f"p/s{i}", name="v", value=1.0, derivation="d", rtol=1e-6,
                        location=where) for i in range(size)]


def cpu_seconds_of_drift(results: Path, size: int) -> tuple[float, int]:
    wanted, trials = expectations(size), [f"t{i}" for i in range(size)]
    start = time.process_time()
    report = drift_report(load_all(results), wanted, trials)
    return time.process_time() - start, len(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="up to 9,000 rows only")
    args = parser.parse_args()
    print(f"{'rows/build':>10} {'items':>7} {'CPU s':>8} {'µs/row':>8} {'per-row ratio':>14}")
    previous: float | None = None
    ratio = 1.0
    for size in SIZES["quick" if args.quick else "full"]:
        with tempfile.TemporaryDirectory(prefix="bench-drift-") as folder:
            results = Path(folder) / "results"
            for build in BUILDS:
                write_set(results, build, size)
            seconds, items = cpu_seconds_of_drift(results, size)
        per_row = seconds / size
        ratio = per_row / previous if previous else 1.0
        shown = f"{ratio:.2f}×" if previous else "—"
        print(f"{size:>10,} {items:>7,} {seconds:>8.3f} {per_row * 1e6:>8.1f} {shown:>14}")
        previous = per_row
    verdict = "linear" if ratio <= LIMIT else "NOT LINEAR"
    print(f"cost per row, largest size over the one before: {ratio:.2f}× "
          f"(limit {LIMIT:g}×): {verdict}")
    return 0 if ratio <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
