"""Faults `python -m harness record` must catch, with file:line and what was expected:
a forged commit journal and an unwritable records folder (both before torch is
imported, so no measurement is thrown away), and a hand-edited record, which a run
refuses to merge (and so to re-hash into a valid-looking digest)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, without_torch

TINY = ROOT / "tests" / "samples" / "trials" / "tiny.toml"


def run_record(results: Path, *, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(results), "--trials-file", str(TINY), "--min-run-time", "0.02",
         "--trials", "tiny_matmul_float32"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


def test_a_forged_journal_is_refused_before_torch_and_moves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "2.13.0+cpu"
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (folder / ".cpu.csv.abc.tmp").write_text("forged")
    (folder / ".cpu.commit.json").write_text(json.dumps([[".cpu.csv.abc.tmp", str(victim)]]))
    done = run_record(tmp_path / "results", env=without_torch(tmp_path / "no-torch"))
    assert done.returncode == 2, done.stderr
    assert "torch was imported" not in done.stderr
    assert (f"2.13.0+cpu/.cpu.commit.json:1: names {str(victim)!r}, outside the record "
            "folder") in done.stderr, done.stderr
    assert victim.read_text() == "keep me"
    assert (folder / ".cpu.csv.abc.tmp").read_text() == "forged"


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


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="records with torch")
def test_a_hand_edited_record_is_not_merged_into_a_new_digest(tmp_path: Path) -> None:
    results = tmp_path / "results"
    first = run_record(results)
    assert first.returncode == 0, first.stderr
    (csv,) = results.glob("*/cpu.csv")
    edited = csv.read_text().replace(",true,compute,", ",false,compute,", 1)
    assert edited != csv.read_text()
    csv.write_text(edited)
    second = run_record(results)
    assert second.returncode != 0
    assert "cpu.csv:2: the rows of run" in second.stderr, second.stderr
    assert "differ from what the run wrote" in second.stderr and "nothing was written" in \
        second.stderr
    assert csv.read_text() == edited


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
    import re

    trials = tmp_path / "tiny.toml"
    text = TINY.read_text(encoding="utf-8").replace(old, new, 1)
    trials.write_bytes(text.encode("latin-1") if "señal" in new else text.encode())
    done = subprocess.run(
        [sys.executable, "-m", "harness", "record", "--device", "cpu", "--only", "trials",
         "--results", str(tmp_path / "results"), "--trials-file", str(trials)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env=without_torch(tmp_path / "no-torch"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert re.search(message, done.stderr), done.stderr
