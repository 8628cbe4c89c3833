"""The timing verdict between torch builds, with the proof of its error rates. Standard
library only, exact integer arithmetic (no normal approximation, no resampling).

**The run is the unit.** A process's blocks are not independent (the committed records'
lag-1 autocorrelation is about 0.5, and a process's machine state shifts them together),
so a *run* (one process) is summarised by the median of its blocks: the timed thread's
CPU time where every compared run recorded it, else wall time. A build's runs are
recorded in one window (``tools/record_interleaved.py``: build after build, then the
first build again as the control), so they are exchangeable draws.

**Interval for the ratio (exact, Mann–Whitney/Moses).** With x₁…xₘ the reference's log
run summaries, y₁…yₙ the other build's and D₍₁₎ ≤ … ≤ D₍ₘₙ₎ the sorted differences
yⱼ − xᵢ: if y is x shifted by δ, the count of differences below δ has the Mann–Whitney
null distribution whatever the summaries' distribution, so [D₍ₖ₎, D₍ₘₙ₊₁₋ₖ₎] covers δ with
probability ≥ 1 − 2·P(U ≤ k−1), counted exactly (:func:`mann_whitney_cdf`). With no change
the interval excludes 0 exactly when the two-sided test rejects, with no shift model
needed. A bootstrap with five runs a build covers far less than it claims.

**The window adds its own shift.** The machine drifts between windows (taking the runs as
the only noise, the committed control read «cambió» against its own build in 5 of 28
trials), so two builds' windows differ by a shift W the runs cannot see. Each same-build
control is one draw of W: median |log(control/build)| / 0.6745 estimates W's deviation w
(the median absolute value of a centred normal is 0.6745 σ), from at least
:data:`MIN_CONTROLS` controls (:func:`window_noise`). Each end of a run interval is moved
out by z·w on the log scale.

**Verdicts.** Each of the b other builds gets a change interval against the oldest: the
run interval at 1 − α/2 widened by z₁₋α/₄·w, α = 5 %/b (Bonferroni). With no change it
excludes 1 only if the run interval misses (≤ α/2) or |W| > z·w (α/2), so P(any false
«cambió») ≤ 5 % per trial whatever b is. «cambió» also needs the interval to clear the
trial's own noise floor (its control's ratio to its build, ≥ 1). «sin diferencia
medible» is an equivalence test (TOST): each build's interval at 1 − 2·(α/2), widened by
z₁₋α/₂·w, inside [1/(1+margin), 1+margin]; outside the margin each one-sided test passes
wrongly with probability ≤ 5 % and all must pass (intersection–union), so P(false «sin
diferencia medible») ≤ 5 %. Where w is as large as the margin nothing can be shown
equivalent, and the page says so. Anything else is «no concluyente».

**Runs needed.** An interval at 1 − α/2 exists only when [D₍₁₎, D₍ₘₙ₎] reaches it:
2/C(m+n, m) ≤ α/2. :func:`runs_needed` gives the fewest equal runs a build for b
comparisons; below it the verdict is «no concluyente» and says why.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from statistics import NormalDist
from typing import Literal

__all__ = [
    "ALPHA", "MIN_CONTROLS", "Interval", "TimingVerdict", "change_interval", "mann_whitney_cdf",
    "moses_rank", "ratio_interval", "run_summaries", "runs_alpha", "runs_needed",
    "timing_verdict", "window_noise",
]

#: Bound on a false «cambió» for one trial (over all its builds), and on a false «sin
#: diferencia medible».
ALPHA = Fraction(5, 100)

TimingVerdict = Literal["changed", "no-measurable-difference", "inconclusive"]

#: Same-build controls a device needs before its window shift is estimated: fewer, and no
#: timing verdict but «no concluyente» is given.
MIN_CONTROLS = 5


@cache
def _counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) orderings give U = u, for u = 0 … m·n (exact)."""
    # U counts pairs with yⱼ − xᵢ < 0. The largest value is an x (all n y's lie below it:
    # U grows by n) or a y (below no x: U unchanged).
    if m == 0 or n == 0:
        return (1,)
    left, right = _counts(m - 1, n), _counts(m, n - 1)
    out = [0] * (m * n + 1)
    for u, c in enumerate(left):
        out[u + n] += c
    for u, c in enumerate(right):
        out[u] += c
    return tuple(out)


def mann_whitney_cdf(m: int, n: int, u: int) -> Fraction:
    """P(U ≤ u) under no difference, exact."""
    return Fraction(sum(_counts(m, n)[: max(u + 1, 0)]), math.comb(m + n, m))


