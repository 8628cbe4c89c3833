"""A log–log line chart as inline SVG, drawn by hand. No torch, no matplotlib.

The chart is data in, text out: the caller localizes every label and decides
what a series is. It is drawn at the article column's width (688 px in Material
at desktop widths), so its 14 px text renders at 14 px instead of being scaled
down; on a phone the figure keeps a minimum width and scrolls (see harness.css).
Each line is labelled at its right end (no legend to match colours against);
labels are nudged apart so that close lines stay readable. Nothing is clipped: the
labels' widths are estimated from per-character advances (:func:`text_width`), the
right margin makes room for the widest, a label wider than 42 % of the chart wraps
at its " · " separators, and the chart grows taller when the stacked labels need it.
The y-axis title sits above the plot, horizontal, so its length never depends on
the plot's height. Colours follow the Okabe–Ito palette; a failing series is drawn
grey and dashed and its label says so. Text uses ``currentColor`` so the chart
follows the light or dark scheme.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

__all__ = ["FONT_PX", "WIDTH", "Point", "Series", "label_lines", "log_ticks", "place_labels",
           "svg_chart", "text_width"]

_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F3C8D")
_GREY = "#9E9E9E"
_DASHES = ("", "6 3", "2 3", "8 3 2 3")
WIDTH, _PLOT_H = 688, 178
FONT_PX = 14
_LEFT, _TOP, _BOTTOM = 64, 30, 50
_LABEL_GAP = 17.0
_LINE = 15.0
"""Baseline to baseline inside a wrapped label."""
_LABEL_BUDGET = WIDTH * 0.42
"""Widest label line before it wraps; a longer unbreakable part widens the margin."""
#: Advances in em of a sans-serif face (Arial/Liberation metrics), by character class;
#: text_width adds 15 % for wider faces (DejaVu Sans, Verdana) a reader may have.
_ADVANCE = (("abcdefghijklmnopqrstuvwxyzáéíóúñü", 0.5), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 0.68),
            ("0123456789", 0.556), (" .,:;·/|!'", 0.28), ("()[]-", 0.34),
            ("+×=<>~", 0.584), ("%", 0.89), ("mw", 0.84), ("fijlrt", 0.3))


@dataclass(frozen=True, kw_only=True)
class Point:
    x: float
    y: float
    hollow: bool = False
    """Drawn without fill: the row fails its quality tolerance."""
    note: str = ""
    """Tooltip text for the marker."""


@dataclass(frozen=True, kw_only=True)
class Series:
    label: str
    points: list[Point] = field(default_factory=list)
    dash: int = 0
    """Index into the dash patterns (one per torch build)."""
    colour: int = -1
    """Index into the palette (one per kind of curve); -1: by position."""
    failing: bool = False
    """Every point fails its quality tolerance: grey, dashed, labelled by the caller."""


def text_width(text: str, *, font_px: float = FONT_PX) -> float:
    """An upper estimate of ``text``'s rendered width in px: no font metrics are at hand
    when the page is built, so it errs wide (a few px of margin, never a clipped label)."""
    def advance(char: str) -> float:
        widths = [em for chars, em in _ADVANCE if char in chars]
        return widths[-1] if widths else 0.62  # the last class is the most specific
    return sum(advance(c) for c in text) * font_px * 1.15


def label_lines(label: str, *, budget: float = _LABEL_BUDGET) -> list[str]:
    """``label`` split at " · " into lines no wider than ``budget`` where it can be."""
    lines: list[str] = []
    for part in label.split(" · "):
        if lines and text_width(f"{lines[-1]} · {part}") <= budget:
            lines[-1] = f"{lines[-1]} · {part}"
        else:
            lines.append(part if not lines else f"· {part}")
    return lines


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks inside [low, high]; whole decades only when the range is wide."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    choices = ((1.0,), (1.0, 2.0, 5.0), tuple(float(m) for m in range(1, 10)))
    for steps in choices[0 if last - first > 3 else 1 :]:
        ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
        inside = [t for t in ticks if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
        if len(inside) >= 2:
            return inside
    return [low, high]


def _span(values: list[float], *, nice: bool = False) -> tuple[float, float]:
    low, high = min(values), max(values)
    if low == high:
        low, high = low / 2, high * 2
    pad = (math.log10(high) - math.log10(low)) * 0.06
    low, high = 10 ** (math.log10(low) - pad), 10 ** (math.log10(high) + pad)
    if nice:  # widen to whole mantissas so that a narrow range still gets two ticks
        low_e, high_e = 10.0 ** math.floor(math.log10(low)), 10.0 ** math.floor(math.log10(high))
        low, high = math.floor(low / low_e) * low_e, math.ceil(high / high_e) * high_e
    return low, high


def place_labels(wanted: list[float], *, top: float, bottom: float,
                 gap: float = _LABEL_GAP, lines: list[int] | None = None) -> list[float]:
    """First-line baselines as close to ``wanted`` as possible, at least ``gap`` apart,
    a label of ``lines[i]`` lines taking ``_LINE`` more per extra line; between ``top``
    and ``bottom`` (the last line's baseline) whenever the stack fits there."""
    extra = [(n - 1) * _LINE for n in (lines or [1] * len(wanted))]
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [0.0] * len(wanted)
    last = top - gap
    for i in order:
        placed[i] = max(wanted[i], last + gap)
        last = placed[i] + extra[i]
    limit = bottom
    for i in reversed(order):  # then back up from the bottom where the stack overflows
        placed[i] = min(placed[i], limit - extra[i])
        limit = placed[i] - gap
    return placed


def _stack_height(lines: list[int]) -> float:
    """What the labels need stacked: a gap per label, a line per extra line."""
    return sum(_LABEL_GAP + (n - 1) * _LINE for n in lines)


def svg_chart(series: list[Series], *, title: str, x_label: str, y_label: str,
              x_ticks: list[float] | None = None,
              x_format: Callable[[float], str] = lambda v: f"{v:g}",
              y_format: Callable[[float], str] = lambda v: f"{v:g}",
              element_id: str, description: str = "") -> str:
    """One ``<svg>`` element with no blank line (safe inside Markdown)."""
    points = [p for s in series for p in s.points]
    x_low, x_high = _span([p.x for p in points])
    y_low, y_high = _span([p.y for p in points], nice=True)
    wrapped = [label_lines(f"■ {s.label}") for s in series]
    widest = max((text_width(line) for lines in wrapped for line in lines), default=0.0)
    right = 8 + math.ceil(widest) + 4  # the gap to the plot, the label, a margin
    counts = [len(lines) for lines in wrapped]
    plot_w = WIDTH - _LEFT - right
    plot_h = max(_PLOT_H, math.ceil(_stack_height(counts)))
    height = _TOP + plot_h + _BOTTOM

    def sx(x: float) -> float:
        return _LEFT + plot_w * (math.log10(x / x_low)) / math.log10(x_high / x_low)

    def sy(y: float) -> float:
        return _TOP + plot_h * (1 - math.log10(y / y_low) / math.log10(y_high / y_low))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" aria-label="{escape(title)}" '
        f'aria-describedby="{element_id}-desc" id="{element_id}" font-size="{FONT_PX}" '
        'font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<desc id="{element_id}-desc">{escape(description or title)}</desc>',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="currentColor" stroke-opacity="0.5"/>',
    ]
    for tick in x_ticks or log_ticks(x_low, x_high):
        if x_low <= tick <= x_high:
            x = sx(tick)
            out.append(f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_TOP + plot_h}" '
                       'stroke="currentColor" stroke-opacity="0.12"/>')
            out.append(f'<text x="{x:.1f}" y="{_TOP + plot_h + 18}" text-anchor="middle" '
                       f'fill="currentColor">{escape(x_format(tick))}</text>')
    for tick in log_ticks(y_low, y_high):
        y = sy(tick)
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_LEFT + plot_w}" y2="{y:.1f}" '
                   'stroke="currentColor" stroke-opacity="0.12"/>')
        out.append(f'<text x="{_LEFT - 6}" y="{y + 5:.1f}" text-anchor="end" '
                   f'fill="currentColor">{escape(y_format(tick))}</text>')
    out.append(f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_TOP + plot_h + 40}" '
               f'text-anchor="middle" fill="currentColor">{escape(x_label)}</text>')
    out.append(f'<text x="0" y="{_TOP - 12}" fill="currentColor">{escape(y_label)}</text>')
    ends: list[float] = []
    for index, one in enumerate(series):
        hue = index if one.colour < 0 else one.colour
        colour = _GREY if one.failing else _PALETTE[hue % len(_PALETTE)]
        dash = "4 3" if one.failing else _DASHES[one.dash % len(_DASHES)]
        ordered = sorted(one.points, key=lambda p: p.x)
        path = " ".join(f"{sx(p.x):.1f},{sy(p.y):.1f}" for p in ordered)
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        width = 1.5 if one.failing else 2.5
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                   f'stroke-width="{width}"{dashing}/>')
        for p in ordered:
            fill = "none" if p.hollow else colour
            out.append(f'<circle cx="{sx(p.x):.1f}" cy="{sy(p.y):.1f}" r="4" fill="{fill}" '
                       f'stroke="{colour}" stroke-width="2"><title>{escape(p.note)}</title>'
                       "</circle>")
        ends.append(sy(ordered[-1].y) + 5)
    x = _LEFT + plot_w + 8
    for index, (one, lines, y) in enumerate(zip(series, wrapped, place_labels(
            ends, top=_TOP + 10, bottom=_TOP + plot_h + 10, lines=counts), strict=True)):
        hue = index if one.colour < 0 else one.colour
        colour = _GREY if one.failing else _PALETTE[hue % len(_PALETTE)]
        first, *rest = lines
        more = "".join(f'<tspan x="{x}" dy="{_LINE:g}">{escape(line)}</tspan>' for line in rest)
        out.append(f'<text class="harness-line-label" x="{x}" y="{y:.1f}" '
                   f'fill="currentColor"><tspan fill="{colour}">■</tspan>'
                   f"{escape(first.removeprefix('■'))}{more}</text>")
    out.append("</svg>")
    return "".join(out)
