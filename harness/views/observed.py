"""Turning records into Markdown: localized words and numbers, escaped cells, and
the analytic-versus-observed block of an example. No torch import.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.compare import compare, format_value
from harness.core.types import Expectation, Observation, Snippet, Unchecked
from harness.records.store import DeviceRecord
from harness.text.markdown import cell, code
from harness.text.numbers import scientific
from harness.text.words import word

__all__ = ["ObservedBlock", "environment_line", "render_observed", "render_unchecked"]

def environment_line(record: DeviceRecord, lang: str, *, date: str = "") -> str:
    """torch build, device, threads and date (``date`` overrides the record's own)."""
    env = record.environment
    if env is None:
        return f"torch {cell(record.torch_build)} · {cell(record.device_key)}"
    where = env.device_name or env.cpu_model or record.device_key
    return (
        f"torch {cell(env.torch_build)} · {cell(where)} · {env.threads} "
        f"{word(lang, 'threads_word')}"
        f" · {cell((date or env.date)[:10])}"
    )


@dataclass(frozen=True, kw_only=True)
class ObservedBlock:
    markdown: str
    stale: list[str]
    """One message per stale observation, naming the record file and line."""


def _analytic(expectation: Expectation, lang: str) -> str:
    return code(format_value(expectation.value))


def _observed_cell(
    expectation: Expectation, observation: Observation | None, snippet: Snippet, lang: str
) -> tuple[str, bool | None, bool]:
    """(cell text, holds or None when unknown, stale)."""
    if observation is None:
        return f"*{word(lang, 'missing')}*", None, False
    stale = observation.snippet_sha256 != snippet.sha256
    verdict = compare(expectation, observation)
    value = code(format_value(observation.value, kind=observation.kind))
    dtype = f" ({cell(observation.dtype)})" if observation.dtype else ""
    mark = "✓ " + word(lang, "expect_holds") if verdict.holds else "✗ " + word(lang, "expect_fails")
    if not verdict.holds and verdict.reason:
        mark += f": {cell(verdict.reason)}"
    if verdict.rtol or verdict.atol:
        mark += f" (rtol {scientific(verdict.rtol, lang)}, atol {scientific(verdict.atol, lang)})"
    text = f"{value}{dtype} {mark}"
    if stale:
        text = f"**{word(lang, 'stale')}** · " + text
    return text, verdict.holds, stale


def render_observed(
    *,
    snippet: Snippet,
    expectations: list[Expectation],
    records: list[DeviceRecord],
    lang: str,
) -> ObservedBlock:
    """The analytic-versus-observed block of one example, one column per record."""
    columns = [r for r in records if r.observations]
    header = [word(lang, "value"), word(lang, "analytic")]
    header += [f"{word(lang, 'observed')} · torch {cell(r.torch_build)} · {cell(r.device_key)}"
               for r in columns] or [word(lang, "observed")]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    stale: list[str] = []
    held: dict[str, list[str]] = {"held": [], "failed": []}
    seen_any = False
    for e in expectations:
        row = [code(e.name), _analytic(e, lang)]
        for record in columns:
            found = {(o.snippet, o.name): o for o in record.observations}.get((e.snippet, e.name))
            text, holds, is_stale = _observed_cell(e, found, snippet, lang)
            seen_any = seen_any or found is not None
            label = f"torch {record.torch_build} ({record.device_key})"
            if holds is not None and not is_stale:
                held["held" if holds else "failed"].append(label)
            if is_stale:
                where = record.observation_lines[(e.snippet, e.name)]
                stale.append(
                    f"{where}: observation of {e.snippet!r} ({e.name}) was recorded from other "
                    "code; run `python -m harness record --only examples`"
                )
            row.append(text)
        if not columns:
            row.append(f"*{word(lang, 'missing')}*")
        lines.append("| " + " | ".join(row) + " |")
    derivations = []
    for e in expectations:
        text = e.derivation_en if lang == "en" and e.derivation_en else e.derivation
        derivations.append(f"- {code(e.name)}: {text}{_tolerance_note(e, lang)}")
    failed = sorted(set(held["failed"]))
    if stale:
        kind, title = "warning", word(lang, "title_stale")
    elif failed:
        kind, title = "failure", word(lang, "title_fail")
    elif not seen_any:
        kind, title = "warning", word(lang, "title_none")
    else:
        kind, title = "success", word(lang, "title_ok")
    body = lines + ["", f"**{word(lang, 'derivation')}**", "", *derivations, ""]
    if seen_any:
        fmt = lambda names: ", ".join(cell(n) for n in names) or word(lang, "none")  # noqa: E731
        body.append(f"{word(lang, 'held_in')}: {fmt(sorted(set(held['held'])))}. "
                    f"{word(lang, 'failed_in')}: {fmt(failed)}.")
        body.append("")
        for record in columns:
            dates = [o.date for o in record.observations if o.snippet == snippet.id and o.date]
            body.append(f"- {environment_line(record, lang, date=max(dates, default=''))} · "
                        f"{word(lang, 'snippet')} {code(snippet.id)} "
                        f"{code('sha256:' + snippet.sha256[:12])}")
    else:
        body.append(word(lang, "no_output"))
    if stale:
        body += ["", f"**{word(lang, 'stale_note')}**"]
    indented = "\n".join(f"    {line}" if line else "" for line in body)
    return ObservedBlock(
        markdown=f'!!! {kind} harness-observed "{title}"\n\n{indented}\n', stale=stale
    )


def _tolerance_note(expectation: Expectation, lang: str) -> str:
    """The tolerance the expectation declares, if any (the rest follows the observed dtype,
    and each observed cell shows the tolerance it was compared with)."""
    declared = [f"{name} {scientific(value, lang)}"
                for name, value in (("rtol", expectation.rtol), ("atol", expectation.atol))
                if value is not None]
    return f" ({word(lang, 'tolerance')}: {', '.join(declared)})" if declared else ""


def render_unchecked(entry: Unchecked, lang: str) -> str:
    """The block for a snippet declared to have nothing to derive: the reason, shown."""
    reason = entry.reason_en if lang == "en" and entry.reason_en else entry.reason
    return f'!!! note harness-observed "{word(lang, "unchecked_title")}"\n\n    {cell(reason)}\n'
