"""The drift report as Markdown, in the page's language (a page of the site, and the
body of the record-regeneration pull request). No torch import.

Before the tables, each device key says how its builds were recorded (one session
or several, wheel variants, the noise floor or «sin control: ruido desconocido») and
how many blocks a verdict on timings needs, so a reader knows whether a «cambió»
compares torch or also machines.
"""

from __future__ import annotations

from collections import Counter

from harness.records.drift import Drift, Setup
from harness.records.drift_stats import MIN_BLOCKS
from harness.text.drift_words import percent_band, verdict_count
from harness.text.markdown import cell, code
from harness.text.words import word

__all__ = ["drift_markdown"]

#: Verdicts a reviewer must look at come first.
_ORDER = ("changed", "failing", "missing", "other-hardware", "inconclusive", "within-tolerance",
          "no-measurable-difference", "identical", "single-build")


def _table(items: list[Drift], lang: str) -> list[str]:
    header = [word(lang, k) for k in ("drift_item", "drift_device", "drift_verdict",
                                      "drift_detail")]
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|"]
    for d in sorted(items, key=lambda d: (_ORDER.index(d.verdict), d.device, d.item)):
        verdict = word(lang, f"drift_{d.verdict}")
        if d.verdict in ("changed", "failing", "missing"):
            verdict = f"**{verdict}**"
        detail = cell(d.detail_in(lang)) or "—"
        lines.append(f"| {code(d.item)} | {cell(d.device)} | {verdict} | {detail} |")
    return lines


def _setup_lines(setup: Setup, lang: str) -> list[str]:
    builds = ", ".join(setup.builds)
    notes = [word(lang, "drift_one_session" if setup.one_session else "drift_sessions")
             .format(builds=builds)]
    if setup.variants:
        notes.append(word(lang, "drift_variants").format(variants=" / ".join(setup.variants)))
    if setup.floor is not None:
        notes.append(word(lang, "drift_floor").format(floor=percent_band(setup.floor, lang),
                                                      controls=", ".join(setup.controls)))
    else:
        notes.append(word(lang, "drift_no_floor"))
    return [f"- {cell(setup.device)}: " + "; ".join(cell(n) for n in notes) + "."]


def _setups(report: list[Drift], lang: str) -> list[str]:
    seen: dict[str, Setup] = {}
    for d in report:
        if d.setup is not None and len(d.setup.builds) > 1:
            seen.setdefault(d.device, d.setup)
    if not seen:
        return []
    lines = [f"**{word(lang, 'drift_setup')}**", ""]
    for setup in seen.values():
        lines += _setup_lines(setup, lang)
    lines.append(f"- {cell(word(lang, 'drift_min_blocks').format(n=MIN_BLOCKS))}.")
    return [*lines, ""]


def drift_markdown(report: list[Drift], lang: str) -> str:
    """The builds, how they were recorded, then per kind a summary and a table."""
    if not report:
        return f"*{word(lang, 'missing')}*\n"
    parts: list[str] = []
    builds = sorted({b for d in report for b in d.builds})
    parts.append(f"{word(lang, 'drift_builds')}: {', '.join(cell(b) for b in builds)}.\n")
    parts += _setups(report, lang)
    for kind, title in (("example", "drift_examples"), ("trial", "drift_trials")):
        items = [d for d in report if d.kind == kind]
        if not items:
            continue
        counts: Counter[str] = Counter(d.verdict for d in items)
        summary = ", ".join(verdict_count(v, counts[v], lang) for v in _ORDER if counts[v])
        parts += [f"### {word(lang, title)}", "", f"{word(lang, 'drift_summary')}: {summary}.", "",
                  *_table(items, lang), ""]
    return "\n".join(parts) + "\n"
