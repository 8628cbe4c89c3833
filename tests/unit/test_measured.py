"""Measurement markers rendered from the sample records in tests/samples/results.

The samples hold ``@fresh`` where a row's spec hash belongs: the fixture stamps
the current hash of tests/samples/trials/pages.toml's spec there, so the rows
stay fresh however trials/workloads.py changes; ``mlp_b4`` keeps an old hash
and must read as stale.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from support import SAMPLES

from harness.core.errors import HarnessError, Location
from harness.core.rows import ARTICLE_COLUMNS, CSV_HEADER
from harness.core.types import TrialSpec
from harness.records.provenance import vouch
from harness.records.store import Records, load_all
from harness.records.validate import check_records
from harness.sources.pages import Marker
from harness.sources.project import Project
from harness.sources.trials import load_trials, spec_sha256, workload_sources
from harness.views.markers import MARKERS, PageContext, Site, render_marker


@pytest.fixture(scope="module")
def specs() -> dict[str, TrialSpec]:
    return load_trials(SAMPLES / "trials" / "pages.toml")


@pytest.fixture
def records(tmp_path: Path, specs: dict[str, TrialSpec]) -> Records:
    results = tmp_path / "results"
    shutil.copytree(SAMPLES / "results", results)
    sources = workload_sources()
    for path in results.glob("*/*.csv"):
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            if row["spec_sha256"] == "@fresh":
                row["spec_sha256"] = spec_sha256(specs[row["trial"]], sources=sources)
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_HEADER, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    return load_all(results, root=tmp_path)


def render(
    kind: str, args: dict[str, str], records: Records, specs: dict[str, TrialSpec], lang: str = "es"
) -> tuple[str, list[str]]:
    """Through the kind's one renderer in the registry, without validation."""
    site = Site(project=Project(root=SAMPLES, snippets={}, expectations={}, unchecked={}),
                records=records, specs=specs, sources=workload_sources())
    marker = Marker(kind=kind, args=args, location=Location(path=Path("docs/p.md"), line=7),
                    start=0, end=0)
    rendered = MARKERS[kind].render(marker, site, PageContext(lang=lang, included=set()))
    # md_in_html parses the block only when the view wrote Markdown (the CSV row's fence).
    opening = re.match(r'<div class="harness-measured"( markdown)?>\n\n', rendered.markdown)
    closing = "\n\n</div>\n"
    assert opening and rendered.markdown.endswith(closing)
    return rendered.markdown[opening.end():-len(closing)], rendered.stale


def render_checked(kind: str, args: dict[str, str], records: Records,
                   specs: dict[str, TrialSpec]) -> str:
    """Through the marker registry, which validates kind, arguments and values."""
    site = Site(project=Project(root=SAMPLES, snippets={}, expectations={}, unchecked={}),
                records=records, specs=specs, sources=workload_sources())
    marker = Marker(kind=kind, args=args, location=Location(path=Path("docs/p.md"), line=7),
                    start=0, end=0)
    return render_marker(marker, site, PageContext(lang="es", included=set())).markdown


def test_spanish_table_uses_decimal_comma_and_names_environment(records, specs) -> None:
    markdown, _ = render("measurements", {"group": "matmul"}, records, specs)
    # One table per device type; builds are a column, constants are in the caption.
    assert markdown.count('<table class="harness-table harness-compact">') == 1
    assert "<caption>cálculo · lote 1 · 1 hilo · esperando al dispositivo</caption>" in markdown
    assert 'class="harness-num">1,23\u00a0ms <span class="harness-spread">IQR\u00a02,00\u00a0%' in markdown
    # The failing bfloat16 row is tinted and labelled, never a plain speed-up.
    assert '<tr class="harness-fail" title="mm_bf16">' in markdown
    # Its trial's header spans both builds and carries the tint too; a passing one does not.
    headers = re.findall(r'title="(\w+)"><th scope="row" rowspan="2" [^>]*class="([^"]*)"', markdown)
    assert ("mm_bf16", "harness-id harness-fail") in headers and ("mm_f32", "harness-id") in headers
    assert '✗ no cumple <span class="harness-why">2,9e-3 &gt; 1e-3</span>' in markdown
    assert "✓ 2,5e-7" in markdown
    # Every column, its environment and a CSV download: the evidence page's all-columns
    # marker (issue 28), one tap from the table, never inside the article's table.
    assert "Todas las columnas" not in markdown
    full, _ = render("all-columns", {"group": "matmul"}, records, specs)
    assert "<summary>Todas las columnas</summary>" in full
    assert "Sample CPU &lt;i&gt;model&lt;/i&gt; · 1 hilo · torch 2.13.0+cpu · 2026-01-15" in full
    assert 'download="matmul-2.13.0+cpu-cpu.csv" href="data:text/csv;charset=utf-8,trial' in full


