"""A record's cells agree with each other and with the run that wrote them: each relation
a row implies, the fraction of peak, the trial's declaration, the environment's types,
dates and device, the run's trials, run ids across sets, the build's name and commit,
one observation per snippet and name, bad JSON at any depth, and the size limits."""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
import statistics
from pathlib import Path

import pytest

from harness.core.errors import HarnessError, Location
from harness.core.rows import NOISY_IQR_OVER_MEDIAN, TrialRow
from harness.core.types import Environment, Observation, TrialSpec
from harness.records.commit import commit_set
from harness.records.provenance import vouch
from harness.records.store import (
    MAX_OBSERVED_CHARS,
    MAX_RECORD_BYTES,
    DeviceRecord,
    SetPaths,
    date_problem,
    load_all,
)
from harness.records.validate import (
    consistency_problems,
    fraction_problems,
    row_problems,
    run_problems,
    spec_problems,
)

NOW = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
SAMPLES = (1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3, 1.4e-3)
MEDIAN = statistics.median(SAMPLES)
LOW, _, HIGH = statistics.quantiles(SAMPLES, n=4, method="inclusive")


def measured(trial: str = "mm", *, run: str = "r1", **extra: object) -> TrialRow:
    """A row whose cells agree, as the timer writes them (a 4x4 matmul: 128 FLOP)."""
    fields: dict[str, object] = dict(
        trial=trial, torch_build="2.13.0+cpu", device="cpu", dtype="float32", shape="4x4",
        batch=1, task="compute", threads=1, tolerance=1e-3, spec_sha256="ab",
        synchronized=True, run_id=run, latency=MEDIAN, quality_pass=True, quality_error=1e-4,
        samples_s=SAMPLES, repeats=len(SAMPLES), latency_iqr_s=HIGH - LOW,
        iqr_over_median=(HIGH - LOW) / MEDIAN, noisy=(HIGH - LOW) / MEDIAN > 0.1,
        throughput=128 / MEDIAN, throughput_unit="FLOP/s")
    return TrialRow(**{**fields, **extra})  # type: ignore[arg-type]


def environment(run: str = "r1", **extra: object) -> Environment:
    fields: dict[str, object] = dict(torch_build="2.13.0+cpu", device_key="cpu",
                                     device_name="cpu", run_id=run,
                                     date=NOW)
    return Environment(**{**fields, **extra})  # type: ignore[arg-type]


def observation(value: object = 6.0, *, name: str = "v") -> Observation:
    return Observation(snippet="p/s", name=name, kind="number", value=value,
                       snippet_sha256="ab", torch_build="2.13.0+cpu", device_key="cpu",
                       run_id="r1", date=NOW)


SPECS = {"mm": TrialSpec(name="mm", workload="matmul", task="compute", dtype="float32",
                         shape=(4, 4), tolerance=1e-3)}


def recorded(tmp_path: Path, rows: list[TrialRow] | None = None) -> SetPaths:
    paths = SetPaths.of(tmp_path / "results", "2.13.0+cpu", "cpu")
    commit_set(paths, environment=environment(), rows=rows or [measured()],
               observations=[observation(), observation(27.0, name="w")])
    vouch(paths.folder.parent, "2.13.0+cpu", "cpu")  # as a person would, after reading it
    return paths


def problems(tmp_path: Path) -> list[str]:
    (record,) = load_all(tmp_path / "results", root=tmp_path).items
    return consistency_problems(record, results=tmp_path / "results", root=tmp_path,
                                specs=SPECS)


def test_a_run_written_by_commit_set_is_consistent_and_keeps_its_trials(tmp_path: Path) -> None:
    recorded(tmp_path)
    assert problems(tmp_path) == []
    (record,) = load_all(tmp_path / "results").items
    run = record.environments["r1"]
    assert run.trials == ("mm",)


@pytest.mark.parametrize(("change", "message"), [
    (dict(quality_error=2e-3), "quality_pass is true but quality_error 0.002 exceeds"),
    (dict(quality_pass=False), "quality_pass is false but quality_error 0.0001 is within"),
    (dict(error="quality: RuntimeError"), "quality_pass is true but the row has an error"),
    (dict(latency=MEDIAN / 2), "latency 0.0006 s is not the median of samples_s"),
    (dict(repeats=9), "repeats is 9 but samples_s holds 5 blocks"),
    (dict(noisy=not ((HIGH - LOW) / MEDIAN > NOISY_IQR_OVER_MEDIAN)), "noisy is"),
    (dict(throughput=256 / MEDIAN), "is not the work of a call \\(128\\)"),
    (dict(latency_iqr_s=(HIGH - LOW) / 2), "latency_iqr_s .* is not the IQR of samples_s"),
    (dict(samples_s=()), "a latency with no samples_s"),
    (dict(throughput_unit="items/s"), "the work of a call is not known"),
])
def test_each_relation_between_cells_is_checked(change: dict[str, object], message: str) -> None:
    assert row_problems([measured()]) == []
    found = row_problems([dataclasses.replace(measured(), **change)])  # type: ignore[arg-type]
    assert found and re.search(message, found[0]), found


