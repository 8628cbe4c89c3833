"""What a record says about how it was measured, worded by the catalogues from its
codes and fields, never by translating the recorder's prose. Records made before the
codes hold the recorder's English sentence, mapped exactly to the code it meant; an
unknown text stays as recorded (a guessed translation would misstate a measurement).
Results are plain text: escape them. No torch import.
"""

from __future__ import annotations

from harness.core.peak_rule import peak_gaps
from harness.core.types import Environment
from harness.text.words import catalogue, word

__all__ = ["memory_method_text", "peak_source_text"]

#: The sentences recorders wrote before codes, and the code each one meant.
_BEFORE_CODES = {
    "VmHWM - VmRSS after malloc_trim(0) and writing 5 to /proc/self/clear_refs (bytes)":
        "vmhwm-reset",
    "VmHWM - VmRSS at start; VmHWM not resettable here, may include earlier trials":
        "vmhwm-since-start",
    "torch.mps.current_allocated_memory after the run - at reset (no peak counter)":
        "mps-allocated",
    "max_memory_allocated - memory_allocated at reset_peak_memory_stats (bytes)":
        "max-memory-allocated",
}


def memory_method_text(recorded: str, lang: str) -> str:
    """How a row's peak memory was measured, from the code the recorder wrote."""
    key = f"memory_method_{_BEFORE_CODES.get(recorded, recorded)}"
    return word(lang, key) if key in catalogue(lang) else recorded


def peak_source_text(env: Environment, lang: str) -> str:
    """Where a record's theoretical peak comes from ("" when the peak rule refuses it)."""
    if peak_gaps(env) or not env.peak:
        return ""
    if env.device_key.split("-", 1)[0] == "cpu":
        flops = ", ".join(f"{d} {v / env.max_clock_hz:g}" for d, v in sorted(env.peak.items()))
        return word(lang, "peak_source_cpu", flops=flops)
    text = word(lang, "peak_source_datasheet", device=env.device_name)
    precision = str(env.extra.get("float32_matmul_precision", "highest"))
    if precision != "highest":  # TF32: the recorder dropped the float32 peak
        text += word(lang, "peak_source_tf32", precision=precision)
    return text
