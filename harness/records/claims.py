"""What each claim predicate reads from the records (see :mod:`harness.sources.claims`).

A predicate returns the values the records show, sorted, or ``None`` when there is
nothing to read (the claim then reads «sin medición»); it raises :class:`Undecided` when
there are rows to read but too few to decide (the claim then says why). A claim with
``expect`` holds when the two are equal as sets. No torch import.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from harness.core.errors import HarnessError, suggest
from harness.core.rows import TrialRow
from harness.core.types import DEVICE_TYPES, DTYPES, TASKS, TrialSpec
from harness.records.drift import control_shifts, machine, summaries
from harness.records.drift_stats import change_interval, runs_needed, window_noise
from harness.records.store import Records
from harness.sources.claims import Claim

__all__ = ["Undecided", "evaluate"]


class Undecided(Exception):
    """The records hold rows for a claim, too few to decide it (the message says why); the
    page reads «sin veredicto», which its home page defines."""


Predicate = Callable[[Records, dict[str, TrialSpec], dict[str, str]], tuple[str, ...] | None]


def _example_devices(records: Records, specs: dict[str, TrialSpec],
                     args: dict[str, str]) -> tuple[str, ...] | None:
    """The device types of the sets that hold observed example outputs."""
    return tuple(sorted({r.device_type for r in records.items if r.observations})) or None


def _same_work(spec: TrialSpec, other: TrialSpec) -> bool:
    """Whether ``other`` is ``spec``'s work in another dtype."""
    fields = ("group", "task", "shape", "batch", "threads", "workload")
    return other.name != spec.name and all(getattr(other, f) == getattr(spec, f) for f in fields)


def _faster_on(records: Records, specs: dict[str, TrialSpec], args: dict[str, str], *,
               passing: bool) -> tuple[str, ...] | None:
    """Each dtype (with the sizes) whose row is faster than the ``than`` row of the same
    work in a record of the device: the exact interval of the ratio of their run summaries,
    widened by the drift between recording windows (the drift report's rule, Bonferroni
    over every pair compared in the record), lies below 1. A dtype that is its own quality
    reference never counts as passing (its error is 0 by construction)."""
    on_device = [r for r in records.items if r.device_type == args["device"] and r.rows]
    if not on_device:
        return None
    found: dict[str, list[str]] = {}
    for record in on_device:
        pairs: list[tuple[TrialSpec, TrialRow, TrialRow]] = []
        for row in record.rows:
            spec = specs.get(row.trial)
            if spec is None or spec.dtype == args["than"] or row.latency is None or row.error:
                continue
            if row.quality_pass != passing or (passing and spec.dtype == spec.reference_dtype):
                continue
            for other in specs.values():
                if other.dtype != args["than"] or not _same_work(spec, other):
                    continue
                base = record.row(other.name)
                # Two rows measured on different processors compare machines, not dtypes.
                if (base is not None and base.latency is not None and not base.error
                        and machine(record, base) == machine(record, row)):
                    pairs.append((spec, row, base))
        # Two trials are two recording windows, as two builds are: the same widening.
        window = window_noise(control_shifts(record))
        for spec, row, base in pairs:
            faster, slower = (s.cpu or s.wall for s in (summaries(record, row),
                                                         summaries(record, base)))
            if window is None:  # no control rows: the drift between windows is unknown
                raise Undecided(f"torch {record.torch_build} has no control rows")
            if min(len(faster), len(slower)) < runs_needed(len(pairs)):
                raise Undecided(f"torch {record.torch_build} has rows with fewer than "
                                f"{runs_needed(len(pairs))} runs")
            interval = change_interval(slower, faster, comparisons=len(pairs), window=window)
            if interval is not None and interval.high < 1.0:
                found.setdefault(spec.dtype, []).append(row.shape.replace("x", "×"))
    # () is a reading: none was faster. Each value names its sizes.
    return tuple(sorted(f"{d} ({', '.join(dict.fromkeys(s))})" for d, s in found.items()))


def _trial_setting(records: Records, specs: dict[str, TrialSpec],
                   args: dict[str, str]) -> tuple[str, ...] | None:
    spec = specs.get(args["trial"])
    if spec is None:
        raise HarnessError(f"no trial {args['trial']!r} in trials/trials.toml")
    if args["field"] not in TrialSpec.__dataclass_fields__ or args["field"] == "location":
        raise HarnessError(f"trial {spec.name!r} has no setting {args['field']!r}")
    value = getattr(spec, args["field"])
    return tuple(map(str, value)) if isinstance(value, tuple) else (str(value),)


#: Largest latency ratio between a group's slowest and fastest rows that reads «flat»:
#: the claims' sentences say it in words («ninguno tarda la mitad más que otro»), and a
#: test holds them to it (tests/unit/test_claims.py).
FLAT_RATIO = 1.5


def _latency_flat(records: Records, specs: dict[str, TrialSpec],
                  args: dict[str, str]) -> tuple[str, ...] | None:
    """``("flat",)`` when, in every record of the device, the group's rows of the task
    (its batch sizes) stay within :data:`FLAT_RATIO` of each other; ``("grows",)`` else.
    Rows measured on different processors are never compared."""
    spreads = []
    for record in (r for r in records.items if r.device_type == args["device"]):
        latencies: dict[str, list[float]] = {}
        for row in record.rows:
            spec = specs.get(row.trial)
            if (row.latency and not row.error and spec is not None
                    and spec.group == args["group"] and spec.task == args["task"]):
                latencies.setdefault(machine(record, row), []).append(row.latency)
        spreads += [max(found) / min(found) for found in latencies.values() if len(found) >= 2]
    if not spreads:
        return None
    return ("flat",) if max(spreads) <= FLAT_RATIO else ("grows",)


_PREDICATES: dict[str, Predicate] = {
    "example-devices": _example_devices,
    "faster-passing": partial(_faster_on, passing=True),
    "faster-failing": partial(_faster_on, passing=False),
    "trial-setting": _trial_setting,
    "latency-flat": _latency_flat,
}


def evaluate(claim: Claim, records: Records, specs: dict[str, TrialSpec]) -> tuple[str, ...] | None:
    """What ``claim``'s predicate reads in the records (None: nothing recorded to read); a bad
    argument names the claim's line and the valid names."""
    known = {"device": DEVICE_TYPES, "than": DTYPES, "task": TASKS}
    if specs:  # the trials' own names, where trials.toml was read
        known |= {"trial": tuple(specs),
                  "group": tuple(dict.fromkeys(s.group for s in specs.values()))}
    for key, value in claim.args.items():
        if value not in known.get(key, (value,)):
            raise HarnessError(f"{claim.location}: {key} = {value!r} names no {key} the "
                               f"harness knows.{suggest(value, known[key])}")
    try:
        return _PREDICATES[claim.predicate](records, specs, claim.args)
    except HarnessError as exc:
        raise HarnessError(f"{claim.location}: {exc}") from None
