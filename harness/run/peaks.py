"""Theoretical peak FLOP/s of a device: the ceiling a row's throughput is a
fraction of. Standard library only, so it is testable without torch.

CPU peaks are clock × FLOP per cycle per core for the detected vector ISA ×
threads; accelerator peaks come from the vendors' datasheets.
"""

from __future__ import annotations

from pathlib import Path

from harness.core.types import Environment

__all__ = [
    "GPU_SPECS", "bounded_fraction", "cpu_info", "cpu_peak", "flop_per_cycle", "gpu_peak",
    "peak_for",
]


#: Dense (no sparsity) tensor-core/vector peaks, FLOP/s, from the vendors' datasheets.
#: Matched as a substring of the device name, first match wins (PCIe before SXM).
GPU_SPECS: tuple[tuple[str, dict[str, float], str], ...] = (
    (
        "H200",
        {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12, "float64": 67e12},
        "NVIDIA H200 datasheet, dense (no sparsity); float32 without TF32",
    ),
    (
        "H100 PCIe",
        {"bfloat16": 756e12, "float16": 756e12, "float32": 51e12, "float64": 51e12},
        "NVIDIA H100 PCIe datasheet, dense (no sparsity); float32 without TF32",
    ),
    (
        "H100",
        {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12, "float64": 67e12},
        "NVIDIA H100 SXM datasheet, dense (no sparsity); float32 without TF32",
    ),
    (
        "A100",
        {"bfloat16": 312e12, "float16": 312e12, "float32": 19.5e12, "float64": 19.5e12},
        "NVIDIA A100 datasheet, dense (no sparsity); float32 without TF32",
    ),
)


def cpu_info() -> dict[str, str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return {}
    info: dict[str, str] = {}
    for line in text.split("\n\n")[0].splitlines():  # the first processor is enough
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    return info


def flop_per_cycle(vendor: str, flags: set[str]) -> tuple[dict[str, float], str]:
    """FLOP per cycle per core by dtype for the detected ISA, and why."""
    if "avx512f" in flags:
        # Intel server cores have two 512-bit FMA units; AMD Zen 4 runs 512-bit
        # instructions on two 256-bit pipes, which halves the width.
        fp32 = 64.0 if vendor == "GenuineIntel" else 32.0
        why = f"AVX-512 FMA, {'2 × 512-bit' if fp32 == 64 else '2 × 256-bit'} units"
    elif {"avx2", "fma"} <= flags:
        fp32, why = 32.0, "AVX2 FMA, 2 × 256-bit units"
    elif "asimd" in flags:
        fp32, why = 16.0, "NEON FMA, 2 × 128-bit units assumed"
    else:
        return {}, "no FMA vector ISA recognised"
    per = {"float32": fp32, "float64": fp32 / 2, "bfloat16": fp32}
    if "amx_bf16" in flags:
        per["bfloat16"], why = 1024.0, why + "; bfloat16 on AMX (Intel: 1024 BF16 FLOP/cycle)"
    elif "avx512_bf16" in flags:
        per["bfloat16"], why = (
            2 * fp32,
            why + "; bfloat16 via AVX512_BF16 dot products (2× float32)",
        )
    if "amx_fp16" in flags:
        per["float16"], why = 1024.0, why + "; float16 on AMX"
    elif "avx512_fp16" in flags:
        per["float16"], why = 2 * fp32, why + "; float16 via AVX512_FP16 (2× float32)"
    return per, why


def cpu_peak() -> tuple[dict[str, float], str]:
    """Per-core peak: clock × FLOP/cycle, with the reasoning spelled out.

    The clock is the highest one the CPU reports (cpufreq's ``cpuinfo_max_freq``), so
    the peak bounds every run. Where only the nominal clock is visible (a VM's
    ``cpu MHz``), turbo may exceed it: the peak is kept as stated, and any row that
    would exceed it reads "peak unknown" (:func:`bounded_fraction`).
    """
    info = cpu_info()
    flags = set(info.get("flags", info.get("Features", "")).split())
    per_cycle, why = flop_per_cycle(info.get("vendor_id", ""), flags)
    clock, clock_source = 0.0, ""
    max_freq = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    if max_freq.exists():
        clock = int(max_freq.read_text()) * 1e3
        clock_source = "cpufreq cpuinfo_max_freq, an upper bound"
    elif info.get("cpu MHz"):
        clock = float(info["cpu MHz"]) * 1e6
        clock_source = "'cpu MHz' of /proc/cpuinfo: nominal; turbo, if any, is not visible"
    if not per_cycle or not clock:
        return {}, f"no theoretical peak: {why if not per_cycle else 'clock unknown'}"
    peak = {dtype: clock * flop for dtype, flop in per_cycle.items()}
    listed = ", ".join(f"{d} {f:g}" for d, f in sorted(per_cycle.items()))
    source = (
        f"CPU, per core: {clock / 1e9:.2f} GHz ({clock_source}) × FLOP/cycle {{{listed}}} "
        f"({why}); a row's peak is this × the threads it used"
    )
    return peak, source


def gpu_peak(name: str) -> tuple[dict[str, float], str]:
    for needle, peak, source in GPU_SPECS:
        if needle.lower() in name.lower():
            return dict(peak), source
    return {}, f"no specification known for {name!r}; add it to GPU_SPECS in harness/run/peaks.py"


def peak_for(environment: Environment, dtype: str, threads: int) -> float | None:
    """Peak for a row: CPU peaks are per core and scale with the row's threads;
    accelerator peaks do not."""
    peak = environment.peak.get(dtype)
    if not peak:
        return None
    return peak * threads if environment.device_key == "cpu" else peak


def bounded_fraction(throughput: float, peak: float | None) -> float | None:
    """``throughput / peak``, or ``None`` (peak unknown) where no peak is known or the
    fraction would exceed 1: a theoretical peak that a run beats is no bound."""
    if not peak or throughput > peak:
        return None
    return throughput / peak
