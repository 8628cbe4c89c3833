"""A log–log line chart as inline SVG, drawn by hand. No torch, no matplotlib.

The chart is data in, text out: the caller localizes every label and decides
what a series is. Colours follow the Okabe–Ito palette (readable with common
colour-vision deficiencies), line dashes tell builds apart, and text uses
``currentColor`` so the chart follows the theme's light or dark scheme. Hollow
markers are points that fail their quality tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

__all__ = ["Point", "Series", "log_ticks", "svg_chart"]

_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
_DASHES = ("", "6 3", "2 3", "8 3 2 3")
_WIDTH, _HEIGHT = 640, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 16, 16, 48
_LEGEND_ROW = 18


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


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks inside [low, high]; whole decades only when the range is wide."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    # Wide ranges get decades; narrow ones finer steps, down to every integer mantissa.
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


def svg_chart(
    series: list[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    x_ticks: list[float] | None = None,
    x_format: Callable[[float], str] = lambda v: f"{v:g}",
    y_format: Callable[[float], str] = lambda v: f"{v:g}",
    element_id: str,
    description: str = "",
) -> str:
    """One ``<svg>`` element on a single line-free block (safe inside Markdown)."""
    points = [p for s in series for p in s.points]
    x_low, x_high = _span([p.x for p in points])
    y_low, y_high = _span([p.y for p in points], nice=True)
    height = _HEIGHT + _LEGEND_ROW * len(series)
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def sx(x: float) -> float:
        return _LEFT + plot_w * (math.log10(x) - math.log10(x_low)) / (
            math.log10(x_high) - math.log10(x_low)
        )

    def sy(y: float) -> float:
        return _TOP + plot_h * (
            1 - (math.log10(y) - math.log10(y_low)) / (math.log10(y_high) - math.log10(y_low))
        )

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {_WIDTH} {height}" '
        f'width="100%" style="max-width:{_WIDTH}px" aria-label="{escape(title)}" '
        f'aria-describedby="{element_id}-desc" id="{element_id}" font-size="12" '
        'font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<desc id="{element_id}-desc">{escape(description or title)}</desc>',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="currentColor" stroke-opacity="0.5"/>',
    ]
    for tick in x_ticks or log_ticks(x_low, x_high):
        if not x_low <= tick <= x_high:
            continue
        x = sx(tick)
        out.append(
            f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_TOP + plot_h}" '
            'stroke="currentColor" stroke-opacity="0.12"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{_TOP + plot_h + 16}" text-anchor="middle" '
            f'fill="currentColor">{escape(x_format(tick))}</text>'
        )
    for tick in log_ticks(y_low, y_high):
        y = sy(tick)
        out.append(
            f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_LEFT + plot_w}" y2="{y:.1f}" '
            'stroke="currentColor" stroke-opacity="0.12"/>'
        )
        out.append(
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'fill="currentColor">{escape(y_format(tick))}</text>'
        )
    out.append(
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_TOP + plot_h + 36}" text-anchor="middle" '
        f'fill="currentColor">{escape(x_label)}</text>'
    )
    out.append(
        f'<text transform="translate(16 {_TOP + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle" fill="currentColor">{escape(y_label)}</text>'
    )
    for index, one in enumerate(series):
        hue = index if one.colour < 0 else one.colour
        colour, dash = _PALETTE[hue % len(_PALETTE)], _DASHES[one.dash % len(_DASHES)]
        ordered = sorted(one.points, key=lambda p: p.x)
        path = " ".join(f"{sx(p.x):.1f},{sy(p.y):.1f}" for p in ordered)
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dashing}/>'
        )
        for p in ordered:
            fill = "none" if p.hollow else colour
            out.append(
                f'<circle cx="{sx(p.x):.1f}" cy="{sy(p.y):.1f}" r="4" fill="{fill}" '
                f'stroke="{colour}" stroke-width="2"><title>{escape(p.note)}</title></circle>'
            )
        y = _HEIGHT + _LEGEND_ROW * index + 4
        out.append(
            f'<line x1="{_LEFT}" y1="{y}" x2="{_LEFT + 28}" y2="{y}" stroke="{colour}" '
            f'stroke-width="2"{dashing}/>'
        )
        out.append(
            f'<text x="{_LEFT + 36}" y="{y + 4}" fill="currentColor">{escape(one.label)}</text>'
        )
    out.append("</svg>")
    return "".join(out)
