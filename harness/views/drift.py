"""The drift report as Markdown, in the page's language (a page of the site, and what
``python -m harness drift`` prints for a reviewer). No torch import.

First how each device key's builds were recorded (does a «cambió» compare torch or
also machines?); then per kind and device key the items to read, changes and larger
effects first, identical and single-build items as counts, and for timings a chart of
the intervals and one worked example.
"""

from __future__ import annotations

import html
import math
import re
import statistics
from collections import Counter
from collections.abc import Mapping
from statistics import NormalDist

from harness.core.types import DEVICE_TYPES, TrialSpec
from harness.records.drift import Drift, Setup
from harness.records.drift_stats import (
    ALPHA,
    MIN_CONTROLS,
    Interval,
    moses_rank,
    ratio_interval,
    runs_alpha,
    runs_needed,
)
from harness.records.store import version_key
from harness.sources.trials import Method, load_method
from harness.text.markdown import cell, code, html_text
from harness.text.numbers import (
    band,
    compact,
    decimal,
    interval_texts,
    latency_scale,
    localized,
    ratio_texts,
    speed_text,
    unbroken,
)
from harness.text.words import catalogue, listed, word
from harness.views.charts import IntervalRow, interval_chart
from harness.views.html_table import Cell, Row, breakable, html_table
from harness.views.measured import identities

__all__ = ["detail", "drift_markdown", "trial_labels"]

#: Verdicts a reviewer must look at come first.
_ORDER = ("changed", "failing", "missing", "other-hardware", "inconclusive", "within-tolerance",
          "no-measurable-difference", "identical", "single-build")
#: Verdicts counted in a sentence instead of listed row by row.
_COLLAPSED = ("identical", "single-build")
_STRONG = ("changed", "failing", "missing")


def trial_labels(specs: Mapping[str, TrialSpec], lang: str) -> dict[str, str]:
    """Trial name → the label Medir's table gives it (what tells the trials of its group
    apart), after the group's name: ``matmul · float64 · 512×512``. Plain text."""
    groups: dict[str, list[TrialSpec]] = {}
    for spec in specs.values():
        groups.setdefault(spec.group, []).append(spec)
    labels: dict[str, str] = {}
    for group, members in groups.items():
        name = catalogue(lang).get(f"drift_group_{group}", group)
        for trial, shown in identities(members, {}, lang)[0].items():
            plain = html.unescape(shown)  # identities' labels are escaped text, no tags
            labels[trial] = plain if plain.startswith(group) else f"{name} · {plain}"
    return labels


def _form(count: int) -> str:
    return "one" if count == 1 else "many"


def _timing_detail(d: Drift, interval: Interval, lang: str) -> str:
    ratio = (interval.ratio, interval.low, interval.high)
    (point, low, high), shown_floor = interval_texts(ratio, d.floor, lang)
    head = word(lang, "drift_detail_head", other=d.other, point=point, base=d.builds[0],
                time=word(lang, f"drift_clock_{d.clock}"))
    key = {"changed": "drift_detail_changed",
           "no-measurable-difference": "drift_detail_equivalent"}.get(
        d.verdict, "drift_detail_inconclusive")
    return word(lang, key, head=head, speed=speed_text(interval.ratio, lang),
                interval=word(lang, "drift_detail_interval", low=low, high=high),
                noise="–".join(shown_floor) if shown_floor else word(lang, "drift_no_control"),
                within=word(lang, "percent", n=f"±{compact(d.margin * 100, lang)}"))


def detail(d: Drift, lang: str) -> str:
    """One drift item's detail in ``lang``, plain text (escape it for a page); empty when
    the verdict says it all. Every word is in the catalogues (``drift_*`` keys)."""
    verdict, kind = d.verdict, d.kind
    if verdict == "failing" and kind == "trial" and not d.named:
        return word(lang, "drift_detail_no_samples")
    if verdict in ("missing", "failing"):
        return word(lang, f"drift_detail_{verdict}_{kind}", names=listed(d.named, lang))
    if verdict == "single-build":
        return word(lang, "drift_detail_single", build=d.builds[0], device=d.device)
    if verdict == "other-hardware":
        return word(lang, "drift_detail_hardware", names=" / ".join(d.named))
    if verdict == "within-tolerance":
        return word(lang, "drift_detail_within")
    if verdict == "changed" and kind == "example":
        return "; ".join(d.named)
    if d.interval is None and verdict == "inconclusive":
        counts = listed([f"{n} ({b})" for n, b in zip(d.runs, d.builds, strict=True)], lang)
        noise = (ratio_texts([d.floor], lang)[0] if d.floor is not None
                 else word(lang, "drift_no_control"))
        return word(lang, "drift_detail_runs", counts=counts, needed=d.needed, noise=noise)
    return "" if d.interval is None else _timing_detail(d, d.interval, lang)


