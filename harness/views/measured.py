"""The measurement markers, rendered from the records (``results/``). No torch import.

Fields every row of a table shares move to its caption; those that vary make the row's
label. A stale row (its ``spec_sha256`` is not the current trial's) or a contradicted
expectation is collected in the :class:`Context`, so the strict build fails naming it.
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Any

from harness.core.errors import HarnessError
from harness.core.peak_rule import peak_gaps
from harness.core.rows import ARTICLE_COLUMNS, CSV_HEADER, TrialRow
from harness.core.types import DEVICE_TYPES, Environment, TrialExpectation, TrialSpec
from harness.records.drift import machine
from harness.records.provenance import grade_text
from harness.records.store import DeviceRecord, Records, format_rows
from harness.sources.trials import shape_text, spec_sha256
from harness.text.markdown import cell, code, html_text
from harness.text.numbers import (
    bytes_text,
    compact,
    decimal,
    latency_scale,
    latency_text,
    percent_text,
    scientific,
    si_scale,
    throughput_text,
    unbroken,
    unit_name,
)
from harness.text.words import catalogue, in_lang, listed, word
from harness.views.charts import Point, Series, line_chart
from harness.views.html_table import Cell, Row, csv_link, details, html_table

__all__ = ["CSV_ONLY", "SHOWN", "Context", "all_columns", "compact_cells", "compare_versions",
           "csv_row", "device_types_for", "environment_table", "identities", "measurements", "plot",
           "row_environment", "threads_text"]


# What a record says about how it was measured is worded by the catalogues from its codes
# and fields, never by translating the recorder's prose. Records made before the codes
# hold the recorder's English sentence, mapped exactly to the code it meant; an unknown
# text stays as recorded (a guessed translation would misstate a measurement).
#: The sentences recorders wrote before codes, and the code each one meant.
_BEFORE_CODES = {
    "VmHWM - VmRSS after malloc_trim(0) and writing 5 to /proc/self/clear_refs (bytes)":
        "vmhwm-reset",
    "VmHWM - VmRSS at start; VmHWM not resettable here, may include earlier trials":
        "vmhwm-since-start",
    "torch.mps.current_allocated_memory after the run - at reset (no peak counter)":
        "mps-allocated",
    "max_memory_allocated - memory_allocated at reset_peak_memory_stats (bytes)":
        "max-memory-allocated",
}


def memory_method_text(recorded: str, lang: str) -> str:
    """How a row's peak memory was measured, from the code the recorder wrote."""
    key = f"memory_method_{_BEFORE_CODES.get(recorded, recorded)}"
    return word(lang, key) if key in catalogue(lang) else recorded


def peak_source_text(env: Environment, lang: str) -> str:
    """Where a record's theoretical peak comes from ("" when the peak rule refuses it)."""
    if peak_gaps(env) or not env.peak:
        return ""
    if env.device_key.split("-", 1)[0] == "cpu":
        flops = ", ".join(f"{d} {v / env.max_clock_hz:g}" for d, v in sorted(env.peak.items()))
        return word(lang, "peak_source_cpu", flops=flops)
    text = word(lang, "peak_source_datasheet", device=env.device_name)
    precision = str(env.extra.get("float32_matmul_precision", "highest"))
    if precision != "highest":  # TF32: the recorder dropped the float32 peak
        text += word(lang, "peak_source_tf32", precision=precision)
    return text


@dataclass(kw_only=True)
class Context:
    """One marker's render: its inputs, and the build errors of what it has shown so far."""

    records: Records
    specs: dict[str, TrialSpec]
    lang: str
    sources: dict[str, str]  # workload sources (``trials.workload_sources``)
    stale: dict[str, None] = field(default_factory=dict)  # messages in the order met, each once

    def is_stale(self, row: TrialRow) -> bool:
        """Whether ``row`` was recorded for another definition of its trial (remembered
        with the command that records it again)."""
        spec = self.specs[row.trial]
        current = spec_sha256(spec, sources=self.sources)
        if row.spec_sha256 == current:
            return False
        self.stale.setdefault(
            f"{row.location}: row of trial {row.trial!r} was recorded for another definition "
            f"of the trial (spec_sha256 {row.spec_sha256[:12] or '(empty)'}, "
            f"now {current[:12]}; "
            f"see {spec.location} and trials/workloads.py); run `python -m harness record "
            f"--device {row.device.split('-', 1)[0]} --trials {row.trial}`", None)
        return True

    def group_rows(self, record: DeviceRecord, group: str) -> list[TrialRow]:
        return [r for r in record.rows if self.specs[r.trial].group == group]


