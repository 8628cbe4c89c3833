"""The drift report's dot-and-interval chart as inline SVG, drawn by hand. No torch.

One row per compared trial, in the report's order: its label, a dot at the ratio of
medians and a bar over the ratio's interval, on a logarithmic axis, where a ratio of
2 and one of ½ lie equally far from 1. A vertical line marks 1, the same time; a
grey band, the noise band of a same-build control. The axis (its title, which side
is faster, the ticks) heads the chart, where a reader starts.

The chart is drawn at a given width and never scaled up, so its 14 px text reads at
14 px: the article column's width on a desktop (:data:`harness.views.svg.WIDTH`),
labels to the left of the bars; and a phone column's (:data:`PHONE_WIDTH`), each
label on its own line above its bar, so that the bars keep the whole width. Every
text box is placed inside the SVG's box from the widths
:func:`harness.views.svg.text_width` estimates (they err wide). The caller
localizes every word; text and lines use ``currentColor``, so the chart follows the
light or dark scheme.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from harness.views.svg import FONT_PX, label_lines, text_width

__all__ = ["PHONE_WIDTH", "ChartText", "Dot", "drift_chart", "ratio_ticks"]

PHONE_WIDTH = 358
"""The article column at a 390 px phone (Material's 0.8 rem margins)."""
_LINE = 15.0
_GAP = 10.0
_EDGE = 8.0
"""Room at each end of the axis for a dot's radius and an interval's cap."""
_REFERENCE = 'stroke-opacity="0.85" stroke-width="1.5"'
_GRID = 'stroke-opacity="0.2"'
#: Tick candidates per level, as mantissas of a decade: the coarsest level that puts
#: three ticks in the range wins.
_LEVELS = ((1.0,), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
           tuple(m / 10 for m in range(10, 100, 1)))


@dataclass(frozen=True, kw_only=True)
class Dot:
    label: str
    """Plain text (escaped here)."""
    ratio: float
    low: float
    high: float
    changed: bool
    """Filled when the verdict is «cambió», hollow otherwise."""
    note: str = ""
    """Plain text for the row's tooltip."""


@dataclass(frozen=True, kw_only=True)
class ChartText:
    """Every word of the chart, in the page's language (plain text)."""

    title: str
    description: str
    axis: str
    faster: str
    slower: str
    tick: Callable[[float], str]


def ratio_ticks(low: float, high: float) -> list[float]:
    """At least three ticks in [low, high], from the coarsest level of :data:`_LEVELS`
    that has them."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for steps in _LEVELS:
        ticks = sorted({round(m * 10.0**e, 6) for e in range(first, last + 1) for m in steps})
        inside = [t for t in ticks if low <= t <= high]
        if len(inside) >= 3:
            return inside
    return [low, high]


def _span(dots: list[Dot], band: tuple[float, float] | None) -> tuple[float, float]:
    values = [v for d in dots for v in (d.low, d.high, d.ratio)] + [1.0, *(band or ())]
    low, high = math.log10(min(values)), math.log10(max(values))
    pad = max(high - low, 0.02) * 0.06
    return 10 ** (low - pad), 10 ** (high + pad)


def _text(x: float, y: float, content: str, *, anchor: str = "start") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="currentColor">'
            f"{escape(content)}</text>")


def _inside(centre: float, width: float, chart_w: int) -> float:
    """The centre of a text box of ``width`` moved so that the box lies in the chart."""
    return min(max(centre, width / 2 + 1), chart_w - width / 2 - 1)


def _ticks(low: float, high: float, sx: Callable[[float], float], text: ChartText,
           chart_w: int) -> list[tuple[float, float, str]]:
    """(tick, label centre, label) for the ticks whose labels do not overlap, 1 first."""
    chosen: list[tuple[float, float, str]] = []
    for tick in sorted(ratio_ticks(low, high), key=lambda t: abs(math.log(t))):
        shown = text.tick(tick)
        width = text_width(shown)
        centre = _inside(sx(tick), width, chart_w)
        if all(abs(centre - c) >= (width + text_width(s)) / 2 + 6 for _, c, s in chosen):
            chosen.append((tick, centre, shown))
    return sorted(chosen)


def _layout(dots: list[Dot], width: int) -> tuple[list[list[str]], float, bool]:
    """Each label's lines, the plot's left edge, and whether labels sit above the bars:
    to the left when the widest label takes at most 45 % of the chart, else above."""
    widest = max((text_width(d.label) for d in dots), default=0.0)
    if widest <= width * 0.45:
        return [[d.label] for d in dots], math.ceil(widest) + _GAP, False
    return [label_lines(d.label, budget=width - 2) for d in dots], _EDGE, True


def drift_chart(dots: list[Dot], *, band: tuple[float, float] | None, text: ChartText,
                element_id: str, width: int = PHONE_WIDTH) -> str:
    """One ``<svg>`` element ``width`` px wide, with no blank line (safe in Markdown)."""
    wrapped, left, above = _layout(dots, width)
    right = width - _EDGE
    low, high = _span(dots, band)

    def sx(x: float) -> float:
        return left + (right - left) * math.log10(x / low) / math.log10(high / low)

    # The head: the axis title, which side is faster, the tick labels.
    faster, slower = text_width(text.faster), text_width(text.slower)
    axis_w = text_width(text.axis)
    head = [_text(_inside(left + axis_w / 2, axis_w, width), 16, text.axis, anchor="middle")]
    hints_y = 16 + _LINE + 4
    head.append(_text(left, hints_y, text.faster))
    if left + faster + 8 > width - slower:  # they would overlap: one line each
        hints_y += _LINE
    head.append(_text(width - 1, hints_y, text.slower, anchor="end"))
    ticks_y = hints_y + _LINE + 4
    marks = _ticks(low, high, sx, text, width)
    head += [_text(centre, ticks_y, shown, anchor="middle") for _, centre, shown in marks]
    top = ticks_y + 8
    heights = [(_LINE * len(lines) + 22) if above else max(22.0, _LINE * len(lines) + 7)
               for lines in wrapped]
    starts = [top + sum(heights[:i]) for i in range(len(heights))]
    middles = [y + _LINE * len(lines) + 11 if above else y + h / 2
               for y, lines, h in zip(starts, wrapped, heights, strict=True)]
    bottom = top + sum(heights)
    height = math.ceil(bottom + 6)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-label="{escape(text.title)}" '
        f'aria-describedby="{element_id}-desc" id="{element_id}" font-size="{FONT_PX}" '
        'font-family="sans-serif">',
        f"<title>{escape(text.title)}</title>",
        f'<desc id="{element_id}-desc">{escape(text.description)}</desc>',
        *head,
    ]
    # Labels above their bars: the band and the grid run beside each bar only, not
    # through the label's text; labels at the left: the whole height.
    spans = [(m - 7, m + 7) for m in middles] if above else [(top - 4, bottom)]
    for y1, y2 in spans:
        if band is not None:
            x1, x2 = sx(max(band[0], low)), sx(min(band[1], high))
            out.append(f'<rect x="{x1:.1f}" y="{y1:.1f}" width="{x2 - x1:.1f}" '
                       f'height="{y2 - y1:.1f}" fill="currentColor" fill-opacity="0.13"/>')
        out += [f'<line x1="{sx(t):.1f}" y1="{y1:.1f}" x2="{sx(t):.1f}" y2="{y2:.1f}" '
                f'stroke="currentColor" {_REFERENCE if t == 1 else _GRID}/>'
                for t in sorted({1.0, *(t for t, _, _ in marks)})]
    for dot, lines, y, middle in zip(dots, wrapped, starts, middles, strict=True):
        first = y + 14 if above else middle + 5
        label = "".join(_text(0, first + _LINE * i, line) for i, line in enumerate(lines))
        x1, x2, xr = sx(dot.low), sx(dot.high), sx(dot.ratio)
        caps = "".join(f'<line x1="{x:.1f}" y1="{middle - 4:.1f}" x2="{x:.1f}" '
                       f'y2="{middle + 4:.1f}" stroke="currentColor" stroke-width="1.5"/>'
                       for x in (x1, x2))
        # A hollow dot hides the bar behind it: filled with the page's background.
        fill = ('fill="currentColor"' if dot.changed
                else 'style="fill: var(--md-default-bg-color, #fff)"')
        out.append(
            f'<g><title>{escape(dot.note or dot.label)}</title>{label}'
            f'<line x1="{x1:.1f}" y1="{middle:.1f}" x2="{x2:.1f}" y2="{middle:.1f}" '
            f'stroke="currentColor" stroke-width="2"/>{caps}'
            f'<circle cx="{xr:.1f}" cy="{middle:.1f}" r="4.5" {fill} '
            'stroke="currentColor" stroke-width="2"/></g>')
    out.append("</svg>")
    return "".join(out)