def _percent(fraction: float, lang: str) -> str:
    """``95 %``, ``97,5 %``: a confidence level without trailing zeros."""
    return word(lang, "percent", n=compact(fraction * 100, lang))


def _effect(d: Drift) -> float:
    """How far the ratio of medians lies from 1, on the chart's logarithmic scale."""
    return abs(math.log(d.interval.ratio)) if d.interval and d.interval.ratio > 0 else 0.0


def _item_html(d: Drift, labels: Mapping[str, str]) -> str:
    if d.kind == "trial" and d.item in labels:  # each part keeps together, as in Medir
        return " · ".join(f'<span class="harness-part">{html_text(p)}</span>'
                          for p in labels[d.item].split(" · "))
    return breakable(code(d.item))


def _unbroken_ranges(escaped: str) -> str:
    """``0,85–0,94`` kept on one line: a phone breaks after an en dash otherwise."""
    return re.sub(r"\d[\d.,]*–\d[\d.,]*",
                  lambda m: f'<span class="harness-range">{m[0]}</span>', escaped)


def _table(items: list[Drift], labels: Mapping[str, str], lang: str, name: str) -> str:
    first = "trial" if items[0].kind == "trial" else "drift_example"
    header = [(word(lang, k), False) for k in (first, "drift_verdict", "drift_detail")]
    rows = []
    for d in items:
        verdict = word(lang, f"drift_{d.verdict}")
        if d.verdict in _STRONG:
            verdict = f"<strong>{verdict}</strong>"
        rows.append(Row(cells=[
            Cell(html=_item_html(d, labels), css="harness-id"),
            Cell(html=verdict, css="harness-verdict"),
            Cell(html=_unbroken_ranges(html_text(detail(d, lang))) or "—",
                 css="harness-detail")]))
    return html_table(header, rows, css="harness-table harness-compact harness-drift",
                      label=html_text(name))


def _chart(items: list[Drift], labels: Mapping[str, str], lang: str, device: str) -> str:
    compared = [d for d in items if d.interval is not None]
    if not compared:
        return ""
    base = compared[0].builds[0]
    floor = 1.0 + compared[0].margin if compared[0].margin else None
    rows = []
    for d in compared:
        assert d.interval is not None
        (point, low, high), _ = interval_texts(
            (d.interval.ratio, d.interval.low, d.interval.high), d.floor, lang)
        label = labels.get(d.item, d.item)
        note = f"{label}: {point}× ({low}–{high}), {word(lang, f'drift_{d.verdict}')}"
        rows.append(IntervalRow(label=label, ratio=d.interval.ratio, low=d.interval.low,
                                high=d.interval.high, verdict=d.verdict, note=note,
                                band=band(d.floor) if d.floor is not None else None))
    confidence = _percent(float(1 - ALPHA), lang)
    caption = word(lang, "drift_chart_caption").format(base=base, confidence=confidence)
    if floor is not None:
        low, high = ratio_texts(band(floor), lang)
        caption += word(lang, "drift_chart_band").format(low=low, high=high)
    name = f"harness-drift-{re.sub(r'[^a-z0-9]+', '-', device.lower())}"
    return interval_chart(
        rows, title=word(lang, "drift_chart_title").format(base=base, device=device),
        description="; ".join(r.note for r in rows), axis=word(lang, "drift_chart_axis"),
        faster=word(lang, "drift_faster"), slower=word(lang, "drift_slower"), caption=caption,
        lang=lang, element_id=name)