def test_the_relations_allow_the_rounding_of_the_stored_digits(tmp_path: Path) -> None:
    # Stored with 6 and 4 significant digits, then read back: still consistent.
    recorded(tmp_path, [measured(latency=MEDIAN * (1 + 4e-6))])
    assert problems(tmp_path) == []


def test_threads_against_the_trial_and_a_missing_row_of_the_runs_trials(tmp_path: Path) -> None:
    paths = recorded(tmp_path, [measured(threads=4), measured("other", spec_sha256="cd")])
    text = paths.rows.read_text()
    found = problems(tmp_path)
    assert any("results/2.13.0+cpu/cpu.csv:2: trial 'mm' has threads = 4, but "
               "trials/trials.toml declares threads = 1" in p for p in found), found
    # Deleting a (failing) row keeps every cell valid; the run's trials still name it.
    paths.rows.write_text("\n".join(text.splitlines()[:2]) + "\n")
    assert any("run 'r1' measured 2 trial(s)" in p and "no row of 'other'" in p
               for p in problems(tmp_path))


def test_a_hand_edit_that_keeps_every_cell_valid_is_vouched_for_by_no_one(
        tmp_path: Path) -> None:
    paths = recorded(tmp_path)
    text = paths.observations.read_text()
    paths.observations.write_text(text.replace('"value": 27.0', '"value": 26.0'))
    found = problems(tmp_path)
    assert any(p.startswith("results/2.13.0+cpu/cpu.examples.jsonl:1: not signed by an allowed "
                            "signer (results/allowed_signers) and it changed since "
                            "results/unsigned.sha256:") for p in found), found


def _spec(**extra: object) -> dict[str, TrialSpec]:
    return {"mm": dataclasses.replace(SPECS["mm"], **extra)}  # type: ignore[arg-type]


@pytest.mark.parametrize(("specs", "device", "message"), [
    (_spec(tolerance=1e-2), "cpu", "has tolerance = 0.001, but trials/trials.toml declares "
                                   "tolerance = 0.01"),
    (_spec(dtype="bfloat16"), "cpu", "has dtype = 'float32', but .* declares dtype = 'bfloat16'"),
    (_spec(shape=(8, 8)), "cpu", "has shape = '4x4', but .* declares shape = '8x8'"),
    (_spec(devices=("cpu",)), "cuda", "trial 'mm' runs on cpu only .*, yet this cuda record "
                                      "holds a row of it"),
])
def test_a_row_against_its_trials_declaration(specs: dict[str, TrialSpec], device: str,
                                              message: str) -> None:
    assert spec_problems([measured()], SPECS, "cpu") == []
    found = spec_problems([measured()], specs, device)
    assert found and re.search(message, found[0]), found


def test_the_fraction_of_peak_is_recomputed_from_throughput_peak_and_threads() -> None:
    peak = 128 / MEDIAN / 0.764
    envs = {"r1": environment(peak={"float32": peak})}
    honest = measured(peak_fraction=0.764)
    assert fraction_problems([honest], envs) == []
    for forged in (dataclasses.replace(honest, peak_fraction=0.964),  # raised, still ≤ 1
                   dataclasses.replace(honest, peak_fraction=None)):  # hidden
        assert "is not throughput / the run's peak (0.764)" in fraction_problems([forged], envs)[0]
    # Two threads sharing cores have no peak to divide by; a beaten peak bounds nothing.
    assert "(none)" in fraction_problems([dataclasses.replace(honest, threads=2)], envs)[0]
    envs = {"r1": environment(peak={"float32": peak / 2})}
    assert "(none)" in fraction_problems([honest], envs)[0]


def _records(*runs: tuple[str, str, Environment]) -> list[DeviceRecord]:
    return [DeviceRecord(torch_build=build, device_key=key, environments={e.run_id: e})
            for build, key, e in runs]


def test_run_ids_dates_builds_and_commits_across_the_sets() -> None:
    good = environment("20261201T230828Z-b37640", date="2026-12-01T23:08:28+00:00",
                       torch_git="cf30")
    assert run_problems(_records(("2.13.0+cpu", "cpu", good)), results=Path("results")) == []
    for runs, message in [
        ([("2.13.0+cpu", "cpu", dataclasses.replace(good, date="2026-11-01T23:08:28+00:00"))],
         r"results/2\.13\.0\+cpu/cpu\.env\.json:1: run '20261201T230828Z-b37640' is dated "
         r"'2026-11-01T23:08:28\+00:00', not when its id says it started"),
        ([("2.13.0+cpu", "cpu", dataclasses.replace(good, run_id="r1"))], "is dated"),
        ([("2.13.0+cpu", "cpu", good), ("2.13.0+cpu", "cuda-x", good)],
         r"cuda-x\.env\.json:1: run '20261201T230828Z-b37640' is also a run of .*cpu\.env\.json"),
        ([("2.13.0+cpu", "cpu", good),
          ("2.13.0+cpu", "cuda-x", dataclasses.replace(good, run_id="20261201T230828Z-aaaaaa",
                                                       torch_git="5c48"))],
         "was made with torch_git 5c48, .* with cf30: one build has one commit"),
        ([("2.13.0+\u0441pu", "cpu", good)], "is not a torch build as PEP 440 writes it in ASCII"),
    ]:
        found = run_problems(_records(*runs), results=Path("results"))
        assert found and re.search(message, found[0]), (message, found)
    seen = dataclasses.replace(observation(), run_id=good.run_id, date="2026-10-01")
    (record,) = _records(("2.13.0+cpu", "cpu", good))
    record = dataclasses.replace(record, observations=[seen], observation_lines={
        ("p/s", "v"): Location(path=Path("results/2.13.0+cpu/cpu.examples.jsonl"), line=7)})
    assert run_problems([record], results=Path("results")) == [
        "results/2.13.0+cpu/cpu.examples.jsonl:7: observation 'v': run "
        "'20261201T230828Z-b37640' is dated '2026-10-01', not when its id says it started "
        "(<UTC start>-<hex>, dated within an hour); a record's date is not edited"]