def threads_text(counts: list[int], lang: str) -> str:
    """Thread counts in words: «1 hilo», «1 o 2 hilos», «1, 2 o 4 hilos» (never «1/2»,
    which reads as a fraction)."""
    shown = [str(n) for n in sorted(set(counts))] or ["1"]
    return (f"{listed(shown, lang, 'threads_or')} "
            f"{word(lang, 'thread' if shown == ['1'] else 'threads_word')}")


def row_environment(record: DeviceRecord, rows: list[TrialRow], lang: str) -> str:
    """Short environment (plain text): device, threads, torch build, date, memory method."""
    env = record.environment_of_runs({r.run_id for r in rows})
    threads = [int(r.threads) for r in rows] or [env.threads]
    methods = sorted({memory_method_text(r.memory_method, lang) for r in rows if r.memory_method})
    parts = [env.device_name or record.device_key, threads_text(threads, lang),
             f"torch {record.torch_build}", env.date[:10]]
    if methods:
        parts.append(f"{word(lang, 'memory_method')}: {'; '.join(methods)}")
    return " · ".join(p for p in parts if p)


#: Header keys of the compact columns after the label (and the build, when shown).
COMPACT_COLUMNS = ("latency_short", "throughput", "peak_short", "memory", "quality_short")
_FIELDS = ("task", "dtype", "shape", "batch", "threads", "synchronized")


def field_text(spec: TrialSpec, row: TrialRow | None, name: str, lang: str) -> str:
    """One identifying field of a trial as its pages read it (plain text)."""
    if name == "task":
        return word(lang, spec.task)
    if name == "shape" and spec.workload.startswith("mlp"):
        return "→".join(str(width) for width in spec.shape)  # layer widths, not a tensor shape
    if name == "shape":
        return shape_text(spec.shape).replace("x", "×") if spec.shape else word(
            lang, "shape_scalar")
    if name == "synchronized" and "clock" in spec.params:  # a fixed-calls trial's clock
        return word(lang, f"clock_{spec.params['clock']}")
    if name == "synchronized":
        waited = row.synchronized if row is not None else spec.params.get("synchronize", True)
        return word(lang, "waited" if waited else "not_waited")
    if name == "batch":
        return f"{word(lang, 'batch').lower()} {spec.batch}"
    if name == "threads":
        return threads_text([spec.threads], lang)
    return str(getattr(spec, name))


def _parts_together(label: str) -> str:
    """A table label whose parts each keep together (non-breaking spaces: an element per
    part cost Medir a hundred elements); it may wrap only between parts."""
    return " · ".join(unbroken(part) for part in label.split(" · "))


def identities(specs: list[TrialSpec], rows: dict[str, TrialRow],
               lang: str) -> tuple[dict[str, str], list[str]]:
    """Trial name → short label (what tells the trials apart), and the ``field value``
    parts every trial shares (the caption); both escaped HTML."""
    values = {s.name: {f: field_text(s, rows.get(s.name), f, lang) for f in _FIELDS}
              for s in specs}
    varying = [f for f in _FIELDS if len({v[f] for v in values.values()}) > 1]
    labels = {n: " · ".join(v[f] for f in varying) for n, v in values.items()}
    if len(set(labels.values())) < len(labels):  # fields alone do not tell them apart
        labels = {s.name: " · ".join(p for p in (s.workload, labels[s.name]) if p)
                  for s in specs}
    if len(set(labels.values())) < len(labels) or not all(labels.values()):
        labels = {s.name: s.name for s in specs}
    # In the caption a shape says what it is; a batch and threads already do.
    caption = [html_text(f"{word(lang, 'shape').lower()} {text}" if f == "shape" else text)
               for f, text in (values[specs[0].name].items() if specs else ()) if f not in varying]
    shown = {n: html_text(t) for n, t in labels.items()}
    return shown, caption


def peak_text(row: TrialRow, env: Environment | None, lang: str) -> str:
    """A row's fraction of peak, shown only where the peak rule holds today (HTML)."""
    if row.throughput_unit != "FLOP/s":
        return "—"
    # A stored fraction shows only if the record passes the peak rule as it is now.
    if row.peak_fraction is not None and env is not None and not peak_gaps(
            env, threads=row.threads):
        return unbroken(percent_text(row.peak_fraction, lang))
    return word(lang, "peak_unknown")


def _quality(row: TrialRow, spec: TrialSpec, lang: str) -> str:
    if row.error:
        return f"{word(lang, 'error')}: {html_text(row.error)}"
    if row.dtype == spec.reference_dtype:
        return word(lang, "reference_self")
    if row.quality_error is None:
        return "—"
    error, tolerance = scientific(row.quality_error, lang), scientific(row.tolerance, lang)
    if row.quality_pass:
        return f"✓ {error}"
    why = f'<span class="harness-why">{error} &gt; {tolerance}</span>'
    return f"✗ {word(lang, 'fails_short')} {why}"


