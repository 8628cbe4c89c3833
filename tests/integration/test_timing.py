"""harness.run.timing with the real torch on the CPU: each run a fresh process whose
first call comes before any other call of the workload, the timed thread's CPU time
beside wall time, the memory a row reports is its own work's (inputs of other dtypes
freed), the fixed-calls clocks a CPU can run, one block without a spread, and the bare
loop."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest
from support import ROOT, run

if importlib.util.find_spec("torch") is None:
    pytest.skip("timing needs torch", allow_module_level=True)

SCRIPT = r"""
import dataclasses, json
import torch
from harness.core.types import Environment
from harness.run import timing
from harness.sources.trials import load_trials

specs = load_trials()
env = Environment(torch_build=torch.__version__, device_key="cpu", device_name="cpu")
cpu = torch.device("cpu")

def trial(spec, runs=1):
    measured = timing.run_trial(spec, device=cpu, environment=env, spec_hash="h",
                                min_run_time=0.05, runs=runs, blocks=3)
    return dataclasses.asdict(measured) | {"row": dataclasses.asdict(measured.row)
                                           | {"location": None}}

out = {n: trial(specs[n]) for n in ("matmul_256_float64", "matmul_256_bfloat16")}
out["twice"] = trial(specs["matmul_256_float32"], runs=2)
calls = dataclasses.replace(specs["sync_calls_4096_float32_host"], shape=(64, 64))
for clock, blocks in (("host", 5), ("synchronized", 5), ("events", 5), ("synchronized", 1)):
    spec = dataclasses.replace(calls, params={"clock": clock, "calls": 3, "blocks": blocks})
    out[f"{clock}_{blocks}"] = trial(spec)
out["bare"] = timing.bare_loop(calls, device=cpu, harness_s=1e-5, calls=3, blocks=2)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def measured() -> dict[str, object]:
    done = run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_each_run_is_a_fresh_process_whose_first_call_comes_first(measured) -> None:
    twice = measured["twice"]
    assert twice["runs"] == 2 and twice["calls_before_first"] == 0
    assert len(twice["first_calls_s"]) == 2 and all(t > 0 for t in twice["first_calls_s"])
    row = twice["row"]
    assert row["repeats"] == 6 and len(row["samples_s"]) == 6  # 2 runs × 3 blocks
    assert len(twice["cpu_s"]) == 6 and all(t > 0 for t in twice["cpu_s"])


@pytest.mark.skipif(not os.access("/proc/self/clear_refs", os.W_OK),
                    reason="the resident high-water mark cannot be reset on this system")
def test_memory_is_the_works_own(measured) -> None:
    double = measured["matmul_256_float64"]["row"]["memory"]
    half = measured["matmul_256_bfloat16"]["row"]["memory"]
    single = measured["twice"]["row"]["memory"]
    assert double >= 3 * 256 * 256 * 8  # A, B and the output in float64
    # bfloat16's float32 inputs are freed before its peak is reset: it holds half.
    assert half < single < double, (half, single, double)


def test_fixed_calls_clocks_on_a_cpu(measured) -> None:
    for key, waited in (("host_5", False), ("synchronized_5", True)):
        row = measured[key]["row"]
        assert row["error"] == "" and row["quality_pass"]
        assert row["synchronized"] is waited
        assert row["repeats"] == 5 and row["number_per_run"] == 3
        assert len(row["samples_s"]) == 5 and all(t > 0 for t in row["samples_s"])
        assert row["latency_iqr_s"] is not None and row["iqr_over_median"] is not None
    # A CPU has no device events: the row says so and is kept, never dropped.
    assert measured["events_5"]["row"]["error"].startswith(
        "steady state: HarnessError: device events need an accelerator")


def test_one_block_has_no_spread(measured) -> None:
    row = measured["synchronized_1"]["row"]
    assert row["repeats"] == 1 and row["latency"] > 0
    assert row["latency_iqr_s"] is None and row["iqr_over_median"] is None
    assert row["noisy"] is False


def test_bare_loop_on_a_cpu_uses_the_host_clock(measured) -> None:
    bare = measured["bare"]
    assert bare["trial"] == "sync_calls_4096_float32_host" and bare["clock"] == "host clock (cpu)"
    assert (bare["calls"], bare["blocks"]) == (3, 2) and bare["bare_s"] > 0
    assert bare["ratio"] == pytest.approx(1e-5 / bare["bare_s"])
