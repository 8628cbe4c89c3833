"""What changed between recorded torch builds: every observed example and every trial,
classified. No torch import.

Examples, per (snippet, name) and device key, across builds: ``identical`` (same
value everywhere), ``within-tolerance`` (values differ, but each build's value is
within the analytic tolerance of the first build's), ``changed`` (outside it),
``failing`` (the expectation holds in some builds and not in others) and ``missing``.

Trials, per trial and device key: ``missing``, ``failing`` (an error or a quality
failure in some builds only), ``other-hardware`` (recorded on different processors:
timings are not comparable), and for timings the verdict of
:func:`harness.records.drift_stats.timing_verdict` on the recorded per-block samples:
``changed``, ``no-measurable-difference`` or, below
:data:`~harness.records.drift_stats.MIN_BLOCKS` blocks, ``inconclusive``. The
statistics and their proofs live in :mod:`harness.records.drift_stats`.

A comparison compares torch only if nothing else differs. Each device's
:class:`Setup` says what else does: runs not recorded in one session (one job, one
machine), different wheel variants (``+cpu`` against ``+cu130``), and the noise floor
a same-build control run (``<device>.control.csv``) measured, if there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from harness.core.compare import compare
from harness.core.rows import TrialRow
from harness.core.types import Expectation, Observation
from harness.records.drift_stats import MIN_BLOCKS, Interval, timing_verdict
from harness.records.store import DeviceRecord, Records
from harness.text.drift_words import drift_detail

__all__ = ["Drift", "Setup", "Verdict", "drift_report", "noise_floor", "setup_of",
           "trial_drift"]

Verdict = Literal["identical", "within-tolerance", "changed", "failing", "missing",
                  "no-measurable-difference", "inconclusive", "other-hardware",
                  "single-build"]


@dataclass(frozen=True, kw_only=True)
class Setup:
    """How the builds compared on one device key were recorded."""

    device: str
    builds: tuple[str, ...]
    one_session: bool
    """Every compared run names the same non-empty session: one job, one machine."""
    variants: tuple[str, ...] = ()
    """The builds' wheel variants (``cpu``, ``cu130``) when they differ; else empty."""
    floor: float | None = None
    """The largest same-build control ratio (≥ 1); ``None`` without a control run."""
    controls: tuple[str, ...] = ()
    """Builds that hold a control run."""


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
    named: tuple[str, ...] = ()
    """What the detail names: the builds missing or failing, the processors, the values."""
    other: str = ""
    """The build whose timing is compared with the first (the widest change)."""
    interval: Interval | None = None
    blocks: tuple[int, ...] = ()
    """Per-block sample counts of the builds, in :attr:`builds` order."""
    setup: Setup | None = None
    """For a trial: how its device's builds were recorded."""
    samples: tuple[tuple[float, ...], ...] = ()
    """For a timing verdict: the per-block times of the first build and of :attr:`other`
    (the page's worked example reads its medians and intervals from them)."""

    def detail_in(self, lang: str) -> str:
        """The detail in ``lang`` (plain text; escape it for a page)."""
        interval = self.interval
        return drift_detail(
            lang, kind=self.kind, verdict=self.verdict, builds=self.builds, named=self.named,
            other=self.other, device=self.device, blocks=self.blocks, min_blocks=MIN_BLOCKS,
            ratio=(interval.ratio, interval.low, interval.high) if interval else None,
            floor=self.setup.floor if self.setup else None)

    @property
    def detail(self) -> str:
        """The detail in English (the command line's text report)."""
        return self.detail_in("en")


def _variant(build: str) -> str:
    return build.partition("+")[2] or "pypi"


def noise_floor(records: list[DeviceRecord]) -> float | None:
    """The largest median ratio between a build's rows and its control run's rows of the
    same trial (as a factor ≥ 1); ``None`` when no record holds a control run."""
    ratios = []
    for record in records:
        for control in record.control_rows:
            row = record.row(control.trial)
            if row is None or not row.samples_s or not control.samples_s:
                continue
            ratio = _median(control.samples_s) / _median(row.samples_s)
            ratios.append(max(ratio, 1 / ratio))
    return max(ratios) if ratios else None