def compact_cells(row: TrialRow, spec: TrialSpec, env: Environment | None, lang: str,
                  *, stale: bool) -> list[Cell]:
    """Latency · throughput · peak · memory · quality of a recorded row."""
    mark = f'<span class="harness-badge">{word(lang, "stale")}</span> ' if stale else ""
    if row.error and not row.latency:
        dash = Cell(html="—", numeric=True)
        return [Cell(html=mark + word(lang, "error"), numeric=True), dash, dash, dash,
                Cell(html=_quality(row, spec, lang))]
    latency = unbroken(latency_text(row.latency, lang)) if row.latency else "—"
    if row.latency and row.repeats is not None and row.repeats < 2:  # no spread in one block
        latency += ' <span class="harness-spread">IQR —</span>'
    elif row.iqr_over_median is not None:
        spread = unbroken(f"IQR {percent_text(row.iqr_over_median, lang)}")
        # Words, not a title: a tooltip reaches neither touch nor every screen reader.
        noisy = f' <span class="harness-noisy">{word(lang, "noisy")}</span>' if row.noisy else ""
        latency += f' <span class="harness-spread">{spread}{noisy}</span>'
    if row.first_call_s and env is not None and "first_call" in env.extra:
        # Only a run in a fresh process times a first call that is really first.
        first = unbroken(f"{word(lang, 'first_call_fresh')} {latency_text(row.first_call_s, lang)}")
        latency += f' <span class="harness-spread">{first}</span>'
    throughput = (unbroken(throughput_text(row.throughput, row.throughput_unit, lang))
                  if row.throughput else "—")
    memory = unbroken(bytes_text(row.memory, lang)) if row.memory else "—"
    reserved = env.extra.get("memory_reserved", {}).get(row.trial) if env is not None else None
    if isinstance(reserved, int):  # an accelerator's caching allocator, apart from allocated
        shown = unbroken(f"{word(lang, 'memory_reserved_short')} {bytes_text(reserved, lang)}")
        memory += f' <span class="harness-spread">{shown}</span>'
    return [Cell(html=mark + latency, numeric=True), Cell(html=throughput, numeric=True),
            Cell(html=peak_text(row, env, lang), numeric=True), Cell(html=memory, numeric=True),
            Cell(html=_quality(row, spec, lang), css="harness-quality")]


def _verdict(context: Context, spec: TrialSpec, expect: TrialExpectation,
             record: DeviceRecord) -> str:
    """Computed from the rows as they are now, never stored; a contradicted one not
    declared a known failure fails the strict build, naming the record and declaration."""
    lang = context.lang
    build = f"torch {html_text(record.torch_build)}"
    row, other = record.row(spec.name), record.row(expect.of)
    if row is None or other is None:
        return f"{build}: <em>{word(lang, 'missing')}</em>"
    if row.error or other.error or not row.latency or not other.latency:
        return f"{build}: — ({word(lang, 'reason_error')})"
    if context.is_stale(row) or context.is_stale(other):
        return f"{build}: — ({word(lang, 'stale')})"
    ratio = row.latency / other.latency
    shown = f"{word(lang, 'measured_ratio')} {unbroken(decimal(ratio, lang))}×"
    if expect.holds(ratio):
        return f"{build}: ✓ {word(lang, 'verdict_ok')} ({shown})"
    if expect.known_failure:
        return (f"{build}: {word(lang, 'verdict_known')} ({shown}): "
                f"{html_text(expect.known_failure)}")
    context.stale.setdefault(
        f"{row.location}: trial {spec.name!r} measured {ratio:.3g} × the latency of "
        f"{expect.of!r} ({other.location}), which contradicts its analytic expectation at "
        f"{expect.location} ({expect.relation} {expect.factor:g}); fix the derivation or the "
        'trial, or declare known_failure = "why" in its [trial.expect]', None)
    return f"{build}: ✗ {word(lang, 'verdict_fail')} ({shown})"


def expectation_block(context: Context, specs: list[TrialSpec],
                      records: list[DeviceRecord]) -> str:
    """One item per expectation of ``specs``: the claim in words («la latencia de a es
    menor que 0,5 × la de b»), its verdict per record (or «sin medición» without one) and
    the derivation one click away; empty without any."""
    lang = context.lang
    items = []
    for spec in specs:
        expect = spec.expect
        if expect is None:
            continue
        factor = (compact(expect.factor, lang) if expect.relation == "below"
                  else f"{compact(expect.factor * 100, lang)} %")
        claim = word(lang, f"expect_{expect.relation}").format(
            a=code(spec.name), b=code(expect.of), factor=unbroken(factor))
        verdicts = ([_verdict(context, spec, expect, r) for r in records]
                    or [f"<em>{word(lang, 'missing')}</em>"])
        derivation = in_lang(lang, {"es": expect.derivation, "en": expect.derivation_en})
        items.append(f"<li>{claim}: {'; '.join(verdicts)}"
                     f'<details class="harness-note"><summary>{word(lang, "derivation")}'
                     f"</summary><p>{html_text(derivation)}</p></details></li>")
    if not items:
        return ""
    return (f'<div class="harness-expectations"><p><strong>{word(lang, "expectations")}'
            f"</strong></p><ul>{''.join(items)}</ul></div>")


