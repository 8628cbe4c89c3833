"""Frozen value types shared by every layer. Standard library only.

Two kinds of knowledge never merge here: an :class:`Expectation` is derived by
hand (value, tolerance, derivation in words); an :class:`Observation` is what a
run produced (value, torch build, device, dtype, date, snippet hash).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from harness.core.errors import Location

__all__ = ["DEVICE_TYPES", "DTYPES", "OBSERVATION_KINDS", "TASKS", "TRIAL_CLOCKS",
           "TRIAL_RELATIONS", "Environment", "Expectation", "Observation", "ObservationKind",
           "Snippet", "TrialExpectation", "TrialSpec", "Unchecked", "Work"]

#: Device types a record or a trial may name; the first part of a device key.
DEVICE_TYPES: tuple[str, ...] = ("cpu", "cuda", "mps", "xpu")
#: What an observation holds. ``error``: the snippet raised where it should not;
#: ``exception``: a caught exception object the snippet bound to a name on purpose.
ObservationKind = Literal[
    "none", "bool", "number", "tensor", "sequence", "text", "exception", "error"]
OBSERVATION_KINDS: tuple[str, ...] = get_args(ObservationKind)
#: What a trial measures.
TASKS: tuple[str, ...] = ("compute", "gradients", "inference", "training")
#: dtype names as spelled after ``torch.``; float8 is accepted so a trial can show an
#: unsupported dtype failing as a row rather than being refused.
DTYPES: tuple[str, ...] = (
    "bfloat16", "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2")


@dataclass(frozen=True, kw_only=True)
class Snippet:
    id: str
    """Path under ``snippets/`` without the suffix: ``que-es-pytorch/derivada_cuadrado``."""
    path: Path
    sha256: str
    """Hash of the file's text: a record made from other text is stale."""

    @property
    def language(self) -> str:
        return self.path.suffix.lstrip(".")


@dataclass(frozen=True, kw_only=True)
class Expectation:
    snippet: str
    name: str
    """A name the snippet defines, optionally followed by attributes: ``x.grad``."""
    value: Any
    """Expected value: number, bool, text, nested list of numbers; ``None`` for ``none = true``."""
    derivation: str
    """How the value was derived by hand, in Spanish."""
    rtol: float | None = None
    """Tolerances; ``None`` takes the observed dtype's default."""
    atol: float | None = None
    derivation_en: str = ""
    raises: str = ""
    """For a caught exception: its type name (or a base class's); ``value`` is then unused."""
    message: str = ""
    """For a caught exception: a stable substring of its message."""
    known_failure: str = ""
    """Why this expectation is known not to hold (shown on the page); empty when it must hold."""
    tolerance_reason: str = ""
    """Why a tolerance above the harness's bound (rtol 0.1, atol 1) still checks something."""
    location: Location


@dataclass(frozen=True, kw_only=True)
class Unchecked:
    """A snippet with nothing to derive by hand, declared with the reason."""

    snippet: str
    reason: str
    """Why there is no analytic expectation, in Spanish (shown on the page)."""
    reason_en: str = ""
    location: Location


@dataclass(frozen=True, kw_only=True)
class Observation:
    snippet: str
    name: str
    kind: ObservationKind
    value: Any
    """What the run produced, as JSON (``None``; an error's message; ``{"type", "types",
    "message"}`` for an exception). No verdict is stored: pages and checks compare it
    with the expectation as it is now."""
    dtype: str | None = None
    device: str | None = None
    shape: tuple[int, ...] | None = None
    torch_build: str = ""
    device_key: str = ""
    """The record file it belongs to (``cpu``, ``cuda-nvidia-h200``...)."""
    date: str = ""
    snippet_sha256: str = ""
    run_id: str = ""
    """The recording run (its environment is kept under this id)."""


#: How a trial with a fixed number of calls reads its clock (``params.clock``): the host
#: clock with no wait, the host clock after synchronizing, or the device's own events.
TRIAL_CLOCKS: tuple[str, ...] = ("host", "synchronized", "events")
#: How a trial's latency relates to another trial's in an analytic trial expectation.
TrialRelation = Literal["below", "within"]
TRIAL_RELATIONS: tuple[str, ...] = get_args(TrialRelation)


