"""tools/gpu_record.sh in its CPU dry run (HARNESS_GPU_DRY=1): the same record entry
points a GPU machine runs, on tiny sizes, into a scratch folder, so the script is known
to work before a device is lent. Every step records; the sets come back in a tar."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from support import ROOT, run

if importlib.util.find_spec("torch") is None:
    pytest.skip("the record command needs torch", allow_module_level=True)


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str],
                                                             Path]:
    out = tmp_path_factory.mktemp("out")
    results = tmp_path_factory.mktemp("dry") / "results"
    environment = {**os.environ, "HARNESS_GPU_DRY": "1", "OUT": str(out),
                   "PYTHON": sys.executable}
    done = run(["bash", str(ROOT / "tools" / "gpu_record.sh"), str(results)],
                          cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    return done, out


def test_every_step_records_and_the_sets_come_back_packed(dry_run) -> None:
    done, out = dry_run
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for step in ("examples", "sync", "dtypes", "bare-loop"):
        assert f"== {step} (at most" in done.stdout
    log = (out / "gpu_record.log").read_text()
    assert "== done in" in log and ", status 0," in log
    with tarfile.open(out / "results.tar") as packed:
        names = packed.getnames()
        build = next(n for n in names if "+" in n and "/" not in n)
        assert {f"{build}/cpu.csv", f"{build}/cpu.env.json",
                f"{build}/cpu.examples.jsonl"} <= set(names)
        rows = list(csv.DictReader(io.TextIOWrapper(packed.extractfile(f"{build}/cpu.csv"))))
        runs = json.load(packed.extractfile(f"{build}/cpu.env.json"))["runs"]
    trials = {r["trial"] for r in rows}
    assert {"sync_matmul_4096_float32_waited", "sync_calls_4096_float32_host",
            "sync_calls_4096_float32_synchronized", "matmul_8192_bfloat16",
            "matmul_4096_float32", "matmul_4096_bfloat16", "matmul_4096_float64"} <= trials
    # Each run a fresh process: its first call is recorded apart, and TF32 is said.
    assert all(r["first_call_s"] for r in rows if not r["error"])
    assert all("cuda_matmul_allow_tf32" in r["extra"] for r in runs.values())
    loops = [r["bare_loop"] for r in runs.values() if r.get("bare_loop")]
    assert len(loops) == 1 and loops[0]["trial"] == "matmul_8192_bfloat16"
    assert loops[0]["bare_s"] > 0 and loops[0]["ratio"] == pytest.approx(
        loops[0]["harness_s"] / loops[0]["bare_s"])