def _seconds(value: Any) -> float | None:
    """A positive, finite number of seconds from a record, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def bare_loop_lines(context: Context, specs: list[TrialSpec],
                    records: list[DeviceRecord]) -> str:
    """For each record whose newest bare-loop run names a trial of ``specs``: the
    harness latency, the bare loop's and their ratio, as the record states them."""
    lang, names = context.lang, {s.name for s in specs}
    lines = []
    for record in records:
        runs = [e for e in record.environments.values()
                if e.bare_loop.get("trial") in names]
        if not runs:
            continue
        loop = max(runs, key=lambda e: (e.date, e.run_id)).bare_loop
        harness, bare = _seconds(loop.get("harness_s")), _seconds(loop.get("bare_s"))
        if harness is None or bare is None:
            continue
        clock = word(lang, "bare_clock_events" if loop.get("clock") == "device events"
                     else "bare_clock_host")
        text = word(lang, "bare_loop").format(
            trial=code(str(loop['trial'])),
            harness=unbroken(latency_text(harness, lang)), bare=unbroken(latency_text(bare, lang)),
            clock=clock, calls=html_text(str(loop.get("calls", "?"))),
            blocks=html_text(str(loop.get("blocks", "?"))),
            ratio=unbroken(decimal(harness / bare, lang)))
        lines.append(f'<p class="harness-bare-loop">torch {html_text(record.torch_build)} · '
                     f"{text}</p>")
    return "".join(lines)


def device_types_for(context: Context, group: str) -> list[str]:
    """CPU and CUDA sections whenever the group applies to them (a missing GPU
    record must read «sin medición»); MPS and XPU only where a record exists."""
    applies = {d for s in context.specs.values() if s.group == group for d in s.devices}
    recorded = {r.device_type for r in context.records.items}
    return [d for d in DEVICE_TYPES if d in applies and (d in ("cpu", "cuda") or d in recorded)]


def _specs(context: Context, group: str, device_type: str) -> list[TrialSpec]:
    return [s for s in context.specs.values() if s.group == group and device_type in s.devices]


def _table(context: Context, specs: list[TrialSpec], records: list[DeviceRecord],
           note: str = "") -> str:
    lang = context.lang
    by_build = [(r, {row.trial: row for row in r.rows}) for r in records]
    sample = {n: row for _, rows in by_build for n, row in rows.items()}
    labels, caption = identities(specs, sample, lang)
    labels = {n: _parts_together(label) for n, label in labels.items()}
    show_build = len(records) > 1
    header = [(word(lang, "trial"), False)]
    header += [(word(lang, "torch"), False)] if show_build else []
    # A row measured on another processor than most says so: its figures are that
    # machine's (a bfloat16 row on a CPU with AVX-512 BF16 beside rows from one without).
    machines = Counter(machine(r, row) for spec in specs for r, rows in by_build
                       if (row := rows.get(spec.name)) is not None)
    usual = machines.most_common(1)[0][0] if len(machines) > 1 else None
    entries = []
    for spec in specs:
        for record, found in by_build:
            row = found.get(spec.name)
            cells = [Cell(html=f"<em>{word(lang, 'missing')}</em>"),
                     *(Cell(html="—", numeric=True) for _ in range(3)), Cell(html="—")]
            if row is not None:
                env = record.environments[row.run_id]
                cells = compact_cells(row, spec, env, lang, stale=context.is_stale(row))
                if usual is not None and (other := machine(record, row)) != usual:
                    name = env.device_name if env.device_name not in usual else other
                    said = word(lang, "row_other_machine", machine=html_text(name))
                    cells[0] = replace(cells[0], html=f'{cells[0].html} <span class='
                                       f'"harness-spread">{said}</span>')
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
            shown.insert(0, Cell(html=f'<span class="harness-label">{labels[spec.name]}'
                                 "</span>", span=len(records),
                                 css="harness-id harness-fail" if group_fails else "harness-id"))
        rows.append(Row(cells=shown, css="harness-fail" if failing else "", title=spec.name,
                        first_of_group=index == 0))
    parts = caption + [
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
    lang = context.lang
    parts = [f'<p class="harness-device"><strong>{word(lang, device_type)}</strong></p>']
    # Sets that measure trials: an examples-only set (a test-matrix build) has no row to
    # show here, and is not a build whose rows are missing either.
    measuring = [r for r in context.records.items if r.rows]
    records = [r for r in measuring if r.device_type == device_type]
    specs = _specs(context, group, device_type)
    if not records:
        missing = (f'<p class="harness-missing"><em>{word(lang, "missing")}</em>: '
                   f"{word(lang, 'no_record')} ({word(lang, 'hint')} "
                   f"<code>python -m harness record --device {device_type}</code>).</p>")
        return [*parts, missing, expectation_block(context, specs, records)], 0
    built = {r.torch_build for r in records}
    absent = [b for b in dict.fromkeys(r.torch_build for r in measuring) if b not in built]
    note = (f"<em>{word(lang, 'missing')}</em> {word(lang, 'for_build')} "
            f"{', '.join(html_text(b) for b in absent)}") if absent else ""
    names = {s.name for s in specs}
    failed = sum(1 for r in records for row in r.rows if row.trial in names and row.failed)
    return [*parts, _table(context, specs, records, note),
            expectation_block(context, specs, records), bare_loop_lines(context, specs, records),
            ], failed


def measurements(context: Context, group: str) -> str:
    """One compact table per device type, one row per trial and recorded build; several
    device types are tabs (pymdownx.tabbed's alternate HTML, which Material styles)
    whose labels count failing rows, so a failure shows even in a closed tab."""
    # A device with its own record opens before the CPU: the reader most likely came for it.
    recorded = {r.device_type for r in context.records.items if r.rows}
    device_types = sorted(device_types_for(context, group),
                          key=lambda d: d == "cpu" and bool(recorded - {"cpu"}))
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
           first: DeviceRecord) -> float | str:
    """The latency ratio, or the word saying why none is given: only passing, fresh rows
    on the same hardware compare."""
    for one in (row, base):
        if one.error:
            return "reason_error"
        if not one.quality_pass:
            return "reason_quality"
        if context.is_stale(one):
            return "stale"
    if (record.environments[row.run_id].device_name
            != first.environments[base.run_id].device_name):
        return "reason_other_device"
    assert row.latency and base.latency
    return row.latency / base.latency


