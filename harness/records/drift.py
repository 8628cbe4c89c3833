"""What changed between recorded torch builds: every observed example and every trial,
classified. No torch import; the statistics are the standard library's.

Examples, per (snippet, name) and device type, across builds:
``identical`` (same value everywhere), ``within-tolerance`` (values differ, but each
build's value is within the analytic tolerance of the first build's), ``changed``
(outside it), ``failing`` (the expectation holds in some builds and not in others)
and ``missing`` (absent from some build).

Trials, per trial and device: ``missing``, ``failing`` (an error or a quality
failure in some builds only), ``other-hardware`` (the builds were recorded on different
processors: timings are not comparable), and for timings a percentile bootstrap
confidence interval for the ratio of medians of the recorded per-block samples:
``changed`` when the interval excludes 1, ``no-measurable-difference`` otherwise. A
bare ratio is never a verdict: two runs 3 % apart inside their spread are not a change.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Literal

from harness.core.compare import compare
from harness.core.rows import TrialRow
from harness.core.types import Expectation, Observation
from harness.records.store import DeviceRecord, Records

__all__ = [
    "CONFIDENCE",
    "Drift",
    "Interval",
    "Verdict",
    "drift_report",
    "median_interval",
    "ratio_interval",
    "trial_drift",
]

Verdict = Literal["identical", "within-tolerance", "changed", "failing", "missing",
                  "no-measurable-difference", "other-hardware", "single-build"]
#: Two-sided confidence of the interval for a ratio of medians.
CONFIDENCE = 0.95


@dataclass(frozen=True, kw_only=True)
class Interval:
    ratio: float
    """Median of the later build over median of the first build (above 1: slower)."""
    low: float
    high: float

    @property
    def excludes_one(self) -> bool:
        return self.high < 1.0 or self.low > 1.0


@dataclass(frozen=True, kw_only=True)
class Drift:
    kind: Literal["example", "trial"]
    item: str
    """``snippet name`` for an example, the trial's name for a trial."""
    device: str
    """Device key, e.g. ``cpu``; builds are compared on the same key only."""
    verdict: Verdict
    builds: tuple[str, ...]
    """The builds compared, oldest first (the first is the baseline)."""
    detail: str = ""
    """The values, the failing build, or the interval, in English."""
    interval: Interval | None = None


def median_interval(samples: tuple[float, ...], *, z: float) -> tuple[float, float]:
    """Distribution-free interval for the median: the order statistics whose ranks
    bracket n/2 by ``z`` binomial standard deviations (no assumption on the shape)."""
    ordered = sorted(samples)
    n = len(ordered)
    half = z * math.sqrt(n) / 2.0
    low = max(0, math.floor(n / 2.0 - half))
    high = min(n - 1, math.ceil(n / 2.0 + half) - 1)
    return ordered[low], ordered[high]


def ratio_interval(base: tuple[float, ...], other: tuple[float, ...]) -> Interval:
    """Interval for median(other) / median(base) from the per-block samples.

    Each median gets a distribution-free interval at 97.5 % (z ≈ 2.24); dividing the
    ends gives an interval for the ratio that holds with at least 95 % confidence
    (Bonferroni: both medians are inside theirs with probability ≥ 95 %). It is exact
    for any distribution, deterministic, and takes no resampling.
    """
    z = statistics.NormalDist().inv_cdf(1.0 - (1.0 - CONFIDENCE) / 4.0)
    base_low, base_high = median_interval(base, z=z)
    other_low, other_high = median_interval(other, z=z)
    return Interval(ratio=statistics.median(other) / statistics.median(base),
                    low=other_low / base_high, high=other_high / base_low)


def _rows(records: list[DeviceRecord], trial: str) -> dict[str, TrialRow | None]:
    return {r.torch_build: r.row(trial) for r in records}


