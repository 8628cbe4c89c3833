"""Device selection, the backend's documented synchronize, and peak memory.

torch is imported inside functions. ``torch.accelerator`` exists since torch
2.6 and ``torch.accelerator.memory`` since about 2.9, so each is used only
after ``hasattr`` says it is there, with the per-backend module as fallback.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError

__all__ = [
    "CPU_MEMORY_METHOD",
    "available_types",
    "device_name",
    "memory_method",
    "peak_memory",
    "reset_peak_memory",
    "select",
    "synchronize",
    "timing_events",
]

#: VmHWM is the process's resident high-water mark; writing ``5`` to
#: ``/proc/self/clear_refs`` resets it to the current RSS, so the peak of one
#: trial is readable in a process that ran others before. tracemalloc would not
#: see torch's allocator, and a point sample of RSS would miss the peak. glibc's
#: malloc_trim(0) first returns freed heap pages, which a trial would otherwise
#: reuse without raising RSS (and so without being counted).
#: The memory methods are recorded as codes; the pages word them (harness/text/*.toml,
#: ``memory_method_<code>``).
CPU_MEMORY_METHOD = "vmhwm-reset"
_CPU_FALLBACK_METHOD = "vmhwm-since-start"
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _backend(device_type: str) -> Any:
    import torch

    return getattr(torch, device_type, None)


def available_types() -> list[str]:
    """Device types this torch build can use on this machine."""
    import torch

    found = ["cpu"]
    for name in ("cuda", "mps", "xpu"):
        module = getattr(torch.backends, name, None) if name == "mps" else _backend(name)
        try:
            if module is not None and module.is_available():
                found.append(name)
        except (RuntimeError, AttributeError):  # a backend compiled out reports by raising
            continue
    return found


def select(device_type: str) -> Any:
    """``torch.device`` for ``device_type`` or a HarnessError listing the usable ones."""
    import torch

    usable = available_types()
    if device_type not in usable:
        raise HarnessError(
            f"device {device_type!r} is not available with torch {torch.__version__} on this "
            f"machine; available: {', '.join(usable)}."
        )
    return torch.device(device_type)


def device_name(device: Any) -> str:
    """A human name: the CPU model from /proc/cpuinfo, or the accelerator's name."""
    if device.type == "cpu":
        import platform

        try:
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
                if line.startswith(("model name", "Model")):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or platform.machine()
    if device.type == "mps":
        return "Apple MPS"
    backend = _backend(device.type)
    return (
        str(backend.get_device_name(device)) if hasattr(backend, "get_device_name") else device.type
    )


def synchronize(device: Any) -> None:
    """Wait until queued work on ``device`` is done; a no-op on the CPU."""
    if device.type == "cpu":
        return
    import torch

    if hasattr(torch, "accelerator") and hasattr(torch.accelerator, "synchronize"):
        torch.accelerator.synchronize()
    else:
        _backend(device.type).synchronize()


def timing_events(device: Any) -> tuple[Any, Any]:
    """A (start, end) pair of events that time work on the device itself.

    ``torch.Event`` (torch 2.4 and later) is the device-generic form; before it, the
    backend's own ``Event`` class. A CPU has no device clock: its operations finish
    before they return, so the host clock is the device's there.
    """
    import torch

    if device.type == "cpu":
        raise HarnessError("device events need an accelerator; on a CPU the host clock is exact")
    if hasattr(torch, "Event"):
        return (torch.Event(device=device, enable_timing=True),
                torch.Event(device=device, enable_timing=True))
    backend = _backend(device.type)
    return backend.Event(enable_timing=True), backend.Event(enable_timing=True)


def _status_bytes(field: str) -> int:
    for line in _STATUS.read_text(encoding="utf-8").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise HarnessError(f"{_STATUS} has no {field} line")


def _memory_module(device_type: str) -> Any:
    import torch

    accelerator = getattr(torch, "accelerator", None)
    memory = getattr(accelerator, "memory", None)
    if memory is not None and hasattr(memory, "reset_peak_memory_stats"):
        return memory
    return _backend(device_type)


def memory_method(device: Any) -> str:
    """What :func:`peak_memory` reports on ``device`` (recorded with every row)."""
    if device.type == "cpu":
        # A query, not a write: whether the reset in reset_peak_memory can work here.
        return CPU_MEMORY_METHOD if os.access(_CLEAR_REFS, os.W_OK) else _CPU_FALLBACK_METHOD
    if device.type == "mps":
        return "mps-allocated"
    return "max-memory-allocated"


def _trim_heap() -> None:
    try:
        ctypes.CDLL(None).malloc_trim(0)  # glibc only; elsewhere the symbol is missing
    except (OSError, AttributeError):
        pass


def reset_peak_memory(device: Any) -> int:
    """Start a peak measurement; returns the baseline to subtract later."""
    if device.type == "cpu":
        _trim_heap()
        try:
            _CLEAR_REFS.write_text("5")
        except OSError:
            pass  # memory_method() has already named the weaker method
        return _status_bytes("VmRSS")
    import torch

    synchronize(device)
    if device.type == "mps":
        return int(torch.mps.current_allocated_memory())
    module = _memory_module(device.type)
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
    return max(0, int(_memory_module(device.type).max_memory_allocated()) - baseline)