def _worked(d: Drift, labels: Mapping[str, str], lang: str) -> str:
    """The first compared row, read step by step: run summaries, ratios, interval, verdict."""
    base, other = d.samples
    alpha = ALPHA / max(len(d.builds) - 1, 1)
    # The runs' half of the error (drift_stats): the interval before the window widens it.
    half = runs_alpha(len(d.builds) - 1)
    k, runs = moses_rank(len(base), len(other), half), ratio_interval(base, other, half)
    if d.interval is None or k is None or runs is None or d.setup is None:
        return ""
    factor, unit = latency_scale(statistics.median(base))
    (point, low, high), noise = interval_texts(
        (d.interval.ratio, d.interval.low, d.interval.high), d.floor, lang)
    (_, runs_low, runs_high), _ = interval_texts((runs.ratio, runs.low, runs.high), None, lang)

    def times(values: tuple[float, ...]) -> str:
        shown = [decimal(v / factor, lang, digits=3) for v in sorted(values)]
        return unbroken(f"{listed(shown, lang)} {unit}")

    # The figures ``drift_worked_steps`` names (``k``: the rank, from each end, of the run
    # interval's ends among the ``pairs`` = n1·n2 sorted ratios), escaped for the page.
    figures = dict(
        label=cell(labels.get(d.item, d.item)), base=cell(d.builds[0]), other=cell(d.other),
        n1=len(base), n2=len(other), runs1=times(base), runs2=times(other),
        pairs=len(base) * len(other), k=k, point=point, low=low, high=high,
        runs_low=runs_low, runs_high=runs_high,
        window=word(lang, "percent", n=decimal((d.setup.window or 0) * 100, lang, digits=2)),
        confidence=_percent(float(1 - alpha), lang), verdict=d.verdict,
        margin=_percent(d.margin, lang), noise="–".join(noise) or word(lang, "drift_no_control"),
        speed=speed_text(d.interval.ratio, lang))
    last = 0 if 10 <= k % 100 <= 20 else k % 10  # 1st, 2nd, 3rd, 11th, 21st
    kth = word(lang, f"ordinal_{last if last in (1, 2, 3) else 'n'}", k=k)
    steps = word(lang, "drift_worked_steps", **figures, kth=kth)
    verdict = word(lang, f"drift_worked_{d.verdict}", **figures)
    return f"**{word(lang, 'drift_worked')}.** {steps}{verdict}"


def _device(items: list[Drift], labels: Mapping[str, str], lang: str, *, chart: bool,
            method: Method) -> list[str]:
    """One device key's items of one kind: who is compared, the counts, the rest."""
    kind, device, builds = items[0].kind, items[0].device, items[0].builds
    device_type = device.split("-", 1)[0]
    head = (f"**{word(lang, device_type)}** ({cell(device)})" if device_type in DEVICE_TYPES
            else f"**{cell(device)}**")
    shown = sorted((d for d in items if d.verdict not in _COLLAPSED), key=lambda d: (
        _ORDER.index(d.verdict), -_effect(d), labels.get(d.item, d.item)))
    sentences = []
    if shown and len(builds) > 1:
        sentences.append(word(lang, "drift_against").format(
            base=cell(builds[0]), others=listed([cell(b) for b in builds[1:]], lang)))
    counts: Counter[str] = Counter(d.verdict for d in shown)
    if counts:
        summary = ", ".join(f"{counts[v]} {word(lang, f'drift_{_form(counts[v])}_{v}')}"
                            for v in _ORDER if counts[v])
        sentences.append(f"{word(lang, 'drift_summary')}: {summary}")
    collapsed: Counter[str] = Counter(d.verdict for d in items if d.verdict in _COLLAPSED)
    # The rows a reviewer need not read one by one, as one count: «73 ejemplos idénticos
    # en todas las versiones (2.6.0, 2.10.0 y 2.13.0)».
    sentences += [cell(word(lang, f"drift_collapsed_{kind}_{v}_{_form(collapsed[v])}",
                            count=collapsed[v], where=listed(builds, lang)))
                  for v in _COLLAPSED if collapsed[v]]
    parts = [f"{head}: " + ". ".join(s[0].upper() + s[1:] for s in sentences) + ".", ""]
    if not shown:
        return parts
    name = f"{word(lang, 'drift_trials' if kind == 'trial' else 'drift_examples')} · {device}"
    figure = _chart(shown, labels, lang, device) if chart else ""
    parts += [figure, ""] if figure else []
    parts += [_table(shown, labels, lang, name), ""]
    example = next((d for d in shown if d.interval is not None and len(d.samples) == 2), None)
    worked = _worked(example, labels, lang) if example is not None else ""
    return parts + ([worked, ""] if worked else []) + (
        _instructions(items, labels, lang, method) if kind == "trial" else [])


