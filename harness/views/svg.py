"""A log–log line chart as inline SVG, drawn by hand. No torch, no matplotlib.

The chart is data in, text out: the caller localizes every label and decides
what a series is. It comes in two drawings of the same data
(:func:`responsive_chart`); the page's style sheet shows the one that fits:

- wide, at the article column's width (688 px in Material at desktop widths), so its
  14 px text renders at 14 px: each line is labelled at its right end (no legend to
  match colours against), labels nudged apart so that close lines stay readable;
- narrow, at a phone's column (358 px at 390 px), with the labels under the plot as a
  legend whose keys repeat each line's colour, marker and dash.

Nothing is clipped: labels' widths are estimated from per-character advances
(:func:`text_width`), the margins make room for the widest, a label too wide wraps at
its " · " separators, an axis title at its spaces, and tick labels that would touch
are left out (their grid lines stay). The y-axis title sits above the plot,
horizontal, so its length never depends on the plot's height. Series are told apart
by colour, marker and dash (:mod:`harness.views.svg_marks`); tick labels of an axis
share one notation (:mod:`harness.views.svg_ticks`). Text uses ``currentColor`` so the
chart follows the light or dark scheme.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from harness.views.svg_marks import Style, marker_svg, series_styles
from harness.views.svg_text import (
    FONT_PX,
    LABEL_BUDGET,
    centred,
    label_lines,
    spaced,
    text_width,
    wrap_words,
)
from harness.views.svg_ticks import log_ticks, tick_texts

__all__ = ["FONT_PX", "NARROW_WIDTH", "WIDTH", "Point", "Series", "label_lines", "log_ticks",
           "place_labels", "responsive_chart", "svg_chart", "text_width", "tick_texts",
           "wrap_words"]

WIDTH, _PLOT_H = 688, 178
NARROW_WIDTH, _NARROW_PLOT_H = 358, 170
_LEFT, _TOP, _BOTTOM = 64, 30, 50
_LABEL_GAP = 17.0
_LINE = 15.0
"""Baseline to baseline inside a wrapped label."""
_KEY = 14.0
"""A label's marker and the space after it."""
_LEGEND_KEY = 30.0
"""A legend entry's line sample, its marker and the space after it."""


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
    marker: int = -1
    """Index into the marker shapes; -1: the dash index (one shape per torch build)."""


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


def _text(x: float, y: float, text: str, *, anchor: str = "start", css: str = "") -> str:
    where = f' text-anchor="{anchor}"' if anchor != "start" else ""
    kind = f' class="{css}"' if css else ""
    return (f'<text{kind} x="{x:.1f}" y="{y:.1f}"{where} fill="currentColor">'
            f"{escape(text)}</text>")


@dataclass(frozen=True, kw_only=True)
class _Axes:
    x_ticks: list[float]
    x_texts: list[str]
    y_ticks: list[float]
    y_texts: list[str]
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def _frame_svg(axes: _Axes, *, left: float, top: float, plot_w: float, plot_h: float,
               width: float) -> tuple[list[str], Callable[[float], float],
                                      Callable[[float], float]]:
    """The plot's box, grid and tick labels, and its two scales."""
    (x_low, x_high), (y_low, y_high) = axes.x_range, axes.y_range

    def sx(x: float) -> float:
        return left + plot_w * math.log10(x / x_low) / math.log10(x_high / x_low)

    def sy(y: float) -> float:
        return top + plot_h * (1 - math.log10(y / y_low) / math.log10(y_high / y_low))

    out = [f'<rect x="{left:.1f}" y="{top}" width="{plot_w:.1f}" height="{plot_h}" '
           'fill="none" stroke="currentColor" stroke-opacity="0.5"/>']
    grid = 'stroke="currentColor" stroke-opacity="0.12"'
    xs = [(sx(t), s) for t, s in zip(axes.x_ticks, axes.x_texts, strict=True)]
    for (x, shown), keep in zip(xs, spaced([x for x, _ in xs],
                                            [text_width(s) for _, s in xs], gap=6), strict=True):
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" {grid}/>')
        if keep:
            out.append(_text(centred(x, shown, width=width), top + plot_h + 18, shown,
                             anchor="middle", css="harness-tick-x"))
    ys = [(sy(t), s) for t, s in zip(axes.y_ticks, axes.y_texts, strict=True)]
    ys.reverse()  # top to bottom, as _spaced wants them increasing
    for (y, shown), keep in zip(ys, spaced([y for y, _ in ys], [FONT_PX] * len(ys), gap=2),
                                strict=True):
        out.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + plot_w:.1f}" '
                   f'y2="{y:.1f}" {grid}/>')
        if keep:
            out.append(_text(left - 6, y + 5, shown, anchor="end", css="harness-tick-y"))
    return out, sx, sy