def test_english_table_uses_decimal_point(records, specs) -> None:
    markdown, _ = render("measurements", {"group": "matmul"}, records, specs, lang="en")
    assert "1.23\u00a0ms" in markdown and "1,23" not in markdown
    assert '✗ fails <span class="harness-why">2.9e-3 &gt; 1e-3</span>' in markdown
    assert "<em>no measurement</em>" in markdown  # the GPU section


def test_gpu_section_says_sin_medicion_without_cuda_record(records, specs) -> None:
    markdown, _ = render("measurements", {"group": "sync"}, records, specs)
    gpu = markdown.split("<strong>GPU (CUDA)</strong>", 1)[1]
    assert "<em>sin medición</em>" in gpu and "--device cuda" in gpu
    assert "<strong>CPU</strong>" not in markdown  # the sync group does not apply to the CPU


def test_missing_row_in_a_build_reads_sin_medicion(records, specs) -> None:
    markdown, _ = render("measurements", {"group": "mlp"}, records, specs)
    assert re.search(r'<tr title="mlp_b4"><td data-label="torch" class="harness-build">2\.14\.1'
                     r"</td> <td[^>]*><em>sin medición</em>", markdown)


def test_stale_row_is_marked_and_reported_with_record_line(records, specs) -> None:
    markdown, stale = render("measurements", {"group": "mlp"}, records, specs)
    assert '<span class="harness-badge">desactualizado</span> 150\u00a0µs' in markdown
    assert len(stale) == 1
    assert stale[0].startswith("results/2.13.0+cpu/cpu.csv:6: row of trial 'mlp_b4'")
    english, _ = render("measurements", {"group": "mlp"}, records, specs, lang="en")
    assert '<span class="harness-badge">stale</span>' in english


def test_error_cell_is_escaped(records, specs) -> None:
    markdown, _ = render("measurements", {"group": "matmul"}, records, specs)
    row = next(x for x in markdown.replace("<tr", "\n<tr").splitlines()
               if x.startswith('<tr class="harness-fail" title="broken">'))
    assert "<b>" not in row and "&lt;b&gt;bold&lt;/b&gt;" in row
    assert "<tr" not in row[3:] and row.count("</tr>") == 1  # no markup escapes its cell


def test_unknown_group_names_where_and_lists_groups(records, specs) -> None:
    with pytest.raises(HarnessError) as caught:
        render_checked("measurements", {"group": "matmull"}, records, specs)
    message = str(caught.value)
    assert message.startswith("docs/p.md:7: unknown group 'matmull' for harness:measurements.")
    assert "Did you mean 'matmul'?" in message and "Valid: matmul, mlp, sync." in message


def test_unknown_y_and_argument_are_errors(records, specs) -> None:
    with pytest.raises(HarnessError, match="unknown y 'speed'.*Valid: latency, throughput"):
        render_checked("plot", {"group": "mlp", "y": "speed"}, records, specs)
    with pytest.raises(HarnessError, match="unknown argument 'grupo'"):
        render_checked("measurements", {"grupo": "mlp"}, records, specs)
    with pytest.raises(HarnessError, match="unknown marker 'harness:measurement'.*Did you mean"):
        render_checked("measurement", {"group": "mlp"}, records, specs)
    with pytest.raises(HarnessError, match='harness:plot needs y="..."'):
        render_checked("plot", {"group": "mlp"}, records, specs)
    assert set(MARKERS["plot"].arguments) == {"group", "y"}


