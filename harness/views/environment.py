"""Where every record set was made, turned sideways: one row per field, one column
per record set. A field every set shares is said once, in a list under the table;
neighbouring sets that agree share one cell, drawn as one box across their columns
(rules between the columns show where a shared cell ends, so it never reads as a
value beside an empty column). Long texts (how the peak was obtained, how memory was
measured) open on a click. The recorder's English texts are shown in the page's
language. No torch import.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.core.peak_rule import peak_gaps
from harness.core.types import Environment
from harness.records.provenance import grade_text
from harness.records.store import DeviceRecord
from harness.text.markdown import html_text
from harness.text.numbers import decimal, throughput_text, unbroken
from harness.text.record_words import memory_method_text, peak_source_text
from harness.text.words import word
from harness.views.measured_context import Context, threads_text

__all__ = ["environment_table"]

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
    """What the set's CPU threads were, exactly: each trial sets its own count (the rows
    say which); a set without trials (examples only) ran with its runs' count, which is
    torch's default when the environment says so; then the machine's logical CPUs."""
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


def _shown(record: DeviceRecord) -> list[Environment]:
    """Every run that produced a figure the site shows (rows, control rows, observations),
    in order: a set can hold runs from several machines, and each is named."""
    ids = dict.fromkeys([*(r.run_id for r in [*record.rows, *record.control_rows]),
                         *(o.run_id for o in record.observations)])
    return [record.environment_of(i) for i in ids] or [record.environment]


def _each(read: Callable[[Environment], str]) -> Callable[[DeviceRecord, str], str]:
    return lambda record, lang: " / ".join(dict.fromkeys(
        v for e in _shown(record) if (v := read(e))))


def _tf32(record: DeviceRecord, lang: str) -> str:
    """float32 matmul precision and whether CUDA may use TF32, for every shown run."""
    found = []
    for env in _shown(record):
        allowed = env.extra.get("cuda_matmul_allow_tf32")
        flag = word(lang, "env_tf32_unknown" if allowed is None else
                    "env_tf32_allowed" if allowed else "env_tf32_refused")
        found.append(f"{env.extra.get('float32_matmul_precision', '—')}; {flag}")
    return " / ".join(dict.fromkeys(found))


def _dates(record: DeviceRecord) -> str:
    days = sorted({e.date[:10] for e in record.environments.values() if e.date})
    return days[0] if len(days) == 1 else f"{days[0]} … {days[-1]}" if days else ""


_FIELDS: tuple[tuple[str, Callable[[DeviceRecord, str], str]], ...] = (
    ("device", _each(lambda e: e.device_name or e.device_key)),
    ("cpu_model", _each(lambda e: e.cpu_model)),
    ("env_tf32", _tf32),
    ("env_threads", _threads),
    ("platform", lambda r, lang: f"Python {r.environment.python} · {r.environment.platform}"),
    ("cuda_driver", lambda r, lang: " / ".join(
        x for x in (r.environment.cuda, r.environment.driver) if x)),
    ("date", lambda r, lang: _dates(r)),
    ("microarchitecture", lambda r, lang: _cpu(r.environment, lang)),
    ("peak_table", lambda r, lang: _peak(r.environment, lang)),
    ("peak_source", lambda r, lang: peak_source_text(r.environment, lang)),
    ("memory_field", lambda r, lang: memory_method_text(
        str(r.environment.extra.get("memory_method", "")), lang)),
    ("commit", lambda r, lang: r.environment.repo_commit[:12]),
    ("provenance", lambda r, lang: grade_text(r.provenance, lang)),
)


def _value(text: str, lang: str) -> str:
    if not text:
        return "—"
    if len(text) <= _LONG:  # a short value keeps together: no break at its spaces or "-"
        return (f'<span class="harness-unbroken">{unbroken(html_text(text))}</span>'
                if len(text) < 24 else html_text(text))
    short = html_text(text[:_SUMMARY].rsplit(" ", 1)[0]) + "…"
    return (f'<details class="harness-note"><summary>{short}</summary>'
            f"<p>{html_text(text)}</p></details>")


def environment_table(context: Context) -> str:
    """One column per record set (torch build × device), one row per field; the fields
    every set shares listed once under the table."""
    lang = context.lang
    records = context.records.items
    if not records:
        return f"*{word(lang, 'missing')}*\n"
    head = " ".join(f'<th scope="col">torch {html_text(r.torch_build)}<br>'
                   f"<code>{html_text(r.device_key)}</code></th>" for r in records)
    rows, shared = [], []
    for key, read in _FIELDS:
        values = [read(r, lang) for r in records]
        name = word(lang, key)
        if len(records) > 1 and len(set(values)) == 1:
            shared.append(f"<li>{name}: {_value(values[0], lang)}</li>")
            continue
        runs: list[list[str]] = []  # neighbours that agree share one cell
        for value in values:
            if runs and runs[-1][0] == value:
                runs[-1].append(value)
            else:
                runs.append([value])
        cells = " ".join(
            (f'<td colspan="{len(run)}" class="harness-span">' if len(run) > 1 else "<td>")
            + f"{_value(run[0], lang)}</td>" for run in runs)
        rows.append(f'<tr><th scope="row">{name}</th> {cells}</tr>')
    common = (f'<p class="harness-env-common">{word(lang, "same_all_title")}:</p>'
              f'<ul class="harness-env-common">{"".join(shared)}</ul>' if shared else "")
    return (f'<div class="harness-scroll" tabindex="0" role="region" '
            f'aria-label="{word(lang, "environment")}">'
            f'<table class="harness-table harness-env">'
            f'<thead><tr><th scope="col">{word(lang, "field")}</th> {head}</tr></thead>'
            f"<tbody>{' '.join(rows)}</tbody></table></div>{common}\n")
