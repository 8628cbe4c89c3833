"""trials/trials.toml and its reader: the declared trials, the errors that name
file and line, and the hash that makes a changed definition stale."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

from harness.core.errors import HarnessError
from harness.sources.trials import (
    TRIAL_KEYS,
    WORKLOADS_FILE,
    load_trials,
    shape_text,
    spec_sha256,
    workload_sources,
)

MATMUL = (
    '[[trial]]\nname = "a"\nworkload = "matmul"\ntask = "compute"\ndtype = "float32"\n'
    'shape = [4, 4]\ngroup = "g"\n'
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "trials.toml"
    path.write_text(text)
    return path


def test_declared_groups_and_named_trials() -> None:
    specs = load_trials()
    groups = {s.group for s in specs.values()}
    assert {"matmul", "mlp", "autograd", "sync"} <= groups
    reference = specs["matmul_1024_float32"]
    assert reference.shape == (1024, 1024) and reference.threads == 1 and reference.quick
    bf16 = [s for s in specs.values() if s.group == "matmul" and s.dtype == "bfloat16"]
    assert bf16 and all(s.tolerance == 1e-3 and s.reference_dtype == "float64" for s in bf16)
    for task in ("inference", "training"):
        batches = sorted(s.batch for s in specs.values() if s.group == "mlp" and s.task == task)
        assert batches == [1, 4, 16, 64, 256]
    assert all("cpu" not in s.devices for s in specs.values() if s.group == "sync")
    assert {s.workload for s in specs.values() if s.group == "autograd"} == {
        "autograd_grad",
        "autograd_backward",
    }


def test_quick_subset_is_a_proper_subset_applying_to_cpu() -> None:
    specs = load_trials().values()
    quick = [s for s in specs if s.quick and "cpu" in s.devices]
    assert 0 < len(quick) < len([s for s in specs if "cpu" in s.devices])
    assert {s.group for s in quick} >= {"matmul", "mlp", "autograd"}


def test_workloads_found_by_signature() -> None:
    names = workload_sources()
    assert {"matmul", "mlp_inference", "mlp_training", "autograd_grad", "autograd_backward"} <= set(
        names
    )
    assert not any(n.startswith("_") for n in names) and "Work" not in names


def test_unknown_key_names_its_line_and_lists_keys(tmp_path: Path) -> None:
    typo = "toler" + "ence"  # in two parts so that codespell passes this file
    path = write(tmp_path, "# trials\n" + MATMUL + f"{typo} = 1e-3\n")
    with pytest.raises(HarnessError) as caught:
        load_trials(path, root=tmp_path)
    message = str(caught.value)
    assert message.startswith(f"trials.toml:9: unknown key '{typo}' in [[trial]].")
    assert "Did you mean 'tolerance'?" in message and ", ".join(sorted(TRIAL_KEYS)) in message


def test_unknown_workload_lists_valid_workloads(tmp_path: Path) -> None:
    path = write(tmp_path, MATMUL.replace('"matmul"', '"matmull"'))
    with pytest.raises(
        HarnessError,
        match=r"trials.toml:3: unknown workload 'matmull'\. Did you mean 'matmul'\?"
        r".*autograd_backward",
    ):
        load_trials(path, root=tmp_path)


def test_bad_values_and_duplicates_name_the_line(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match=r"trials.toml:5: unknown dtype 'float33'"):
        load_trials(write(tmp_path, MATMUL.replace("float32", "float33")), root=tmp_path)
    with pytest.raises(HarnessError, match=r"trials.toml:8: threads = 0 is not an integer >= 1"):
        load_trials(write(tmp_path, MATMUL + "threads = 0\n"), root=tmp_path)
    with pytest.raises(
        HarnessError, match=r"trials.toml:9: trial name 'a' already used at trials.toml:1"
    ):
        load_trials(write(tmp_path, MATMUL + "\n" + MATMUL), root=tmp_path)
    with pytest.raises(HarnessError, match=r"trials.toml:2: malformed TOML"):
        load_trials(write(tmp_path, "[[trial]]\nname = \n"), root=tmp_path)
    with pytest.raises(HarnessError, match=r"trials.toml:1: \[\[trial\]\] needs 'group'"):
        load_trials(write(tmp_path, MATMUL.replace('group = "g"\n', "")), root=tmp_path)


def test_hash_follows_fields_and_workload_source(tmp_path: Path) -> None:
    spec = load_trials()["matmul_1024_float32"]
    base = spec_sha256(spec)
    assert base == spec_sha256(dataclasses.replace(spec, location=None))  # moving it is no change
    assert base != spec_sha256(dataclasses.replace(spec, tolerance=1e-4))
    source = WORKLOADS_FILE.read_text()
    changed = tmp_path / "workloads.py"
    # A helper the workload calls (the seeded inputs) changes the hash too.
    changed.write_text(
        source.replace(
            'manual_seed(int(spec.params.get("seed", 0)))',
            'manual_seed(int(spec.params.get("seed", 1)))',
            1,
        )
    )
    assert changed.read_text() != source
    assert base != spec_sha256(spec, sources=workload_sources(workloads=changed))
    # An edit to a workload matmul never reaches leaves its hash alone.
    unrelated = tmp_path / "unrelated.py"
    unrelated.write_text(
        source.replace(
            'lr=float(spec.params.get("lr", 0.01))', 'lr=float(spec.params.get("lr", 0.02))'
        )
    )
    assert unrelated.read_text() != source
    assert base == spec_sha256(spec, sources=workload_sources(workloads=unrelated))


def test_shape_text() -> None:
    assert shape_text((1024, 1024)) == "1024x1024" and shape_text(()) == "scalar"


def test_reading_trials_and_rendering_never_import_torch() -> None:
    code = (
        "import sys, harness.sources.trials as t, harness.views.measured; t.load_trials(); "
        "sys.exit('torch' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0
