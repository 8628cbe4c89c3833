"""The recorder's English texts (memory method, peak source, shape words) in the
page's language. No torch import.

The recorder writes its environment in English, once, for every edition; a page
shows it in its own language. Known fragments are translated here; an unknown
text stays as recorded (translating it by guess would misstate a measurement).
"""

from __future__ import annotations

import re

__all__ = ["record_text"]

#: (English pattern, Spanish replacement), applied in order to Spanish pages.
_SPANISH: tuple[tuple[str, str], ...] = (
    (r"max_memory_allocated - memory_allocated at reset_peak_memory_stats \(bytes\)",
     "max_memory_allocated − memory_allocated tras reset_peak_memory_stats (bytes)"),
    (r"VmHWM - VmRSS after malloc_trim\(0\) and writing 5 to /proc/self/clear_refs \(bytes\)",
     "VmHWM − VmRSS tras malloc_trim(0) y escribir 5 en /proc/self/clear_refs (bytes)"),
    (r"(.+?) datasheet, dense \(no sparsity\)", r"hoja de datos de \1, densa (sin dispersión)"),
    (r"float32 without TF32", "float32 sin TF32"),
    (r"^CPU, per core:", "CPU, por núcleo:"),
    (r"\('cpu MHz' of /proc/cpuinfo: nominal; turbo, if any, is not visible\)",
     "(«cpu MHz» de /proc/cpuinfo: nominal; el turbo, si lo hay, no se ve)"),
    (r"FLOP/cycle", "FLOP/ciclo"),
    (r"(\d+) × (\d+)-bit units", r"\1 unidades de \2 bits"),
    (r"bfloat16 via AVX512_BF16 dot products", "bfloat16 con productos escalares AVX512_BF16"),
    (r"a row's peak is this × the threads it used", "el pico de una fila es esto × sus hilos"),
    (r"^no theoretical peak: ", "sin pico teórico: "),
    (r"microarchitecture without table \(unidentified\)", "microarquitectura sin identificar"),
    (r"microarchitecture without table", "microarquitectura sin tabla"),
    (r"no cpufreq cpuinfo_max_freq",
     "sin frecuencia máxima del sistema (cpuinfo_max_freq de cpufreq)"),
    (r"cpufreq driver (\S+) may hide boost clocks",
     r"el controlador de cpufreq \1 puede ocultar las frecuencias de turbo"),
    (r"\(cpufreq cpuinfo_max_freq \(([^)]*)\)\)", r"(cpuinfo_max_freq de cpufreq, \1)"),
    (r"no specification known for '([^']*)'; add it to GPU_SPECS in (\S+)",
     r"sin hoja de datos para «\1»; añádala a GPU_SPECS en \2"),
    (r"; no float32 peak: float32 matmul precision is '(\w+)' \(TF32\)",
     r"; sin pico float32: la precisión de matmul float32 es «\1» (TF32)"),
    (r"glibc default \(dynamic\)", "valor por defecto de glibc (dinámico)"),
    (r"^scalar$", "escalar"),
    (r"(\d)\.(\d+) GHz", r"\1,\2 GHz"),
)


def record_text(text: str, lang: str) -> str:
    """``text`` (a recorder's English string) in ``lang``; unknown parts stay as written.
    The result is plain text: escape it before it reaches a page."""
    if lang != "es":
        return text
    for pattern, replacement in _SPANISH:
        text = re.sub(pattern, replacement, text)
    return text
