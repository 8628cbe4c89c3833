"""Theoretical peak FLOP/s of a device, the ceiling a row's throughput is a fraction of.
Standard library only. Every table entry cites its source; a machine that is not in a
table gets no peak rather than a guess (:func:`harness.core.peak_rule.peak_gaps`).

A CPU's peak is its maximum clock × FLOP per cycle per core × the row's threads. FLOP
per cycle depends on the microarchitecture, not on ISA flags (Zen 4 and Zen 5 both
report ``avx512f``, but Zen 4 runs a 512-bit FMA as two halves: 32 float32 FLOP/cycle
against 64), so the core is looked up by vendor, family and model (x86) or implementer
and part (Arm). The clock is cpufreq's ``cpuinfo_max_freq`` from a driver whose maximum
includes boost; ``/proc/cpuinfo``'s ``cpu MHz`` is never used (a Zen 5 VM shows 2.60 GHz
there and runs at about 4.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.core.peak_rule import trusted_clock
from harness.core.types import Environment

__all__ = ["GPU_SPECS", "MICROARCHITECTURES", "CpuPeak", "Microarchitecture",
           "bounded_fraction", "cpu_id", "cpu_info", "cpu_peak", "gpu_peak", "max_clock",
           "own_cores", "parse_cpuinfo", "peak_for"]

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
    return parse_cpuinfo(_read(_CPUINFO) or "")


def _number(text: str) -> int | None:
    try:
        return int(text, 0)  # Arm writes 0x41; x86 writes decimal
    except ValueError:
        return None


def cpu_id(info: dict[str, str]) -> str:
    """``AuthenticAMD family 26 model 0x02`` or ``ARM implementer 0x41 part 0xd0c``; empty
    when the lines are missing."""
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


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def max_clock(sys_cpu: Path = _SYS_CPU) -> tuple[float, str, str]:
    """``(Hz, source, why not)``: the OS's maximum clock of cpu0 and where it was read,
    or ``(0, "", reason)`` when cpufreq gives none or a driver that hides boost."""
    folder = sys_cpu / "cpu0" / "cpufreq"
    khz, driver = _read(folder / "cpuinfo_max_freq") or "", _read(folder / "scaling_driver") or ""
    if not khz.isdigit():
        return 0.0, "", "no cpufreq cpuinfo_max_freq"
    boost = _read(sys_cpu / "cpufreq" / "boost")
    if not trusted_clock(driver=driver, boost=boost):
        return 0.0, "", f"cpufreq driver {driver or 'unknown'} may hide boost clocks"
    return int(khz) * 1e3, f"cpufreq cpuinfo_max_freq ({driver or 'boost off'})", ""


@dataclass(frozen=True, kw_only=True)
class CpuPeak:
    """A CPU's per-core peak FLOP/s by dtype (empty when refused) and where it comes from."""

    peak: dict[str, float] = field(default_factory=dict)
    source: str
    cpu_id: str = ""
    microarchitecture: str = ""
    max_clock_hz: float = 0.0
    max_clock_source: str = ""


def cpu_peak(*, cpuinfo: str | None = None, sys_cpu: Path = _SYS_CPU) -> CpuPeak:
    """This CPU's per-core peak by dtype, or none with the reasons; ``cpuinfo`` and
    ``sys_cpu`` default to this machine's ``/proc/cpuinfo`` and ``/sys/devices/system/cpu``."""
    info = parse_cpuinfo(cpuinfo) if cpuinfo is not None else cpu_info()
    identity = cpu_id(info)
    words = identity.split()  # vendor, family or implementer, model or part
    entry = next((m for m in MICROARCHITECTURES if words and m.vendor == words[0]
                  and m.family == int(words[2], 0)
                  and any(low <= int(words[4], 0) <= high for low, high in m.models)), None)
    clock, clock_source, no_clock = max_clock(sys_cpu)
    found = CpuPeak(source="", cpu_id=identity, microarchitecture=entry.name if entry else "",
                    max_clock_hz=clock, max_clock_source=clock_source)
    if entry is None or no_clock:
        table = "" if entry else f"microarchitecture without table ({identity or 'unidentified'})"
        why = "; ".join(filter(None, (table, no_clock)))
        return replace(found, source=f"no theoretical peak: {why}")
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
                "harness/run/peaks.py")


def peak_for(environment: Environment, dtype: str, threads: int) -> float | None:
    """Peak for a row: a CPU's is per core, × the row's threads when each thread has a core
    of its own (:attr:`Environment.own_cores`); an accelerator's does not scale."""
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


# The tables. FLOP per cycle counts a fused multiply-add as two. Where a dtype has no arithmetic
# of its own (float16 without AVX512_FP16, bfloat16 without a BF16 instruction), torch
# computes in float32, so the float32 rate bounds it; a dtype left out has no peak.


@dataclass(frozen=True, kw_only=True)
class Microarchitecture:
    """A core's FLOP per cycle by dtype, keyed as :func:`cpu_id` numbers it (``models``:
    inclusive ranges of ``model`` or ``CPU part``); ``name`` is archspec's."""

    name: str
    vendor: str
    family: int
    models: tuple[tuple[int, int], ...]
    flop_per_cycle: dict[str, float]
    source: str


_NO_FP16 = "no AVX512_FP16: float16 runs in float32 arithmetic, bounded by its rate"