def compare_versions(context: Context, group: str) -> str:
    """Per device: each trial's latency relative to the oldest build with its trials, in
    a collapsed table whose summary gives the range of the ratios (the figures
    themselves are in the group's table)."""
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
        base, device_type = records[0], key.split("-", 1)[0]
        title = f"<strong>{word(lang, device_type)}</strong> ({html_text(key)})"
        if len(records) < 2:
            parts.append(f"<p>{title}: {word(lang, 'only_one')} "
                         f"(torch {html_text(base.torch_build)}).</p>")
            continue
        found = {s.name: row for s in _specs(context, group, device_type)
                 if (row := base.row(s.name)) is not None}
        specs = [s for s in _specs(context, group, device_type) if s.name in found]
        labels = {n: _parts_together(label)
                  for n, label in identities(specs, found, lang)[0].items()}
        header = [(word(lang, "trial"), False)] + [
            (f"torch {html_text(r.torch_build)}", True) for r in records[1:]]
        rows, ratios = [], []
        for spec in specs:
            cells = [Cell(html=labels[spec.name], css="harness-id")]
            for record in records[1:]:
                row = record.row(spec.name)
                ratio = None if row is None else _ratio(context, row, found[spec.name], record,
                                                        base)
                if isinstance(ratio, float):
                    ratios.append(ratio)
                text = (f"<em>{word(lang, 'missing')}</em>" if ratio is None
                        else f"— ({word(lang, ratio)})" if isinstance(ratio, str)
                        else f"{decimal(ratio, lang)}×")
                cells.append(Cell(html=text, numeric=True))
            rows.append(Row(cells=cells, title=spec.name))
        caption = (f"{title} · {word(lang, 'ratio')} {html_text(base.torch_build)} "
                   f"({word(lang, 'lower_faster')})")
        table = html_table(header, rows, caption=caption, css="harness-table harness-compact")
        summary = f"{title}: {word(lang, 'no_ratio')} ({len(rows)})"
        if ratios:
            low, high = decimal(min(ratios), lang), decimal(max(ratios), lang)
            summary = (f"{title}: "
                       f"{word(lang, 'ratio_range').format(n=len(ratios), low=low, high=high)} "
                       f"({word(lang, 'lower_faster')}); {word(lang, 'no_ratio')}: "
                       f"{len(rows) * (len(records) - 1) - len(ratios)}")
        parts.append(details(summary, table))
    return "\n".join(parts) + "\n"


