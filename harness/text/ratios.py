"""Ratios of times written for a reader, per language: the ratio of medians and its
interval with the decimals that keep each end on its side of 1 and of the noise
band's edges (rounding never shows an interval that excludes 1 as reaching it), the
noise band a control's largest ratio spans, and how much faster or slower a ratio
is. Numbers take the page's decimal separator. No torch import.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.text.numbers import decimal, localized
from harness.text.words import word

__all__ = ["band", "interval_texts", "ratio_places", "ratio_text", "ratio_texts", "speed_text"]


def _fixed(value: float, places: int) -> float:
    return float(f"{value:.{places}g}") if value < 0.1 else round(value, places)


def ratio_places(values: Sequence[float], *, pivots: Sequence[float] = (1.0,)) -> int:
    """2 decimals, or as many more (up to 5) as it takes for each of ``values`` (an
    interval's ends) to stay on its side of every pivot (1, the noise band's edges)
    once both are rounded: an interval that excludes 1 never reads as reaching it."""
    def sign(a: float, b: float) -> int:
        return (a > b) - (a < b)

    for places in range(2, 6):
        if all(sign(_fixed(v, places), _fixed(p, places)) == sign(v, p)
               for v in values for p in pivots):
            return places
    return 5


def ratio_text(value: float, lang: str, *, places: int = 2) -> str:
    """A ratio with ``places`` decimals (significant digits below 0,1)."""
    return localized(f"{_fixed(value, places):g}" if value < 0.1 else f"{value:.{places}f}", lang)


def ratio_texts(values: Sequence[float], lang: str, *,
                pivots: Sequence[float] = (1.0,)) -> list[str]:
    """``values`` with the decimals :func:`ratio_places` finds for all of them."""
    places = ratio_places(values, pivots=pivots)
    return [ratio_text(v, lang, places=places) for v in values]


def interval_texts(ratio: tuple[float, float, float], floor: float | None,
                   lang: str) -> tuple[list[str], list[str], int]:
    """A ratio and its interval's ends, with the decimals that keep the ends on their
    side of 1 and of the noise band; the band's ends (empty without a floor); and
    those decimals."""
    edges = band(floor) if floor is not None else ()
    places = ratio_places(ratio[1:], pivots=(1.0, *edges))
    return ([ratio_text(v, lang, places=places) for v in ratio], ratio_texts(edges, lang),
            places)


def band(floor: float) -> tuple[float, float]:
    """The noise band [1/floor, floor] a control's largest ratio (≥ 1) spans."""
    return 1.0 / floor, floor


def speed_text(ratio: float, lang: str) -> str:
    """How much faster or slower a ratio of times is: ``3,6× más rápido``, ``un 40 % más
    lento`` (a percent below a factor of 1,5, where «1,2× más lento» reads oddly)."""
    factor = 1 / ratio if ratio < 1 else ratio
    side = "faster" if ratio < 1 else "slower"
    if factor >= 1.5:
        return word(lang, f"speed_{side}_times", n=decimal(factor, lang, digits=2))
    return word(lang, f"speed_{side}_percent", n=decimal((factor - 1) * 100, lang, digits=2))
