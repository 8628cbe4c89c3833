"""The recorder's English texts (memory method, peak source, shape words) and the
record's column names in the page's language. No torch import.

The recorder writes its environment in English, once, for every edition; a page
shows it in its own language. Known fragments are translated here; an unknown
text stays as recorded (translating it by guess would misstate a measurement).
"""

from __future__ import annotations

import re

__all__ = ["COLUMN_WORDS", "record_text"]

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


#: The record's column names and the values of «Todas las columnas», per language;
#: :mod:`harness.text.words` merges them into its table. A column's label is
#: ``column_<name>``: the record calls it by that name, and a test checks that every
#: shown column has a label and every label a shown column.
COLUMN_WORDS: dict[str, dict[str, str]] = {
    "es": {
        "column_trial": "Ensayo",
        "column_torch_build": "Versión de torch",
        "column_device": "Dispositivo (registro)",
        "column_dtype": "Tipo de dato",
        "column_shape": "Forma",
        "column_batch": "Lote",
        "column_latency": "Latencia (mediana por llamada)",
        "column_memory": "Memoria pico",
        "column_quality_pass": "Dentro de la tolerancia",
        "column_task": "Tarea",
        "column_threads": "Hilos",
        "column_repeats": "Bloques cronometrados",
        "column_latency_iqr_s": "Rango intercuartílico (IQR)",
        "column_iqr_over_median": "IQR / mediana",
        "column_noisy": "Ruidosa (IQR / mediana > 10 %)",
        "column_load_s": "Preparación de entradas o modelo",
        "column_first_call_s": "Primera llamada",
        "column_throughput": "Rendimiento",
        "column_throughput_unit": "Unidad de rendimiento",
        "column_peak_fraction": "Fracción del pico",
        "column_quality_error": "Error relativo frente a la referencia",
        "column_tolerance": "Tolerancia",
        "column_memory_method": "Medición de memoria",
        "column_synchronized": "El reloj esperó al dispositivo",
        "column_error": "Error",
        "column_number_per_run": "Llamadas por bloque",
        "answer_yes": "sí",
        "answer_no": "no",
        "not_measured": "sin medir",
        "no_error": "ninguno",
        "every_row": "En todas las filas",
    },
    "en": {
        "column_trial": "Trial",
        "column_torch_build": "torch build",
        "column_device": "Device (record)",
        "column_dtype": "Data type",
        "column_shape": "Shape",
        "column_batch": "Batch",
        "column_latency": "Latency (median per call)",
        "column_memory": "Peak memory",
        "column_quality_pass": "Within tolerance",
        "column_task": "Task",
        "column_threads": "Threads",
        "column_repeats": "Timed blocks",
        "column_latency_iqr_s": "Interquartile range (IQR)",
        "column_iqr_over_median": "IQR / median",
        "column_noisy": "Noisy (IQR / median > 10%)",
        "column_load_s": "Building inputs or model",
        "column_first_call_s": "First call",
        "column_throughput": "Throughput",
        "column_throughput_unit": "Throughput unit",
        "column_peak_fraction": "Fraction of peak",
        "column_quality_error": "Relative error vs the reference",
        "column_tolerance": "Tolerance",
        "column_memory_method": "Memory measurement",
        "column_synchronized": "Clock waited for the device",
        "column_error": "Error",
        "column_number_per_run": "Calls per block",
        "answer_yes": "yes",
        "answer_no": "no",
        "not_measured": "not measured",
        "no_error": "none",
        "every_row": "In every row",
    },
}