def test_record_row_of_unknown_trial_names_record_line(records, specs, tmp_path) -> None:
    fewer = {name: spec for name, spec in specs.items() if name != "mm_bf16"}
    for record in records.items:
        vouch(tmp_path / "results", record.torch_build, record.device_key)
    project = Project(root=tmp_path, snippets={}, expectations={}, unchecked={})
    problems = check_records(records, project=project, specs=fewer,
                             results=project.root / "results")
    assert any(p.startswith("results/2.13.0+cpu/cpu.csv:3: record names unknown trial 'mm_bf16'")
               for p in problems), problems


def test_compare_versions_ratio_only_for_passing_rows(records, specs) -> None:
    markdown, _ = render("compare-versions", {"group": "matmul"}, records, specs)
    assert markdown.startswith('<details class="harness-more"><summary>')
    assert "1 ensayos comparables, de 0,500× a 0,500×" in markdown
    assert '<td data-label="torch 2.14.1" class="harness-num">0,500×</td>' in markdown
    assert '<td data-label="torch 2.14.1" class="harness-num">— (no cumple calidad)</td>' in markdown


def test_plot_is_one_accessible_chart_with_localized_axes_and_units(records, specs) -> None:
    markdown, stale = render("plot", {"group": "mlp", "y": "latency"}, records, specs)
    # One chart for every width; its text is HTML, described with its units.
    assert markdown.startswith('<figure class="harness-chart" id="harness-plot-mlp-latency">'
                               '<div class="harness-chart-box" role="img" aria-label="Latencia '
                               'mediana por llamada · mlp" aria-describedby=')
    assert '<p class="harness-axis-x">Tamaño de lote</p>' in markdown
    read = unescape(markdown)
    assert re.search(r"<figcaption>Latencia mediana por llamada \((µs|ms|s)\), mlp", read)
    assert re.search(r'-desc" hidden>Tamaño de lote → Latencia mediana por llamada \(\w+\)\. '
                     r"[^<]*→ \d+(,\d+)? (µs|ms|s)", read)
    assert "\n\n" not in markdown.strip()  # one HTML block: a blank line would end it
    assert stale and "mlp_b4" in stale[0]
    english, _ = render("plot", {"group": "matmul", "y": "throughput"}, records, specs, lang="en")
    assert '<p class="harness-axis-x">Size n (first dimension of the shape)</p>' in unescape(english)
    assert "<span>bfloat16 · torch 2.14.1 · fails</span>" in english
    assert 'stroke="#8C8C8C"' in english  # greyed
    assert "Environment" not in english.split("<figcaption>")[1]


def test_csv_row_uses_article_columns(records, specs) -> None:
    markdown, _ = render("csv-row", {"trial": "mm_f32"}, records, specs)
    lines = markdown.splitlines()
    assert lines[0] == "```csv" and lines[1] == ",".join(ARTICLE_COLUMNS)
    assert lines[2] == "mm_f32,2.14.1,cpu,float32,64x64,1,0.000615,1048576,true"  # newest build
    assert "results/2.14.1/cpu.csv:2" in markdown


def test_environment_lists_every_record(records, specs) -> None:
    markdown, _ = render("environment", {}, records, specs, lang="en")
    assert markdown.count('<th scope="col">torch ') == 2  # one column per record set
    # A field both sets share is listed once under the table, not in a spanning cell.
    shared = markdown.split('<ul class="harness-env-common">')[1]
    assert "float32\u00a0100\u00a0GFLOP/s" in shared and "Same in every record:" in markdown
    assert ('<td><span class="harness-unbroken">2026-01-15</span></td> '
            '<td><span class="harness-unbroken">2026-02-20</span></td>') in markdown
    empty, _ = render("environment", {}, Records(items=[]), specs)
    assert empty.strip() == "*sin medición*"


