"""Measurement markers rendered to Markdown from the records. No torch import.

Every figure comes from ``results/``; nothing here measures. A row recorded for
another definition of its trial (its ``spec_sha256`` differs from the hash of
the current spec and workload source) is marked stale and reported, so the
build hook can turn it into a warning that fails ``mkdocs build --strict``.
A device type or torch build without a record says «sin medición». Any text
taken from a record passes through :func:`harness.text.markdown.cell` (tables) or
``html_text`` (charts), so a record can never inject markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from harness.core.errors import HarnessError
from harness.core.rows import ARTICLE_COLUMNS
from harness.records.rows import format_rows
from harness.text.markdown import cell
from harness.text.numbers import (
    decimal,
    latency_scale,
    latency_text,
    si_scale,
    throughput_text,
    unit_name,
)
from harness.text.words import word
from harness.views.all_columns import all_columns
from harness.views.charts import Point, Series, line_chart
from harness.views.environment import environment_table
from harness.views.measured_context import Context, row_environment
from harness.views.measured_tables import compare_versions, device_types_for, measurements

__all__ = ["MeasuredView", "all_columns_view", "compare_versions_view", "csv_row_view",
           "environment_view", "measurements_view", "plot_view"]

MeasuredView = Callable[[Context, Mapping[str, str], str], str]
"""One measurement marker's view: (context, its arguments, its location) → Markdown;
the stale rows it showed are left in the context."""


def _csv_row(context: Context, trial: str) -> str:
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
    stale = context.stale_note(row)
    where = f"{word(context.lang, 'row_of')} {cell(row.location)}"
    note = f"{where} · {row_environment(record, [row], context.lang)}"
    return f"{fence}csv\n{body}{fence}\n\n{stale}{note}\n"


def _plot_series(
    context: Context, group: str, y: str, where: str
) -> tuple[list[Series], bool, int, list[str]]:
    """(series, x is the batch, rows left out for errors, throughput units)."""
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
        raise HarnessError(
            f"{where}: group {group!r} mixes throughput units {sorted(set(units))}; "
            "plot one unit per group"
        )
    # A label names only what tells the lines apart; one colour per kind of curve (work
    # and dtype), one marker per place it ran (build and device), one dash per build: a
    # build's change reads as a dash, and few hues are needed, each far from the others.
    varying = [i for i in range(5) if len({k[i] for k in series}) > 1]
    families = sorted({(k[0], k[1], k[2]) for k in series})
    places = sorted({(builds.index(k[3]), k[4]) for k in series})
    out = []
    for curve, points in sorted(series.items(), key=lambda i: (*i[0][:3], builds.index(i[0][3]),
                                                               i[0][4])):
        words = [word(lang, curve[0]), curve[1], curve[2], f"torch {curve[3]}", curve[4]]
        failing = all(p.hollow for p in points)
        label = " · ".join(words[i] for i in varying if words[i]) or words[2]
        if failing:
            label += f" · {word(lang, 'failing_series')}"
        out.append(Series(label=label, points=points, dash=builds.index(curve[3]),
                          failing=failing,
                          colour=families.index((curve[0], curve[1], curve[2])),
                          marker=places.index((builds.index(curve[3]), curve[4]))))
    return out, x_is_batch, skipped, units or ["FLOP/s"]


def _plot(context: Context, group: str, y: str, where: str) -> str:
    lang = context.lang
    series, x_is_batch, skipped, units = _plot_series(context, group, y, where)
    if not series:
        return f"*{word(lang, 'missing')}* ({word(lang, 'plot_of')} {cell(group)})\n"
    values = [p.y for s in series for p in s.points]
    middle = (min(values) * max(values)) ** 0.5
    if y == "latency":
        factor, unit = latency_scale(middle)
        y_label = f"{word(lang, 'latency_axis')} ({unit})"
    else:
        factor, prefix = si_scale(middle)
        shown = unit_name(units[0], lang)
        unit = f"{prefix}{shown}" if shown == "FLOP/s" or not prefix else f"{prefix} {shown}"
        y_label = f"{word(lang, 'throughput_axis')} ({unit})"
    x_label = word(lang, "batch_axis" if x_is_batch else "size_axis")
    title = f"{word(lang, 'plot_short_' + y)} · {group}"
    described = f"{x_label} → {y_label}. " + "; ".join(
        f"{s.label}: " + ", ".join(f"{p.x:g} → {decimal(p.y / factor, lang)} {unit}"
                                   for p in s.points)
        for s in series
    )
    xs = sorted({p.x for s in series for p in s.points})
    caption = f"{y_label}, {group}; {word(lang, 'log')}."
    if skipped:
        caption += f" {word(lang, 'skipped')}: {skipped}."
    if context.stale:
        caption += f" {word(lang, 'stale')}: {len(context.stale)}."
    # One chart for every width: the browser lays out its text, nothing scrolls.
    return line_chart(series, title=title, x_label=x_label, y_label=y_label, x_ticks=xs,
                      lang=lang, y_scale=factor, element_id=f"harness-plot-{group}-{y}",
                      description=described, caption=caption) + "\n"


def measurements_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:measurements``: one compact table per device type of the group."""
    return measurements(context, args["group"], device_types_for(context, args["group"]))


def plot_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:plot``: a log–log chart of the group's latency or throughput."""
    return _plot(context, args["group"], args["y"], where)


def compare_versions_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:compare-versions``: the group's trials across recorded torch builds."""
    return compare_versions(context, args["group"])


def csv_row_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:csv-row``: a real recorded row in the article's CSV format."""
    return _csv_row(context, args["trial"])


def environment_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:environment``: where every record set was made."""
    return environment_table(context)


def all_columns_view(context: Context, args: Mapping[str, str], where: str) -> str:
    """``harness:all-columns``: every recorded field of the group's rows, per device type
    (the article's evidence page holds them, one tap from the table they support)."""
    group = args["group"]
    measuring = [r for r in context.records.items if r.rows]
    parts = []
    for device_type in device_types_for(context, group):
        block = all_columns(context, group, [r for r in measuring
                                             if r.device_type == device_type])
        if block:
            parts.append(f'<p class="harness-device"><strong>{word(context.lang, device_type)}'
                         f"</strong></p>\n{block}")
    return "\n".join(parts) + "\n" if parts else f"*{word(context.lang, 'missing')}*\n"
