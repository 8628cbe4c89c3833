"""«Todas las columnas»: every field of a row as label/value lines in the page's
language; the per-block times, the spec hash and the run id only in the CSV, which
stays complete; every record value escaped.

The sample records (tests/samples/results) give known values; the committed records
(results/) give real rows with up to hundreds of per-block times.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import html.parser
import io
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from support import ROOT, SAMPLES

from harness.core.rows import CSV_HEADER
from harness.records.store import DeviceRecord, Records, format_rows, load_all
from harness.sources.trials import load_trials, workload_sources
from harness.text.words import LANGS, catalogue
from harness.views.measured import CSV_ONLY, SHOWN, Context, all_columns

NBSP = "\u00a0"
_HREF = re.compile(r'href="data:text/csv;charset=utf-8,([^"]*)"')
HOSTILE = ('<img src=x onerror=alert(1)>', '" onmouseover="alert(1)" x="',
           "</dd></dl><script>alert(1)</script>", "[x](javascript:alert(1))")


def _context(records: Records, lang: str, *, root: Path = SAMPLES) -> Context:
    specs = load_trials(root / "trials" / "pages.toml") if root == SAMPLES else load_trials()
    return Context(records=records, specs=specs, lang=lang, sources=workload_sources())


@pytest.fixture(scope="module")
def samples() -> Records:
    return load_all(SAMPLES / "results", root=SAMPLES)


def _block(records: Records, group: str, lang: str, *, root: Path = SAMPLES) -> str:
    context = _context(records, lang, root=root)
    return all_columns(context, group, [r for r in records.items if r.device_type == "cpu"])


def _lines(block: str) -> list[dict[str, str]]:
    """Each <dl>'s label → value, in order (the shared list first, if any)."""
    return [{html.unescape(k): html.unescape(v)
             for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", dl)}
            for dl in re.findall(r"<dl[^>]*>(.*?)</dl>", block)]


def test_every_shown_column_has_a_label_and_every_label_a_column() -> None:
    assert set(SHOWN) | set(CSV_ONLY) == set(CSV_HEADER) and not set(SHOWN) & set(CSV_ONLY)
    for lang in LANGS:
        labels = {k.removeprefix("column_") for k in catalogue(lang) if k.startswith("column_")}
        assert labels == set(SHOWN), lang


def test_spanish_lines_read_as_the_page_writes_them(samples: Records) -> None:
    block = _block(samples, "matmul", "es")
    shared, *rows = _lines(block)
    # The record's build, device, task and memory method are the same in every row.
    assert shared["Tarea"] == "cálculo"
    assert shared["Medición de memoria"].startswith("VmHWM − VmRSS tras malloc_trim")
    assert block.count("<dt>Tarea</dt>") == 2  # once per record (two builds), not per row
    first = next(r for r in rows if r["Ensayo"] == "mm_f32")
    assert first["Latencia (mediana por llamada)"] == f"1,23{NBSP}ms"
    assert first["Memoria pico"] == f"1,00{NBSP}MiB"
    assert first["Rendimiento"] == f"426{NBSP}MFLOP/s"
    assert first["Rango intercuartílico (IQR)"] == f"24,6{NBSP}µs"
    assert first["IQR / mediana"] == f"2,00{NBSP}%"
    assert first["Error relativo frente a la referencia"] == "2,5e-7"
    assert first["Dentro de la tolerancia"] == "sí"
    broken = next(r for r in rows if r["Ensayo"] == "broken")
    assert broken["Latencia (mediana por llamada)"] == "sin medir"
    assert broken["Dentro de la tolerancia"] == "no"
    # Nothing of the record's English or of Python's reprs reaches the Spanish page.
    text = re.sub(r"<[^>]+>", " ", _HREF.sub("", block))
    for english in ("compute", "True", "False", "None", "after malloc_trim", "0.00123"):
        assert english not in text, english
    mlp = _block(samples, "mlp", "es")
    assert "elementos/s" in mlp and "items/s" not in _HREF.sub("", mlp)
    assert "<dd>inferencia</dd>" in mlp and "inference" not in _HREF.sub("", mlp)


def test_english_lines_keep_the_decimal_point(samples: Records) -> None:
    block = _block(samples, "matmul", "en")
    shared, *rows = _lines(block)
    assert shared["Task"] == "compute"
    first = next(r for r in rows if r["Trial"] == "mm_f32")
    assert first["Latency (median per call)"] == f"1.23{NBSP}ms"
    assert first["Within tolerance"] == "yes"
    assert "," not in first["Peak memory"]


def test_the_block_is_collapsed_and_left_out_of_search(samples: Records) -> None:
    block = _block(samples, "matmul", "es")
    assert block.startswith('<details class="harness-more" data-search-exclude><summary>'
                            "Todas las columnas</summary>")
    assert " open" not in block.split(">", 1)[0]
    assert "\n\n" not in block  # a blank line would end the raw HTML block
    assert _block(samples, "sync", "es") == ""  # no CPU row of the group: no block


def test_a_failing_row_is_marked_and_a_reference_row_is_not(samples: Records) -> None:
    block = _block(samples, "matmul", "es")
    marked = re.findall(r'<dl class="harness-fields harness-fail"><div><dt>Ensayo</dt>'
                        r"<dd>(\w+)</dd>", block)
    assert sorted(marked) == ["broken", "mm_bf16", "mm_bf16"]


def test_per_block_times_hash_and_run_id_stay_in_the_complete_csv() -> None:
    records = load_all(ROOT / "results", root=ROOT)
    groups = sorted({load_trials()[r.trial].group for i in records.items for r in i.rows})
    checked = 0
    for lang in ("es", "en"):
        for group in groups:
            block = _block(records, group, lang, root=ROOT)
            shown = _HREF.sub("", block)
            files = [unquote(h) for h in _HREF.findall(block)]
            context = _context(records, lang, root=ROOT)
            held = [r for r in records.items if r.device_type == "cpu"
                    and context.group_rows(r, group)]
            assert len(files) == len(held), group
            for record, text in zip(held, files, strict=True):
                rows = context.group_rows(record, group)
                assert text == format_rows(rows)  # the CSV is the record's rows, whole
                cells = list(csv.DictReader(io.StringIO(text)))
                assert list(cells[0]) == list(CSV_HEADER)
                for row, cell in zip(rows, cells, strict=True):
                    assert row.spec_sha256 not in shown and row.run_id not in shown
                    assert cell["spec_sha256"] == row.spec_sha256 and cell["run_id"] == row.run_id
                    if len(row.samples_s) > 1:
                        # None of its figures: the lines write three significant
                        # digits, the CSV four («0.0002186»).
                        # (four significant digits whatever the size: «2.346» s too)
                        figures = [t for t in cell["samples_s"].split()
                                   if len(t.split("e")[0].replace(".", "").lstrip("0")) >= 4]
                        assert figures and not [t for t in figures if t in shown]
                        checked += 1
            assert "samples_s" not in shown and "spec_sha256" not in shown
    assert checked > 20, "no row with per-block times: this test would check nothing"


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs |= {name for name, _ in attrs}

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _hostile(record: DeviceRecord) -> DeviceRecord:
    """Every free-text field of every row replaced by markup (the names the views look
    up by, trial and task, stay)."""
    rows = [dataclasses.replace(r, torch_build=HOSTILE[i % 4], device=HOSTILE[(i + 1) % 4],
                                dtype=HOSTILE[(i + 2) % 4], error=HOSTILE[(i + 3) % 4],
                                memory_method=HOSTILE[i % 4], throughput_unit=HOSTILE[i % 4])
            for i, r in enumerate(record.rows)]
    return dataclasses.replace(record, rows=rows)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_record_value_reaches_the_page_escaped(samples: Records, lang: str) -> None:
    records = Records(items=[_hostile(r) for r in samples.items])
    block = _block(records, "matmul", lang)
    parser = _Tags()
    parser.feed(block)
    assert parser.tags <= {"details", "summary", "p", "strong", "a", "dl", "div", "dt", "dd"}
    assert parser.attrs <= {"class", "data-search-exclude", "download", "href"}
    assert block.count("<a ") == 2 and len(_HREF.findall(block)) == 2  # the two CSV links
    text = "".join(parser.text)
    for hostile in HOSTILE:
        assert hostile in text  # shown as the text it is, not dropped
    for file in map(unquote, _HREF.findall(block)):
        assert all(h.replace('"', '""') in file for h in HOSTILE)  # and whole in the CSV
