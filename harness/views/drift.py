"""The drift report as Markdown, in the page's language (a page of the site, and the
body of the record-regeneration pull request). No torch import."""

from __future__ import annotations

from collections import Counter

from harness.records.drift import Drift
from harness.text.markdown import cell, code
from harness.text.words import word

__all__ = ["drift_markdown"]

#: Verdicts a reviewer must look at come first.
_ORDER = ("changed", "failing", "missing", "other-hardware", "within-tolerance",
          "no-measurable-difference", "identical", "single-build")


def _table(items: list[Drift], lang: str) -> list[str]:
    header = [word(lang, k) for k in ("drift_item", "drift_device", "drift_verdict",
                                      "drift_detail")]
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|"]
    for d in sorted(items, key=lambda d: (_ORDER.index(d.verdict), d.device, d.item)):
        verdict = word(lang, f"drift_{d.verdict}")
        if d.verdict in ("changed", "failing", "missing"):
            verdict = f"**{verdict}**"
        lines.append(f"| {code(d.item)} | {cell(d.device)} | {verdict} | {cell(d.detail) or '—'} |")
    return lines


def drift_markdown(report: list[Drift], lang: str) -> str:
    """A summary line per kind, then one table per kind (examples, trials)."""
    if not report:
        return f"*{word(lang, 'missing')}*\n"
    parts: list[str] = []
    builds = sorted({b for d in report for b in d.builds})
    parts.append(f"{word(lang, 'drift_builds')}: {', '.join(cell(b) for b in builds)}.\n")
    for kind, title in (("example", "drift_examples"), ("trial", "drift_trials")):
        items = [d for d in report if d.kind == kind]
        if not items:
            continue
        counts = Counter(d.verdict for d in items)
        summary = ", ".join(f"{counts[v]} {word(lang, f'drift_{v}')}" for v in _ORDER if counts[v])
        parts += [f"### {word(lang, title)}", "", f"{word(lang, 'drift_summary')}: {summary}.", "",
                  *_table(items, lang), ""]
    return "\n".join(parts) + "\n"
