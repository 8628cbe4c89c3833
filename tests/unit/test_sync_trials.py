"""The timing lesson: trials that time few calls with three clocks, their analytic
expectations checked on the page, «IQR —» below two samples, and the bare-loop line.
No GPU here: the views get synthetic rows (a fake backend's record), and the clocks
that a CPU can run are run with the real torch."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from support import ROOT, run

from harness.core.errors import HarnessError, Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialExpectation, TrialSpec
from harness.records.store import DeviceRecord, Records
from harness.sources.trials import load_trials, spec_sha256, workload_sources
from harness.views.measured import Context, measurements

HOST, SYNCED, EVENTS = (f"sync_calls_4096_float32_{c}" for c in ("host", "synchronized", "events"))
GPU = "cuda-nvidia-h200"


@pytest.fixture(scope="module")
def specs() -> dict[str, TrialSpec]:
    return load_trials()


def row(specs: dict[str, TrialSpec], name: str, latency: float, *, repeats: int = 7,
        line: int = 2, **fields: object) -> TrialRow:
    spec = specs[name]
    return TrialRow(
        trial=name, torch_build="2.11.0+cu130", device=GPU, dtype=spec.dtype,
        shape="4096x4096", batch=1, task=spec.task, threads=1, tolerance=spec.tolerance,
        spec_sha256=spec_sha256(spec, sources=workload_sources()),
        synchronized=spec.params.get("clock") != "host", run_id="r1", latency=latency,
        quality_pass=True, quality_error=1e-6, repeats=repeats,
        iqr_over_median=None if repeats < 2 else 0.02,
        location=Location(path=Path("results/2.11.0+cu130/cuda-nvidia-h200.csv"), line=line),
        **fields)  # type: ignore[arg-type]


def gpu_records(rows: list[TrialRow], **env: object) -> Records:
    environment = Environment(torch_build="2.11.0+cu130", device_key=GPU,
                              device_name="NVIDIA H200", run_id="r1", date="2026-12-01",
                              **env)  # type: ignore[arg-type]
    record = DeviceRecord(torch_build="2.11.0+cu130", device_key=GPU,
                          environments={"r1": environment}, rows=rows)
    return Records(items=[record])


def render(records: Records, specs: dict[str, TrialSpec], group: str = "sync_calls",
           lang: str = "es") -> tuple[str, list[str]]:
    context = Context(records=records, specs=specs, lang=lang, sources=workload_sources())
    return measurements(context, group), list(context.stale)


def test_the_three_clocks_are_declared_with_typed_expectations(specs) -> None:
    calls = {n: specs[n] for n in (HOST, SYNCED, EVENTS)}
    assert {s.params["clock"] for s in calls.values()} == {"host", "synchronized", "events"}
    assert {(s.workload, s.shape, s.params["calls"]) for s in calls.values()} == {
        ("matmul", (4096, 4096), 10)}
    assert all("cpu" not in s.devices for s in calls.values())
    host, events = specs[HOST].expect, specs[EVENTS].expect
    assert host is not None and (host.relation, host.of, host.factor) == ("below", SYNCED, 0.5)
    assert events is not None and (events.relation, events.factor) == ("within", 0.1)
    assert host.derivation and host.derivation_en and str(host.location).startswith(
        "trials/trials.toml:")
    # A claim about the result is not part of what is measured: the hash ignores it.
    reworded = dataclasses.replace(specs[HOST], expect=dataclasses.replace(host, factor=0.9))
    assert spec_sha256(reworded) == spec_sha256(specs[HOST])


@pytest.mark.parametrize(("relation", "factor", "ratio", "holds"), [
    ("below", 0.5, 0.004, True), ("below", 0.5, 0.5, False), ("below", 0.5, 0.98, False),
    ("within", 0.1, 0.95, True), ("within", 0.1, 1.09, True), ("within", 0.1, 1.2, False),
])
def test_expectation_rule(relation: str, factor: float, ratio: float, holds: bool) -> None:
    expect = TrialExpectation(relation=relation, of="b", factor=factor,  # type: ignore[arg-type]
                              derivation="d")
    assert expect.holds(ratio) is holds


BASE = ('[[trial]]\nname = "b"\nworkload = "matmul"\ntask = "compute"\ndtype = "float32"\n'
        'shape = [4, 4]\ngroup = "g"\nparams = { clock = "synchronized", calls = 2, blocks = 2 }\n'
        '\n[[trial]]\nname = "a"\nworkload = "matmul"\ntask = "compute"\ndtype = "float32"\n'
        'shape = [4, 4]\ngroup = "g"\n')


@pytest.mark.parametrize(("tail", "message"), [
    ('[trial.expect]\nrelation = "below"\nof = "b"\nfactor = 0.5\nderivation = "d"\nwhy = 1\n',
     "trials.toml:22: unknown key 'why' in [trial.expect]"),
    ('[trial.expect]\nrelation = "above"\nof = "b"\nfactor = 0.5\nderivation = "d"\n',
     "trials.toml:18: relation = 'above' in [trial.expect]; expected one of below, within"),
    ('[trial.expect]\nrelation = "below"\nof = "c"\nfactor = 0.5\nderivation = "d"\n',
     "trials.toml:17: expect.of = 'c' is not another trial."),
    ('[trial.expect]\nrelation = "below"\nof = "b"\nfactor = 0\nderivation = "d"\n',
     "trials.toml:20: factor = 0 in [trial.expect]"),
    ('[trial.expect]\nrelation = "below"\nof = "b"\nfactor = 0.5\n',
     "trials.toml:17: [trial.expect] needs 'derivation'"),
    # A claim that accepts any latency is refused unless a reason says why it checks.
    ('[trial.expect]\nrelation = "below"\nof = "b"\nfactor = 1e6\nderivation = "d"\n',
     "trials.toml:20: factor = 1000000.0 is above 1 for relation 'below'"),
    ('[trial.expect]\nrelation = "within"\nof = "b"\nfactor = 0.9\nderivation = "d"\n',
     "add factor_reason"),
    ('params = { clock = "wall", calls = 1, blocks = 1 }\n',
     "trials.toml:17: params = {'clock': 'wall'"),
    ('params = { clock = "host", calls = 0, blocks = 1 }\n',
     "has calls = 0, not an integer >= 1"),
])
def test_bad_declarations_name_file_and_line(tmp_path: Path, tail: str, message: str) -> None:
    path = tmp_path / "trials.toml"
    path.write_text(BASE + tail)
    with pytest.raises(HarnessError) as caught:
        load_trials(path, root=tmp_path)
    assert message in str(caught.value)


def test_page_checks_expectations_against_the_record(specs) -> None:
    rows = [row(specs, HOST, 1.1e-5, line=2), row(specs, SYNCED, 2.7e-3, line=3),
            row(specs, EVENTS, 2.68e-3, line=4)]
    markdown, problems = render(gpu_records(rows), specs)
    assert problems == []
    shown = markdown.replace("\u00a0", " ")  # a table label's parts keep together
    assert "reloj del host sin esperar" in shown and "eventos del dispositivo" in shown
    assert markdown.count("✓ Se cumple") == 2
    assert "cociente medido 0,00407×" in markdown and "dentro de un 10\u00a0%" in markdown
    english, _ = render(gpu_records(rows), specs, lang="en")
    assert "measured ratio 0.00407×" in english and "Derivation" in english


def test_a_failing_expectation_is_shown_and_fails_the_build(specs) -> None:
    # The 1000-call mistake: a full queue makes the host wait, and the two agree.
    rows = [row(specs, HOST, 2.69e-3, line=2), row(specs, SYNCED, 2.7e-3, line=3),
            row(specs, EVENTS, 2.0e-3, line=4)]
    markdown, problems = render(gpu_records(rows), specs)
    assert markdown.count("✗ No se cumple") == 2
    assert len(problems) == 2
    assert problems[0].startswith("results/2.11.0+cu130/cuda-nvidia-h200.csv:2: trial "
                                  f"{HOST!r} measured 0.996 ×")
    assert f"analytic expectation at {specs[HOST].expect.location}" in problems[0]
    known = {**specs, HOST: dataclasses.replace(specs[HOST], expect=dataclasses.replace(
        specs[HOST].expect, known_failure="<b>cola</b> llena"))}
    markdown, problems = render(gpu_records(rows), known)
    assert "Fallo conocido (cociente medido 0,996×): &lt;b&gt;cola&lt;/b&gt; llena" in markdown
    assert len(problems) == 1  # only the events claim is left failing


def test_missing_or_failed_rows_give_no_verdict(specs) -> None:
    markdown, problems = render(gpu_records([row(specs, SYNCED, 2.7e-3)]), specs)
    assert "torch 2.11.0+cu130: <em>sin medición</em>" in markdown and problems == []
    failed = row(specs, HOST, 1e-5, error="steady state: RuntimeError: boom")
    markdown, _ = render(gpu_records([failed, row(specs, SYNCED, 2.7e-3)]), specs)
    assert "torch 2.11.0+cu130: — (error)" in markdown


def test_one_sample_reads_iqr_dash_not_zero(specs) -> None:
    rows = [row(specs, HOST, 1.1e-5, repeats=1, latency_iqr_s=0.0),
            row(specs, SYNCED, 2.7e-3, repeats=7)]
    markdown, _ = render(gpu_records(rows), specs)
    assert '<span class="harness-spread">IQR —</span>' in markdown
    assert "IQR\u00a02,00\u00a0%" in markdown and "IQR\u00a00" not in markdown


def test_on_a_cpu_the_sync_trials_say_sin_medicion(specs, tmp_path: Path) -> None:
    # The record command skips them by name before it would import torch.
    done = run([sys.executable, "-m", "harness", "record", "--device", "cpu",
                           "--only", "trials", "--groups", "sync_calls",
                           "--results", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "nothing was recorded" in done.stderr
    for name in (HOST, SYNCED, EVENTS):
        assert f"skip {name}: not applicable on cpu" in done.stderr
    cpu = DeviceRecord(torch_build="2.13.0+cpu", device_key="cpu", environments={
        "r": Environment(torch_build="2.13.0+cpu", device_key="cpu", device_name="c",
                         run_id="r")})
    markdown, problems = render(Records(items=[cpu]), specs)
    assert "<strong>CPU</strong>" not in markdown and problems == []
    gpu = markdown.split("<strong>GPU (CUDA)</strong>", 1)[1]
    assert "<em>sin medición</em>: no hay registro de este dispositivo" in gpu
    assert gpu.count("Expectativas analíticas") == 1 and "Derivación" in gpu


def test_bare_loop_line_comes_from_the_environment_escaped(specs) -> None:
    loop = {"trial": "matmul_8192_bfloat16", "clock": "device events", "calls": 50,
            "blocks": 5, "harness_s": 1.6e-3, "bare_s": 1.4e-3, "ratio": 1.6 / 1.4}
    rows = [row(specs, "matmul_8192_bfloat16", 1.6e-3)]
    markdown, _ = render(gpu_records(rows, bare_loop=loop), specs, group="matmul")
    assert ("<code>matmul_8192_bfloat16</code>: el arnés mide 1,60\u00a0ms por llamada; un bucle "
            "desnudo del mismo paso, cronometrado con eventos del dispositivo en el mismo proceso "
            "(50 llamadas × 5 bloques), 1,40\u00a0ms: arnés / bucle = 1,14×") in markdown
    hostile = {**loop, "calls": "<script>"}
    markdown, _ = render(gpu_records(rows, bare_loop=hostile), specs, group="matmul")
    assert "&lt;script&gt;" in markdown and "<script>" not in markdown
    markdown, _ = render(gpu_records(rows, bare_loop={**loop, "bare_s": "x"}), specs,
                         group="matmul")
    assert "bucle desnudo" not in markdown  # a value that is not seconds shows nothing
