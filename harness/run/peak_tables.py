"""The tables behind every theoretical peak: FLOP per cycle per core for the CPU
microarchitectures the harness knows, and accelerator datasheet peaks. Standard
library only. Every entry cites where its numbers come from; a machine that is not
here gets no peak rather than a guess.

CPU entries are keyed the way the vendor numbers its cores (x86: vendor, family
and model ranges; Arm: implementer and part, stored in ``family`` and ``models``)
and named as archspec (Spack's microarchitecture library) names them. FLOP per
cycle counts a fused multiply-add as two. Where a dtype has no arithmetic of its
own (float16 without AVX512_FP16, bfloat16 without a BF16 instruction), torch
computes in float32, so the float32 rate bounds it; a dtype left out has no peak.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GPU_SPECS", "MICROARCHITECTURES", "Microarchitecture"]


@dataclass(frozen=True, kw_only=True)
class Microarchitecture:
    name: str
    """archspec's name, e.g. ``zen4``."""
    vendor: str
    """``vendor_id`` of ``/proc/cpuinfo`` (x86), or ``ARM`` for an Arm implementer."""
    family: int
    """``cpu family`` (x86) or ``CPU implementer`` (Arm)."""
    models: tuple[tuple[int, int], ...]
    """Inclusive ranges of ``model`` (x86) or ``CPU part`` (Arm)."""
    flop_per_cycle: dict[str, float]
    """Per core, by dtype."""
    source: str
    """Where the widths come from."""


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
GPU_SPECS: tuple[tuple[str, dict[str, float], str], ...] = (
    ("H200 NVL",
     {"bfloat16": 835e12, "float16": 835e12, "float32": 60e12, "float64": 60e12},
     "NVIDIA H200 NVL datasheet, dense (no sparsity); float32 without TF32"),
    ("H200",
     {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12, "float64": 67e12},
     "NVIDIA H200 datasheet, dense (no sparsity); float32 without TF32"),
    ("H100 NVL",
     {"bfloat16": 835e12, "float16": 835e12, "float32": 60e12, "float64": 60e12},
     "NVIDIA H100 NVL datasheet, dense (no sparsity); float32 without TF32"),
    ("H100 PCIe",
     {"bfloat16": 756e12, "float16": 756e12, "float32": 51e12, "float64": 51e12},
     "NVIDIA H100 PCIe datasheet, dense (no sparsity); float32 without TF32"),
    ("H100",
     {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12, "float64": 67e12},
     "NVIDIA H100 SXM datasheet, dense (no sparsity); float32 without TF32"),
    ("A100",
     {"bfloat16": 312e12, "float16": 312e12, "float32": 19.5e12, "float64": 19.5e12},
     "NVIDIA A100 datasheet, dense (no sparsity); float32 without TF32"),
)
