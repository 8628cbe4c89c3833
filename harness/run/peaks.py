"""Theoretical peak FLOP/s of a device: the ceiling a row's throughput is a
fraction of. Standard library only, so it is testable without torch.

A CPU's peak is its maximum clock × FLOP per cycle per core × the row's threads.
Both factors must be right for this exact machine, or no fraction is published
(:func:`harness.core.peak_rule.peak_gaps`):

- FLOP per cycle depends on the microarchitecture, not the vendor or the ISA flags:
  Zen 4 and Zen 5 both report ``avx512f``, but Zen 4 runs a 512-bit FMA as two
  256-bit halves (32 float32 FLOP/cycle) and Zen 5 has two full 512-bit FMA pipes
  (64). The core is identified by vendor, family and model (x86) or implementer and
  part (Arm) and looked up in :data:`MICROARCHITECTURES`, whose every entry cites its
  source. A core that is not there has no peak.
- The clock is the maximum the operating system reports (cpufreq's
  ``cpuinfo_max_freq``) from a driver whose maximum includes boost clocks. The
  nominal ``cpu MHz`` of ``/proc/cpuinfo`` is never used: a Zen 5 VM shows 2.60 GHz
  there and runs at about 4.2.

Accelerator peaks come from the vendors' datasheets (:data:`GPU_SPECS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.core.peak_rule import trusted_clock
from harness.core.types import Environment
from harness.run.peak_tables import GPU_SPECS, MICROARCHITECTURES, Microarchitecture

__all__ = [
    "CpuPeak", "bounded_fraction", "cpu_id", "cpu_info", "cpu_peak", "gpu_peak",
    "max_clock", "microarchitecture", "own_cores", "parse_cpuinfo", "peak_for",
]

_CPUINFO = Path("/proc/cpuinfo")
_SYS_CPU = Path("/sys/devices/system/cpu")


def parse_cpuinfo(text: str) -> dict[str, str]:
    """The first processor's ``key: value`` lines of a ``/proc/cpuinfo`` text."""
    info: dict[str, str] = {}
    for line in text.strip().split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    return info


def cpu_info() -> dict[str, str]:
    """This machine's :func:`parse_cpuinfo`; empty where ``/proc/cpuinfo`` is unreadable."""
    try:
        return parse_cpuinfo(_CPUINFO.read_text(encoding="utf-8"))
    except OSError:
        return {}


def _number(text: str) -> int | None:
    try:
        return int(text, 0)  # Arm writes 0x41; x86 writes decimal
    except ValueError:
        return None


def cpu_id(info: dict[str, str]) -> str:
    """How the vendor numbers the core: ``AuthenticAMD family 26 model 0x02``,
    ``ARM implementer 0x41 part 0xd0c``; empty when the lines are missing."""
    vendor, family, model = (info.get(k, "") for k in ("vendor_id", "cpu family", "model"))
    if vendor and _number(family) is not None and _number(model) is not None:
        return f"{vendor} family {_number(family)} model {_number(model):#04x}"
    implementer, part = _number(info.get("CPU implementer", "")), _number(
        info.get("CPU part", ""))
    if implementer is not None and part is not None:
        return f"ARM implementer {implementer:#04x} part {part:#05x}"
    return ""


def own_cores(info: dict[str, str]) -> bool:
    """Whether every logical CPU is a core of its own: no hypervisor (whose vCPUs may be
    one host core's SMT siblings) and, on x86, as many siblings as cores. Neoverse cores
    have no SMT."""
    if "hypervisor" in info.get("flags", "").split():
        return False
    if "siblings" in info or "cpu cores" in info:
        return bool(info.get("siblings")) and info.get("siblings") == info.get("cpu cores")
    return "CPU implementer" in info


def microarchitecture(identity: str) -> Microarchitecture | None:
    """The table's entry for a :func:`cpu_id`, or ``None``."""
    words = identity.split()
    if len(words) != 5:
        return None
    vendor, first, second = words[0], int(words[2], 0), int(words[4], 0)
    for entry in MICROARCHITECTURES:
        if entry.vendor == vendor and entry.family == first and any(
                low <= second <= high for low, high in entry.models):
            return entry
    return None