def _lines_svg(series: list[Series], styles: list[Style], sx: Callable[[float], float],
               sy: Callable[[float], float]) -> list[str]:
    """One group per series: its line, then its markers."""
    out = []
    for one, style in zip(series, styles, strict=True):
        ordered = sorted(one.points, key=lambda p: p.x)
        path = " ".join(f"{sx(p.x):.1f},{sy(p.y):.1f}" for p in ordered)
        dashing = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        out.append(f'<g class="harness-series"><polyline points="{path}" fill="none" '
                   f'stroke="{style.colour}" stroke-width="{style.width}"{dashing}/>')
        out.extend(marker_svg(style.marker, sx(p.x), sy(p.y), colour=style.colour,
                              hollow=p.hollow, note=p.note) for p in ordered)
        out.append("</g>")
    return out


def _label_svg(x: float, y: float, lines: list[str], style: Style, *, failing: bool,
               key: float) -> str:
    """A label: its series' marker (on a line sample in a legend), then its text lines."""
    mark = marker_svg(style.marker, x + key / 2 - 2 if key > _KEY else x + 5, y - 5,
                      colour=style.colour, hollow=failing)
    if key > _KEY:  # a legend's key shows the line's dash too
        dashing = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        mark = (f'<line x1="{x:.1f}" y1="{y - 5:.1f}" x2="{x + key - 8:.1f}" y2="{y - 5:.1f}" '
                f'stroke="{style.colour}" stroke-width="{style.width}"{dashing}/>{mark}')
    first, *rest = lines
    more = "".join(f'<tspan x="{x + key:.1f}" dy="{_LINE:g}">{escape(line)}</tspan>'
                   for line in rest)
    return (f'<g class="harness-key">{mark}</g><text class="harness-line-label" '
            f'x="{x + key:.1f}" y="{y:.1f}" fill="currentColor">{escape(first)}{more}</text>')