#: «Todas las columnas» reads a row whole, written as the rest of the page writes it;
#: data only a tool reads stays in the record's CSV download, complete.
CSV_ONLY = ("samples_s", "spec_sha256", "run_id")
#: The fields the lines show, in the record's column order.
SHOWN = tuple(c for c in CSV_HEADER if c not in CSV_ONLY)
#: How a field's value is written; names and counts are shown as recorded.
_FORMATS: dict[str, Callable[[Any, str], str]] = {
    **dict.fromkeys(("latency", "latency_iqr_s", "load_s", "first_call_s"), latency_text),
    **dict.fromkeys(("quality_error", "tolerance"), scientific),
    "memory": bytes_text, "iqr_over_median": percent_text, "throughput_unit": unit_name,
    "memory_method": memory_method_text}
#: Record text, which may wrap; any other value with a figure keeps it with its unit.
_WRAPPING = ("memory_method", "error")


def _text(row: TrialRow, name: str, spec: TrialSpec, env: Environment | None,
          lang: str) -> str:
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
    if name == "throughput":
        return throughput_text(value, row.throughput_unit, lang)
    return _FORMATS[name](value, lang) if name in _FORMATS else str(value)


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
    values = []
    for row in rows:
        spec, run = context.specs[row.trial], record.environments[row.run_id]
        texts = {n: html_text(_text(row, n, spec, run, lang)) for n in SHOWN}
        values.append({n: unbroken(t) if n not in _WRAPPING and any(c.isdigit() for c in t)
                       else t for n, t in texts.items()})
    # The trial names each row's lines; a field the rows share is said once.
    shared = ([n for n in SHOWN if n != "trial" and len({v[n] for v in values}) == 1]
              if len(rows) > 1 else [])
    name = f"{group}-{record.torch_build}-{record.device_key}.csv"
    link = csv_link(format_rows(rows), filename=name,
                    label=f"{word(lang, 'download_csv')} ({html_text(name)})")
    env = row_environment(record, rows, lang)
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


def all_columns_view(context: Context, group: str) -> str:
    """Every recorded field of the group's rows, per device type (the article's evidence
    page holds them, one tap from the table they support)."""
    measuring = [r for r in context.records.items if r.rows]
    parts = []
    for device_type in device_types_for(context, group):
        block = all_columns(context, group, [r for r in measuring
                                             if r.device_type == device_type])
        if block:
            parts.append(f'<p class="harness-device"><strong>{word(context.lang, device_type)}'
                         f"</strong></p>\n{block}")
    return "\n".join(parts) + "\n" if parts else f"*{word(context.lang, 'missing')}*\n"


def csv_row(context: Context, trial: str) -> str:
    """A real recorded row in the article's CSV format."""
    found = [(r, row) for r in context.records.items for row in r.rows if row.trial == trial]
    # The newest build first; on it, the CPU record first, since every site has one.
    builds = context.records.builds
    found.sort(key=lambda item: (-builds.index(item[0].torch_build), item[0].device_type != "cpu"))
    if not found:
        header = ",".join(ARTICLE_COLUMNS)
        return f"```csv\n{header}\n```\n\n*{word(context.lang, 'missing')}*\n"
    record, row = found[0]
    body = format_rows([row], columns=ARTICLE_COLUMNS)
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", body)), default=0))
    stale = f"**{word(context.lang, 'stale')}** · " if context.is_stale(row) else ""
    where = f"{word(context.lang, 'row_of')} {cell(row.location)}"
    note = f"{where} · {cell(row_environment(record, [row], context.lang))}"
    return f"{fence}csv\n{body}{fence}\n\n{stale}{note}\n"