def test_json_too_deep_to_read_names_the_file_and_line(tmp_path: Path) -> None:
    paths = recorded(tmp_path)
    deep = json.loads(paths.observations.read_text().splitlines()[0])
    line = json.dumps(deep)[:-1] + ', "value": ' + "[" * 3000 + "]" * 3000 + "}"
    paths.observations.write_text(paths.observations.read_text() + line + "\n")
    with pytest.raises(HarnessError, match=r"cpu\.examples\.jsonl:3: JSON nested too deeply"):
        load_all(tmp_path / "results")
    paths.environments.write_text('{"runs": ' + "[" * 3000 + "]" * 3000 + "}")
    with pytest.raises(HarnessError, match=r"cpu\.env\.json:1: JSON nested too deeply"):
        load_all(tmp_path / "results")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("threads", "muchos", "field 'threads' holds 'muchos'; expected an integer"),
    ("python", None, "field 'python' holds None; expected text"),
    ("extra", [], r"field 'extra' holds \[\]; expected an object"),
    ("own_cores", 1, "expected true or false"),
    ("peak", {"float32": "fast"}, "expected an object of float"),
    ("date", "2099-01-01T00:00:00+00:00", "is in the future"),
    ("date", "ayer por la tarde", "is not an ISO 8601 date"),
    ("device_name", "NVIDIA H100", "whose device key is 'cuda-nvidia-h100'"),
])
def test_every_environment_field_has_its_type(tmp_path: Path, key: str, value: object,
                                              message: str) -> None:
    paths = recorded(tmp_path)
    data = json.loads(paths.environments.read_text())
    data["runs"]["r1"][key] = value
    if key == "device_name":  # a GPU set's file claims another GPU
        data["runs"]["r1"]["device_key"] = "cuda-nvidia-h200"
    paths.environments.write_text(json.dumps(data, indent=2))
    with pytest.raises(HarnessError, match=rf"cpu\.env\.json:\d+: run 'r1'.*{message}"):
        load_all(tmp_path / "results")


def test_dates_are_real_and_not_in_the_future() -> None:
    assert date_problem("2026-11-30") is None and date_problem("2026-11-30T18:44:30") is None
    assert "future" in (date_problem("2099-01-01") or "")


def test_a_second_observation_of_a_name_names_both_lines(tmp_path: Path) -> None:
    paths = recorded(tmp_path)
    first = paths.observations.read_text().splitlines()[0]
    paths.observations.write_text(paths.observations.read_text()
                                  + first.replace("6.0", "7.0") + "\n")
    with pytest.raises(HarnessError, match=r"cpu\.examples\.jsonl:3: a second observation of "
                       r"'p/s' 'v' \(another value\) after .*cpu\.examples\.jsonl:1"):
        load_all(tmp_path / "results")


def test_record_files_and_observed_values_have_a_size_limit(tmp_path: Path) -> None:
    paths = recorded(tmp_path)
    lines = paths.observations.read_text().splitlines()
    big = json.loads(lines[0]) | {"value": "x" * (MAX_OBSERVED_CHARS + 1)}
    paths.observations.write_text(json.dumps(big) + "\n")
    with pytest.raises(HarnessError, match=r"cpu\.examples\.jsonl:1: an observed value of "):
        load_all(tmp_path / "results")
    with paths.rows.open("a") as handle:
        handle.truncate(MAX_RECORD_BYTES + 1)
    with pytest.raises(HarnessError, match=rf"cpu\.csv:1: {MAX_RECORD_BYTES + 1:,} bytes; the "):
        load_all(tmp_path / "results")


def test_a_latin1_byte_in_a_record_names_its_line(tmp_path: Path) -> None:
    paths = recorded(tmp_path)
    data = paths.rows.read_bytes().replace(b",,", b",se\xf1al,", 1)
    paths.rows.write_bytes(data)
    with pytest.raises(HarnessError, match=r"cpu\.csv:2: byte 0xf1 is not UTF-8"):
        load_all(tmp_path / "results")