def _instructions(items: list[Drift], labels: Mapping[str, str], lang: str,
                  method: Method) -> list[str]:
    """Callgrind's instructions per call beside time, for the method's trials: each build
    as a ratio to the reference, the control's spread; «sin medición» where not counted."""
    counted = [d for d in items if d.item in method.instructions and d.instructions]
    # Where valgrind was missing or the count not asked for, each cell reads «sin medición».
    if not counted:
        return []
    builds = counted[0].builds
    missing = f"<em>{word(lang, 'missing')}</em>"
    header = [(word(lang, "trial"), False), *((cell(b), True) for b in builds),
              (word(lang, "drift_instructions_control"), True)]
    rows, spreads = [], []
    for d in counted:
        base, control = d.instructions[0], d.instructions_control
        if control and base:
            spreads.append(abs(control / base - 1))
        # One precision for builds and control: the control's spread is what reads them.
        rows.append(Row(cells=[
            Cell(html=_item_html(d, labels), css="harness-id"),
            Cell(html=localized(f"{round(base):,}", lang) if base else missing, numeric=True),
            *(Cell(html=f"{decimal(count / base, lang, digits=6)}×" if count and base
                   else missing, numeric=True) for count in (*d.instructions[1:], control))]))
    spread = _percent(max(spreads), lang) if spreads else word(lang, "missing")
    name = word(lang, "drift_instructions")
    return [f"**{name}.** " + word(lang, "drift_instructions_note").format(spread=spread), "",
            html_table(header, rows, css="harness-table harness-compact", label=name), ""]


def _setups(report: list[Drift], lang: str, method: Method) -> list[str]:
    seen: dict[str, Setup] = {}
    for d in report:
        if d.setup is not None and len(d.setup.builds) > 1:
            seen.setdefault(d.device, d.setup)
    if not seen:
        return []
    lines = [f"**{word(lang, 'drift_setup')}**", ""]
    for setup in seen.values():
        notes = [word(lang, "drift_one_session" if setup.one_session else "drift_sessions")
                 .format(builds=", ".join(setup.builds))]
        if setup.variants:
            notes.append(word(lang, "drift_variants").format(variants=" / ".join(setup.variants)))
        notes.append(word(lang, "drift_floor").format(controls=", ".join(setup.controls))
                     if setup.controls else word(lang, "drift_no_floor"))
        if setup.controls and setup.window is None:
            notes.append(word(lang, "drift_no_window").format(needed=MIN_CONTROLS))
        elif setup.window is not None:
            notes.append(word(lang, "drift_window").format(
                window=word(lang, "percent", n=decimal(setup.window * 100, lang, digits=2)),
                shifts=setup.shifts))
            # The equivalence interval is widened by z·w at least: past the margin, never.
            if NormalDist().inv_cdf(1 - float(ALPHA) / 2) * setup.window >= math.log1p(
                    method.margin):
                notes.append(word(lang, "drift_window_wide").format(
                    margin=_percent(method.margin, lang)))
        lines.append(f"- {cell(setup.device)}: " + "; ".join(cell(n) for n in notes) + ".")
    builds = max(len(s.builds) for s in seen.values())
    reason = {"es": method.margin_reason, "en": method.margin_reason_en}[lang]
    lines += ["", word(lang, "drift_method").format(
        runs=method.runs, blocks=method.blocks, margin=_percent(method.margin, lang),
        reason=html_text(reason.rstrip(".")), builds=builds, needed=runs_needed(builds - 1))]
    return [*lines, ""]


def _reading(trials: list[Drift], lang: str) -> list[str]:
    """How to read a ratio: which build is the reference, what below 1 means."""
    compared = {d.device: d for d in trials if d.interval is not None}
    if not compared:
        return []
    references = "; ".join(f"{cell(k)}: {cell(d.builds[0])}" for k, d in compared.items())
    return [word(lang, "drift_reading").format(
        references=references, confidence=_percent(float(1 - ALPHA), lang)), ""]


def drift_markdown(report: list[Drift], lang: str, *,
                   specs: Mapping[str, TrialSpec] | None = None, chart: bool = False,
                   method: Method | None = None) -> str:
    """The builds, how they were recorded, then per kind and device the counts, the
    items to read and, with ``chart``, the ratios drawn (a page, not a pull request:
    GitHub drops inline SVG). ``specs`` name trials as Medir does; without them, by id."""
    if not report:
        return f"*{word(lang, 'missing')}*\n"
    labels = trial_labels(specs, lang) if specs else {}
    builds = sorted({b for d in report for b in d.builds}, key=version_key)
    parts = [f"{word(lang, 'drift_builds')}: {', '.join(cell(b) for b in builds)}.\n"]
    method = method or load_method()
    parts += _setups(report, lang, method)
    for kind, title in (("example", "drift_examples"), ("trial", "drift_trials")):
        items = [d for d in report if d.kind == kind]
        if not items:
            continue
        parts += [f"### {word(lang, title)}", ""]
        parts += _reading(items, lang) if kind == "trial" else []
        for device in dict.fromkeys(d.device for d in items):
            parts += _device([d for d in items if d.device == device], labels, lang,
                             chart=chart, method=method)
    return "\n".join(parts) + "\n"
