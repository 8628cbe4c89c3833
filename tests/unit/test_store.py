"""Record sets as data: typed and ranged cells, attribution, commits by one folder rename."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import re
import shutil
from pathlib import Path

import pytest

from harness.core.errors import HarnessError
from harness.core.rows import CSV_HEADER, TrialRow
from harness.core.types import Environment, Observation
from harness.records.commit import commit_set
from harness.records.store import SetPaths, format_rows, load_all, parse_rows


def row(trial: str, *, run: str = "r1", build: str = "2.13.0+cpu", **extra: object) -> TrialRow:
    fields: dict[str, object] = dict(trial=trial, torch_build=build, device="cpu", dtype="float32",
                                     shape="4x4", batch=1, task="compute", threads=1,
                                     tolerance=1e-3, spec_sha256="ab", synchronized=True,
                                     run_id=run, latency=1e-3, quality_pass=True)
    return TrialRow(**{**fields, **extra})  # type: ignore[arg-type]


def env(run: str = "r1", build: str = "2.13.0+cpu", date: str = "2026-11-30T00:00:00") -> Environment:
    return Environment(torch_build=build, device_key="cpu", device_name="cpu", run_id=run,
                       date=date)


def observation(value: float, *, run: str = "r1", date: str = "2026-11-30") -> Observation:
    return Observation(snippet="p/s", name="v", kind="number", value=value, snippet_sha256="ab",
                       torch_build="2.13.0+cpu", device_key="cpu", run_id=run, date=date)


def paths(tmp_path: Path) -> SetPaths:
    return SetPaths.of(tmp_path / "results", "2.13.0+cpu", "cpu")


def writer(results: str, start: int) -> None:
    for index in range(start, start + 20):
        run = f"run{index}"
        commit_set(SetPaths.of(Path(results), "2.13.0+cpu", "cpu"), environment=env(run),
                   rows=[row(f"t{index}", run=run)])


def test_two_processes_committing_at_once_keep_every_row(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    results = tmp_path / "results"
    workers = [context.Process(target=writer, args=(str(results), s)) for s in (0, 1000)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    (record,) = load_all(results).items
    assert {r.trial for r in record.rows} == {f"t{i}" for i in [*range(20), *range(1000, 1020)]}
    assert set(record.environments) == {r.run_id for r in record.rows}


def test_commit_replaces_rows_keeps_dates_of_unchanged_observations_and_drops_orphans(
    tmp_path: Path,
) -> None:
    target = paths(tmp_path)
    commit_set(target, environment=env("r1"), rows=[row("a"), row("b")],
               observations=[observation(1.0)])
    report = commit_set(target, environment=env("r2", date="2026-12-01T00:00:00"),
                        rows=[row("a", run="r2", latency=2e-3)],
                        observations=[observation(1.0, run="r2", date="2026-12-01")],
                        expected={("p/s", "v")})
    (record,) = load_all(target.folder.parent).items
    assert {r.trial: r.latency for r in record.rows} == {"a": 2e-3, "b": 1e-3}
    assert record.observations[0].date == "2026-11-30"  # unchanged: the old date stays
    assert report.unchanged == 1 and report.removed == []
    report = commit_set(target, environment=env("r3"), rows=[row("a", run="r3")], expected=set())
    assert report.removed == ["p/s v"]
    (record,) = load_all(target.folder.parent).items
    assert record.observations == []
    assert set(record.environments) == {"r1", "r3"}  # r2 is no longer named by anything


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: "", r"cpu.csv:1: empty record"),
        (lambda t: t.splitlines()[0] + "\n", r"cpu.csv:2: the record has a header and no row"),
        (lambda t: "trial,device\n", r"cpu.csv:1: missing column 'torch_build'"),
        (lambda t: t.replace(",run_id", ",run_id,colour", 1), r"cpu.csv:1: unknown column 'colour'"),
        (lambda t: t.replace(",0.001,", ",nan,", 1), r"cpu.csv:2: column 'latency' holds 'nan'; expected a finite number > 0"),
        (lambda t: t.replace(",0.001,", ",-0.0002,", 1), r"cpu.csv:2: column 'latency' holds '-0.0002'"),
        (lambda t: t.replace(",true,", ",TRUE,", 1), r"cpu.csv:2: column 'quality_pass' holds 'TRUE'; expected true or false"),
        (lambda t: t + t.splitlines()[1] + "\n", r"cpu.csv:3: trial 'a' with 1 thread\(s\) already has a row at line 2"),
        (lambda t: t.replace("\n", ",x\n", 2).replace(",run_id,x", ",run_id", 1), r"cpu.csv:2: 30 cells where the header has 29"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path: Path, edit, message: str) -> None:
    text = format_rows([row("a")])
    with pytest.raises(HarnessError, match=message):
        parse_rows(edit(text), Path("cpu.csv"))


def test_a_byte_order_mark_is_read() -> None:
    (parsed,) = parse_rows("\ufeff" + format_rows([row("a")]), Path("cpu.csv"))
    assert parsed.trial == "a" and parsed == row("a")
    assert tuple(format_rows([]).strip().split(",")) == CSV_HEADER


def committed(tmp_path: Path) -> Path:
    commit_set(paths(tmp_path), environment=env(), rows=[row("a")], observations=[observation(1.0)])
    return tmp_path / "results"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: (r / "2.13.0+cpu").rename(r / "9.9.9+cpu"),
         r"9.9.9\+cpu/cpu.env.json:1: run 'r1' was made with torch 2.13.0\+cpu"),
        (lambda r: (r / "2.13.0+cpu/cpu.env.json").write_text("null"),
         r"cpu.env.json:1: expected an object"),
        (lambda r: (r / "2.13.0+cpu/cpu.env.json").write_text("[1, 2]"),
         r"cpu.env.json:1: expected an object"),
        (lambda r: (r / "2.13.0+cpu/cpu.env.json").unlink(),
         r"2.13.0\+cpu/cpu.env.json:1: missing"),
        (lambda r: (r / "2.13.0+cpu/tpu.csv").write_text("x"),
         r"tpu.csv:1: unknown device 'tpu'. .*Valid: cpu, cuda, mps, xpu"),
        (lambda r: (r / ".2.13.0+cpu.new").mkdir(),
         r"\.2\.13\.0\+cpu\.new: a recording run was interrupted while replacing"),
        (lambda r: (r / "2.13.0+cpu/cpu.examples.jsonl").write_text(
            json.dumps({**dataclasses.asdict(observation(1.0)), "run_id": "elsewhere"}) + "\n"),
         r"cpu.examples.jsonl:1: observation names run 'elsewhere'"),
        (lambda r: (r / "2.13.0+cpu/cpu.examples.jsonl").write_text(
            json.dumps({**dataclasses.asdict(observation(1.0)), "kind": "tensr"}) + "\n"),
         r"cpu.examples.jsonl:1: unknown kind 'tensr'. Did you mean 'tensor'"),
    ],
)
def test_record_sets_are_validated_as_data(tmp_path: Path, mutate, message: str) -> None:
    results = committed(tmp_path)
    mutate(results)
    with pytest.raises(HarnessError, match=message):
        load_all(results, root=tmp_path)


def test_a_row_claiming_another_build_is_refused(tmp_path: Path) -> None:
    results = committed(tmp_path)
    csv_path = results / "2.13.0+cpu" / "cpu.csv"
    csv_path.write_text(csv_path.read_text().replace(",2.13.0+cpu,", ",2.14.1,", 1))
    with pytest.raises(HarnessError, match=r"cpu.csv:2: row names torch 2.14.1 on 'cpu' in the "
                                           r"record of torch 2.13.0\+cpu"):
        load_all(results, root=tmp_path)


def test_the_columns_are_trial_row_fields_and_an_empty_cell_reads_as_the_default() -> None:
    fields = [f for f in dataclasses.fields(TrialRow) if f.name != "location"]
    assert CSV_HEADER == tuple(f.name for f in fields)
    text = format_rows([row("a", memory=5, throughput_unit="FLOP/s", noisy=True)])
    header, cells = (line.split(",") for line in text.splitlines())
    emptied = dict(zip(header, cells, strict=True)) | {"memory": "", "throughput_unit": "",
                                                       "noisy": ""}
    (parsed,) = parse_rows(",".join(header) + "\n" + ",".join(emptied.values()) + "\n",
                           Path("cpu.csv"))
    assert parsed == row("a")  # each emptied cell is its field's default
    required = {f.name for f in fields if f.default is dataclasses.MISSING}
    assert {"trial", "run_id", "tolerance"} <= required and "latency" not in required
    for name in sorted(required):
        with pytest.raises(HarnessError, match=rf"column '{name}' is empty; it is required"):
            parse_rows(",".join(header) + "\n"
                       + ",".join(v if k != name else "" for k, v in zip(header, cells, strict=True))
                       + "\n",
                       Path("cpu.csv"))


def test_lookups_find_the_first_row_of_a_trial_and_each_observation(tmp_path: Path) -> None:
    target = paths(tmp_path)
    rows = [row(f"t{i}", threads=threads, latency=(i + 1) * 1e-3 * threads)
            for i in range(50) for threads in (1, 2)]
    commit_set(target, environment=env(), rows=rows, observations=[observation(1.0)])
    (record,) = load_all(target.folder.parent).items
    assert all(record.row(f"t{i}") == next(r for r in record.rows if r.trial == f"t{i}")
               for i in range(50))
    assert record.row("t7") is not None and record.row("t7").threads == 1
    assert record.row("absent") is None
    assert record.observation("p/s", "v") == observation(1.0)
    assert record.observation("p/s", "w") is None and record.observation("p/t", "v") is None


def test_a_swap_interrupted_between_its_renames_is_refused_then_rolled_forward(
        tmp_path: Path) -> None:
    target = paths(tmp_path)
    commit_set(target, environment=env("r1"), rows=[row("a")])
    results = target.folder.parent
    new = results / ".2.13.0+cpu.new"  # complete, as the interrupted writer left it
    shutil.copytree(target.folder, new)
    (new / "cpu.csv").write_text(format_rows([row("a"), row("z")]))
    target.folder.rename(results / ".2.13.0+cpu.old")
    with pytest.raises(HarnessError, match=r"\.2\.13\.0\+cpu\.new: a recording run was "
                       "interrupted"):
        load_all(results)
    commit_set(target, environment=env("r2"), rows=[row("b", run="r2")])
    (record,) = load_all(results).items
    assert {r.trial for r in record.rows} == {"a", "z", "b"}
    assert sorted(p.name for p in results.iterdir()) == [".record.lock", "2.13.0+cpu"]


def _commit_on_a_full_disk(results: str, answer: multiprocessing.SimpleQueue) -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        commit_set(SetPaths.of(Path(results), "2.13.0+cpu", "cpu"), environment=env("r2"),
                   rows=[row(f"t{i}", run="r2") for i in range(50)])
        answer.put("written")
    except HarnessError as exc:
        answer.put(str(exc))


def test_a_write_that_fails_names_the_record_file_and_changes_nothing(tmp_path: Path) -> None:
    target = paths(tmp_path)
    commit_set(target, environment=env("r1"), rows=[row("a")])
    before = {p.name: p.read_bytes() for p in target.folder.iterdir()}
    context = multiprocessing.get_context("fork")
    answer = context.SimpleQueue()
    child = context.Process(target=_commit_on_a_full_disk,
                            args=(str(target.folder.parent), answer))
    child.start()
    child.join(60)
    assert re.search(r"2\.13\.0\+cpu/cpu\.csv: could not write the record \(File too large\); "
                     r"the previous record is unchanged\. Free disk space or make .* writable",
                     answer.get())
    assert {p.name: p.read_bytes() for p in target.folder.iterdir()} == before
    assert sorted(p.name for p in target.folder.parent.iterdir()) == [".record.lock",
                                                                       "2.13.0+cpu"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_records_folder_is_named(tmp_path: Path) -> None:
    target = paths(tmp_path)
    commit_set(target, environment=env("r1"), rows=[row("a")])
    target.folder.parent.chmod(0o555)
    try:
        with pytest.raises(HarnessError, match=r"could not write the record .* make .*results "
                           "writable"):
            commit_set(target, environment=env("r2"), rows=[row("b", run="r2")])
    finally:
        target.folder.parent.chmod(0o755)


def test_the_lock_holder_may_lock_again(tmp_path: Path) -> None:
    """A second writer waits, naming the lock: tests/faults/test_faults_record.py."""
    from harness.records.commit import locked

    results = tmp_path / "results"
    with locked(results, shown=Path("results")):
        with locked(results, shown=Path("results")):  # record's lock, then commit_set's
            pass


def test_staged_folders_and_the_lock_are_ignored_by_git() -> None:
    import subprocess

    root = Path(__file__).resolve().parents[2]
    for name in ("results/.2.13.0+cpu.tmp/cpu.csv", "results/.record.lock"):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=root, check=False)
        assert done.returncode == 0, name


def test_every_stored_tuple_field_is_variadic() -> None:
    """store.type_problem checks each item of a tuple field against its first type only."""
    import typing

    from harness.core.types import Environment, Observation

    for cls in (Environment, Observation):
        for name, hint in typing.get_type_hints(cls).items():
            for part in (hint, *typing.get_args(hint)):
                if typing.get_origin(part) is tuple:
                    assert typing.get_args(part)[1:] == (Ellipsis,), (cls.__name__, name)


def test_an_unclosed_quote_is_named_at_the_line_it_opens() -> None:
    """csv reads on to the end of the file for the closing quote: the message names the
    row's first line, not the last line read."""
    from support import ROOT

    from harness.records.store import parse_rows

    lines = (ROOT / "results/2.13.0+cpu/cpu.csv").read_text().splitlines()
    lines[1] = lines[1].replace(",", ',"', 1)  # the second cell opens a quote, never closed
    with pytest.raises(HarnessError) as caught:
        parse_rows("\n".join(lines) + "\n", Path("results/2.13.0+cpu/cpu.csv"))
    assert str(caught.value).startswith("results/2.13.0+cpu/cpu.csv:2: ")
    assert f"runs to line {len(lines)}: a quoted cell not closed?" in str(caught.value)
