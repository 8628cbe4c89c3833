"""Describing where a record was made: torch build, device, threads, and the
theoretical peak the throughput is compared with. torch is imported inside
functions; everything else is the standard library, so this runs on a GPU
machine that has only torch.
"""

from __future__ import annotations

import datetime
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

from harness.core.types import Environment
from harness.run.devices import device_name, memory_method
from harness.run.peaks import cpu_info, cpu_peak, gpu_peak, own_cores

__all__ = ["default_threads", "describe", "torch_build"]

#: CPU flags worth recording: the ones that decide which kernels and peaks apply.
_RELEVANT_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512_bf16",
    "avx512_fp16",
    "avx512_vnni",
    "amx_tile",
    "amx_bf16",
    "amx_fp16",
    "amx_int8",
    "asimd",
    "sve",
    "bf16",
)

def torch_build() -> str:
    """The installed torch's version string, e.g. ``2.13.0+cpu``: a record set's folder."""
    import torch

    return str(torch.__version__)


def default_threads() -> int:
    """The intra-op thread count torch would use if a trial did not set one."""
    import torch

    return int(torch.get_num_threads())


def _run(command: list[str], cwd: Path | None = None) -> str:
    if shutil.which(command[0]) is None:
        return ""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _driver(torch: Any) -> str:
    found = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    if found:
        return found.splitlines()[0]
    get = getattr(torch._C, "_cuda_getDriverVersion", None)  # CUDA driver API level only
    return f"CUDA driver API {get() // 1000}.{get() % 1000 // 10}" if get else ""


def describe(
    device: Any,
    *,
    key: str,
    threads: int = 1,
    root: Path | None = None,
    session: str | None = None,
    extra: dict[str, Any] | None = None,
    run_id: str = "",
) -> Environment:
    """The environment of a record made on ``device`` by trials using ``threads``.

    ``key`` is the record's device key (``harness.records.store.device_key``); the caller
    passes it because the store sits in a later layer than this module. ``session``
    names the recording job (several builds recorded interleaved on one machine share
    it); by default it is read from the ``HARNESS_RECORD_SESSION`` environment
    variable, and is empty when that is unset.
    """
    import os

    import torch

    name = device_name(device)
    info = cpu_info()
    flags = tuple(
        f for f in _RELEVANT_FLAGS if f in set(info.get("flags", info.get("Features", "")).split())
    )
    cpu = cpu_peak()
    precision = torch.get_float32_matmul_precision()
    if device.type == "cpu":
        peak, source = cpu.peak, cpu.source
    else:
        peak, source = gpu_peak(name)
        if precision != "highest":  # TF32 runs above the float32 datasheet figure
            peak = {d: v for d, v in peak.items() if d != "float32"}
            source += f"; no float32 peak: float32 matmul precision is {precision!r} (TF32)"
    return Environment(
        torch_build=torch.__version__,
        device_key=key,
        device_name=name,
        python=platform.python_version(),
        platform=platform.platform(),
        threads=threads,
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        torch_git=getattr(torch.version, "git_version", "") or "",
        cuda=(torch.version.cuda or "") if device.type == "cuda" else "",
        driver=_driver(torch) if device.type == "cuda" else "",
        cpu_model=device_name(torch.device("cpu")),
        cpu_flags=flags,
        repo_commit=_run(["git", "rev-parse", "HEAD"], cwd=root) if root else "",
        peak=peak,
        peak_source=source,
        run_id=run_id,
        cpu_id=cpu.cpu_id,
        microarchitecture=cpu.microarchitecture,
        max_clock_hz=cpu.max_clock_hz,
        max_clock_source=cpu.max_clock_source,
        session=os.environ.get("HARNESS_RECORD_SESSION", "") if session is None else session,
        own_cores=own_cores(info),
        extra={
            "memory_method": memory_method(device),
            "float32_matmul_precision": precision,
            # Whether float32 matmuls may run as TF32 on an accelerator: a float32 row's
            # speed (and float64's lead over it on some GPUs) depends on it.
            "cuda_matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
            "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
            "torch_default_threads": torch.get_num_threads(),
            "cpu_count": os.cpu_count() or 0,
            **(extra or {}),
        },
    )