def _median(samples: tuple[float, ...]) -> float:
    ordered = sorted(samples)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def setup_of(device: str, records: list[DeviceRecord]) -> Setup:
    """What differs between ``records`` (one device key) besides torch."""
    builds = tuple(r.torch_build for r in records)
    # The runs that measured the compared timings: an examples run kept from another
    # session (its observations unchanged) measured nothing compared here.
    sessions = {r.environment_of(row.run_id).session for r in records
                for row in [*r.rows, *r.control_rows]}
    variants = tuple(dict.fromkeys(_variant(b) for b in builds))
    one_session = len(sessions) == 1 and "" not in sessions
    return Setup(device=device, builds=builds, one_session=one_session,
                 variants=variants if len(variants) > 1 else (), floor=noise_floor(records),
                 controls=tuple(r.torch_build for r in records if r.control_rows))


def _machine(record: DeviceRecord, row: TrialRow) -> str:
    """The processor a row ran on: the device, its host CPU (on an accelerator) and the
    CPU's vendor numbering where the record keeps it."""
    env = record.environment_of(row.run_id)
    host = env.cpu_model if env.cpu_model != env.device_name else ""
    return " · ".join(p for p in (env.device_name, host, env.cpu_id) if p)


def trial_drift(trial: str, device: str, records: list[DeviceRecord], *,
                setup: Setup | None = None) -> Drift:
    """The verdict for one trial across ``records`` (one device key, oldest build first)."""
    builds = tuple(r.torch_build for r in records)
    setup = setup or setup_of(device, records)
    base_drift = Drift(kind="trial", item=trial, device=device, verdict="missing",
                       builds=builds, setup=setup)
    rows = {r.torch_build: r.row(trial) for r in records}
    absent = tuple(b for b, row in rows.items() if row is None)
    if absent:
        return replace(base_drift, named=absent)
    present = [row for row in rows.values() if row is not None]
    failed = tuple(row.torch_build for row in present if row.failed)
    if failed and len(failed) < len(present):
        return replace(base_drift, verdict="failing", named=failed)
    machines = tuple(dict.fromkeys(_machine(r, row) for r, row in zip(records, present,
                                                                       strict=True)))
    if len(machines) > 1:
        return replace(base_drift, verdict="other-hardware", named=machines)
    base, *others = present
    blocks = tuple(len(row.samples_s) for row in present)
    if not others:
        return replace(base_drift, verdict="single-build")
    if 0 in blocks:
        return replace(base_drift, verdict="failing", blocks=blocks)
    # Against the first build; a change in any build decides, then an inconclusive one.
    found = [(timing_verdict(base.samples_s, o.samples_s, floor=setup.floor), o.torch_build)
             for o in others]
    rank = {"changed": 0, "inconclusive": 1, "no-measurable-difference": 2}
    (verdict, interval), other = min(found, key=lambda f: (
        rank[f[0][0]], -abs(f[0][1].ratio - 1.0) if f[0][1] else 0.0))
    compared = next(o for o in others if o.torch_build == other)
    return replace(base_drift, verdict=verdict, other=other, interval=interval, blocks=blocks,
                   samples=(base.samples_s, compared.samples_s))


def _example_drift(expectation: Expectation, device: str,
                   found: dict[str, Observation | None]) -> Drift:
    builds = tuple(found)
    item = f"{expectation.snippet} {expectation.name}"
    drift = Drift(kind="example", item=item, device=device, verdict="missing", builds=builds)
    absent = tuple(b for b, o in found.items() if o is None)
    if absent:
        return replace(drift, named=absent)
    seen = {b: o for b, o in found.items() if o is not None}
    if len(seen) == 1:
        return replace(drift, verdict="single-build")
    holds = {b: compare(expectation, o).holds for b, o in seen.items()}
    if len(set(holds.values())) > 1:
        return replace(drift, verdict="failing", named=tuple(b for b, ok in holds.items()
                                                             if not ok))
    first, *rest = seen.values()
    if all((o.kind, o.value, o.dtype) == (first.kind, first.value, first.dtype) for o in rest):
        return replace(drift, verdict="identical")
    if first.kind in ("number", "tensor", "sequence"):
        against_first = replace(expectation, value=first.value, raises="")
        if all(compare(against_first, o).holds for o in rest):
            return replace(drift, verdict="within-tolerance")
    return replace(drift, verdict="changed",
                   named=tuple(f"{b}: {o.value!r}"[:80] for b, o in seen.items()))


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
        setup = setup_of(device, with_rows)
        found += [trial_drift(t, device, with_rows, setup=setup) for t in trials
                  if t in recorded]
    return found