def plot(context: Context, group: str, y: str, where: str) -> str:
    """A log–log chart of the group's latency or throughput, one curve per work, dtype,
    build and device."""
    lang = context.lang
    specs = {s.name: s for s in context.specs.values() if s.group == group}
    shared_task = len({s.workload for s in specs.values()}) > len({s.task for s in specs.values()})
    # Against batch when the group varies it; otherwise against the first dimension.
    x_is_batch = len({s.batch for s in specs.values()}) > 1
    builds = context.records.builds
    series: dict[tuple[str, ...], list[Point]] = {}
    skipped, units = 0, []
    for record in context.records.items:
        for row in context.group_rows(record, group):
            if row.error or not row.latency:
                skipped += 1
                continue
            spec = specs[row.trial]
            context.is_stale(row)
            # A series is one curve: same work, dtype, build and device across x.
            key = (spec.task, spec.workload if shared_task else "", spec.dtype,
                   record.torch_build, record.device_key)
            value = row.latency if y == "latency" else row.throughput
            if value is None:  # a row without the figure this plot shows
                skipped += 1
                continue
            if y == "throughput":
                units.append(row.throughput_unit)
            x = float(spec.batch if x_is_batch else (spec.shape or (1,))[0])
            failing = not row.quality_pass
            shown = (latency_text(value, lang) if y == "latency"
                     else throughput_text(value, row.throughput_unit, lang))
            note = f"{spec.name}: {shown}" + (f" ({word(lang, 'fails')})" if failing else "")
            series.setdefault(key, []).append(Point(x=x, y=value, hollow=failing, note=note))
    if len(set(units)) > 1:
        raise HarnessError(f"{where}: group {group!r} mixes throughput units "
                           f"{sorted(set(units))}; plot one unit per group")
    # A label names only what tells the lines apart. One colour per work and dtype, one
    # marker per build and device, one dash per build: few hues, each far from the others.
    varying = [i for i in range(5) if len({k[i] for k in series}) > 1]
    families = sorted({(k[0], k[1], k[2]) for k in series})
    places = sorted({(builds.index(k[3]), k[4]) for k in series})
    drawn = []
    for curve, points in sorted(series.items(), key=lambda i: (*i[0][:3], builds.index(i[0][3]),
                                                               i[0][4])):
        words = [word(lang, curve[0]), curve[1], curve[2], f"torch {curve[3]}", curve[4]]
        failing = all(p.hollow for p in points)
        label = " · ".join(words[i] for i in varying if words[i]) or words[2]
        if failing:
            label += f" · {word(lang, 'failing_series')}"
        drawn.append(Series(label=label, points=points, dash=builds.index(curve[3]),
                            failing=failing,
                            colour=families.index((curve[0], curve[1], curve[2])),
                            marker=places.index((builds.index(curve[3]), curve[4]))))
    if not drawn:
        return f"*{word(lang, 'missing')}* ({word(lang, 'plot_of')} {cell(group)})\n"
    values = [p.y for s in drawn for p in s.points]
    middle = (min(values) * max(values)) ** 0.5
    if y == "latency":
        factor, unit = latency_scale(middle)
    else:
        factor, prefix = si_scale(middle)
        shown = unit_name(units[0], lang)
        unit = f"{prefix}{shown}" if shown == "FLOP/s" or not prefix else f"{prefix} {shown}"
    y_label = f"{word(lang, 'latency_axis' if y == 'latency' else 'throughput_axis')} ({unit})"
    x_label = word(lang, "batch_axis" if x_is_batch else "size_axis")
    title = f"{word(lang, 'plot_short_' + y)} · {group}"
    described = f"{x_label} → {y_label}. " + "; ".join(
        f"{s.label}: " + ", ".join(f"{p.x:g} → {decimal(p.y / factor, lang)} {unit}"
                                   for p in s.points) for s in drawn)
    xs = sorted({p.x for s in drawn for p in s.points})
    caption = f"{y_label}, {group}; {word(lang, 'log')}."
    if skipped:
        caption += f" {word(lang, 'skipped')}: {skipped}."
    if context.stale:
        caption += f" {word(lang, 'stale')}: {len(context.stale)}."
    # One chart for every width: the browser lays out its text, nothing scrolls.
    return line_chart(drawn, title=title, x_label=x_label, y_label=y_label, x_ticks=xs,
                      lang=lang, y_scale=factor, element_id=f"harness-plot-{group}-{y}",
                      description=described, caption=caption) + "\n"


_LONG = 48
"""Texts longer than this open in a note instead of widening the table."""
_SUMMARY = 30
"""A note's summary: its first words, up to this many characters, so that a column of
one record set stays narrow enough for five of them to fit a desktop column."""


def _peak(env: Environment, lang: str) -> str:
    """The peaks by dtype, or «pico desconocido» and why (the rule of
    :func:`harness.core.peak_rule.peak_gaps`, so a stored peak the rule rejects is not shown)."""
    gaps = peak_gaps(env)
    if gaps:
        why = "; ".join(word(lang, f"peak_gap_{g}") for g in gaps)
        return f"{word(lang, 'peak_unknown')}: {why}"
    peaks = ", ".join(f"{d} {throughput_text(v, 'FLOP/s', lang)}"
                      for d, v in sorted(env.peak.items()))
    if env.device_key == "cpu" and not env.own_cores:  # rows of 2+ threads get no fraction
        peaks += f"; {word(lang, 'peak_one_thread')}"
    return peaks


def _cpu(env: Environment, lang: str) -> str:
    """The microarchitecture and the OS's maximum clock behind a CPU peak."""
    if not env.cpu_id:
        return ""
    parts = [f"{env.microarchitecture or word(lang, 'peak_gap_no-table')} ({env.cpu_id})"]
    if env.max_clock_hz > 0:
        parts.append(f"{decimal(env.max_clock_hz / 1e9, lang)} GHz, {env.max_clock_source}")
    return " · ".join(parts)