@dataclass(frozen=True, kw_only=True)
class TrialExpectation:
    """A claim about a trial's latency relative to another trial of the same record set,
    derived by hand (``[trial.expect]`` in ``trials/trials.toml``)."""

    relation: TrialRelation
    """``below``: latency < factor × the other's; ``within``: |latency / other's − 1| ≤ factor."""
    of: str
    """The other trial."""
    factor: float
    derivation: str
    """Why the relation must hold, in Spanish (shown on the page)."""
    derivation_en: str = ""
    known_failure: str = ""
    """Why the relation is known not to hold; empty when it must hold."""
    location: Location | None = None

    def holds(self, ratio: float) -> bool:
        """Whether ``ratio``, this trial's latency over the other's, satisfies the relation."""
        if self.relation == "below":
            return ratio < self.factor
        return abs(ratio - 1.0) <= self.factor


@dataclass(frozen=True, kw_only=True)
class TrialSpec:
    """A fixed piece of work, declared as data (``trials/trials.toml``)."""

    name: str
    workload: str
    """Name of the workload function in the site's ``trials/workloads.py``."""
    task: str
    dtype: str
    shape: tuple[int, ...]
    batch: int = 1
    threads: int = 1
    tolerance: float = 0.0
    reference_dtype: str = "float64"
    group: str = ""
    """The page table the trial belongs to."""
    quick: bool = True
    """Part of the quick (CI) record."""
    devices: tuple[str, ...] = DEVICE_TYPES
    params: dict[str, Any] = field(default_factory=dict)
    expect: TrialExpectation | None = None
    """An analytic claim about its latency; not part of what is measured (nor its hash)."""
    location: Location | None = None


@dataclass(frozen=True, kw_only=True)
class Environment:
    torch_build: str
    device_key: str
    device_name: str
    run_id: str = ""
    python: str = ""
    platform: str = ""
    threads: int = 1
    date: str = ""
    torch_git: str = ""
    cuda: str = ""
    driver: str = ""
    cpu_model: str = ""
    cpu_flags: tuple[str, ...] = ()
    repo_commit: str = ""
    peak: dict[str, float] = field(default_factory=dict)
    """Theoretical peak per dtype, FLOP/s."""
    peak_source: str = ""
    cpu_id: str = ""
    """The CPU as its vendor numbers it, e.g. ``AuthenticAMD family 26 model 0x02`` or
    ``ARM implementer 0x41 part 0xd0c``; empty in records made before it was kept."""
    microarchitecture: str = ""
    """The CPU's microarchitecture in the harness's FLOP-per-cycle table (archspec's names,
    e.g. ``zen4``); empty when the table has no entry for :attr:`cpu_id`."""
    max_clock_hz: float = 0.0
    """The CPU's maximum clock as the operating system reports it; 0 when it reports none."""
    max_clock_source: str = ""
    """Where :attr:`max_clock_hz` was read, e.g. ``cpufreq cpuinfo_max_freq (amd-pstate)``;
    empty when no trustworthy maximum was read (then no CPU fraction of peak is published)."""
    session: str = ""
    """The recording job this run belonged to: runs of several builds with the same session
    were recorded in one job on one machine, interleaved; empty when not said."""
    own_cores: bool = False
    """Every logical CPU is a core of its own (no SMT siblings, no hypervisor), so each of a
    row's threads can reach a core's peak; without it only 1-thread rows get a CPU fraction."""
    extra: dict[str, Any] = field(default_factory=dict)
    bare_loop: dict[str, Any] = field(default_factory=dict)
    """One trial's harness latency against a bare loop of the same step timed with device
    events in the same process (``record --bare-loop``): ``trial``, ``clock``, ``calls``,
    ``blocks``, ``harness_s``, ``bare_s``, ``ratio`` (harness / bare); empty when not run."""
    trials: tuple[str, ...] = ()
    """The trials this run was asked to measure on its device (every one gives a row, a
    failure included); empty in records made before it was kept, or for examples only."""
    digest: dict[str, str] = field(default_factory=dict)
    """Kept in runs recorded while a run hashed its own content; neither written nor
    trusted now (a record's origin is checked by :mod:`harness.records.provenance`)."""


@dataclass(frozen=True, kw_only=True)
class Work:
    """What a workload returns: the step to time, its quality check, its work per call."""

    step: Callable[[], object]
    error: Callable[[], float]
    """Relative error of one unit's result against the reference (in reference_dtype)."""
    flops: float = 0.0
    """Floating-point operations per call; 0 when the work is not compute-bound."""
    items: int = 0
    """Items completed per call, counted in ``items_unit`` (``samples/s`` or ``calls/s``)."""
    items_unit: str = "samples/s"
