"""The command line without torch: the checkout is found or refused, bad input fails
before torch is imported, and help, version and missing extras read clearly.

Each case runs ``python -m harness`` in a subprocess whose ``import torch`` fails
(:func:`support.without_torch`), so a case that reached torch would show it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, run, without_torch

from harness.commands import cli

LOOKED_FOR = "looked for a folder holding both mkdocs.yml and snippets/"


def harness(*args: str, cwd: Path, env: dict[str, str], flags: tuple[str, ...] = ()
            ) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, *flags, "-m", "harness", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.fixture
def no_torch(tmp_path: Path) -> dict[str, str]:
    env = without_torch(tmp_path / "no-torch")
    env["PYTHONPATH"] += os.pathsep + str(ROOT)  # the harness, as if installed
    return env


@pytest.mark.parametrize("command", [
    ["drift"], ["drift", "--fail-on-change"], ["notebooks", "--check"], ["notebooks", "--write"],
    ["publish", "check"], ["publish", "add", "2.13.0+cpu", "cpu"], ["record"],
    ["record", "--only", "trials"],
])
def test_every_command_outside_a_checkout_fails_saying_what_it_looked_for(
    tmp_path: Path, no_torch: dict[str, str], command: list[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = harness(*command, cwd=empty, env=no_torch)
    assert done.returncode == 2, done.stderr
    assert f"no checkout of the site found: {LOOKED_FOR} in {empty}" in done.stderr
    assert "Traceback" not in done.stderr and not any(empty.iterdir())
    done = harness(*command, "--root", str(empty), cwd=ROOT, env=no_torch)
    assert done.returncode == 2, done.stderr
    assert (f"--root {empty}: not a checkout of the site (no mkdocs.yml, no snippets/)"
            in done.stderr)


def test_a_checkout_is_found_from_a_folder_inside_it(no_torch: dict[str, str]) -> None:
    done = harness("publish", "check", cwd=ROOT / "docs", env=no_torch)
    assert "no checkout" not in done.stderr
    assert "torch 2.13.0+cpu on 'cpu': recorded outside CI, unsigned" in done.stderr


@pytest.mark.parametrize("command", [["drift"], ["publish", "check"]])
def test_a_missing_records_folder_is_an_error_not_an_empty_report(
    tmp_path: Path, no_torch: dict[str, str], command: list[str]
) -> None:
    done = harness(*command, "--results", str(tmp_path / "nonexistent"), cwd=ROOT, env=no_torch)
    assert done.returncode == 2, done.stderr
    assert f"--results {tmp_path / 'nonexistent'}: no such folder" in done.stderr


def test_drift_on_a_folder_without_records_fails(tmp_path: Path, no_torch: dict[str, str]) -> None:
    empty = tmp_path / "results"
    empty.mkdir()
    done = harness("drift", "--results", str(empty), cwd=ROOT, env=no_torch)
    assert done.returncode == 2 and f"{empty}: no record set" in done.stderr


@pytest.mark.parametrize(("setting", "expected"), [
    ({"HARNESS_EXAMPLE_TIMEOUT": "abc"}, "HARNESS_EXAMPLE_TIMEOUT='abc': expected a number"),
    ({"HARNESS_EXAMPLE_TIMEOUT": "nan"}, "HARNESS_EXAMPLE_TIMEOUT='nan': expected a number"),
    ({"HARNESS_EXAMPLE_TIMEOUT": "inf"}, "HARNESS_EXAMPLE_TIMEOUT='inf': expected a number"),
    ({"HARNESS_EXAMPLE_TIMEOUT": "0"}, "HARNESS_EXAMPLE_TIMEOUT='0': expected a number"),
])
def test_record_checks_the_environment_before_torch(
    tmp_path: Path, no_torch: dict[str, str], setting: dict[str, str], expected: str
) -> None:
    results = tmp_path / "results"
    done = harness("record", "--quick", "--results", str(results), cwd=ROOT,
                   env={**no_torch, **setting})
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr and "torch was imported" not in done.stderr
    assert not results.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon"])
def test_record_checks_its_arguments_before_torch(
    tmp_path: Path, no_torch: dict[str, str], value: str
) -> None:
    done = harness("record", "--min-run-time", value, "--results", str(tmp_path / "r"),
                   cwd=ROOT, env=no_torch)
    assert done.returncode == 2 and "argument --min-run-time" in done.stderr
    assert "torch was imported" not in done.stderr


def test_without_the_run_extra_record_and_publish_add_name_it(tmp_path: Path) -> None:
    # -S: no site-packages, so neither torch nor filelock can be found.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = harness("record", "--results", str(tmp_path / "r"), cwd=ROOT, env=env, flags=("-S",))
    assert done.returncode == 2, done.stderr
    assert "torch, which is not installed here" in done.stderr
    assert "pip install '.[run]'" in done.stderr and "ModuleNotFoundError" not in done.stderr
    results = tmp_path / "results"
    results.mkdir()
    done = harness("publish", "add", "2.13.0+cpu", "cpu", "--results", str(results), cwd=ROOT,
                   env=env, flags=("-S",))
    assert done.returncode == 2, done.stderr
    assert "needs the package filelock" in done.stderr and "pip install '.[run]'" in done.stderr
    assert not any(results.iterdir())


@pytest.mark.parametrize(("build", "device"), [("9.9.9+cpu", "cpu"), ("2.13.0+cpu", "cuda-foo")])
def test_publish_add_of_a_set_that_does_not_exist_names_the_sets(
        tmp_path: Path, no_torch: dict[str, str], build: str, device: str) -> None:
    """A mistyped build or device vouched for nothing and said «0 line(s) changed»."""
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    before = (results / "unsigned.sha256").read_bytes()
    done = harness("publish", "add", build, device, "--results", str(results), cwd=ROOT,
                   env=no_torch)
    assert done.returncode == 2, done.stderr
    assert f"no record set for torch {build!r} on {device!r} under results/" in done.stderr
    assert "2.13.0+cpu cpu" in done.stderr and "Traceback" not in done.stderr
    assert (results / "unsigned.sha256").read_bytes() == before


def test_version_and_whole_descriptions_without_rest() -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.parser().parse_args(["--version"])
    assert exit_info.value.code == 0
    assert cli.version().startswith("que-es-pytorch ")
    for name, module, _ in cli.COMMANDS:
        text = cli.description(module)
        assert text.startswith(f"python -m harness {name}") and text.endswith("."), text
        assert "`" not in text and ":mod:" not in text and "  " not in text, text


@pytest.mark.parametrize("name", [name for name, _, _ in cli.COMMANDS])
def test_every_command_takes_root(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.parser().parse_args([name, "--help"])
    assert "--root CHECKOUT" in capsys.readouterr().out