def moses_rank(m: int, n: int, alpha: Fraction) -> int | None:
    """The largest k with 2·P(U ≤ k−1) ≤ ``alpha``: the interval is [D₍ₖ₎, D₍ₘₙ₊₁₋ₖ₎];
    ``None`` when even k = 1 falls short (too few runs)."""
    k = 0
    while k < (m * n + 1) // 2 and 2 * mann_whitney_cdf(m, n, k) <= alpha:
        k += 1
    return k or None


def runs_alpha(comparisons: int = 1) -> Fraction:
    """The runs' half of a change interval's error, α/2 with α = 5 %/``comparisons``."""
    return ALPHA / max(comparisons, 1) / 2


def runs_needed(comparisons: int = 1) -> int:
    """Fewest runs per build (equal counts) for a change interval over ``comparisons``."""
    n = 1
    while moses_rank(n, n, runs_alpha(comparisons)) is None:
        n += 1
    return n


def window_noise(shifts: Sequence[float]) -> float | None:
    """w, the standard deviation of the log shift between two recording windows of one
    build, from ``shifts`` (each a control's ratio to its build, on one device): median
    |log shift| / 0.6745. ``None`` with fewer than :data:`MIN_CONTROLS`."""
    logs = [abs(math.log(r)) for r in shifts if r > 0]
    if len(logs) < MIN_CONTROLS:
        return None
    return statistics.median(logs) / NormalDist().inv_cdf(0.75)


def _widened(interval: Interval | None, by: float) -> Interval | None:
    """``interval`` with each end moved out by the factor e^``by``."""
    if interval is None:
        return None
    return Interval(ratio=interval.ratio, low=interval.low * math.exp(-by),
                    high=interval.high * math.exp(by))


@dataclass(frozen=True, kw_only=True)
class Interval:
    ratio: float
    """Point estimate of the other build's time over the reference's (Hodges–Lehmann:
    the exponential of the median difference of log run summaries); above 1: slower."""
    low: float
    high: float


def run_summaries(samples: Sequence[float], runs: int) -> tuple[float, ...]:
    """The median of each run's blocks: ``samples`` holds ``runs`` runs of equal length,
    one after the other. Empty when the samples do not split evenly."""
    if runs < 1 or not samples or len(samples) % runs:
        return ()
    size = len(samples) // runs
    return tuple(statistics.median(samples[i * size:(i + 1) * size]) for i in range(runs))


def ratio_interval(base: Sequence[float], other: Sequence[float],
                   alpha: Fraction = ALPHA) -> Interval | None:
    """The exact (1 − ``alpha``) interval for other/base (the module's proof); ``None``: too few."""
    if not base or not other or min(*base, *other) <= 0:
        return None
    k = moses_rank(len(base), len(other), alpha)
    if k is None:
        return None
    diffs = sorted(math.log(y) - math.log(x) for x in base for y in other)
    return Interval(ratio=math.exp(statistics.median(diffs)), low=math.exp(diffs[k - 1]),
                    high=math.exp(diffs[-k]))


def change_interval(base: Sequence[float], other: Sequence[float], *, comparisons: int,
                    window: float | None) -> Interval | None:
    """other/base: the run interval at 1 − α/2 widened by z₁₋α/₄·w; ``None``: too few runs."""
    z = NormalDist().inv_cdf(1 - float(runs_alpha(comparisons)) / 2) * (window or 0.0)
    return _widened(ratio_interval(base, other, runs_alpha(comparisons)), z)


def timing_verdict(base: Sequence[float], others: Sequence[Sequence[float]], *,
                   floor: float | None, margin: float, window: float | None
                   ) -> tuple[TimingVerdict, list[Interval | None]]:
    """The verdict on one trial from run summaries (the reference's, each other build's)
    and ``window`` (w), with the change intervals (``None`` where too few runs). Without a
    ``floor`` (no control) or a ``window`` (too few controls) it is «inconclusive»."""
    intervals = [change_interval(base, other, comparisons=len(others), window=window)
                 for other in others]
    if window is None or floor is None:
        return "inconclusive", intervals
    if any(i is not None and (i.high < 1.0 or i.low > 1.0)
           and not (i.low <= floor and i.high >= 1.0 / floor) for i in intervals):
        return "changed", intervals
    bound = 1.0 + margin
    # Two one-sided tests at ALPHA each: the run interval two-sided at ALPHA (α/2 a side),
    # widened by the window's one-sided z at ALPHA/2.
    shift = NormalDist().inv_cdf(1 - float(ALPHA) / 2) * window
    tost = [_widened(ratio_interval(base, other, ALPHA), shift) for other in others]
    if tost and all(t is not None and t.low >= 1 / bound and t.high <= bound for t in tost):
        return "no-measurable-difference", intervals
    return "inconclusive", intervals
