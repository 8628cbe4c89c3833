"""The real record command on tiny trials (tests/samples/trials/tiny.toml).

Two record processes run at once into the same results folder, one trial set
each: every row of both must survive the merge. The same run provides the
rows, the environment and the failure-as-row checks, so torch is imported
only twice for the whole module (each process is its own interpreter:
torch's C extension cannot be imported twice in one process).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, without_torch

from harness.records.store import load_all
from harness.sources.trials import load_trials, spec_sha256

if importlib.util.find_spec("torch") is None:  # find_spec: importing torch here costs a second
    pytest.skip("the record command needs torch", allow_module_level=True)

TINY = ROOT / "tests" / "samples" / "trials" / "tiny.toml"
#: A subprocess backstop: a record that reaches it hangs (subprocess.TimeoutExpired names
#: the command); a busy machine never does.
BACKSTOP_S = 900


def record(results: Path, *trials: str) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        "-m",
        "harness",
        "record",
        "--device",
        "cpu",
        "--only",
        "trials",
        "--results",
        str(results),
        "--trials-file",
        str(TINY),
        "--min-run-time",
        "0.02",
        "--trials",
        *trials,
    ]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.fixture(scope="module")
def recorded(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, dict[str, str]], str]:
    results = tmp_path_factory.mktemp("results")
    first = record(results, "tiny_matmul_float32", "tiny_grad_float8", "tiny_gpu_only")
    second = record(results, "tiny_grad_float32")
    # A backstop: only a hang reaches it, and the error says which command hung.
    outputs = [process.communicate(timeout=BACKSTOP_S) for process in (first, second)]
    for process, (_, err) in zip((first, second), outputs, strict=True):
        assert process.returncode == 0, err
    (folder,) = (p for p in results.iterdir() if p.is_dir())
    with (folder / "cpu.csv").open(newline="") as handle:
        rows = {row["trial"]: row for row in csv.DictReader(handle)}
    return folder, rows, outputs[0][1]


def test_concurrent_runs_keep_every_row(recorded) -> None:
    _, rows, _ = recorded
    assert set(rows) == {"tiny_matmul_float32", "tiny_grad_float8", "tiny_grad_float32"}


def test_rows_carry_measurement_and_quality(recorded) -> None:
    folder, rows, _ = recorded
    row = rows["tiny_matmul_float32"]
    assert row["torch_build"] == folder.name and row["device"] == "cpu"
    assert row["shape"] == "32x32" and row["threads"] == "1" and row["synchronized"] == "true"
    assert float(row["latency"]) > 0 and float(row["first_call_s"]) > 0 and int(row["repeats"]) >= 1
    assert row["quality_pass"] == "true" and float(row["quality_error"]) < 1e-3
    assert row["throughput_unit"] == "FLOP/s" and row["error"] == ""
    spec = load_trials(TINY)["tiny_matmul_float32"]
    assert row["spec_sha256"] == spec_sha256(spec)


def test_unsupported_dtype_is_a_row_with_its_error(recorded) -> None:
    _, rows, _ = recorded
    row = rows["tiny_grad_float8"]
    # torch 2.6 says RuntimeError ("not implemented for 'Float8_e4m3fn'"), later ones
    # NotImplementedError: either way the failure is a row, never a missing one.
    assert row["error"].startswith(("first call: NotImplementedError:",
                                    "first call: RuntimeError:"))
    assert row["latency"] == "" and row["quality_pass"] == "false" and row["load_s"] != ""


def test_recording_never_vouches_and_prints_the_step_that_does(recorded) -> None:
    folder, _, stderr = recorded
    assert not (folder.parent / "unsigned.sha256").exists()
    assert (f"run `python -m harness publish add {folder.name} cpu --results {folder.parent}`"
            in stderr)


def test_not_applicable_trial_is_skipped_not_failed(recorded) -> None:
    _, rows, stderr = recorded
    assert "tiny_gpu_only" not in rows
    assert "skip tiny_gpu_only: not applicable on cpu" in stderr


def test_environment_is_written_per_run_and_loads(recorded) -> None:
    folder, rows, _ = recorded
    runs = json.loads((folder / "cpu.env.json").read_text())["runs"]
    # Two runs wrote rows: each row names its own run, and each run keeps its environment.
    assert {row["run_id"] for row in rows.values()} == set(runs)
    assert len(runs) == 2
    for run_id, environment in runs.items():
        assert environment["run_id"] == run_id
        assert environment["torch_build"] == folder.name and environment["device_key"] == "cpu"
        assert environment["threads"] == 1 and environment["date"][:2] == "20"
        assert environment["extra"]["memory_method"].startswith("vmhwm-")  # a code
        # Two fresh processes a trial (the sample's [method]); CPU time beside each block.
        assert environment["extra"]["runs"] == 2
        for trial, first_calls in environment["extra"]["first_calls_s"].items():
            assert len(first_calls) == 2 and not rows[trial]["error"], trial
    (item,) = load_all(folder.parent).items  # the store accepts what the command wrote
    assert len(item.rows) == 3 and set(item.environments) == set(runs)
    assert all(len(row.samples_s) == row.repeats for row in item.rows if row.latency)
    for row in item.rows:
        if row.latency:
            cpu = item.environments[row.run_id].extra["thread_cpu_s"][row.trial]
            assert len(cpu) == len(row.samples_s) == 2 * 3


def test_unknown_trial_fails_before_importing_torch(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "record",
            "--results",
            str(tmp_path),
            "--trials-file",
            str(TINY),
            "--trials",
            "tiny_matmul_float33",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BACKSTOP_S,
    )
    assert done.returncode == 2
    assert "unknown trial 'tiny_matmul_float33'. Did you mean 'tiny_matmul_float32'?" in done.stderr
    assert not any(tmp_path.iterdir())


def run_record(*args: str, cwd: Path = ROOT, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", "record", "--device", "cpu", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=BACKSTOP_S, **kwargs)


def test_nothing_recorded_is_a_failure_and_writes_nothing(tmp_path: Path) -> None:
    # No chosen trial applies on the CPU: known before torch is imported, which here fails.
    results = tmp_path / "results"
    results.mkdir()
    done = run_record("--only", "trials", "--results", str(results), "--trials-file", str(TINY),
                      "--trials", "tiny_gpu_only",
                      env=without_torch(tmp_path / "no-torch"))
    assert done.returncode == 1, done.stderr
    assert "nothing was recorded; the previous records are unchanged" in done.stderr
    assert not any(results.iterdir())


def _wait_until_timing(process: subprocess.Popen[bytes], *, settle: float = 2.0,
                       fallback: float = 6.0) -> None:
    """Return once the record process has loaded torch's library and run ``settle``
    seconds more (its trial's first call is done: it is timing), rather than after a
    fixed 6 s; where /proc cannot say (not Linux), after ``fallback`` seconds."""
    import time

    if not Path("/proc/self/maps").exists():
        time.sleep(fallback)
        return
    maps = Path(f"/proc/{process.pid}/maps")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            loaded = "libtorch" in maps.read_text()
        except OSError:
            return
        if loaded:
            time.sleep(settle)
            return
        time.sleep(0.05)


def test_a_killed_run_leaves_the_previous_set_byte_identical(recorded, tmp_path: Path) -> None:
    import os
    import shutil
    import signal

    folder, _, _ = recorded
    results = tmp_path / "results"
    shutil.copytree(folder.parent, results)
    before = {p.name: p.read_bytes() for p in (results / folder.name).iterdir()}
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(results), "--trials-file", str(TINY), "--min-run-time", "30",
         "--trials", "tiny_matmul_float32"], cwd=ROOT, stderr=subprocess.DEVNULL)
    # Killed after torch's import, inside the 30 s of steady-state timing (or, on a very
    # slow machine, still importing: either way before the run's single commit).
    _wait_until_timing(process)
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    after = {p.name: p.read_bytes() for p in (results / folder.name).iterdir()}
    assert after == before


@pytest.mark.parametrize("where", ["file", "installed"])
def test_recording_outside_a_checkout_or_into_a_file_is_a_clear_error(tmp_path: Path,
                                                                       where: str) -> None:
    import shutil

    if where == "file":
        target = tmp_path / "results.txt"
        target.write_text("not a folder")
        done = run_record("--results", str(target))
        assert done.returncode == 2 and "exists and is not a folder" in done.stderr
        return
    # An installed copy: the package alone, without docs/ and snippets/ beside it.
    shutil.copytree(ROOT / "harness", tmp_path / "site-packages" / "harness",
                    ignore=shutil.ignore_patterns("__pycache__"))
    done = run_record(cwd=tmp_path / "site-packages",
                      env={**__import__("os").environ, "PYTHONPATH": str(tmp_path / "site-packages")})
    assert done.returncode == 2
    assert ("no checkout of the site found: looked for a folder holding both mkdocs.yml and "
            "snippets/") in done.stderr
    assert sorted(p.name for p in (tmp_path / "site-packages").iterdir()) == ["harness"]


def test_record_stores_nothing_observed_under_leaked_state_and_exits_non_zero(
    tmp_path: Path,
) -> None:
    from support import copy_project

    root = copy_project(tmp_path / "checkout", ("docs", "snippets", "results", "mkdocs.yml",
                                                "harness"))
    build = next(p.name for p in (root / "results").iterdir() if p.name.endswith("+cpu"))
    before = (root / "results" / build / "cpu.examples.jsonl").read_text()
    leaking = root / "snippets/que-es-pytorch/metadatos_tensor.py"
    leaking.write_text(leaking.read_text() + "torch.set_grad_enabled(False)\n")
    done = subprocess.run(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "examples"],
        cwd=root, capture_output=True, text=True, timeout=BACKSTOP_S,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 1, done.stderr
    assert "changed torch's global state and left it changed (grad mode: True → False)" in done.stderr
    assert "not trusted: it ran after snippet 'que-es-pytorch/metadatos_tensor'" in done.stderr
    # The examples phase shows its progress, page by page.
    assert re.search(r"\] \d+/\d+ +[\d.]+ s  que-es-pytorch\.md  \d+ observed, \d+ FAILED",
                     done.stderr), done.stderr
    assert "publish add" not in done.stderr  # the set is still as the list vouches for it
    after = (root / "results" / build / "cpu.examples.jsonl").read_text()
    # No observation of that page was replaced (the leaking snippet changed, so its old ones
    # stay as they were, stale); the other pages' unchanged observations keep their date.
    kept = [line for line in before.splitlines() if '"que-es-pytorch/' in line]
    assert all(line in after.splitlines() for line in kept)
