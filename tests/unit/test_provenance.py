"""A record set's origin, verified by something other than its files: a signature by a
key in results/allowed_signers (made here with a throwaway key, as the workflow makes it
with its secret), or results/unsigned.sha256 for sets recorded by hand."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_records_consistency import environment, measured, observation

from harness.records.commit import commit_set
from harness.records.provenance import NAMESPACE, grade_text, sign_set, vouch
from harness.records.store import SetPaths, load_all

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def key(tmp_path: Path) -> Path:
    """A throwaway ed25519 key, made for this test."""
    path = tmp_path / "keys" / "records"
    path.parent.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f",
                    str(path)], check=True)
    return path


def _allow(results: Path, key: Path) -> None:
    public = key.with_suffix(".pub").read_text().strip()
    (results / "allowed_signers").write_text(
        f'records-test@example namespaces="{NAMESPACE}" {public}\n')


def _recorded(tmp_path: Path) -> Path:
    paths = SetPaths.of(tmp_path / "results", "2.13.0+cpu", "cpu")
    commit_set(paths, environment=environment(), rows=[measured()], observations=[observation()])
    return paths.folder.parent


def test_a_signed_set_has_its_grade_and_an_edit_or_a_copy_loses_it(tmp_path: Path,
                                                                  key: Path) -> None:
    results = _recorded(tmp_path)
    (record,) = load_all(results).items
    assert record.provenance.run == "" and len(record.provenance.problems) == 3
    sign_set(results, "2.13.0+cpu", "cpu", private_key=key.read_text(), run="4242")
    (record,) = load_all(results).items  # signed, but by a key nobody allowed
    assert record.provenance.run == "" and len(record.provenance.problems) == 3
    _allow(results, key)
    (record,) = load_all(results).items
    assert record.provenance.problems == () and record.provenance.run == "4242"
    assert grade_text(record.provenance, "es") == "registrado por CI (ejecución 4242, firmado)"
    assert grade_text(record.provenance, "en") == "recorded by CI (run 4242, signed)"
    copy = results / "2.15.0+cpu"
    shutil.copytree(results / "2.13.0+cpu", copy)
    for path in copy.glob("cpu.*"):
        path.write_text(path.read_text().replace("2.13.0+cpu", "2.15.0+cpu"))
    csv = results / "2.13.0+cpu/cpu.csv"
    csv.write_text(csv.read_text().replace(",true,", ",false,", 1))
    original, copied = load_all(results).items
    assert original.provenance.run == "" and original.provenance.problems == (
        "results/2.13.0+cpu/cpu.csv:1: not signed by an allowed signer (results/allowed_signers) "
        "and results/unsigned.sha256 does not list it; a record is evidence: restore it from "
        "git, record it in the workflow (which signs it), or vouch for a set recorded by hand "
        "with `python -m harness publish add 2.13.0+cpu cpu`",)
    assert len(copied.provenance.problems) == 3  # the signed list names 2.13.0+cpu's files
    assert grade_text(original.provenance, "es") == "registrado fuera de CI, sin firma"


def test_a_set_recorded_by_hand_is_vouched_for_by_the_list(tmp_path: Path) -> None:
    results = _recorded(tmp_path)
    assert vouch(results, "2.13.0+cpu", "cpu") == 3
    (record,) = load_all(results).items
    assert record.provenance.problems == () and record.provenance.run == ""
    assert vouch(results, "2.13.0+cpu", "cpu") == 0  # already listed as it is
    env = results / "2.13.0+cpu/cpu.env.json"
    env.write_text(env.read_text().replace(NOW_YEAR, "2025"))  # backdated
    (record,) = load_all(results).items
    assert record.provenance.problems[0].startswith(
        "results/2.13.0+cpu/cpu.env.json:1: not signed by an allowed signer "
        "(results/allowed_signers) and it changed since results/unsigned.sha256:")


NOW_YEAR = environment().date[:4]


def test_the_workflow_signs_only_the_sets_no_one_vouches_for(tmp_path: Path, key: Path) -> None:
    results = _recorded(tmp_path)
    vouch(results, "2.13.0+cpu", "cpu")
    new = SetPaths.of(results, "2.13.0+cpu", "cuda-nvidia-h200")
    commit_set(new, environment=environment(device_key="cuda-nvidia-h200",
                                            device_name="NVIDIA H200"),
               observations=[dataclasses.replace(observation(), device_key="cuda-nvidia-h200")])
    _allow(results, key)
    done = subprocess.run(
        [sys.executable, "-m", "harness", "publish", "sign", "--run", "77", "--root",
         str(ROOT), "--results", str(results)], capture_output=True, text=True, check=False,
        env={**os.environ, "RECORDS_SIGNING_KEY": key.read_text()})
    assert done.returncode == 0, done.stderr
    assert "on 'cpu': recorded outside CI, unsigned" in done.stderr
    assert "on 'cuda-nvidia-h200': recorded by CI (run 77, signed)" in done.stderr
    assert not (results / "2.13.0+cpu/cpu.sha256").exists()
