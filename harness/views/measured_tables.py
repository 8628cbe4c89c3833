"""The tables of the measurement markers: one compact table per group and device
type (torch builds as a column of it, never repeated tables), the latency ratio
across builds, and the full rows one click away. No torch import; every record
text goes through :func:`harness.text.markdown.html_text`.
"""

from __future__ import annotations

import re

from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, TrialSpec
from harness.records.store import DeviceRecord
from harness.text.markdown import html_text
from harness.text.numbers import decimal
from harness.text.words import word
from harness.views.html_table import Cell, Row, details, html_table
from harness.views.measured_context import Context
from harness.views.measured_expectations import bare_loop_lines, expectation_block
from harness.views.measured_row import COMPACT_COLUMNS, compact_cells, identities, missing_cells

__all__ = ["compare_versions", "device_types_for", "measurements"]


def device_types_for(context: Context, group: str) -> list[str]:
    """CPU and CUDA sections whenever the group applies to them (a missing GPU
    record must read «sin medición»); MPS and XPU only where a record exists."""
    applies = {d for s in context.specs.values() if s.group == group for d in s.devices}
    recorded = {r.device_type for r in context.records.items}
    return [d for d in DEVICE_TYPES if d in applies and (d in ("cpu", "cuda") or d in recorded)]


def _missing_line(context: Context, device_type: str, builds: list[str] | None = None) -> str:
    lang = context.lang
    where = (f" {word(lang, 'for_build')} {', '.join(html_text(b) for b in builds)}"
             if builds else "")
    return (f'<p class="harness-missing"><em>{word(lang, "missing")}</em>: '
            f"{word(lang, 'no_record')}{where} ({word(lang, 'hint')} "
            f"<code>python -m harness record --device {device_type}</code>).</p>")


def _specs(context: Context, group: str, device_type: str) -> list[TrialSpec]:
    return [s for s in context.specs.values() if s.group == group and device_type in s.devices]


def _table(context: Context, specs: list[TrialSpec], records: list[DeviceRecord],
           note: str = "") -> str:
    lang = context.lang
    by_build = [(r, {row.trial: row for row in r.rows}) for r in records]
    sample = {n: row for _, rows in by_build for n, row in rows.items()}
    identity = identities(specs, sample, lang)
    show_build = len(records) > 1
    header = [(word(lang, "trial"), False)]
    header += [(word(lang, "torch"), False)] if show_build else []
    entries = []
    for spec in specs:
        for record, found in by_build:
            row = found.get(spec.name)
            cells = missing_cells(lang) if row is None else compact_cells(
                row, spec, record.environment_of(row.run_id), lang, stale=context.is_stale(row))
            failing = row is not None and row.failed and row.dtype != spec.reference_dtype
            entries.append((spec, record, cells, failing))
    # A column with one value in every row says it once, in the caption.
    constant = {i for i in range(len(COMPACT_COLUMNS))
                if len(entries) > 1 and len({e[2][i].html for e in entries}) == 1}
    kept = [i for i in range(len(COMPACT_COLUMNS)) if i not in constant]
    header += [(word(lang, COMPACT_COLUMNS[i]), COMPACT_COLUMNS[i] != "quality_short")
               for i in kept]
    rows: list[Row] = []
    for number, (spec, record, cells, failing) in enumerate(entries):
        index = number % len(records)
        shown = [cells[i] for i in kept]
        if show_build:
            shown.insert(0, Cell(html=html_text(record.torch_build), css="harness-build"))
        if index == 0:  # the trial's header spans its builds: tinted if any of them fails
            group_fails = any(e[3] for e in entries[number:number + len(records)])
            shown.insert(0, Cell(html=f'<span class="harness-label">{identity.labels[spec.name]}'
                                 "</span>", span=len(records),
                                 css="harness-id harness-fail" if group_fails else "harness-id"))
        rows.append(Row(cells=shown, css="harness-fail" if failing else "", title=spec.name,
                        first_of_group=index == 0))
    parts = identity.caption + [
        f"{word(lang, COMPACT_COLUMNS[i])}: "
        f"{entries[0][2][i].html if entries[0][2][i].html != '—' else word(lang, 'not_applicable')}"
        for i in sorted(constant)]
    if not show_build and records:
        parts.insert(0, f"torch {html_text(records[0].torch_build)}")
    parts += [note] if note else []
    return html_table(header, rows, caption=" · ".join(parts),
                      css="harness-table harness-compact")


def _device(context: Context, group: str, device_type: str) -> tuple[list[str], int]:
    """The HTML pieces of one device type's table, and how many of its rows failed."""
    parts = [f'<p class="harness-device"><strong>{word(context.lang, device_type)}</strong></p>']
    # Sets that measure trials: an examples-only set (a test-matrix build) has no row to
    # show here, and is not a build whose rows are missing either.
    measuring = [r for r in context.records.items if r.rows]
    records = [r for r in measuring if r.device_type == device_type]
    specs = _specs(context, group, device_type)
    if not records:
        return [*parts, _missing_line(context, device_type),
                expectation_block(context, specs, records)], 0
    built = {r.torch_build for r in records}
    absent = [b for b in dict.fromkeys(r.torch_build for r in measuring) if b not in built]
    note = (f"<em>{word(context.lang, 'missing')}</em> {word(context.lang, 'for_build')} "
            f"{', '.join(html_text(b) for b in absent)}") if absent else ""
    names = {s.name for s in specs}
    failed = sum(1 for r in records for row in r.rows if row.trial in names and row.failed)
    return [*parts, _table(context, specs, records, note),
            expectation_block(context, specs, records), bare_loop_lines(context, specs, records),
            ], failed


