"""Charts as HTML and CSS: the browser lays out every word. No torch, no font metrics.

Python computes only where a mark goes, in percent of the plot on a log axis
(``style="--x:42.1%"``); ``harness.css`` places it. Ticks, titles and legend are HTML
text, so they wrap and never clip; a series' line is a stretched inline SVG with no
text, its markers SVGs of their own. Series differ by colour, marker and dash; the
palette keeps Okabe–Ito's hues at 3:1 against both backgrounds (white, slate #1e2129).
Callers pass plain, localized text; everything is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from harness.text.markdown import html_text
from harness.text.numbers import localized

__all__ = ["GREY", "MARKERS", "PALETTE", "IntervalRow", "Point", "Series",
           "interval_chart", "line_chart", "log_ticks", "series_styles", "tick_texts"]

PALETTE = ("#2B7BBA", "#D55E00", "#009E73", "#C86BA0", "#B8860B", "#9A6FD0", "#6F8F00")
"""Blue, vermilion, bluish green, reddish purple, dark gold, violet, olive."""
GREY = "#8C8C8C"
"""A failing series (3.36:1 on white, 4.79:1 on slate)."""
DASHES = ("", "6 3", "2 3", "8 3 2 3")
#: Marker shapes drawn in a 12×12 box centred on the point.
MARKERS = {"circle": '<circle r="4"/>', "square": '<rect x="-3.5" y="-3.5" width="7" height="7"/>',
           "triangle": '<path d="M0-5L4.6 3.2H-4.6Z"/>', "diamond": '<path d="M0-5L5 0 0 5-5 0Z"/>',
           "triangle-down": '<path d="M0 5L4.6-3.2H-4.6Z"/>'}
_SHAPES = tuple(MARKERS)
_HOLLOW = ' class="harness-hollow"'
_LEVELS = ((1.0,), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
           tuple(float(m) for m in range(1, 10)), tuple(m / 10 for m in range(10, 100)))
"""Tick mantissas per level: the coarsest level with three ticks in range wins."""
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, kw_only=True)
class Point:
    x: float
    y: float
    hollow: bool = False  # drawn without fill: the row fails its quality tolerance
    note: str = ""  # tooltip text for the marker


@dataclass(frozen=True, kw_only=True)
class Series:
    label: str
    points: list[Point] = field(default_factory=list)
    dash: int = 0  # index into :data:`DASHES` (one per torch build)
    colour: int = 0  # index into the palette (one per kind of curve)
    marker: int = 0  # index into the marker shapes (one per build and device)
    failing: bool = False  # every point fails its tolerance: grey, dashed, labelled by the caller


@dataclass(frozen=True, kw_only=True)
class IntervalRow:
    """One row of :func:`interval_chart`: what a verdict between two builds rests on."""

    label: str
    ratio: float  # the ratio of medians (other build / base build)
    low: float
    high: float  # with low, the ratio's interval
    band: tuple[float, float] | None = None
    """This row's noise band (low, high) from a same-build control; None: no control."""
    verdict: str = ""  # the verdict's code; ``changed`` draws the dot filled, any other hollow
    note: str = ""  # tooltip text for the row


@dataclass(frozen=True, kw_only=True)
class _Style:
    colour: str
    marker: str
    dash: str


def series_styles(wanted: list[tuple[int, int, int, bool]]) -> list[_Style]:
    """One style per series from (palette index, marker index, dash index, failing); a
    (colour, marker) pair already taken moves to the colour's next free marker, then to
    the next colour, so two series never share both."""
    taken: set[tuple[str, str]] = set()
    styles = []
    for colour_index, marker_index, dash_index, failing in wanted:
        colours = [GREY] if failing else []
        colours += [PALETTE[(colour_index + k) % len(PALETTE)] for k in range(len(PALETTE))]
        pairs = [(c, _SHAPES[(marker_index + k) % len(_SHAPES)])
                 for c in colours for k in range(len(_SHAPES))]
        colour, marker = next((p for p in pairs if p not in taken), pairs[0])
        taken.add((colour, marker))
        styles.append(_Style(colour=colour, marker=marker,
                             dash="4 3" if failing else DASHES[dash_index % len(DASHES)]))
    return styles


