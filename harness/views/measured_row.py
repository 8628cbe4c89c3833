"""One trial's compact cells and its short label. No torch import.

A compact table keeps six figures per row (latency with its spread, throughput,
fraction of peak, memory, quality); everything else a row records is one click
away in «Todas las columnas». Identifying fields that are the same for every row
of a table move to its caption; those that vary make the row's short label.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.peak_rule import peak_gaps
from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.sources.trials import shape_text
from harness.text.markdown import html_text
from harness.text.numbers import (
    bytes_text,
    latency_text,
    percent_text,
    scientific,
    throughput_text,
    unbroken,
)
from harness.text.words import word
from harness.views.html_table import Cell

__all__ = ["COMPACT_COLUMNS", "Identity", "compact_cells", "field_text", "identities",
           "missing_cells", "peak_text"]

#: Header keys of the compact columns after the label (and the build, when shown).
COMPACT_COLUMNS = ("latency_short", "throughput", "peak_short", "memory", "quality_short")
_FIELDS = ("task", "dtype", "shape", "batch", "threads", "synchronized")


@dataclass(frozen=True, kw_only=True)
class Identity:
    """What tells a table's trials apart (label) and what they share (caption)."""

    labels: dict[str, str]
    """Trial name → short label (escaped HTML)."""
    caption: list[str]
    """``Field value`` parts shared by every trial (escaped HTML)."""


def field_text(spec: TrialSpec, row: TrialRow | None, name: str, lang: str, *,
               caption: bool = False) -> str:
    """One identifying field of a trial as its pages read it (plain text)."""
    if name == "shape" and caption:
        return f"{word(lang, 'shape').lower()} {field_text(spec, row, name, lang)}"
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
        return f"{spec.threads} {word(lang, 'thread' if spec.threads == 1 else 'threads_word')}"
    return str(getattr(spec, name))


def identities(specs: list[TrialSpec], rows: dict[str, TrialRow], lang: str) -> Identity:
    values = {s.name: {f: field_text(s, rows.get(s.name), f, lang) for f in _FIELDS}
              for s in specs}
    varying = [f for f in _FIELDS if len({v[f] for v in values.values()}) > 1]
    labels = {n: " · ".join(v[f] for f in varying) for n, v in values.items()}
    if len(set(labels.values())) < len(labels):  # fields alone do not tell them apart
        labels = {s.name: " · ".join(p for p in (s.workload, labels[s.name]) if p)
                  for s in specs}
    if len(set(labels.values())) < len(labels) or not all(labels.values()):
        labels = {s.name: s.name for s in specs}
    first = specs[0] if specs else None
    caption = [html_text(field_text(first, rows.get(first.name), f, lang, caption=True))
               for f in _FIELDS if f not in varying] if first else []
    # Each part keeps together; a label may wrap only between parts.
    shown = {n: " · ".join(f'<span class="harness-part">{html_text(p)}</span>'
                           for p in t.split(" · ")) for n, t in labels.items()}
    return Identity(labels=shown, caption=caption)


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
        return [Cell(html=mark + word(lang, "error"), numeric=True), Cell(html="—", numeric=True),
                Cell(html="—", numeric=True), Cell(html="—", numeric=True),
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


def missing_cells(lang: str) -> list[Cell]:
    missing = f"<em>{word(lang, 'missing')}</em>"
    return [Cell(html=missing), *(Cell(html="—", numeric=True) for _ in range(3)),
            Cell(html="—")]
