"""The tables of the measurement markers: a group's measurements per device and
torch build, the same trials across torch builds, and every record's
environment. No torch import; every record text goes through ``cell``.
"""

from __future__ import annotations

from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, TrialSpec
from harness.records.store import DeviceRecord
from harness.sources.trials import shape_text
from harness.text.markdown import cell
from harness.text.numbers import decimal, throughput_text
from harness.text.words import word
from harness.views.measured_context import Context, row_cells, row_environment

__all__ = ["compare_versions", "device_types_for", "environment_table", "measurements"]

_MEASUREMENT_COLUMNS = (
    "trial",
    "task",
    "dtype",
    "shape",
    "batch",
    "threads",
    "latency",
    "throughput",
    "peak",
    "memory",
    "quality",
    "phases",
    "synchronized",
)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def device_types_for(context: Context, group: str) -> list[str]:
    """CPU and CUDA sections whenever the group applies to them (a missing GPU
    record must read «sin medición»); MPS and XPU only where a record exists."""
    applies = {d for s in context.specs.values() if s.group == group for d in s.devices}
    recorded = {r.device_type for r in context.records.items}
    return [d for d in DEVICE_TYPES if d in applies and (d in ("cpu", "cuda") or d in recorded)]


def _missing_line(context: Context, device_type: str, build: str = "") -> str:
    lang = context.lang
    where = f"{word(lang, 'for_build')} {cell(build)}" if build else ""
    return (
        f"*{word(lang, 'missing')}*: {word(lang, 'no_record')} {where}".rstrip()
        + f" ({word(lang, 'hint')} `python -m harness record --device {device_type}`).\n"
    )


def _specs(context: Context, group: str, device_type: str) -> list[TrialSpec]:
    return [s for s in context.specs.values() if s.group == group and device_type in s.devices]


def _record_table(context: Context, record: DeviceRecord, specs: list[TrialSpec]) -> str:
    rows = {r.trial: r for r in record.rows}
    shown = [rows[s.name] for s in specs if s.name in rows]
    caption = (
        f"*{word(context.lang, 'environment')}: {row_environment(record, shown, context.lang)}*\n\n"
    )
    header = [word(context.lang, c) for c in _MEASUREMENT_COLUMNS]
    return caption + _table(header, [row_cells(context, rows.get(s.name), s) for s in specs])


def measurements(context: Context, group: str, device_types: list[str]) -> str:
    """One section per device type; in it one table per torch build and device."""
    parts: list[str] = []
    for device_type in device_types:
        parts.append(f"**{word(context.lang, device_type)}**\n")
        specs = _specs(context, group, device_type)
        records = [r for r in context.records.items if r.device_type == device_type]
        if not records:
            parts.append(_missing_line(context, device_type))
            continue
        for build in context.records.builds:
            found = [r for r in records if r.torch_build == build]
            if not found:
                parts.append(_missing_line(context, device_type, build))
            parts += [_record_table(context, r, specs) for r in found]
    return "\n".join(parts)


def _ratio(context: Context, row: TrialRow, base: TrialRow, record: DeviceRecord, first: DeviceRecord) -> str:
    """Latency ratio, or why none is given: only passing, fresh rows on the same hardware."""
    lang = context.lang
    for one in (row, base):
        if one.error:
            return f"— ({word(lang, 'reason_error')})"
        if not one.quality_pass:
            return f"— ({word(lang, 'reason_quality')})"
        if context.is_stale(one):
            return f"— ({word(lang, 'stale')})"
    same = (
        record.environment
        and first.environment
        and record.environment.device_name == first.environment.device_name
    )
    if not same:
        return f"— ({word(lang, 'reason_other_device')})"
    return f"{decimal(row.latency / base.latency, lang)}×"