def log_ticks(low: float, high: float) -> list[float]:
    """At least three ticks in [low, high], from the coarsest level of :data:`_LEVELS`
    that has them; at most eight (the finest level is thinned, keeping 1)."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    for steps in _LEVELS:
        ticks = sorted({float(f"{m * 10.0**e:.6g}") for e in range(first, last + 1)
                        for m in steps})
        inside = [t for t in ticks if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
        if len(inside) >= 3:
            step = math.ceil(len(inside) / 8)
            at = inside.index(1.0) % step if 1.0 in inside else 0
            return inside[at::step]
    return [low, high]


def _places(value: float) -> int:
    """Decimals that ``value`` needs, trailing zeros left out."""
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def tick_texts(ticks: Sequence[float], *, lang: str, scale: float = 1.0) -> list[str]:
    """Labels of one axis's ``ticks`` divided by ``scale``, in one notation per axis: plain
    localized numbers while they need at most three decimals and under seven digits (all
    grouped in thousands once one has five), else powers of ten (``2×10⁻⁴``)."""
    values = [float(f"{t / scale:.4g}") for t in ticks]
    largest = max((abs(v) for v in values), default=0.0)
    if all(_places(v) <= 3 for v in values) and largest < 1e6:
        grouped = "," if largest >= 10_000 else ""
        return [localized(f"{v:{grouped}.{_places(v)}f}", lang) for v in values]
    out = []
    for v in values:
        exponent = math.floor(math.log10(abs(v))) if v else 0
        mantissa = float(f"{v / 10.0**exponent:.4g}")
        power = "10" + str(exponent).translate(_SUPERSCRIPT)
        out.append("0" if v == 0 else power if mantissa == 1 else f"{mantissa:g}×{power}")
    return out


def _scale(values: Sequence[float]) -> tuple[float, float]:
    """The range of a log axis over ``values``, 6 % wider on each side."""
    low, high = math.log10(min(values)), math.log10(max(values))
    pad = max(high - low, 0.02) * 0.06
    return low - pad, high + pad


def _at(value: float, axis: tuple[float, float]) -> float:
    """Where ``value`` lies on a log axis, in percent of its length."""
    return 100 * (math.log10(value) - axis[0]) / (axis[1] - axis[0])


def line_chart(series: list[Series], *, title: str, x_label: str, y_label: str,
               x_ticks: Sequence[float], lang: str, y_scale: float = 1.0, element_id: str,
               description: str, caption: str) -> str:
    """A log–log chart of ``series`` in one ``<figure>``, with no blank line (safe in
    Markdown): the y-axis title above the plot, the x-axis title and the legend below.
    Tick labels follow :func:`tick_texts` (y values divided by ``y_scale``)."""
    points = [p for s in series for p in s.points]
    xs, ys = _scale([p.x for p in points]), _scale([p.y for p in points])
    x_ticks = [t for t in x_ticks if 10 ** xs[0] <= t <= 10 ** xs[1]]
    y_ticks = log_ticks(10 ** ys[0], 10 ** ys[1])
    styles = series_styles([(s.colour, s.marker, s.dash, s.failing) for s in series])
    grid = "".join([*(f"M{_at(t, xs):.2f} 0V100" for t in x_ticks),
                    *(f"M0 {100 - _at(t, ys):.2f}H100" for t in y_ticks)])
    lines, marks, legend = [], [], []
    placed: list[tuple[float, float]] = []
    for rank, (one, style) in enumerate(zip(series, styles, strict=True)):
        # Later series are drawn on top, thinner, and a marker on the spot of earlier
        # ones smaller, so a series on the same values as another (float16 beside
        # bfloat16 on a GPU) shows inside it instead of hiding it.
        width = 1.5 if one.failing else max(1.5, 4.5 - 3 * rank / max(len(series) - 1, 1))
        ordered = sorted(one.points, key=lambda p: p.x)
        path = " ".join(f"{_at(p.x, xs):.2f},{100 - _at(p.y, ys):.2f}" for p in ordered)
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        lines.append(f'<polyline points="{path}" stroke="{style.colour}" '
                     f'stroke-width="{width:.2g}"{dash}/>')
        for p in ordered:
            x, y = _at(p.x, xs), _at(p.y, ys)
            under = sum(abs(x - a) < 3 and abs(y - b) < 4 for a, b in placed)
            placed.append((x, y))
            marks.append(f'<span class="harness-mark" data-series="{rank}" style="--x:{x:.2f}%;'
                         f'--y:{y:.2f}%;--size:{max(0.85 * 0.72**under, 0.4):.2f}em;'
                         f'color:{style.colour}" title="{html_text(p.note)}">'
                         f'<svg viewBox="-6 -6 12 12" aria-hidden="true"'
                         f'{_HOLLOW if p.hollow else ""}>{MARKERS[style.marker]}</svg></span>')
        legend.append(
            f'<li data-series="{rank}" style="color:{style.colour}"><svg class="harness-key" '
            f'viewBox="0 -6 30 12" aria-hidden="true"><path d="M0 0H30" stroke="{style.colour}" '
            f'stroke-width="{1.5 if one.failing else 2.5:g}"{dash}/><g transform="translate(15 0)"'
            f'{_HOLLOW if one.failing else ""}>{MARKERS[style.marker]}</g></svg>'
            f"<span>{html_text(one.label)}</span></li>")
    y_texts = tick_texts(y_ticks, lang=lang, scale=y_scale)
    x_texts = tick_texts(x_ticks, lang=lang)
    crowded = len(x_ticks) > 6  # a phone shows every other x label (harness.css)
    odd, ident = ' class="harness-odd"', html_text(element_id)
    return "".join([
        f'<figure class="harness-chart" id="{ident}"><div class="harness-chart-box" '
        f'role="img" aria-label="{html_text(title)}" aria-describedby="{ident}-desc">',
        f'<p class="harness-axis-y">{html_text(y_label)}</p><div class="harness-chart-grid">',
        '<ol class="harness-ticks-y">',
        *(f'<li style="--y:{_at(t, ys):.2f}%">{html_text(s)}</li>'
          for t, s in zip(y_ticks, y_texts, strict=True)),
        # The log10 bounds of both axes, for a reader's own marks (docs/assets/medir.js).
        f'</ol><div class="harness-plot-area" data-log-axes="{xs[0]:.6g} {xs[1]:.6g} '
        f'{ys[0]:.6g} {ys[1]:.6g}"><svg viewBox="0 0 100 100" '
        f'preserveAspectRatio="none" aria-hidden="true"><path class="harness-grid" d="{grid}"/>',
        *lines, "</svg>", *marks, '</div><ol class="harness-ticks-x">',
        *(f'<li style="--x:{_at(t, xs):.2f}%"{odd if crowded and i % 2 else ""}>'
          f"{html_text(s)}</li>" for i, (t, s) in enumerate(zip(x_ticks, x_texts, strict=True))),
        f'</ol></div><p class="harness-axis-x">{html_text(x_label)}</p>',
        f'<ul class="harness-legend">{"".join(legend)}</ul>',
        f'<p id="{ident}-desc" hidden>{html_text(description)}</p></div>',
        f"<figcaption>{html_text(caption)}</figcaption></figure>"])


def interval_chart(rows: list[IntervalRow], *, title: str, description: str, axis: str,
                   faster: str, slower: str, caption: str, lang: str, element_id: str) -> str:
    """One ``<figure>``, no blank line: the axis (its title, which side is faster, the
    ticks) on top, then per row its label and, on the shared log axis, the row's noise
    band, a line at 1, the interval's bar and a dot at the ratio. Labels sit left of the
    bars where the column is wide and above them on a phone (harness.css)."""
    values = [v for r in rows for v in (r.low, r.high, r.ratio, *(r.band or ()))]
    scale = _scale([*values, 1.0])
    ticks = log_ticks(10 ** scale[0], 10 ** scale[1])
    lines = "".join(f'<i class="harness-grid-line{" harness-one" if t == 1 else ""}" '
                    f'style="--x:{_at(t, scale):.2f}%"></i>' for t in sorted({1.0, *ticks}))
    ident = html_text(element_id)
    out = [f'<figure class="harness-interval-chart" id="{ident}"><div class='
           f'"harness-chart-box" role="img" aria-label="{html_text(title)}" '
           f'aria-describedby="{ident}-desc"><div class="harness-interval-head">'
           f'<p class="harness-axis-x">{html_text(axis)}</p>'
           f'<p class="harness-hints"><span>{html_text(faster)}</span> '
           f'<span>{html_text(slower)}</span></p><ol class="harness-ticks-x">',
           *(f'<li style="--x:{_at(t, scale):.2f}%">{html_text(s)}</li>'
             for t, s in zip(ticks, tick_texts(ticks, lang=lang), strict=True)),
           '</ol></div><ul class="harness-interval-rows">']
    for row in rows:
        band = ""
        if row.band is not None:
            band = (f'<i class="harness-band" style="--lo:{_at(row.band[0], scale):.2f}%;'
                    f'--hi:{_at(row.band[1], scale):.2f}%"></i>')
        filled = " harness-changed" if row.verdict == "changed" else ""
        out.append(
            f'<li title="{html_text(row.note or row.label)}"><span class="harness-row-label">'
            f'{html_text(row.label)}</span><span class="harness-track">{band}{lines}'
            f'<i class="harness-bar" style="--lo:{_at(row.low, scale):.2f}%;'
            f'--hi:{_at(row.high, scale):.2f}%"></i><i class="harness-dot{filled}" '
            f'style="--x:{_at(row.ratio, scale):.2f}%"></i></span></li>')
    out.append(f'</ul><p id="{ident}-desc" hidden>{html_text(description)}</p>'
               f"</div><figcaption>{html_text(caption)}</figcaption></figure>")
    return "".join(out)
