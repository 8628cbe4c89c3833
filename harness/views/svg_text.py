"""How wide a chart's text is, and where it wraps: the build has no font metrics, so
widths are estimated from per-character advances and err wide. No torch import."""

from __future__ import annotations

import math

__all__ = ["FONT_PX", "LABEL_BUDGET", "centred", "label_lines", "spaced", "text_width",
           "wrap_words"]

FONT_PX = 14
LABEL_BUDGET = 688 * 0.42
"""Widest label line of a desktop chart (42 % of the 688 px column) before it wraps at
its " · " separators; a longer unbreakable part widens the margin."""

#: Advances in em of a sans-serif face (Arial/Liberation metrics), by character class;
#: text_width adds 15 % for wider faces (DejaVu Sans, Verdana) a reader may have.
_ADVANCE = (("abcdefghijklmnopqrstuvwxyzáéíóúñü", 0.5), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 0.68),
            ("0123456789", 0.556), (" .,:;·/|!'\u202f", 0.28), ("()[]-", 0.34),
            ("+×=<>~", 0.584), ("%", 0.89), ("mw", 0.84), ("fijlrt", 0.3),
            ("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", 0.4))


def text_width(text: str, *, font_px: float = FONT_PX) -> float:
    """An upper estimate of ``text``'s rendered width in px: no font metrics are at hand
    when the page is built, so it errs wide (a few px of margin, never a clipped label)."""
    def advance(char: str) -> float:
        widths = [em for chars, em in _ADVANCE if char in chars]
        return widths[-1] if widths else 0.62  # the last class is the most specific
    return sum(advance(c) for c in text) * font_px * 1.15


def label_lines(label: str, *, budget: float = LABEL_BUDGET) -> list[str]:
    """``label`` split at " · " into lines no wider than ``budget`` where it can be."""
    lines: list[str] = []
    for part in label.split(" · "):
        if lines and text_width(f"{lines[-1]} · {part}") <= budget:
            lines[-1] = f"{lines[-1]} · {part}"
        else:
            lines.append(part if not lines else f"· {part}")
    return lines


def wrap_words(text: str, *, budget: float) -> list[str]:
    """``text`` split at spaces into lines no wider than ``budget`` where it can be."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width(f"{lines[-1]} {word}") <= budget:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def centred(centre: float, text: str, *, width: float) -> float:
    """``centre`` moved just enough for ``text``, centred on it, to stay inside ``width``."""
    half = text_width(text) / 2
    return min(max(centre, half + 1), width - half - 1)


def spaced(positions: list[float], sizes: list[float], *, gap: float) -> list[bool]:
    """Which labels to show: each one clear of the last shown by ``gap``; ``positions``
    are centres in increasing order, ``sizes`` the labels' extents along the axis."""
    shown, edge = [], -math.inf
    for at, size in zip(positions, sizes, strict=True):
        keep = at - size / 2 >= edge + gap
        shown.append(keep)
        edge = at + size / 2 if keep else edge
    return shown
