"""«Todas las columnas»: every recorded field of a group's rows, as label/value lines in
the page's language, with each record's CSV one click away. No torch import.

A reader opens this block to read one row whole, so the values read as the rest of
the page writes them (units, decimal comma, sí/no, task words), through the same
formatters. What only a tool reads stays in the CSV download, complete: the per-block
times (``samples_s``, up to hundreds of numbers a row), the spec hash and the run id.
A field with one value in every row of a record is listed once, above its rows, as a
compact table says a shared value once in its caption.
"""

from __future__ import annotations

import html

from harness.core.rows import CSV_HEADER, TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records.store import DeviceRecord, format_rows
from harness.text.markdown import html_text
from harness.text.numbers import (
    bytes_text,
    latency_text,
    percent_text,
    scientific,
    throughput_text,
    unbroken,
    unit_name,
)
from harness.text.record_words import memory_method_text
from harness.text.words import word
from harness.views.html_table import csv_link, details
from harness.views.measured_context import Context, row_environment
from harness.views.measured_row import field_text, peak_text

__all__ = ["CSV_ONLY", "SHOWN", "all_columns"]

#: Left to the CSV download: data for tools, not lines for a reader.
CSV_ONLY = ("samples_s", "spec_sha256", "run_id")
#: The fields the lines show, in the record's column order.
SHOWN = tuple(c for c in CSV_HEADER if c not in CSV_ONLY)
_SECONDS = ("latency", "latency_iqr_s", "load_s", "first_call_s")
_EXPONENTS = ("quality_error", "tolerance")
#: Record text, which may wrap; any other value with a figure keeps it with its unit.
_WRAPPING = ("memory_method", "error")


def _text(row: TrialRow, name: str, spec: TrialSpec, env: Environment | None,
          lang: str) -> str:
    """``row``'s field ``name`` as plain text in ``lang``."""
    value = getattr(row, name)
    if name in ("task", "shape"):  # as the compact table's label reads them
        return field_text(spec, row, name, lang)
    if name == "peak_fraction":  # a stored fraction shows only where the peak rule holds
        return (peak_text(row, env, lang) if row.throughput_unit == "FLOP/s"
                else word(lang, "not_applicable"))
    if name == "error":
        return value or word(lang, "no_error")
    one_block = row.repeats is not None and row.repeats < 2
    if name in ("latency_iqr_s", "iqr_over_median") and one_block:
        return word(lang, "not_applicable")  # no spread in one block (compact: «IQR —»)
    if value is None or value == "":
        return word(lang, "not_measured")
    if isinstance(value, bool):
        return word(lang, "answer_yes" if value else "answer_no")
    if name in _SECONDS:
        return latency_text(value, lang)
    if name in _EXPONENTS:
        return scientific(value, lang)
    if name == "memory":
        return bytes_text(value, lang)
    if name == "iqr_over_median":
        return percent_text(value, lang)
    if name == "throughput":
        return throughput_text(value, row.throughput_unit, lang)
    if name == "throughput_unit":
        return unit_name(value, lang)
    if name == "memory_method":
        return memory_method_text(value, lang)
    return str(value)  # names and counts, as recorded


def _field_values(row: TrialRow, spec: TrialSpec, env: Environment | None,
                  lang: str) -> dict[str, str]:
    """Field name → escaped HTML value, for every field in :data:`SHOWN`."""
    shown = {}
    for name in SHOWN:
        text = html_text(_text(row, name, spec, env, lang))
        together = name not in _WRAPPING and any(c.isdigit() for c in text)
        shown[name] = unbroken(text) if together else text
    return shown


def _lines(values: dict[str, str], lang: str, *, css: str = "") -> str:
    # A label is the site's own word: only its "<" and ">" need escaping.
    pairs = "".join(f"<div><dt>{html.escape(word(lang, f'column_{name}'), quote=False)}</dt>"
                    f"<dd>{value}</dd></div>" for name, value in values.items())
    return f'<dl class="harness-fields{" " + css if css else ""}">{pairs}</dl>'


def _record(context: Context, group: str, record: DeviceRecord) -> str:
    lang = context.lang
    rows = context.group_rows(record, group)
    if not rows:
        return ""
    values = [_field_values(r, context.specs[r.trial], record.environment_of(r.run_id), lang)
              for r in rows]
    # The trial names each row's lines; a field the rows share is said once.
    shared = ([n for n in SHOWN if n != "trial" and len({v[n] for v in values}) == 1]
              if len(rows) > 1 else [])
    name = f"{group}-{record.torch_build}-{record.device_key}.csv"
    link = csv_link(format_rows(rows), filename=name,
                    label=f"{word(lang, 'download_csv')} ({html_text(name)})")
    env = row_environment(record, rows, lang, html=True)
    parts = [f"<p><strong>torch {html_text(record.torch_build)}</strong> · "
             f"{html_text(env)} · {link}</p>"]
    if shared:
        parts.append(f'<p class="harness-fields-title">{word(lang, "every_row")}</p>'
                     + _lines({n: values[0][n] for n in shared}, lang, css="harness-shared"))
    for row, shown in zip(rows, values, strict=True):
        # Marked as the compact table tints it: a reference row is not a failure.
        failing = row.failed and row.dtype != context.specs[row.trial].reference_dtype
        parts.append(_lines({n: v for n, v in shown.items() if n not in shared}, lang,
                            css="harness-fail" if failing else ""))
    return "".join(parts)


def all_columns(context: Context, group: str, records: list[DeviceRecord]) -> str:
    """The collapsed «Todas las columnas» block of a group's records ("" when no record
    holds a row of the group)."""
    body = "".join(_record(context, group, record) for record in records)
    # Every field of every row: thousands of figures that would crowd the search.
    return details(word(context.lang, "all_columns"), body, searched=False) if body else ""
