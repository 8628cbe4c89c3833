"""The analytic expectations of a group's trials, checked against each record, and the
bare-loop comparison a record's environment may carry. No torch import.

An expectation (``[trial.expect]``) relates two trials of one record set; its verdict is
computed here from the rows as they are now, never stored. A verdict that does not hold
(and is not a declared known failure) is reported like a stale row, so the strict build
fails naming the record line and the declaration. Every record text is escaped.
"""

from __future__ import annotations

import math
from typing import Any

from harness.core.types import TrialExpectation, TrialSpec
from harness.records.store import DeviceRecord
from harness.text.markdown import html_text
from harness.text.numbers import compact, decimal, latency_text, unbroken
from harness.text.words import in_lang, word
from harness.views.measured_context import Context

__all__ = ["bare_loop_lines", "expectation_block", "expectation_claim"]


def expectation_claim(spec: TrialSpec, expect: TrialExpectation, lang: str) -> str:
    """The claim in words, e.g. «la latencia de a es menor que 0,5 × la de b» (escaped)."""
    factor = (compact(expect.factor, lang) if expect.relation == "below"
              else f"{compact(expect.factor * 100, lang)} %")
    return word(lang, f"expect_{expect.relation}").format(
        a=f"<code>{html_text(spec.name)}</code>", b=f"<code>{html_text(expect.of)}</code>",
        factor=unbroken(factor))


def _verdict(context: Context, spec: TrialSpec, expect: TrialExpectation,
             record: DeviceRecord) -> str:
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
    """One item per expectation of ``specs``: the claim, its verdict per record (or «sin
    medición» without one) and the derivation one click away; empty without any."""
    lang = context.lang
    items = []
    for spec in specs:
        expect = spec.expect
        if expect is None:
            continue
        verdicts = ([_verdict(context, spec, expect, r) for r in records]
                    or [f"<em>{word(lang, 'missing')}</em>"])
        derivation = in_lang(lang, {"es": expect.derivation, "en": expect.derivation_en})
        items.append(f"<li>{expectation_claim(spec, expect, lang)}: {'; '.join(verdicts)}"
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
            trial=f"<code>{html_text(str(loop['trial']))}</code>",
            harness=unbroken(latency_text(harness, lang)), bare=unbroken(latency_text(bare, lang)),
            clock=clock, calls=html_text(str(loop.get("calls", "?"))),
            blocks=html_text(str(loop.get("blocks", "?"))),
            ratio=unbroken(decimal(harness / bare, lang)))
        lines.append(f'<p class="harness-bare-loop">torch {html_text(record.torch_build)} · '
                     f"{text}</p>")
    return "".join(lines)
