"""How a chart's series are told apart: a colour, a marker shape and a dash each.
No torch import.

Two series of one chart never share both colour and marker (:func:`series_styles`
moves a clash to the next free shape), so a reader who cannot tell two hues apart,
or reads the chart printed in grey, still matches each line to its label by shape.
The palette keeps Okabe–Ito's hues with their lightness moved into one band, so that
every colour has at least 3:1 contrast (WCAG 1.4.11, graphical objects) against both
of the site's backgrounds: white (3.25–4.52:1) and Material's slate #1e2129
(3.56–4.95:1). A failing series is grey (#8c8c8c: 3.36 and 4.79:1), thin and dashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

__all__ = ["DASHES", "GREY", "MARKERS", "PALETTE", "Style", "marker_svg", "series_styles"]

PALETTE = ("#2B7BBA", "#D55E00", "#009E73", "#C86BA0", "#B8860B", "#9A6FD0", "#6F8F00")
"""Blue, vermilion, bluish green, reddish purple, dark gold, violet, olive."""
GREY = "#8C8C8C"
DASHES = ("", "6 3", "2 3", "8 3 2 3")
MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down")
_FAILING_DASH = "4 3"


@dataclass(frozen=True, kw_only=True)
class Style:
    colour: str
    marker: str
    """One of :data:`MARKERS`."""
    dash: str
    """An SVG ``stroke-dasharray``; empty for a solid line."""
    width: float


def series_styles(wanted: list[tuple[int, int, int, bool]]) -> list[Style]:
    """One style per series, from (palette index, marker index, dash index, failing);
    a (colour, marker) pair already taken moves to the colour's next free marker, then
    to the next colour. Only past ``len(PALETTE) × len(MARKERS)`` series do pairs repeat."""
    taken: set[tuple[str, str]] = set()
    styles = []
    for colour_index, marker_index, dash_index, failing in wanted:
        colours = [GREY] if failing else []
        colours += [PALETTE[(colour_index + k) % len(PALETTE)] for k in range(len(PALETTE))]
        pairs = [(c, MARKERS[(marker_index + k) % len(MARKERS)])
                 for c in colours for k in range(len(MARKERS))]
        colour, marker = next((p for p in pairs if p not in taken), pairs[0])
        taken.add((colour, marker))
        styles.append(Style(colour=colour, marker=marker,
                            dash=_FAILING_DASH if failing else DASHES[dash_index % len(DASHES)],
                            width=1.5 if failing else 2.5))
    return styles


def marker_svg(marker: str, x: float, y: float, *, colour: str, hollow: bool = False,
               note: str = "") -> str:
    """One marker centred on (x, y), about 9 px across; hollow: drawn without fill
    (the point fails its quality tolerance). ``note`` becomes its tooltip."""
    fill = "none" if hollow else colour
    paint = f'fill="{fill}" stroke="{colour}" stroke-width="2"'
    tip = f"<title>{escape(note)}</title>" if note else ""
    if marker == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" {paint}>{tip}</circle>'
    if marker == "square":
        return (f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" {paint}>'
                f"{tip}</rect>")
    corners = {"triangle": ((0, -5), (4.6, 3.2), (-4.6, 3.2)),
               "triangle-down": ((0, 5), (4.6, -3.2), (-4.6, -3.2)),
               "diamond": ((0, -5), (5, 0), (0, 5), (-5, 0))}[marker]
    path = " ".join(f"{'M' if i == 0 else 'L'}{x + dx:.1f},{y + dy:.1f}"
                    for i, (dx, dy) in enumerate(corners))
    return f'<path d="{path} Z" {paint} stroke-linejoin="round">{tip}</path>'
