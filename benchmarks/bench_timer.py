"""The harness's latency for a 1024×1024 float32 matmul at 1 thread against
``torch.utils.benchmark.Timer.blocked_autorange`` on the same work, in the same
process. The harness wraps that Timer; this checks that what it adds around it
(load, first call, memory probes, thread handling) does not move the number.

    python benchmarks/bench_timer.py          # exit 1 if the ratio leaves 1 ± 5 %
    python benchmarks/bench_timer.py --quick  # one short round: runs the path, no verdict

Each side runs three times, interleaved (harness, Timer, harness, Timer, ...),
and the medians are compared, so a drift of the machine hits both sides alike
and one odd run (±4 % between runs is usual here) cannot decide the verdict.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TRIAL = "matmul_1024_float32"
#: (steady-state seconds per side, rounds): the full check, and --quick's single short
#: round, too short and too few for ±5 % to be a verdict (the smoke test's run).
SETTINGS = {"full": (1.0, 3), "quick": (0.1, 1)}
LIMIT = 0.05


def harness_latency(device: object, environment: object, min_run_time: float) -> float:
    from harness.run.timing import run_trial
    from harness.sources.trials import load_trials, spec_sha256

    spec = load_trials()[TRIAL]
    row = run_trial(
        spec,
        device=device,
        environment=environment,  # type: ignore[arg-type]
        spec_hash=spec_sha256(spec),
        min_run_time=min_run_time,
    ).row
    if row.error or row.latency is None:
        raise SystemExit(f"{TRIAL} failed: {row.error or 'no latency'}")
    return row.latency


def timer_latency(min_run_time: float) -> float:
    import torch
    from torch.utils.benchmark import Timer

    generator = torch.Generator().manual_seed(0)
    a = torch.randn(1024, 1024, generator=generator)
    b = torch.randn(1024, 1024, generator=generator)
    out = torch.empty(1024, 1024)
    timer = Timer(
        stmt="torch.matmul(a, b, out=out)",
        globals={"torch": torch, "a": a, "b": b, "out": out},
        num_threads=1,
    )
    return float(timer.blocked_autorange(min_run_time=min_run_time).median)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="one round of 0.1 s per side; prints the ratio, judges nothing")
    args = parser.parse_args()
    min_run_time, rounds = SETTINGS["quick" if args.quick else "full"]
    import torch

    from harness.run.environment import describe

    device = torch.device("cpu")
    environment = describe(device, key="cpu", threads=1)
    harness_side, timer_side = [], []
    for _ in range(rounds):
        harness_side.append(harness_latency(device, environment, min_run_time))
        timer_side.append(timer_latency(min_run_time))
    ratio = statistics.median(harness_side) / statistics.median(timer_side)
    print(f"torch {torch.__version__}, {TRIAL}, 1 thread, min_run_time {min_run_time} s")
    print(f"harness: {', '.join(f'{t * 1e3:.3f} ms' for t in harness_side)}")
    print(f"Timer:   {', '.join(f'{t * 1e3:.3f} ms' for t in timer_side)}")
    if args.quick:
        print(f"ratio of medians harness/Timer: {ratio:.4f} (--quick: no verdict; run it "
              "without --quick to check 1 ± 5 %)")
        return 0
    print(f"ratio of medians harness/Timer: {ratio:.4f} (limit 1 ± {LIMIT:.0%})")
    return 0 if abs(ratio - 1) <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