def max_clock(sys_cpu: Path = _SYS_CPU) -> tuple[float, str, str]:
    """``(Hz, source, why not)``: the OS's maximum clock of cpu0 and where it was read,
    or ``(0, "", reason)`` when cpufreq gives none or a driver that hides boost."""
    folder = sys_cpu / "cpu0" / "cpufreq"
    try:
        khz = int((folder / "cpuinfo_max_freq").read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return 0.0, "", "no cpufreq cpuinfo_max_freq"
    try:
        driver = (folder / "scaling_driver").read_text(encoding="ascii").strip()
    except OSError:
        driver = ""
    try:
        boost: str | None = (sys_cpu / "cpufreq" / "boost").read_text(encoding="ascii")
    except OSError:
        boost = None
    if not trusted_clock(driver=driver, boost=boost):
        return 0.0, "", f"cpufreq driver {driver or 'unknown'} may hide boost clocks"
    return khz * 1e3, f"cpufreq cpuinfo_max_freq ({driver or 'boost off'})", ""


@dataclass(frozen=True, kw_only=True)
class CpuPeak:
    """What a CPU record needs to publish (or refuse) fractions of peak."""

    peak: dict[str, float] = field(default_factory=dict)
    """Per core, FLOP/s by dtype; empty when the rule refuses a peak."""
    source: str
    cpu_id: str = ""
    microarchitecture: str = ""
    max_clock_hz: float = 0.0
    max_clock_source: str = ""


def cpu_peak(*, cpuinfo: str | None = None, sys_cpu: Path = _SYS_CPU) -> CpuPeak:
    """This CPU's per-core peak by dtype, or none with the reasons spelled out.

    ``cpuinfo`` (a ``/proc/cpuinfo`` text) and ``sys_cpu`` (the ``/sys/devices/system/cpu``
    folder) default to this machine's; tests pass samples.
    """
    info = parse_cpuinfo(cpuinfo) if cpuinfo is not None else cpu_info()
    identity = cpu_id(info)
    entry = microarchitecture(identity) if identity else None
    clock, clock_source, no_clock = max_clock(sys_cpu)
    found = CpuPeak(source="", cpu_id=identity, microarchitecture=entry.name if entry else "",
                    max_clock_hz=clock, max_clock_source=clock_source)
    missing = [] if entry else [f"microarchitecture without table ({identity or 'unidentified'})"]
    missing += [no_clock] if no_clock else []
    if entry is None or missing:
        return replace(found, source="no theoretical peak: " + "; ".join(missing))
    peak = {dtype: clock * flop for dtype, flop in entry.flop_per_cycle.items()}
    listed = ", ".join(f"{d} {f:g}" for d, f in sorted(entry.flop_per_cycle.items()))
    source = (f"CPU, per core: {clock / 1e9:.2f} GHz ({clock_source}) × FLOP/cycle {{{listed}}} "
              f"({entry.name}: {entry.source}); a row's peak is this × the threads it used")
    return replace(found, peak=peak, source=source)


def gpu_peak(name: str) -> tuple[dict[str, float], str]:
    """The datasheet peaks of the first :data:`GPU_SPECS` entry whose every word is in
    ``name``; none for a device the table does not name."""
    words = set(re.split(r"[^a-z0-9]+", name.lower()))
    for needle, peak, source in GPU_SPECS:
        if set(needle.lower().split()) <= words:
            return dict(peak), source
    return {}, (f"no specification known for {name!r}; add it to GPU_SPECS in "
                "harness/run/peak_tables.py")


def peak_for(environment: Environment, dtype: str, threads: int) -> float | None:
    """Peak for a row: CPU peaks are per core and scale with the row's threads when each
    thread has a core of its own (:attr:`Environment.own_cores`); accelerator peaks do
    not scale."""
    peak = environment.peak.get(dtype)
    if not peak:
        return None
    if environment.device_key != "cpu":
        return peak
    return peak * threads if threads == 1 or environment.own_cores else None


def bounded_fraction(throughput: float, peak: float | None) -> float | None:
    """``throughput / peak``, or ``None`` (peak unknown) where no peak is known or the
    fraction would exceed 1: a theoretical peak that a run beats is no bound."""
    if not peak or throughput > peak:
        return None
    return throughput / peak