def trial_drift(trial: str, device: str, records: list[DeviceRecord]) -> Drift:
    """The verdict for one trial across ``records`` (one device key, oldest build first)."""
    builds = tuple(r.torch_build for r in records)
    rows = _rows(records, trial)
    absent = [b for b, row in rows.items() if row is None]
    if absent:
        return Drift(kind="trial", item=trial, device=device, verdict="missing", builds=builds,
                     detail=f"no row in {', '.join(absent)}")
    present = [row for row in rows.values() if row is not None]
    failed = [row.torch_build for row in present if row.failed]
    if failed and len(failed) < len(present):
        return Drift(kind="trial", item=trial, device=device, verdict="failing", builds=builds,
                     detail=f"fails (error or quality) in {', '.join(failed)} only")
    names = {r.environment_of(row.run_id).device_name for r, row in zip(records, present,
                                                                        strict=True)}
    if len(names) > 1:
        return Drift(kind="trial", item=trial, device=device, verdict="other-hardware",
                     builds=builds, detail="recorded on " + " / ".join(sorted(names)))
    base, *others = present
    if not others:
        return Drift(kind="trial", item=trial, device=device, verdict="single-build",
                     builds=builds, detail=f"only {base.torch_build} is recorded on {device}")
    if not base.samples_s or any(not o.samples_s for o in others):
        return Drift(kind="trial", item=trial, device=device, verdict="failing", builds=builds,
                     detail="no timing samples in every build")
    # Against the first build; the widest change decides (any build that moved is news).
    intervals = [ratio_interval(base.samples_s, o.samples_s) for o in others]
    moved = [i for i in intervals if i.excludes_one]
    chosen = max(moved or intervals, key=lambda i: abs(i.ratio - 1.0))
    verdict: Verdict = "changed" if moved else "no-measurable-difference"
    detail = (f"median ratio {chosen.ratio:.3g} (95 % CI {chosen.low:.3g}–{chosen.high:.3g}) "
              f"vs {base.torch_build}")
    return Drift(kind="trial", item=trial, device=device, verdict=verdict, builds=builds,
                 detail=detail, interval=chosen)


def _example_drift(expectation: Expectation, device: str,
                   found: dict[str, Observation | None]) -> Drift:
    builds = tuple(found)
    item = f"{expectation.snippet} {expectation.name}"
    absent = [b for b, o in found.items() if o is None]
    if absent:
        return Drift(kind="example", item=item, device=device, verdict="missing", builds=builds,
                     detail=f"not observed in {', '.join(absent)}")
    seen = {b: o for b, o in found.items() if o is not None}
    if len(seen) == 1:
        return Drift(kind="example", item=item, device=device, verdict="single-build",
                     builds=builds, detail=f"only {builds[0]} is recorded on {device}")
    holds = {b: compare(expectation, o).holds for b, o in seen.items()}
    if len(set(holds.values())) > 1:
        failing = [b for b, ok in holds.items() if not ok]
        return Drift(kind="example", item=item, device=device, verdict="failing", builds=builds,
                     detail=f"the analytic expectation fails in {', '.join(failing)} only")
    first, *rest = seen.values()
    if all((o.kind, o.value, o.dtype) == (first.kind, first.value, first.dtype) for o in rest):
        return Drift(kind="example", item=item, device=device, verdict="identical", builds=builds)
    if first.kind in ("number", "tensor", "sequence"):
        against_first = replace(expectation, value=first.value, raises="")
        if all(compare(against_first, o).holds for o in rest):
            return Drift(kind="example", item=item, device=device, verdict="within-tolerance",
                         builds=builds, detail="values differ within the analytic tolerance")
    values = "; ".join(f"{b}: {o.value!r}"[:80] for b, o in seen.items())
    return Drift(kind="example", item=item, device=device, verdict="changed", builds=builds,
                 detail=values)


def drift_report(records: Records, expectations: list[Expectation],
                 trials: list[str]) -> list[Drift]:
    """Every example expectation and every trial, per device key, classified; a device
    with one recorded build reads ``single-build`` (nothing to compare it with)."""
    by_device: dict[str, list[DeviceRecord]] = {}
    for record in records.items:  # already ordered by torch version
        by_device.setdefault(record.device_key, []).append(record)
    found: list[Drift] = []
    for device, items in sorted(by_device.items()):
        if any(r.observations for r in items):
            observed = [r for r in items if r.observations]
            for expectation in expectations:
                found.append(_example_drift(expectation, device, {
                    r.torch_build: r.observation(expectation.snippet, expectation.name)
                    for r in observed}))
        with_rows = [r for r in items if r.rows]
        recorded = {row.trial for r in with_rows for row in r.rows}
        found += [trial_drift(t, device, with_rows) for t in trials if t in recorded]
    return found
