"""The words of the fixed-calls clocks, the trials' analytic expectations and the bare
loop, per language; :mod:`harness.text.words` merges them into its table. No torch
import.
"""

from __future__ import annotations

__all__ = ["TIMING_WORDS"]

TIMING_WORDS: dict[str, dict[str, str]] = {
    "es": {
        "clock_host": "reloj del host sin esperar",
        "clock_synchronized": "reloj del host sincronizado",
        "clock_events": "eventos del dispositivo",
        "expectations": "Expectativas analíticas",
        "expect_below": "la latencia de {a} es menor que {factor} × la de {b}",
        "expect_within": "la latencia de {a} coincide con la de {b} dentro de un {factor}",
        "measured_ratio": "cociente medido",
        "derivation": "Derivación",
        "bare_loop": ("{trial}: el arnés mide {harness} por llamada; un bucle desnudo del mismo "
                      "paso, cronometrado con {clock} en el mismo proceso ({calls} llamadas × "
                      "{blocks} bloques), {bare}: arnés / bucle = {ratio}×"),
        "bare_clock_events": "eventos del dispositivo",
        "bare_clock_host": "el reloj del host (en una CPU cada llamada termina al volver)",
    },
    "en": {
        "clock_host": "host clock, not waiting",
        "clock_synchronized": "host clock, synchronised",
        "clock_events": "device events",
        "expectations": "Analytic expectations",
        "expect_below": "the latency of {a} is below {factor} × that of {b}",
        "expect_within": "the latency of {a} agrees with that of {b} within {factor}",
        "measured_ratio": "measured ratio",
        "derivation": "Derivation",
        "bare_loop": ("{trial}: the harness measures {harness} per call; a bare loop of the same "
                      "step, timed with {clock} in the same process ({calls} calls × {blocks} "
                      "blocks), {bare}: harness / loop = {ratio}×"),
        "bare_clock_events": "device events",
        "bare_clock_host": "the host clock (on a CPU every call has finished when it returns)",
    },
}
