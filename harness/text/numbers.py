"""Numbers with units, written the way each edition reads them. No torch import.

Each catalogue says how its language writes a number: Spanish a decimal comma, a
narrow space between thousands and before ``%`` («1,23 ms», «98,7 %»); English a
decimal point («1.23 ms», «98.7%»). Every value keeps three significant digits: the
records hold more, but the spread between runs (see the IQR column) makes a fourth
digit noise. Ratios of times keep the decimals that leave an interval's ends on their
side of 1 and of the noise band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.text.words import catalogue, word

__all__ = ["band", "bytes_text", "compact", "decimal", "interval_texts", "latency_scale",
           "latency_text", "localized", "percent_text", "ratio_texts", "scientific", "si_scale",
           "speed_text", "throughput_text", "unbroken", "unit_name"]

_LATENCY_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_SI_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = ((1024.0**3, "GiB"), (1024.0**2, "MiB"), (1024.0, "KiB"), (1.0, "B"))


def localized(text: str, lang: str) -> str:
    """A number written by Python (``10,000.5``) with the page's separators."""
    return text.translate(str.maketrans(".,", word(lang, "decimal_point")
                                        + word(lang, "thousands")))


def decimal(value: float, lang: str, *, digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits, no exponent, localized separator."""
    if value == 0 or not math.isfinite(value):
        text = f"{value:g}"
    else:
        rounded = float(f"{value:.{digits}g}")  # round first: 9.996 becomes 10.0, not 10.00
        places = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
        text = f"{rounded:.{places}f}"
    return localized(text, lang)


def compact(value: float, lang: str) -> str:
    """Shortest form for axis ticks: ``30``, ``0,5``, ``2000`` (no trailing zeros)."""
    return localized(f"{value:.4g}", lang)


def scientific(value: float, lang: str) -> str:
    """Two significant digits as ``2,9e-3`` / ``2.9e-3``; plain for 0."""
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.1e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return localized(f"{mantissa}e{int(exponent)}", lang)


def _scaled(value: float, units: tuple[tuple[float, str], ...]) -> tuple[float, str]:
    """(divisor, unit) of the largest of ``units`` that ``value`` reaches, else the smallest."""
    return next(((f, u) for f, u in units if abs(value) >= f), units[-1])


def latency_scale(seconds: float) -> tuple[float, str]:
    """(divisor, unit) that puts ``seconds`` between 1 and 1000 of the unit."""
    return _scaled(seconds, _LATENCY_UNITS)


def latency_text(seconds: float, lang: str) -> str:
    factor, unit = latency_scale(seconds)
    return f"{decimal(seconds / factor, lang)} {unit}"


def si_scale(value: float) -> tuple[float, str]:
    return _scaled(value, _SI_PREFIXES)


def unit_name(unit: str, lang: str) -> str:
    """A recorded throughput unit as the page's language reads it (``muestras/s``)."""
    key = f"unit_{unit}"
    return word(lang, key) if key in catalogue(lang) else unit  # as recorded


def throughput_text(value: float, unit: str, lang: str) -> str:
    """``167 GFLOP/s`` or ``113 k muestras/s``."""
    factor, prefix = si_scale(value)
    if unit == "FLOP/s":
        return f"{decimal(value / factor, lang)} {prefix}FLOP/s"
    shown = unit_name(unit, lang)
    return f"{decimal(value / factor, lang)} {prefix + ' ' if prefix else ''}{shown}"


def bytes_text(count: float, lang: str) -> str:
    factor, unit = _scaled(count, _BINARY)
    return f"{decimal(count / factor, lang)} {unit}"


def percent_text(fraction: float, lang: str) -> str:
    return word(lang, "percent", n=decimal(fraction * 100, lang))


def unbroken(text: str) -> str:
    """``text`` with non-breaking spaces, so a number never parts from its unit."""
    return text.replace(" ", "\u00a0")


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


def ratio_text(value: float, lang: str, *, places: int) -> str:
    """A ratio with ``places`` decimals (significant digits below 0,1)."""
    return localized(f"{_fixed(value, places):g}" if value < 0.1 else f"{value:.{places}f}", lang)


def ratio_texts(values: Sequence[float], lang: str, *,
                pivots: Sequence[float] = (1.0,)) -> list[str]:
    """``values`` with the decimals :func:`ratio_places` finds for all of them."""
    places = ratio_places(values, pivots=pivots)
    return [ratio_text(v, lang, places=places) for v in values]


def interval_texts(ratio: tuple[float, float, float], floor: float | None,
                   lang: str) -> tuple[list[str], list[str]]:
    """A ratio and its interval's ends, with the decimals that keep the ends on their
    side of 1 and of the noise band; and the band's ends (empty without a floor)."""
    edges = band(floor) if floor is not None else ()
    places = ratio_places(ratio[1:], pivots=(1.0, *edges))
    return [ratio_text(v, lang, places=places) for v in ratio], ratio_texts(edges, lang)


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
