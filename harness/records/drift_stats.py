"""Distribution-free intervals for medians and the timing verdict between two
builds, with the proof of their error rates. Standard library only, exact integer
arithmetic (no normal approximation, no resampling).

**Interval for one median.** Let X₁…Xₙ be independent draws from one distribution
with median m (here: a run's per-block times) and X₍₁₎ ≤ … ≤ X₍ₙ₎ their order. The
event X₍ₖ₎ > m means at most k−1 draws are ≤ m; each draw is ≤ m with probability
at least ½, so P(X₍ₖ₎ > m) ≤ P(B ≤ k−1) with B ~ Binomial(n, ½), and symmetrically
P(X₍ₙ₋ₖ₊₁₎ < m) ≤ P(B ≤ k−1). Hence [X₍ₖ₎, X₍ₙ₋ₖ₊₁₎] covers m with probability at
least 1 − 2·P(B ≤ k−1), for every distribution, continuous or not, at every n. The
interval takes the largest k for which that bound reaches :data:`MEDIAN_CONFIDENCE`
(97.5 %). With k = 1 the bound is 1 − 2·2⁻ⁿ, which reaches 97.5 % only from n = 7
(:data:`MIN_BLOCKS`); below that no such interval exists and there is no verdict.

**Verdict.** Two builds' medians m₁, m₂ get one interval each. "Changed" requires
the intervals to be disjoint. If m₁ = m₂ = m (no change; in particular when both
runs draw from identical distributions) and the intervals are disjoint, at least one
misses m, so P(false "changed") ≤ 2.5 % + 2.5 % = 5 % (Bonferroni; no independence
needed). Disjoint intervals are the same event as the ratio interval
[low₂/high₁, high₂/low₁] excluding 1, and that interval covers m₂/m₁ whenever both
intervals cover their medians: with probability ≥ 95 %.

**Noise floor.** The proof holds for the distributions of the two runs; it cannot
know whether the machine drifted between them. A same-build control (the build
recorded twice in one job) measures that: ``floor`` is the largest control ratio
(≥ 1). A difference whose ratio interval reaches into [1/floor, floor] is inside the
noise, and reads "no measurable difference" even if it excludes 1. This only turns
"changed" into "no measurable difference", so the 5 % bound still holds.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = [
    "CONFIDENCE", "MEDIAN_CONFIDENCE", "MIN_BLOCKS", "Interval", "TimingVerdict",
    "coverage", "median_interval", "median_ranks", "ratio_interval", "timing_verdict",
]

#: Confidence of the ratio interval, and 1 − the bound on a false "changed".
CONFIDENCE = Fraction(95, 100)
#: Confidence of each median's interval (Bonferroni: two intervals share 1 − CONFIDENCE).
MEDIAN_CONFIDENCE = 1 - (1 - CONFIDENCE) / 2

TimingVerdict = Literal["changed", "no-measurable-difference", "inconclusive"]


def coverage(n: int, k: int) -> Fraction:
    """Guaranteed coverage of [X₍ₖ₎, X₍ₙ₋ₖ₊₁₎] (1-based ranks): 1 − 2·P(B ≤ k−1)."""
    below, term = 0, 1  # term is C(n, j), exact
    for j in range(k):
        below += term
        term = term * (n - j) // (j + 1)
    return 1 - Fraction(2 * below, 2**n)


def median_ranks(n: int, confidence: Fraction = MEDIAN_CONFIDENCE) -> tuple[int, int] | None:
    """1-based ranks (k, n−k+1) of the narrowest symmetric interval whose coverage
    (:func:`coverage`) is at least ``confidence``; ``None`` when even [min, max] falls
    short. One pass over the binomial coefficients, exact."""
    allowed = (1 - confidence) / 2 * 2**n  # 2ⁿ·P(B ≤ k−1) may not exceed this
    below, term, k = 0, 1, 0  # term is C(n, k)
    while k + 1 <= (n + 1) // 2:
        below += term  # 2ⁿ·P(B ≤ k): the bound for rank k + 1
        if below > allowed:
            break
        k += 1
        term = term * (n - k + 1) // k
    return (k, n - k + 1) if k else None


def _min_blocks() -> int:
    n = 1
    while median_ranks(n) is None:
        n += 1
    return n


#: Fewest blocks per build for which a median's interval exists: 7 (1 − 2/128 ≥ 97.5 %).
MIN_BLOCKS = _min_blocks()


def median_interval(samples: Sequence[float]) -> tuple[float, float] | None:
    """The :data:`MEDIAN_CONFIDENCE` interval for the median of ``samples``, or ``None``
    with fewer than :data:`MIN_BLOCKS` samples."""
    ranks = median_ranks(len(samples))
    if ranks is None:
        return None
    ordered = sorted(samples)
    return ordered[ranks[0] - 1], ordered[ranks[1] - 1]


@dataclass(frozen=True, kw_only=True)
class Interval:
    ratio: float
    """Median of the later build over median of the first build (above 1: slower)."""
    low: float
    high: float

    @property
    def excludes_one(self) -> bool:
        return self.high < 1.0 or self.low > 1.0

    def inside(self, floor: float) -> bool:
        """Whether the interval reaches into the noise band [1/floor, floor]."""
        return self.low <= floor and self.high >= 1.0 / floor


def ratio_interval(base: Sequence[float], other: Sequence[float]) -> Interval | None:
    """≥ 95 % interval for median(other) / median(base); ``None`` below :data:`MIN_BLOCKS`
    samples in either (see the module's proof)."""
    first, second = median_interval(base), median_interval(other)
    if first is None or second is None or first[0] <= 0:
        return None
    return Interval(ratio=statistics.median(other) / statistics.median(base),
                    low=second[0] / first[1], high=second[1] / first[0])


def timing_verdict(base: Sequence[float], other: Sequence[float], *,
                   floor: float | None = None) -> tuple[TimingVerdict, Interval | None]:
    """The verdict on two builds' per-block times: "inconclusive" below
    :data:`MIN_BLOCKS`, "changed" only when the medians' intervals are disjoint and the
    ratio interval lies outside the noise ``floor`` (when a control gave one)."""
    interval = ratio_interval(base, other)
    if interval is None:
        return "inconclusive", None
    if not interval.excludes_one or (floor is not None and interval.inside(floor)):
        return "no-measurable-difference", interval
    return "changed", interval
