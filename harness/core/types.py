"""Frozen value types shared by every layer. Standard library only.

Two kinds of knowledge never merge here: an :class:`Expectation` is derived by
hand (value, tolerance, derivation in words); an :class:`Observation` is what a
run produced (value, torch build, device, dtype, date, snippet hash).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import Location

__all__ = [
    "DEVICE_TYPES",
    "DTYPES",
    "TASKS",
    "ARTICLE_COLUMNS",
    "CSV_HEADER",
    "Environment",
    "Expectation",
    "Observation",
    "Row",
    "Snippet",
    "TrialSpec",
]

#: Device types a record or a trial may name; the first part of a device key.
DEVICE_TYPES: tuple[str, ...] = ("cpu", "cuda", "mps", "xpu")
#: What a trial measures.
TASKS: tuple[str, ...] = ("compute", "gradients", "inference", "training")
#: dtype names as spelled after ``torch.``; float8 is accepted so a trial can show an
#: unsupported dtype failing as a row rather than being refused.
DTYPES: tuple[str, ...] = (
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "float8_e4m3fn",
    "float8_e5m2",
)

#: The columns the article «Medir PyTorch» asks for, in its order.
ARTICLE_COLUMNS: tuple[str, ...] = (
    "trial",
    "torch_build",
    "device",
    "dtype",
    "shape",
    "batch",
    "latency",
    "memory",
    "quality_pass",
)

#: The full header of a measurement record (``results/<build>/<device>.csv``).
#: Units: ``latency`` is the steady-state median in seconds, ``memory`` the peak
#: in bytes; every ``*_s`` column is seconds. The only place this header lives.
CSV_HEADER: tuple[str, ...] = ARTICLE_COLUMNS + (
    "task",
    "threads",
    "repeats",
    "latency_iqr_s",
    "iqr_over_median",
    "noisy",
    "load_s",
    "first_call_s",
    "throughput",
    "throughput_unit",
    "peak_fraction",
    "quality_error",
    "tolerance",
    "memory_method",
    "synchronized",
    "spec_sha256",
    "error",
)

@dataclass(frozen=True, kw_only=True)
class Snippet:
    id: str
    """Path under ``snippets/`` without the suffix, e.g. ``que-es-pytorch/derivada_cuadrado``."""
    path: Path
    """Absolute path of the file."""
    sha256: str
    """Hash of the file's bytes: a record made from other bytes is stale."""

    @property
    def language(self) -> str:
        return self.path.suffix.lstrip(".")


@dataclass(frozen=True, kw_only=True)
class Expectation:
    snippet: str
    """Snippet id the expectation is about."""
    name: str
    """A name the snippet defines, optionally followed by attributes: ``x.grad``."""
    value: Any
    """Expected value: number, bool, text, nested list of numbers; ``None`` for ``none = true``."""
    derivation: str
    """How the value was derived by hand, in Spanish."""
    rtol: float | None = None
    """Relative tolerance; ``None`` takes the observed dtype's default."""
    atol: float | None = None
    """Absolute tolerance; ``None`` takes the observed dtype's default."""
    derivation_en: str = ""
    """The derivation in English, for the English edition."""
    location: Location
    """Where the expectation is declared."""


@dataclass(frozen=True, kw_only=True)
class Observation:
    snippet: str
    name: str
    kind: str
    """One of ``none``, ``bool``, ``number``, ``tensor``, ``sequence``, ``text``, ``error``."""
    value: Any
    """JSON-able value: what the run produced (``None`` for kind none, message for error)."""
    dtype: str | None = None
    device: str | None = None
    shape: tuple[int, ...] | None = None
    torch_build: str = ""
    device_key: str = ""
    """The record file it belongs to (``cpu``, ``cuda-nvidia-h200``...)."""
    date: str = ""
    snippet_sha256: str = ""
    holds: bool | None = None
    """Whether the analytic expectation held at record time (``None``: not compared)."""


@dataclass(frozen=True, kw_only=True)
class TrialSpec:
    """A fixed piece of work, declared as data (``harness/trials.toml``)."""

    name: str
    workload: str
    """Key of the workload function in :mod:`harness.workloads`."""
    task: str
    """``inference``, ``training``, ``gradients`` or ``compute``."""
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
    devices: tuple[str, ...] = ("cpu", "cuda", "mps", "xpu")
    params: dict[str, Any] = field(default_factory=dict)
    location: Location | None = None


@dataclass(frozen=True, kw_only=True)
class Row:
    """One measurement record row; ``values`` is keyed by :data:`CSV_HEADER`."""

    values: dict[str, str]
    location: Location

    def __getitem__(self, key: str) -> str:
        return self.values[key]


@dataclass(frozen=True, kw_only=True)
class Environment:
    torch_build: str
    device_key: str
    device_name: str
    python: str
    platform: str
    threads: int
    date: str
    torch_git: str = ""
    cuda: str = ""
    driver: str = ""
    cpu_model: str = ""
    cpu_flags: tuple[str, ...] = ()
    repo_commit: str = ""
    peak: dict[str, float] = field(default_factory=dict)
    """Theoretical peak per dtype, FLOP/s."""
    peak_source: str = ""
    """How :attr:`peak` was obtained (measured clock and ISA, or the device's specification)."""
    extra: dict[str, Any] = field(default_factory=dict)