def svg_chart(series: list[Series], *, title: str, x_label: str, y_label: str,
              x_ticks: list[float] | None = None,
              x_format: Callable[[float], str] | None = None,
              y_format: Callable[[float], str] | None = None,
              element_id: str, description: str = "", lang: str = "en",
              y_scale: float = 1.0, narrow: bool = False) -> str:
    """One ``<svg>`` element with no blank line (safe inside Markdown). Without
    ``x_format``/``y_format`` tick labels follow :func:`tick_texts` in ``lang`` (y values
    divided by ``y_scale``). ``narrow``: the phone drawing, with its legend below."""
    points = [p for s in series for p in s.points]
    x_range = _span([p.x for p in points])
    y_range = _span([p.y for p in points], nice=True)
    xs = [t for t in (x_ticks or log_ticks(*x_range)) if x_range[0] <= t <= x_range[1]]
    ys = log_ticks(*y_range)
    axes = _Axes(x_ticks=xs, y_ticks=ys, x_range=x_range, y_range=y_range,
                 x_texts=[x_format(t) for t in xs] if x_format else tick_texts(xs, lang=lang),
                 y_texts=([y_format(t) for t in ys] if y_format
                          else tick_texts(ys, lang=lang, scale=y_scale)))
    styles = series_styles([(i if s.colour < 0 else s.colour, s.dash if s.marker < 0 else
                             s.marker, s.dash, s.failing) for i, s in enumerate(series)])
    width = NARROW_WIDTH if narrow else WIDTH
    left = max(_LEFT if not narrow else 0.0, *(text_width(t) + 10 for t in axes.y_texts),
               text_width(axes.x_texts[0]) / 2 + 2 if axes.x_texts else 0.0)
    titles = wrap_words(y_label, budget=width - 2)
    top = _TOP + _LINE * (len(titles) - 1)
    body: list[str] = [_text(0, _TOP - 12 + _LINE * i, line) for i, line in enumerate(titles)]
    if narrow:
        right = math.ceil(text_width(axes.x_texts[-1]) / 2) + 2 if axes.x_texts else 8
        plot_w, plot_h = width - left - right, _NARROW_PLOT_H
        budget = width - _LEGEND_KEY - 4
    else:
        wrapped = [label_lines(s.label, budget=LABEL_BUDGET - _KEY) for s in series]
        widest = max((text_width(line) for lines in wrapped for line in lines), default=0.0)
        plot_w = width - left - (8 + _KEY + math.ceil(widest) + 4)  # gap, key, label, margin
        plot_h = max(_PLOT_H, math.ceil(sum(_LABEL_GAP + (len(lines) - 1) * _LINE
                                            for lines in wrapped)))
    frame, sx, sy = _frame_svg(axes, left=left, top=top, plot_w=plot_w, plot_h=plot_h,
                               width=width)
    body += frame
    x_lines = wrap_words(x_label, budget=width - 2)
    for i, line in enumerate(x_lines):
        body.append(_text(centred(left + plot_w / 2, line, width=width),
                          top + plot_h + 40 + _LINE * i, line, anchor="middle"))
    body += _lines_svg(series, styles, sx, sy)
    height = top + plot_h + _BOTTOM + _LINE * (len(x_lines) - 1)
    if narrow:  # the legend, one entry per series, in the order of the series
        y = height + 8
        for one, style in zip(series, styles, strict=True):
            lines = label_lines(one.label, budget=budget)
            body.append(_label_svg(0, y, lines, style, failing=one.failing, key=_LEGEND_KEY))
            height = y + _LINE * (len(lines) - 1) + 6  # the last baseline and descenders
            y = height + _LABEL_GAP - 3
    else:
        ends = [sy(sorted(s.points, key=lambda p: p.x)[-1].y) + 5 for s in series]
        placed = place_labels(ends, top=top + 10, bottom=top + plot_h + 10,
                              lines=[len(lines) for lines in wrapped])
        body += [_label_svg(left + plot_w + 8, y, lines, style, failing=one.failing, key=_KEY)
                 for one, lines, style, y in zip(series, wrapped, styles, placed, strict=True)]
    height = math.ceil(height)
    kind = "narrow" if narrow else "wide"
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-label="{escape(title)}" '
        f'aria-describedby="{element_id}-desc" id="{element_id}" font-size="{FONT_PX}" '
        f'font-family="sans-serif" class="harness-chart-{kind}">',
        f"<title>{escape(title)}</title>",
        f'<desc id="{element_id}-desc">{escape(description or title)}</desc>',
        *body, "</svg>"])


def responsive_chart(series: list[Series], *, title: str, x_label: str, y_label: str,
                     x_ticks: list[float] | None = None, element_id: str,
                     description: str = "", lang: str = "en", y_scale: float = 1.0) -> str:
    """Both drawings of one chart, wide then narrow (ids ``element_id`` and
    ``element_id-narrow``), in a ``harness-plot-pair`` box whose style sheet shows one."""
    drawings = [svg_chart(series, title=title, x_label=x_label, y_label=y_label,
                          x_ticks=x_ticks, description=description, lang=lang, y_scale=y_scale,
                          element_id=f"{element_id}-narrow" if narrow else element_id,
                          narrow=narrow) for narrow in (False, True)]
    return f'<div class="harness-plot-pair">{"".join(drawings)}</div>'
