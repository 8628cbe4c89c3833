"""Where a log axis gets its ticks, and how their labels read. No torch import.

Every label of one axis is written in one notation, chosen for the whole axis:

- plain numbers in the page's language (``0,1``, ``1``, ``1000``; ``0.1`` in English),
  never an exponent, while every tick needs at most three decimals and fewer than
  seven digits; thousands are grouped (``10 000``, ``10,000``) only when some tick
  has five digits or more, and then on every tick of four digits or more, so that
  ``1000`` never stands beside ``10 000`` (Spanish writes four digits ungrouped
  except in such a column; the space is a narrow no-break space);
- powers of ten otherwise, on every tick (``10⁻⁴``, ``2×10⁻⁴``).

So an axis never mixes ``1e+04`` with ``1000``.
"""

from __future__ import annotations

import math
from decimal import Decimal

__all__ = ["log_ticks", "tick_texts"]

_THIN = "\u202f"
"""Narrow no-break space: the Spanish (and SI) thousands separator."""
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


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


def _rounded(value: float) -> float:
    """``value`` to four significant digits: what a tick label can show."""
    return float(f"{value:.4g}") if value else 0.0


def _places(value: float) -> int:
    """Decimals that ``value`` (already rounded) needs, trailing zeros left out."""
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _plain(value: float, *, lang: str, grouped: bool) -> str:
    places = _places(value)
    text = f"{value:,.{places}f}" if grouped and abs(value) >= 1000 else f"{value:.{places}f}"
    if lang == "es":  # 10,000.5 → 10 000,5
        text = text.replace(",", _THIN).replace(".", ",")
    return text


def _power(value: float) -> str:
    exponent = math.floor(math.log10(abs(value)))
    mantissa = _rounded(value / 10.0**exponent)
    power = f"10{str(exponent).translate(_SUPERSCRIPT)}"
    return power if mantissa == 1 else f"{mantissa:g}×{power}"


def tick_texts(ticks: list[float], *, lang: str, scale: float = 1.0) -> list[str]:
    """Labels of one axis's ``ticks``, each divided by ``scale`` (the unit's factor: a
    latency in µs has ``scale=1e-6``), all in the one notation the axis needs."""
    values = [_rounded(t / scale) for t in ticks]
    shown = [abs(v) for v in values if v]
    plain = all(_places(v) <= 3 for v in values) and max(shown, default=0.0) < 1e6
    if not plain:
        return ["0" if v == 0 else _power(v) for v in values]
    grouped = max(shown, default=0.0) >= 10_000
    return [_plain(v, lang=lang, grouped=grouped) for v in values]