def measurements(context: Context, group: str, device_types: list[str]) -> str:
    """One compact table per device type, one row per trial and recorded build. With
    more than one device type, each is a tab, in the HTML Material styles for
    pymdownx.tabbed's alternate style (radio inputs, labels, blocks): a label counts its
    failing rows, so a failure is named even in a tab the reader has not opened."""
    # A device with its own record opens before the CPU: the reader most likely came for it.
    recorded = {r.device_type for r in context.records.items if r.rows}
    device_types = sorted(device_types, key=lambda d: d == "cpu" and bool(recorded - {"cpu"}))
    devices = [(d, *_device(context, group, d)) for d in device_types]
    if len(devices) < 2:
        return "\n".join(p for _, parts, _ in devices for p in parts) + "\n"
    name = f"__tabbed_{re.sub(r'[^a-z0-9]+', '_', group.lower())}"
    inputs, labels, blocks = [], [], []
    for index, (device_type, parts, failed) in enumerate(devices, start=1):
        checked = ' checked="checked"' if index == 1 else ""
        inputs.append(f'<input{checked} id="{name}_{index}" name="{name}" type="radio" />')
        label = word(context.lang, device_type) + (f" · {failed} ✗" if failed else "")
        labels.append(f'<label for="{name}_{index}">{html_text(label)}</label>')
        body = "\n".join(p for p in parts if p)
        blocks.append(f'<div class="tabbed-block">\n{body}\n</div>')
    return (f'<div class="tabbed-set tabbed-alternate" data-tabs="1:{len(devices)}">\n'
            f'{"".join(inputs)}<div class="tabbed-labels">{"".join(labels)}'
            f'</div>\n<div class="tabbed-content">\n' + "\n".join(blocks)
            + "\n</div>\n</div>\n")


def _ratio(context: Context, row: TrialRow, base: TrialRow, record: DeviceRecord,
           first: DeviceRecord) -> str:
    """Latency ratio, or why none is given: only passing, fresh rows on the same hardware."""
    lang = context.lang
    for one in (row, base):
        if one.error:
            return f"— ({word(lang, 'reason_error')})"
        if not one.quality_pass:
            return f"— ({word(lang, 'reason_quality')})"
        if context.is_stale(one):
            return f"— ({word(lang, 'stale')})"
    if (record.environment_of(row.run_id).device_name
            != first.environment_of(base.run_id).device_name):
        return f"— ({word(lang, 'reason_other_device')})"
    assert row.latency and base.latency
    return f"{decimal(row.latency / base.latency, lang)}×"


def _ratio_summary(rows: list[Row], title: str, lang: str) -> str:
    """One line: how many trials compare, and the range of their ratios."""
    values = []
    for row in rows:
        for one in row.cells[1:]:
            text = one.html.replace(",", ".")
            if text.endswith("×"):
                values.append(float(text[:-1]))
    if not values:
        return f"{title}: {word(lang, 'no_ratio')} ({len(rows)})"
    low, high = decimal(min(values), lang), decimal(max(values), lang)
    return (f"{title}: {word(lang, 'ratio_range').format(n=len(values), low=low, high=high)} "
            f"({word(lang, 'lower_faster')}); {word(lang, 'no_ratio')}: "
            f"{sum(len(r.cells) - 1 for r in rows) - len(values)}")


def compare_versions(context: Context, group: str) -> str:
    """Per device: each trial's latency relative to the oldest build with its trials. The
    figures themselves are in the group's table; only the ratio is new here."""
    lang = context.lang
    keys = sorted({r.device_key for r in context.records.items if context.group_rows(r, group)},
                  key=lambda k: (DEVICE_TYPES.index(k.split("-", 1)[0]), k))
    if not keys:
        return f"<p><em>{word(lang, 'missing')}</em></p>\n"
    parts: list[str] = []
    for key in keys:
        # The base is the oldest build with this group's trials on the key: an examples-only
        # set (no rows) has nothing to compare.
        records = [r for r in context.records.items
                   if r.device_key == key and context.group_rows(r, group)]
        base = records[0]
        title = f"<strong>{word(lang, key.split('-', 1)[0])}</strong> ({html_text(key)})"
        if len(records) < 2:
            parts.append(f"<p>{title}: {word(lang, 'only_one')} "
                         f"(torch {html_text(base.torch_build)}).</p>")
            continue
        found = {s.name: row for s in _specs(context, group, key.split("-", 1)[0])
                 if (row := base.row(s.name)) is not None}
        specs = [s for s in _specs(context, group, key.split("-", 1)[0]) if s.name in found]
        identity = identities(specs, found, lang)
        header = [(word(lang, "trial"), False)] + [
            (f"torch {html_text(r.torch_build)}", True) for r in records[1:]]
        rows = []
        for spec in specs:
            first = base.row(spec.name)
            cells = [Cell(html=identity.labels[spec.name], css="harness-id")]
            for record in records[1:]:
                row = record.row(spec.name)
                text = (f"<em>{word(lang, 'missing')}</em>" if row is None or first is None
                        else _ratio(context, row, first, record, base))
                cells.append(Cell(html=text, numeric=True))
            rows.append(Row(cells=cells, title=spec.name))
        caption = (f"{title} · {word(lang, 'ratio')} {html_text(base.torch_build)} "
                   f"({word(lang, 'lower_faster')})")
        table = html_table(header, rows, caption=caption, css="harness-table harness-compact")
        parts.append(details(_ratio_summary(rows, title, lang), table, opened=False))
    return "\n".join(parts) + "\n"
