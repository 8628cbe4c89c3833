from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from harness.core.errors import HarnessError
from harness.core.types import CSV_HEADER, Environment, Observation
from harness.records.store import (
    device_key,
    load_all,
    merge_observations,
    merge_rows,
    read_rows,
    write_environment,
)


def row(trial: str, device: str = "cpu", **extra: str) -> dict[str, str]:
    return {"trial": trial, "device": device, "threads": "1", **extra}


def env(build: str = "2.13.0+cpu") -> Environment:
    return Environment(torch_build=build, device_key="cpu", device_name="", python="3.11",
                       platform="linux", threads=1, date="2026-11-30T00:00:00+00:00")


def writer(path: str, start: int) -> None:
    for index in range(start, start + 40):
        merge_rows(Path(path), [row(f"t{index}")])


def test_two_processes_writing_at_once_keep_every_row(tmp_path: Path) -> None:
    path = tmp_path / "2.13.0+cpu" / "cpu.csv"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=writer, args=(str(path), s)) for s in (0, 1000)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    trials = {r["trial"] for r in read_rows(path)}
    assert trials == {f"t{i}" for i in [*range(40), *range(1000, 1040)]}


def test_merging_replaces_the_same_trial_and_keeps_others(tmp_path: Path) -> None:
    path = tmp_path / "cpu.csv"
    merge_rows(path, [row("a", latency="1"), row("b", latency="2")])
    merge_rows(path, [row("a", latency="3")])
    assert {r["trial"]: r["latency"] for r in read_rows(path)} == {"a": "3", "b": "2"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"cpu.csv:1: empty record"),
        ("trial,device\n", r"cpu.csv:1: missing column 'torch_build'"),
        (",".join(CSV_HEADER) + ",colour\n", r"cpu.csv:1: unknown column 'colour'"),
        (",".join(CSV_HEADER) + "\nx,2.13,cpu\n", r"cpu.csv:2: 3 cells where the header has"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "cpu.csv").write_text(text)
    with pytest.raises(HarnessError, match=message):
        read_rows(tmp_path / "cpu.csv")


def test_load_all_validates_devices_lines_and_environment(tmp_path: Path) -> None:
    folder = tmp_path / "2.13.0+cpu"
    merge_rows(folder / "cpu.csv", [row("a")])
    write_environment(folder / "cpu.env.json", env())
    merge_observations(folder / "cpu.examples.jsonl", [
        Observation(snippet="p/s", name="v", kind="number", value=1.0, snippet_sha256="ab")])
    records = load_all(tmp_path)
    (record,) = records.items
    assert record.observation_lines[("p/s", "v")].line == 1
    (folder / "tpu.csv").write_text((folder / "cpu.csv").read_text())
    with pytest.raises(HarnessError, match=r"tpu.csv:1: unknown device 'tpu'. .*Valid: cpu, cuda, mps, xpu"):
        load_all(tmp_path)
    (folder / "tpu.csv").unlink()
    (folder / "cpu.examples.jsonl").write_text('{"snippet": "p/s"}\nnot json\n')
    with pytest.raises(HarnessError, match=r"cpu.examples.jsonl:1: missing key"):
        load_all(tmp_path)
    (folder / "cpu.env.json").unlink()
    (folder / "cpu.examples.jsonl").unlink()
    with pytest.raises(HarnessError, match=r"cpu.env.json:1: missing"):
        load_all(tmp_path)


def test_row_device_must_match_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "2.13.0+cpu"
    merge_rows(folder / "cpu.csv", [row("a", device="cuda-nvidia-h200")])
    write_environment(folder / "cpu.env.json", env())
    with pytest.raises(HarnessError, match=r"cpu.csv:2: row for device 'cuda-nvidia-h200'"):
        load_all(tmp_path)


def test_device_key_is_an_ascii_slug() -> None:
    assert device_key("cuda", "NVIDIA H200") == "cuda-nvidia-h200"
    assert device_key("cpu", "AMD EPYC") == "cpu"