MICROARCHITECTURES: tuple[Microarchitecture, ...] = (
    Microarchitecture(
        name="zen3", vendor="AuthenticAMD", family=25,
        models=((0x00, 0x0F), (0x20, 0x2F), (0x40, 0x5F)),
        flop_per_cycle={"float32": 32, "float64": 16, "bfloat16": 32, "float16": 32},
        source="AMD Software Optimization Guide for AMD EPYC 7003 Processors (pub. 56665): "
               "two 256-bit FMA pipes; no AVX-512, no BF16 or FP16 arithmetic (float32 bounds "
               "both)"),
    Microarchitecture(
        name="zen4", vendor="AuthenticAMD", family=25,
        models=((0x10, 0x1F), (0x60, 0x7F), (0xA0, 0xAF)),
        flop_per_cycle={"float32": 32, "float64": 16, "bfloat16": 64, "float16": 32},
        source="AMD Software Optimization Guide for the AMD Zen4 Microarchitecture (pub. "
               "57647): 512-bit instructions run as two 256-bit halves on two 256-bit FMA "
               "pipes; bfloat16 via VDPBF16PS, two products per float32 lane; "
               + _NO_FP16),
    Microarchitecture(
        # Only the full-width Zen 5 parts: EPYC 9005 (models 0x00-0x1F) and Ryzen 9000
        # desktop (0x40-0x4F). Mobile Zen 5 (0x20-0x2F, 0x60-0x7F) keeps 256-bit pipes.
        name="zen5", vendor="AuthenticAMD", family=26,
        models=((0x00, 0x1F), (0x40, 0x4F)),
        flop_per_cycle={"float32": 64, "float64": 32, "bfloat16": 128, "float16": 64},
        source="AMD Software Optimization Guide for the AMD Zen5 Microarchitecture (pub. "
               "58455): two 512-bit FMA pipes with a full 512-bit datapath on EPYC 9005 and "
               "Ryzen 9000 desktop; bfloat16 via VDPBF16PS, two products per float32 lane; "
               + _NO_FP16),
    Microarchitecture(
        # Sapphire Rapids (0x8F) and Emerald Rapids (0xCF), which archspec names alike.
        name="sapphirerapids", vendor="GenuineIntel", family=6,
        models=((0x8F, 0x8F), (0xCF, 0xCF)),
        flop_per_cycle={"float32": 64, "float64": 32, "bfloat16": 1024, "float16": 128},
        source="Intel 64 and IA-32 Architectures Optimization Reference Manual: two 512-bit "
               "FMA units per core on 4th and 5th Gen Xeon Scalable; bfloat16 on AMX "
               "(TDPBF16PS, 1024 FLOP/cycle per core); float16 via AVX512_FP16 FMA "
               "(32 lanes × 2 units)"),
    Microarchitecture(
        name="neoverse_n1", vendor="ARM", family=0x41, models=((0xD0C, 0xD0C),),
        flop_per_cycle={"float32": 16, "float64": 8, "bfloat16": 16, "float16": 32},
        source="Arm Neoverse N1 Software Optimization Guide: two 128-bit FP/ASIMD pipes "
               "(V0, V1), each issuing FMLA; FP16 arithmetic (asimdhp), no BF16 (float32 "
               "bounds it)"),
    Microarchitecture(
        name="neoverse_v1", vendor="ARM", family=0x41, models=((0xD40, 0xD40),),
        flop_per_cycle={"float32": 32, "float64": 16, "float16": 64},
        source="Arm Neoverse V1 Software Optimization Guide: four 128-bit FP/ASIMD pipes "
               "(two 256-bit SVE), each issuing FMLA; bfloat16 (BFMMLA) rate not tabulated "
               "here"),
    Microarchitecture(
        name="neoverse_v2", vendor="ARM", family=0x41, models=((0xD4F, 0xD4F),),
        flop_per_cycle={"float32": 32, "float64": 16, "float16": 64},
        source="Arm Neoverse V2 Software Optimization Guide: four 128-bit FP/ASIMD/SVE2 "
               "pipes, each issuing FMLA; bfloat16 (BFMMLA) rate not tabulated here"),
)

#: Dense (no sparsity) tensor-core/vector peaks, FLOP/s, from the vendors' datasheets.
#: An entry applies when every word of it is a word of the device name; first match
#: wins, so the NVL and PCIe variants come before the SXM part of the same name.
#: float64 is the FP64 Tensor Core figure, which DGEMM (the only FLOP-counted work)
#: reaches; float32 is without TF32 (the recorder drops it unless the precision is
#: "highest").
_HOPPER_NVL = {"bfloat16": 835e12, "float16": 835e12, "float32": 60e12, "float64": 60e12}
_HOPPER_SXM = {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12, "float64": 67e12}
_DENSE = "dense (no sparsity); float32 without TF32"
GPU_SPECS: tuple[tuple[str, dict[str, float], str], ...] = (
    ("H200 NVL", _HOPPER_NVL, f"NVIDIA H200 NVL datasheet, {_DENSE}"),
    ("H200", _HOPPER_SXM, f"NVIDIA H200 datasheet, {_DENSE}"),
    ("H100 NVL", _HOPPER_NVL, f"NVIDIA H100 NVL datasheet, {_DENSE}"),
    ("H100 PCIe",
     {"bfloat16": 756e12, "float16": 756e12, "float32": 51e12, "float64": 51e12},
     f"NVIDIA H100 PCIe datasheet, {_DENSE}"),
    ("H100", _HOPPER_SXM, f"NVIDIA H100 SXM datasheet, {_DENSE}"),
    ("A100",
     {"bfloat16": 312e12, "float16": 312e12, "float32": 19.5e12, "float64": 19.5e12},
     f"NVIDIA A100 datasheet, {_DENSE}"),
)
