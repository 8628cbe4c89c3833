"""Faults `python -m harness record` must catch, with file:line and what was expected:
a second record command at once (refused naming the lock, before it measures), an
unwritable records folder (before torch is imported, so no measurement is thrown
away), a full disk (named on the record file, the old record kept), and a recorded or
hand-edited set that no one vouches for (neither signed nor listed)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import ROOT, run, without_torch

TINY = ROOT / "tests" / "samples" / "trials" / "tiny.toml"


def run_record(results: Path, *, env: dict[str, str] | None = None,
               preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """One tiny trial, one fresh process (--runs 1): these faults are about the lock,
    the write and the vouching, not about runs, which tests/integration/test_record.py
    checks with the sample's two."""
    return run(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(results), "--trials-file", str(TINY), "--min-run-time", "0.02",
         "--runs", "1", "--trials", "tiny_matmul_float32"],
        cwd=ROOT, capture_output=True, text=True, env=env, preexec_fn=preexec_fn)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A records folder as one record command leaves it, and what that command said:
    recorded once for the module, copied by each test that starts from it."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("records with torch")
    results = tmp_path_factory.mktemp("recorded") / "results"
    done = run_record(results)
    assert done.returncode == 0, done.stderr
    return results, done.stderr


def _copy(recorded: tuple[Path, str], tmp_path: Path) -> Path:
    results = tmp_path / "results"
    shutil.copytree(recorded[0], results)
    return results


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="records with torch")
def test_a_second_record_command_waits_naming_the_lock(tmp_path: Path) -> None:
    from filelock import FileLock

    results = tmp_path / "results"
    results.mkdir()
    lock = FileLock(str(results / ".record.lock"))
    lock.acquire()  # the first command, still measuring
    second = subprocess.Popen(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(results), "--trials-file", str(TINY), "--min-run-time", "0.02",
         "--runs", "1", "--trials", "tiny_matmul_float32"],
        cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert second.stderr is not None
    said = second.stderr.readline()  # said before it measures anything
    assert not list(results.glob("*/*"))
    lock.release()
    _, rest = second.communicate(timeout=1800)
    assert said == (f"{results}/.record.lock: another `record` or `publish` command is writing "
                    "these records (it holds this lock); waiting for it to finish\n"), said + rest
    assert second.returncode == 0 and "snippet" not in said + rest, rest
    assert list(results.glob("*/cpu.csv"))


def _full_disk() -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_a_full_disk_names_the_record_file_and_keeps_the_old_record(
        recorded: tuple[Path, str], tmp_path: Path) -> None:
    results = _copy(recorded, tmp_path)  # the old record
    (csv,) = results.glob("*/cpu.csv")
    before = csv.read_bytes()
    done = run_record(results, preexec_fn=_full_disk)
    assert done.returncode == 2, done.stderr
    assert re.search(rf"{re.escape(str(csv.parent))}/cpu\.(csv|env\.json): could not write the "
                     r"record \(File too large\); the previous record is unchanged\. Free disk "
                     "space or make", done.stderr), done.stderr
    assert "Traceback" not in done.stderr and csv.read_bytes() == before


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="permissions do not stop root; CI runs as a plain user")
def test_an_unwritable_records_folder_fails_before_torch(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    results.chmod(0o555)
    try:
        done = run_record(results, env=without_torch(tmp_path / "no-torch"))
    finally:
        results.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert "torch was imported" not in done.stderr
    assert "cannot write there" in done.stderr and "before measuring anything" in done.stderr


def test_a_records_folder_that_cannot_be_made_fails_before_torch(tmp_path: Path) -> None:
    # The nearest existing folder is a file's place: nothing could be written at the end.
    (tmp_path / "blocker").write_text("a file where a folder would go")
    results = tmp_path / "blocker" / "results"
    done = run_record(results, env=without_torch(tmp_path / "no-torch"))
    assert done.returncode == 2 and "torch was imported" not in done.stderr, done.stderr
    assert "does not exist" in done.stderr or "cannot write there" in done.stderr


def publish(results: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "harness", "publish", *args, "--results",
                           str(results)], cwd=ROOT, capture_output=True, text=True)


def test_a_recorded_or_edited_set_builds_only_once_someone_vouches_for_it(
        recorded: tuple[Path, str], tmp_path: Path) -> None:
    results = _copy(recorded, tmp_path)
    (csv,) = results.glob("*/cpu.csv")
    build = csv.parent.name
    assert f"`python -m harness publish add {build} cpu --results {recorded[0]}`" in recorded[1]
    check = publish(results, "check")
    assert check.returncode == 1
    assert (f"{build}/cpu.csv:1: not signed by an allowed signer" in check.stderr
            and "unsigned.sha256 does not list it" in check.stderr), check.stderr
    assert publish(results, "add", build, "cpu").returncode == 0
    check = publish(results, "check")
    assert check.returncode == 0 and "recorded outside CI, unsigned" in check.stderr, check.stderr
    csv.write_text(csv.read_text().replace(",true,compute,", ",false,compute,", 1))
    check = publish(results, "check")
    assert check.returncode == 1
    assert f"{build}/cpu.csv:1: not signed by an allowed signer" in check.stderr
    assert "and it changed since" in check.stderr and "unsigned.sha256:" in check.stderr


@pytest.mark.parametrize(("old", "new", "message"), [
    ('group = "tiny"\n', 'group = "tiny"\nparams = { synchronize = "no" }\n',
     r"tiny\.toml:11: params = .* has synchronize that is not true or false"),
    ("tolerance = 1e-3\n", "tolerance = inf\n",
     r"tiny\.toml:9: tolerance = inf is not a finite non-negative"),
    ('name = "tiny_matmul_float32"', 'name = "tiny_matmul_float32" # señal',
     r"tiny\.toml:4: byte 0xf1 is not UTF-8"),
])
def test_meaningless_or_undecodable_trial_settings_name_file_and_line(
        tmp_path: Path, old: str, new: str, message: str) -> None:
    trials = tmp_path / "tiny.toml"
    text = TINY.read_text(encoding="utf-8").replace(old, new, 1)
    trials.write_bytes(text.encode("latin-1") if "señal" in new else text.encode())
    done = run(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(tmp_path / "results"), "--trials-file", str(trials)],
        cwd=ROOT, capture_output=True, text=True,
        env=without_torch(tmp_path / "no-torch"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert re.search(message, done.stderr), done.stderr