def _threads(record: DeviceRecord, lang: str) -> str:
    """The set's CPU threads: each trial's own count (the rows say which), else its runs'
    count (torch's default when the environment says so); then the logical CPUs."""
    envs = list(record.environments.values())
    if record.rows:
        counts = [row.threads for row in record.rows]
        text = (f"{threads_text(counts, lang)} "
                f"{word(lang, 'threads_each' if len(set(counts)) == 1 else 'threads_by_trial')}")
    else:
        counts = [e.threads for e in envs]
        text = threads_text(counts, lang)
        defaults = {e.extra.get("torch_default_threads") for e in envs}
        if defaults == {counts[0]} and len(set(counts)) == 1:
            text += f", {word(lang, 'threads_default')}"
    cpus = sorted({n for e in envs if isinstance(n := e.extra.get("cpu_count"), int) and n > 0})
    return text + "".join(f" ({word(lang, 'logical_cpus').format(n=n)})" for n in cpus[-1:])


def _tf32(env: Environment, lang: str) -> str:
    """float32 matmul precision and whether CUDA may use TF32."""
    allowed = env.extra.get("cuda_matmul_allow_tf32")
    flag = word(lang, "env_tf32_unknown" if allowed is None else
                "env_tf32_allowed" if allowed else "env_tf32_refused")
    return f"{env.extra.get('float32_matmul_precision', '—')}; {flag}"


def _environment_fields(record: DeviceRecord, lang: str) -> dict[str, str]:
    """Field key → text, in the table's order. A set can hold runs from several machines:
    a run's field lists each distinct value of every run that produced a figure the site
    shows (rows, control rows, observations) once."""
    ids = dict.fromkeys([*(r.run_id for r in [*record.rows, *record.control_rows]),
                         *(o.run_id for o in record.observations)])
    runs = [record.environments[i] for i in ids] or [record.environment]
    env = record.environment
    days = sorted({e.date[:10] for e in record.environments.values() if e.date})

    def each(values: Iterable[str]) -> str:
        return " / ".join(dict.fromkeys(v for v in values if v))

    return {
        "device": each(e.device_name or e.device_key for e in runs),
        "cpu_model": each(e.cpu_model for e in runs),
        "env_tf32": each(_tf32(e, lang) for e in runs),
        "env_threads": _threads(record, lang),
        "platform": f"Python {env.python} · {env.platform}",
        "cuda_driver": " / ".join(x for x in (env.cuda, env.driver) if x),
        "date": days[0] if len(days) == 1 else f"{days[0]} … {days[-1]}" if days else "",
        "microarchitecture": _cpu(env, lang),
        "peak_table": _peak(env, lang),
        "peak_source": peak_source_text(env, lang),
        "memory_field": memory_method_text(str(env.extra.get("memory_method", "")), lang),
        "commit": env.repo_commit[:12],
        "provenance": grade_text(record.provenance, lang),
    }


def _value(text: str) -> str:
    if not text:
        return "—"
    if len(text) <= _LONG:  # a short value keeps together: no break at its spaces or "-"
        return (f'<span class="harness-unbroken">{unbroken(html_text(text))}</span>'
                if len(text) < 24 else html_text(text))
    short = html_text(text[:_SUMMARY].rsplit(" ", 1)[0]) + "…"
    return (f'<details class="harness-note"><summary>{short}</summary>'
            f"<p>{html_text(text)}</p></details>")


def environment_table(context: Context) -> str:
    """Where every record set was made: one column per set (torch build × device), one
    row per field, the fields every set shares listed once under the table. Neighbouring
    sets that agree share one cell spanning their columns; long texts open on a click."""
    lang = context.lang
    records = context.records.items
    if not records:
        return f"*{word(lang, 'missing')}*\n"
    head = " ".join(f'<th scope="col">torch {html_text(r.torch_build)}<br>'
                   f"<code>{html_text(r.device_key)}</code></th>" for r in records)
    rows, shared = [], []
    columns = [_environment_fields(r, lang) for r in records]
    for key in columns[0]:
        values = [column[key] for column in columns]
        name = word(lang, key)
        if len(records) > 1 and len(set(values)) == 1:
            shared.append(f"<li>{name}: {_value(values[0])}</li>")
            continue
        runs = [(value, len(list(same))) for value, same in groupby(values)]  # one cell each
        cells = " ".join((f'<td colspan="{n}" class="harness-span">' if n > 1 else "<td>")
                         + f"{_value(value)}</td>" for value, n in runs)
        rows.append(f'<tr><th scope="row">{name}</th> {cells}</tr>')
    common = (f'<p class="harness-env-common">{word(lang, "same_all_title")}:</p>'
              f'<ul class="harness-env-common">{"".join(shared)}</ul>' if shared else "")
    return (f'<div class="harness-scroll" tabindex="0" role="region" '
            f'aria-label="{word(lang, "environment")}">'
            f'<table class="harness-table harness-env">'
            f'<thead><tr><th scope="col">{word(lang, "field")}</th> {head}</tr></thead>'
            f"<tbody>{' '.join(rows)}</tbody></table></div>{common}\n")
