"""The machine a trial runs on: device selection, synchronize, peak memory, and the
description a record keeps of where it was made. torch (2.6 or later) is imported inside
functions; before ``torch.accelerator.memory`` (about 2.9) the backend's module stands in.
"""

from __future__ import annotations

import ctypes
import datetime
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.types import Environment
from harness.run.peaks import cpu_info, cpu_peak, gpu_peak, own_cores

__all__ = ["describe", "device_name", "memory_method", "memory_module",
           "peak_memory", "reset_peak_memory", "select", "synchronize", "timing_events"]

#: On a CPU the peak is VmHWM, the resident high-water mark, reset to the current RSS by
#: writing ``5`` to ``/proc/self/clear_refs`` (tracemalloc does not see torch's allocator;
#: a sample of RSS misses the peak); glibc's malloc_trim(0) first returns freed pages a
#: trial would reuse uncounted. Methods are codes the pages word (``memory_method_<code>``).
CPU_MEMORY_METHOD = "vmhwm-reset"
_CPU_FALLBACK_METHOD = "vmhwm-since-start"
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")
#: CPU flags worth recording: the ones that decide which kernels and peaks apply.
_RELEVANT_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_bf16",
                   "avx512_fp16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_fp16",
                   "amx_int8", "asimd", "sve", "bf16")


def select(device_type: str) -> Any:
    """``torch.device`` for ``device_type`` or a HarnessError listing the usable ones."""
    import torch

    found = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    usable = ["cpu"] + ([found.type] if found is not None else [])
    if device_type not in usable:
        raise HarnessError(
            f"device {device_type!r} is not available with torch {torch.__version__} on this "
            f"machine; available: {', '.join(usable)}."
        )
    return torch.device(device_type)


def device_name(device: Any) -> str:
    """A human name: the CPU model from /proc/cpuinfo, or the accelerator's name."""
    if device.type == "cpu":
        info = cpu_info()
        return (info.get("model name") or info.get("Model") or platform.processor()
                or platform.machine())
    if device.type == "mps":
        return "Apple MPS"
    import torch

    backend: Any = getattr(torch, device.type, None)
    if hasattr(backend, "get_device_name"):
        return str(backend.get_device_name(device))
    return str(device.type)


def synchronize(device: Any) -> None:
    """Wait until queued work on ``device`` is done; a no-op on the CPU."""
    if device.type != "cpu":
        import torch

        torch.accelerator.synchronize()


def timing_events(device: Any) -> tuple[Any, Any]:
    """A (start, end) pair of events that time work on the device itself."""
    import torch

    if device.type == "cpu":
        raise HarnessError("device events need an accelerator; on a CPU the host clock is exact")
    return (torch.Event(device=device, enable_timing=True),
            torch.Event(device=device, enable_timing=True))


def _status_bytes(field: str) -> int:
    for line in _STATUS.read_text(encoding="utf-8").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise HarnessError(f"{_STATUS} has no {field} line")


def memory_module(device: Any) -> Any:
    """The module that counts an accelerator's allocator (``None`` on a CPU)."""
    if device.type == "cpu":
        return None
    import torch

    memory = getattr(getattr(torch, "accelerator", None), "memory", None)
    if memory is not None and hasattr(memory, "reset_peak_memory_stats"):
        return memory
    return getattr(torch, device.type, None)


def memory_method(device: Any) -> str:
    """What :func:`peak_memory` reports on ``device`` (recorded with every row)."""
    if device.type == "cpu":
        # A query, not a write: whether the reset in reset_peak_memory can work here.
        return CPU_MEMORY_METHOD if os.access(_CLEAR_REFS, os.W_OK) else _CPU_FALLBACK_METHOD
    if device.type == "mps":
        return "mps-allocated"
    return "max-memory-allocated"


def reset_peak_memory(device: Any) -> int:
    """Start a peak measurement; returns the baseline to subtract later."""
    if device.type == "cpu":
        try:
            ctypes.CDLL(None).malloc_trim(0)  # glibc only; elsewhere the symbol is missing
        except (OSError, AttributeError):
            pass
        try:
            _CLEAR_REFS.write_text("5")
        except OSError:
            pass  # memory_method() has already named the weaker method
        return _status_bytes("VmRSS")
    import torch

    synchronize(device)
    if device.type == "mps":
        return int(torch.mps.current_allocated_memory())
    module = memory_module(device)
    module.reset_peak_memory_stats()
    return int(module.memory_allocated())


def peak_memory(device: Any, baseline: int) -> int:
    """Peak bytes above ``baseline`` since :func:`reset_peak_memory`."""
    if device.type == "cpu":
        return max(0, _status_bytes("VmHWM") - baseline)
    import torch

    synchronize(device)
    if device.type == "mps":
        return max(0, int(torch.mps.current_allocated_memory()) - baseline)
    return max(0, int(memory_module(device).max_memory_allocated()) - baseline)


def _run(command: list[str], cwd: Path | None = None) -> str:
    """The command's output; "" when it is missing (FileNotFoundError) or fails."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def describe(device: Any, *, key: str, threads: int | None = None, root: Path | None = None,
             extra: dict[str, Any] | None = None, run_id: str = "") -> Environment:
    """The environment of a record made on ``device`` by trials using ``threads`` (torch's
    intra-op default when None: no trial set one); ``key`` is the store's device key (a later
    layer), the session (``HARNESS_RECORD_SESSION``) names a recording job that several
    interleaved builds share."""
    import torch

    name = device_name(device)
    info = cpu_info()
    present = set(info.get("flags", info.get("Features", "")).split())
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
        threads=torch.get_num_threads() if threads is None else threads,
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        torch_git=getattr(torch.version, "git_version", "") or "",
        cuda=(torch.version.cuda or "") if device.type == "cuda" else "",
        driver=(_run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
                .split("\n")[0] if device.type == "cuda" else ""),
        cpu_model=device_name(torch.device("cpu")),
        cpu_flags=tuple(f for f in _RELEVANT_FLAGS if f in present),
        repo_commit=_run(["git", "rev-parse", "HEAD"], cwd=root) if root else "",
        peak=peak,
        peak_source=source,
        run_id=run_id,
        cpu_id=cpu.cpu_id,
        microarchitecture=cpu.microarchitecture,
        max_clock_hz=cpu.max_clock_hz,
        max_clock_source=cpu.max_clock_source,
        session=os.environ.get("HARNESS_RECORD_SESSION", ""),
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
