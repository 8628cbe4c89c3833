"""One measured trial as a typed value, from the timer to the page. Standard library only.

A :class:`TrialRow` is what a trial produced; CSV exists only at the store's
edge (:mod:`harness.records.rows`), which converts each cell with the column's
declared :class:`Column` kind and range. The column list below is the only place
the record header lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from harness.core.errors import Location

__all__ = ["ARTICLE_COLUMNS", "COLUMNS", "CSV_HEADER", "Column", "TrialRow"]

CellKind = Literal["text", "int", "float", "bool", "floats"]


@dataclass(frozen=True, kw_only=True)
class Column:
    name: str
    kind: CellKind
    required: bool = False
    """An empty cell is an error (otherwise empty means "not measured")."""
    positive: bool = False
    """A number here must be above zero (a time or a rate of zero is not a measurement,
    and a log scale cannot place it)."""
    help: str = ""
    """What the column holds, with its unit (CONTRIBUTING's column list reads this)."""


#: The columns the article «Medir PyTorch» asks for, in its order.
ARTICLE_COLUMNS: tuple[str, ...] = (
    "trial", "torch_build", "device", "dtype", "shape", "batch", "latency", "memory",
    "quality_pass",
)

COLUMNS: tuple[Column, ...] = (
    Column(name="trial", kind="text", required=True, help="trial name (harness/trials.toml)"),
    Column(name="torch_build", kind="text", required=True, help="torch.__version__"),
    Column(name="device", kind="text", required=True, help="device key: cpu, cuda-nvidia-h200…"),
    Column(name="dtype", kind="text", required=True, help="torch dtype name"),
    Column(name="shape", kind="text", required=True, help="e.g. 1024x1024, or scalar"),
    Column(name="batch", kind="int", required=True, help="items per call"),
    Column(name="latency", positive=True, kind="float",
           help="steady-state median per call, seconds"),
    Column(name="memory", kind="int", help="peak memory above the baseline, bytes"),
    Column(name="quality_pass", kind="bool", required=True,
           help="error ≤ tolerance (false on any error)"),
    Column(name="task", kind="text", required=True, help="compute, inference, training…"),
    Column(name="threads", kind="int", required=True, help="CPU threads the trial ran with"),
    Column(name="repeats", kind="int", help="timed blocks behind the median"),
    Column(name="latency_iqr_s", kind="float", help="interquartile range of the blocks, s"),
    Column(name="iqr_over_median", kind="float", help="IQR / median"),
    Column(name="noisy", kind="bool", required=True, help="IQR / median above 10 %"),
    Column(name="load_s", kind="float", help="building inputs or model, seconds"),
    Column(name="first_call_s", kind="float", help="first call, seconds"),
    Column(name="throughput", positive=True, kind="float", help="FLOP/s, samples/s or calls/s"),
    Column(name="throughput_unit", kind="text", help="FLOP/s, samples/s or calls/s"),
    Column(name="peak_fraction", kind="float", help="throughput / theoretical peak"),
    Column(name="quality_error", kind="float", help="relative error vs the reference"),
    Column(name="tolerance", kind="float", required=True, help="largest accepted error"),
    Column(name="memory_method", kind="text", help="how memory was measured"),
    Column(name="synchronized", kind="bool", required=True,
           help="the clock waited for the device"),
    Column(name="spec_sha256", kind="text", required=True,
           help="hash of the trial's declaration and workload source"),
    Column(name="error", kind="text", help="the exception, if a phase failed"),
    Column(name="samples_s", positive=True, kind="floats",
           help="per-block mean time per call, seconds, space-separated"),
    Column(name="number_per_run", kind="int", help="calls per timed block"),
    Column(name="run_id", kind="text", required=True,
           help="the recording run (its environment is in <device>.env.json)"),
)
CSV_HEADER: tuple[str, ...] = tuple(c.name for c in COLUMNS)
assert CSV_HEADER[: len(ARTICLE_COLUMNS)] == ARTICLE_COLUMNS


@dataclass(frozen=True, kw_only=True)
class TrialRow:
    """One trial's measurement. ``None`` means "not measured" (a phase failed first)."""

    trial: str
    torch_build: str
    device: str
    dtype: str
    shape: str
    batch: int
    task: str
    threads: int
    tolerance: float
    spec_sha256: str
    synchronized: bool
    run_id: str
    latency: float | None = None
    memory: int | None = None
    quality_pass: bool = False
    repeats: int | None = None
    latency_iqr_s: float | None = None
    iqr_over_median: float | None = None
    noisy: bool = False
    load_s: float | None = None
    first_call_s: float | None = None
    throughput: float | None = None
    throughput_unit: str = ""
    peak_fraction: float | None = None
    """``None`` where no peak is known, or where the fraction would exceed 1 (the peak
    is then not a bound for this run, and the page says the peak is unknown)."""
    quality_error: float | None = None
    memory_method: str = ""
    error: str = ""
    samples_s: tuple[float, ...] = ()
    number_per_run: int | None = None
    location: Location | None = field(default=None, compare=False)
    """Where the row sits in its record file (``None`` before it is stored)."""

    @property
    def key(self) -> tuple[str, int]:
        """A record holds one row per (trial, threads)."""
        return (self.trial, self.threads)

    @property
    def failed(self) -> bool:
        """An error or a quality failure: never presented as a result to copy."""
        return bool(self.error) or not self.quality_pass