def _version_rows(
    context: Context, spec: TrialSpec, by_build: dict[str, DeviceRecord]
) -> list[list[str]]:
    lang = context.lang
    found = {b: {r.trial: r for r in rec.rows}.get(spec.name) for b, rec in by_build.items()}
    present = [b for b in context.records.builds if found.get(b) is not None]
    base_build = present[0] if present else ""
    out: list[list[str]] = []
    for build in context.records.builds:
        row = found.get(build)
        head = [
            f"`{spec.name}`",
            cell(spec.dtype),
            cell(shape_text(spec.shape)),
            str(spec.batch),
            str(spec.threads),
            f"torch {cell(build)}",
        ]
        if row is None:
            out.append(head + [f"*{word(lang, 'missing')}*", "—", "—"])
            continue
        cells = row_cells(context, row, spec)
        head[:5] = cells[0:1] + cells[2:6]  # what the row measured, stale mark included
        throughput = (
            throughput_text(row.throughput, row.throughput_unit, lang)
            if row.throughput and not row.error
            else "—"
        )
        latency = cells[6] if not row.error else f"{word(lang, 'error')}: {cell(row.error)}"
        base = found.get(base_build)
        ratio = (
            _ratio(context, row, base, by_build[build], by_build[base_build])
            if base is not None and build != base_build
            else word(lang, "baseline")
        )
        out.append(head + [f"{latency} · {throughput}", cells[10], ratio])
    return out


def compare_versions(context: Context, group: str) -> str:
    """Per device: each trial's rows from every recorded torch build, contiguous."""
    lang = context.lang
    keys = sorted(
        {r.device_key for r in context.records.items if context.group_rows(r, group)},
        key=lambda k: (DEVICE_TYPES.index(k.split("-", 1)[0]), k),
    )
    if not keys:
        return f"*{word(lang, 'missing')}*\n"
    parts: list[str] = []
    for key in keys:
        by_build = {r.torch_build: r for r in context.records.items if r.device_key == key}
        specs = _specs(context, group, key.split("-", 1)[0])
        base = next(b for b in context.records.builds if b in by_build)
        header = [word(lang, c) for c in ("trial", "dtype", "shape", "batch", "threads", "torch")]
        header += [
            f"{word(lang, 'latency')} · {word(lang, 'throughput')}",
            word(lang, "quality"),
            f"{word(lang, 'ratio')} {cell(base)}",
        ]
        rows = [line for s in specs for line in _version_rows(context, s, by_build)]
        label = word(lang, key.split("-", 1)[0])
        notes = [
            f"- {row_environment(r, context.group_rows(r, group), lang)}" for r in by_build.values()
        ]
        if len(by_build) < 2:
            notes.append(f"- {word(lang, 'only_one')} ({cell(base)}).")
        parts.append(
            f"**{label}** ({cell(key)})\n\n{_table(header, rows)}\n" + "\n".join(notes) + "\n"
        )
    return "\n".join(parts)


def environment_table(context: Context) -> str:
    """Every record's environment, one row per torch build and device."""
    lang = context.lang
    if not context.records.items:
        return f"*{word(lang, 'missing')}*\n"
    header = [
        word(lang, c)
        for c in (
            "torch",
            "device",
            "key",
            "threads",
            "python",
            "platform",
            "cuda_driver",
            "date",
            "peak_table",
            "peak_source",
            "commit",
        )
    ]
    rows: list[list[str]] = []
    for record in context.records.items:
        env = record.environment
        if env is None:  # load_all refuses such records; kept for a hand-made Records
            rows.append([cell(record.torch_build), "—", cell(record.device_key)] + ["—"] * 8)
            continue
        peak = ", ".join(
            f"{cell(d)} {throughput_text(v, 'FLOP/s', lang)}" for d, v in sorted(env.peak.items())
        )
        cuda = " / ".join(x for x in (env.cuda, env.driver) if x) or "—"
        rows.append(
            [
                cell(env.torch_build),
                cell(env.device_name),
                cell(record.device_key),
                str(env.threads),
                cell(env.python),
                cell(env.platform),
                cell(cuda),
                cell(env.date[:10]),
                peak or "—",
                cell(env.peak_source) or "—",
                cell(env.repo_commit[:12]) or "—",
            ]
        )
    return _table(header, rows)