def test_site_tables_read_the_records_that_made_their_figures() -> None:
    """On the committed records: the cross-version table's base is the oldest build with
    trials on the device (not an examples-only set), and the environment table names
    every processor whose runs produced a shown figure, and whether TF32 was allowed."""
    from support import ROOT

    records = load_all(ROOT / "results", root=ROOT)
    site_specs = load_trials()
    versions, _ = render("compare-versions", {"group": "matmul"}, records, site_specs)
    with_rows = [r for r in records.items if r.device_type == "cpu" and r.rows]
    assert len(with_rows) >= 2
    assert f"torch {with_rows[0].torch_build} (" in versions  # the caption's base
    assert "ensayos comparables" in versions
    shown = {records.items[i].environments[x.run_id].device_name
             for i in range(len(records.items))
             for x in [*records.items[i].rows, *records.items[i].observations]}
    table, _ = render("environment", {}, records, site_specs)
    table = html.unescape(table)
    assert len(shown) > 1
    for name in shown:
        assert name in table, name
    assert "TF32" in table


def test_a_first_call_from_a_fresh_process_sits_beside_the_median(specs) -> None:
    from harness.core.rows import TrialRow
    from harness.core.types import Environment
    from harness.views.measured import compact_cells

    spec = next(iter(specs.values()))
    row = TrialRow(trial=spec.name, torch_build="2.13", device="cpu", dtype="float32",
                   shape="4x4", batch=1, task="compute", threads=1, tolerance=1e-3,
                   spec_sha256="h", synchronized=True, run_id="r", latency=1e-3,
                   first_call_s=2.5e-3, samples_s=(1e-3, 1e-3), repeats=2,
                   iqr_over_median=0.0, quality_pass=True, quality_error=0.0)
    fresh = Environment(torch_build="2.13", device_key="cpu", device_name="c",
                        extra={"first_call": "fresh process"})
    warmed = Environment(torch_build="2.13", device_key="cpu", device_name="c")
    assert "1.ª\xa0llamada\xa02,50\xa0ms" in compact_cells(row, spec, fresh, "es", stale=False)[0].html
    # A first call timed after a warm-up (older records) is not shown as one.
    assert "llamada" not in compact_cells(row, spec, warmed, "es", stale=False)[0].html
    # An accelerator's reserved peak is shown apart from the allocated one.
    gpu = Environment(torch_build="2.13", device_key="cuda-x", device_name="g",
                      extra={"memory_reserved": {spec.name: 2 * 1024 * 1024}})
    memory = compact_cells(dataclasses.replace(row, memory=1024 * 1024), spec, gpu, "es",
                           stale=False)[3].html
    assert memory.startswith("1,00") and "reservada\xa02,00" in memory, memory


def test_a_row_from_another_processor_says_so_in_its_table() -> None:
    """On the committed records, whose CPU matmul rows come from two processors: exactly
    the rows measured on the less common one name it, the others name none."""
    from collections import Counter

    from support import ROOT

    from harness.records.drift import machine

    records = load_all(ROOT / "results", root=ROOT)
    site_specs = load_trials()
    cpu = [(r, row) for r in records.items if r.device_type == "cpu" for row in r.rows
           if site_specs[row.trial].group == "matmul"]
    machines = Counter(machine(r, row) for r, row in cpu)
    assert len(machines) > 1, "the committed CPU matmul rows come from one processor"
    usual = machines.most_common(1)[0][0]
    other = {(r.torch_build, row.trial): r.environments[row.run_id].device_name
             for r, row in cpu if machine(r, row) != usual}
    markdown, _ = render("measurements", {"group": "matmul"}, records, site_specs)
    start = markdown.index("<strong>CPU</strong>")
    table = markdown[start:markdown.index("</table>", start)]
    assert "otro procesador" not in table[:table.index("</caption>")]
    noted = {}
    for row_html in re.findall(r"<tr[^>]*>.*?</tr>", table, re.S):
        found = re.search(r"en otro procesador: ([^<]*)</span>", row_html)
        build = re.search(r'class="harness-build">([^<]*)<', row_html)
        trial = re.search(r'title="([^"]+)"', row_html)
        if found and build and trial:
            noted[(build[1], trial[1])] = html.unescape(found[1])
    assert noted == other
