"""What each claim predicate reads from the records (see :mod:`harness.sources.claims`).

A predicate returns the values the records show, sorted, or ``None`` when there is
nothing to read (the claim then reads «sin medición»). A claim with ``expect`` holds
when the two are equal: a set compared with a set, so the order a contributor writes
them in does not matter. No torch import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.core.errors import HarnessError
from harness.core.types import TrialSpec
from harness.records.store import DeviceRecord, Records
from harness.sources.claims import Claim

__all__ = ["Evaluation", "evaluate"]


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    claim: Claim
    values: tuple[str, ...] | None
    """What the records show; None: nothing recorded to read."""

    @property
    def holds(self) -> bool:
        """Whether the sentence is true of the records (a generated one always is)."""
        if self.claim.expect is None or self.values is None:
            return True
        return set(self.values) == set(self.claim.expect)


def _sorted(values: set[str]) -> tuple[str, ...] | None:
    return tuple(sorted(values)) if values else None


def _example_devices(records: Records, specs: dict[str, TrialSpec],
                     args: dict[str, str]) -> tuple[str, ...] | None:
    return _sorted({r.device_type for r in records.items if r.observations})


def _trial_devices(records: Records, specs: dict[str, TrialSpec],
                   args: dict[str, str]) -> tuple[str, ...] | None:
    return _sorted({r.device_type for r in records.items if r.rows})


def _same_work(spec: TrialSpec, other: TrialSpec) -> bool:
    """Whether ``other`` is ``spec``'s work in another dtype (group, task, shape, batch,
    threads and workload equal)."""
    return (other.group, other.task, other.shape, other.batch, other.threads,
            other.workload) == (spec.group, spec.task, spec.shape, spec.batch, spec.threads,
                                spec.workload) and other.name != spec.name


def _faster(record: DeviceRecord, specs: dict[str, TrialSpec], than: str,
            passing: bool) -> set[str]:
    """dtypes whose row beats the ``than`` row of the same work in ``record``."""
    found: set[str] = set()
    for row in record.rows:
        spec = specs.get(row.trial)
        if spec is None or spec.dtype == than or row.latency is None or row.error:
            continue
        if row.quality_pass != passing:
            continue
        for other in specs.values():
            if other.dtype != than or not _same_work(spec, other):
                continue
            base = record.row(other.name)
            if base is not None and base.latency is not None and not base.error \
                    and row.latency < base.latency:
                found.add(spec.dtype)
    return found


def _faster_on(passing: bool) -> Callable[[Records, dict[str, TrialSpec], dict[str, str]],
                                           tuple[str, ...] | None]:
    def read(records: Records, specs: dict[str, TrialSpec],
             args: dict[str, str]) -> tuple[str, ...] | None:
        on_device = [r for r in records.items if r.device_type == args["device"] and r.rows]
        if not on_device:
            return None
        found = set().union(*(_faster(r, specs, args["than"], passing) for r in on_device))
        return tuple(sorted(found))  # () is a reading: none was faster

    return read


def _trial_setting(records: Records, specs: dict[str, TrialSpec],
                   args: dict[str, str]) -> tuple[str, ...] | None:
    spec = specs.get(args["trial"])
    if spec is None:
        raise HarnessError(f"no trial {args['trial']!r} in harness/trials.toml")
    if args["field"] not in TrialSpec.__dataclass_fields__ or args["field"] == "location":
        raise HarnessError(f"trial {spec.name!r} has no setting {args['field']!r}")
    value = getattr(spec, args["field"])
    if isinstance(value, tuple):
        return tuple(str(v) for v in value)
    return (str(value),)


#: Largest latency ratio between a group's slowest and fastest rows that reads «flat».
FLAT_RATIO = 1.5


def _latency_flat(records: Records, specs: dict[str, TrialSpec],
                  args: dict[str, str]) -> tuple[str, ...] | None:
    """``("flat",)`` when, in every record of the device, the group's rows of the task
    (its batch sizes) stay within :data:`FLAT_RATIO` of each other; ``("grows",)`` else."""
    spreads = []
    for record in records.items:
        if record.device_type != args["device"]:
            continue
        latencies = [r.latency for r in record.rows if r.latency and not r.error
                     and (s := specs.get(r.trial)) is not None
                     and s.group == args["group"] and s.task == args["task"]]
        if len(latencies) >= 2:
            spreads.append(max(latencies) / min(latencies))
    if not spreads:
        return None
    return ("flat",) if max(spreads) <= FLAT_RATIO else ("grows",)


_PREDICATES = {
    "example-devices": _example_devices,
    "trial-devices": _trial_devices,
    "faster-passing": _faster_on(passing=True),
    "faster-failing": _faster_on(passing=False),
    "trial-setting": _trial_setting,
    "latency-flat": _latency_flat,
}


def evaluate(claim: Claim, records: Records, specs: dict[str, TrialSpec]) -> Evaluation:
    """Read ``claim``'s predicate from ``records``; a bad argument names the claim's line."""
    try:
        values = _PREDICATES[claim.predicate](records, specs, claim.args)
    except HarnessError as exc:
        raise HarnessError(f"{claim.location}: {exc}") from None
    return Evaluation(claim=claim, values=values)
