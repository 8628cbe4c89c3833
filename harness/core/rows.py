"""One measured trial as a typed value, from the timer to the page. Standard library only.

CSV exists only at the store's edge (:mod:`harness.records.store`). The record's columns
are ``TrialRow``'s fields, declared once (order, cell kind from the type, required when
there is no default, range and help in ``column(...)``); :data:`COLUMNS` derives from them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.core.errors import Location

__all__ = ["ARTICLE_COLUMNS", "COLUMNS", "CSV_HEADER", "NOISY_IQR_OVER_MEDIAN", "Column",
           "TrialRow"]

#: A row whose IQR exceeds this fraction of its median is flagged ``noisy``.
NOISY_IQR_OVER_MEDIAN = 0.1

CellKind = Literal["text", "int", "float", "bool", "floats"]
#: A field's annotation (as written; annotations are strings here) → its cell kind.
_KINDS: dict[str, CellKind] = {
    "str": "text", "int": "int", "int | None": "int", "float": "float",
    "float | None": "float", "bool": "bool", "tuple[float, ...]": "floats",
}


@dataclass(frozen=True, kw_only=True)
class Column:
    name: str
    kind: CellKind
    required: bool = False
    """An empty cell is an error; otherwise it means ``default`` ("not measured")."""
    positive: bool = False
    """A number here must be above zero (a time or a rate of zero is not a measurement,
    and a log scale cannot place it)."""
    default: Any = None


def column(help: str, *, positive: bool = False) -> dict[str, Any]:
    """The metadata that makes a ``TrialRow`` field a record column, ``help`` saying what it
    holds with its unit: ``field(metadata=column(...))`` (plain ``field``, so type checkers
    still see which fields are required)."""
    return {"help": help, "positive": positive}


@dataclass(frozen=True, kw_only=True)
class TrialRow:
    """One trial's measurement. ``None`` means "not measured" (a phase failed first).

    The fields are the record's columns, in the header's order; the first nine are
    the columns the article «Medir PyTorch» asks for (:data:`ARTICLE_COLUMNS`).
    """

    trial: str = field(metadata=column("trial name (trials/trials.toml)"))
    torch_build: str = field(metadata=column("torch.__version__"))
    device: str = field(metadata=column("device key: cpu, cuda-nvidia-h200…"))
    dtype: str = field(metadata=column("torch dtype name"))
    shape: str = field(metadata=column("e.g. 1024x1024, or scalar"))
    batch: int = field(metadata=column("items per call"))
    latency: float | None = field(
        default=None, metadata=column("steady-state median per call, seconds", positive=True))
    memory: int | None = field(
        default=None, metadata=column("peak memory above the baseline, bytes"))
    quality_pass: bool = field(
        default=False, metadata=column("error ≤ tolerance (false on any error)"))
    task: str = field(metadata=column("compute, inference, training…"))
    threads: int = field(metadata=column("CPU threads the trial ran with"))
    repeats: int | None = field(default=None, metadata=column("timed blocks behind the median"))
    latency_iqr_s: float | None = field(
        default=None, metadata=column("interquartile range of the blocks, s"))
    iqr_over_median: float | None = field(default=None, metadata=column("IQR / median"))
    noisy: bool = field(default=False, metadata=column("IQR / median above 10 %"))
    load_s: float | None = field(
        default=None, metadata=column("building inputs or model, seconds"))
    first_call_s: float | None = field(default=None, metadata=column("first call, seconds"))
    throughput: float | None = field(
        default=None, metadata=column("FLOP/s, samples/s or calls/s", positive=True))
    throughput_unit: str = field(default="", metadata=column("FLOP/s, samples/s or calls/s"))
    peak_fraction: float | None = field(
        default=None, metadata=column("throughput / theoretical peak"))
    """``None`` where no peak is known, or where the fraction would exceed 1 (the peak
    is then not a bound for this run, and the page says the peak is unknown)."""
    quality_error: float | None = field(
        default=None, metadata=column("relative error vs the reference"))
    tolerance: float = field(metadata=column("largest accepted error"))
    memory_method: str = field(default="", metadata=column("how memory was measured"))
    synchronized: bool = field(metadata=column("the clock waited for the device"))
    spec_sha256: str = field(metadata=column("hash of the trial's declaration and workload source"))
    error: str = field(default="", metadata=column("the exception, if a phase failed"))
    samples_s: tuple[float, ...] = field(default=(), metadata=column(
        "per-block mean time per call, seconds, space-separated", positive=True))
    number_per_run: int | None = field(default=None, metadata=column("calls per timed block"))
    run_id: str = field(
        metadata=column("the recording run (its environment is in <device>.env.json)"))
    location: Location | None = field(default=None, compare=False)
    """Where the row sits in its record file (``None`` before it is stored); not a column."""

    @property
    def key(self) -> tuple[str, int]:
        """A record holds one row per (trial, threads)."""
        return (self.trial, self.threads)

    @property
    def failed(self) -> bool:
        """An error or a quality failure: never presented as a result to copy."""
        return bool(self.error) or not self.quality_pass


def _columns() -> tuple[Column, ...]:
    found = []
    for f in dataclasses.fields(TrialRow):
        if "help" not in f.metadata:
            continue  # bookkeeping such as ``location``
        kind = _KINDS.get(str(f.type))
        if kind is None:
            raise TypeError(f"TrialRow.{f.name}: no cell kind for {f.type!r}; add it to _KINDS")
        required = f.default is dataclasses.MISSING
        found.append(Column(name=f.name, kind=kind, required=required,
                            positive=f.metadata["positive"],
                            default=None if required else f.default))
    return tuple(found)


COLUMNS: tuple[Column, ...] = _columns()
CSV_HEADER: tuple[str, ...] = tuple(c.name for c in COLUMNS)
#: The columns the article «Medir PyTorch» asks for, in its order: the header's first nine
#: (trial … quality_pass).
ARTICLE_COLUMNS: tuple[str, ...] = CSV_HEADER[:9]
