"""The drift report's words and sentences, per language: verdicts (with their plural
for the summary), details, the counts of what is not listed, the notes on how the
builds were recorded and the chart's labels. Ratios are written by
:mod:`harness.text.numbers`; single words are in the catalogues (``drift_*`` keys of
``es.toml``/``en.toml``). No torch import.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.text.numbers import compact, interval_texts, ratio_texts, speed_text
from harness.text.words import word

__all__ = ["collapsed_text", "drift_detail", "listed", "verdict_count"]


#: Summary forms (one, many) where the verdict agrees with its count.
_PLURAL: dict[str, dict[str, tuple[str, str]]] = {
    "es": {
        "identical": ("idéntico", "idénticos"),
        "changed": ("cambió", "cambiaron"),
        "failing": ("falla en una versión", "fallan en una versión"),
        "missing": ("falta en una versión", "faltan en una versión"),
        "inconclusive": ("no concluyente", "no concluyentes"),
        "other-hardware": ("en otro procesador: no comparable",
                           "en otro procesador: no comparables"),
        "single-build": ("con una sola versión registrada", "con una sola versión registrada"),
    },
    "en": {
        "failing": ("fails in one build", "fail in one build"),
        "other-hardware": ("on another processor: not comparable",
                           "on another processor: not comparable"),
        "single-build": ("with one build recorded", "with one build recorded"),
    },
}


def verdict_count(verdict: str, count: int, lang: str) -> str:
    """``20 cambiaron``, ``1 cambió``, ``63 idénticos``: a count that agrees."""
    forms = _PLURAL[lang].get(verdict)
    text = forms[count != 1] if forms else word(lang, f"drift_{verdict}")
    return f"{count} {text}"


#: (one, many) of each kind's noun with the verdicts the report counts instead of listing.
_COLLAPSED: dict[str, dict[str, tuple[str, str]]] = {
    "es": {"example identical": ("ejemplo idéntico", "ejemplos idénticos"),
           "trial identical": ("ensayo idéntico", "ensayos idénticos"),
           "example single-build": ("ejemplo observado", "ejemplos observados"),
           "trial single-build": ("ensayo medido", "ensayos medidos")},
    "en": {"example identical": ("example identical", "examples identical"),
           "trial identical": ("trial identical", "trials identical"),
           "example single-build": ("example observed", "examples observed"),
           "trial single-build": ("trial measured", "trials measured")},
}


def collapsed_text(kind: str, verdict: str, count: int, builds: Sequence[str],
                   lang: str) -> str:
    """``73 ejemplos idénticos en todas las versiones (2.6.0, 2.10.0 y 2.13.0)``, or for a
    single build ``32 ensayos medidos en una sola versión (2.11.0): nada con que
    compararlos``: the rows a reviewer need not read one by one, as one count."""
    noun = _COLLAPSED[lang][f"{kind} {verdict}"][count != 1]
    where = listed(builds, lang)
    if verdict == "identical":
        return (f"{count} {noun} en todas las versiones ({where})" if lang == "es"
                else f"{count} {noun} in every build ({where})")
    return (f"{count} {noun} en una sola versión ({where}): nada con que compararlos"
            if lang == "es" else f"{count} {noun} in one build only ({where}): nothing to "
            "compare with")


def listed(items: Sequence[str], lang: str) -> str:
    """``a, b y c`` / ``a, b and c``."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {'y' if lang == 'es' else 'and'} {items[-1]}"


def _timing(lang: str, verdict: str, other: str, base: str, ratio: tuple[float, float, float],
            floor: float | None, clock: str, margin: float) -> str:
    (point, low, high), shown_floor = interval_texts(ratio, floor, lang)
    es = lang == "es"
    time = ({"cpu": "tiempo de CPU", "wall": "tiempo de reloj"} if es
            else {"cpu": "CPU time", "wall": "wall time"})[clock]
    head = (f"{other} tarda {point}× lo de {base} en {time}" if es
            else f"{other} takes {point}× the {time} of {base}")
    interval = f"{'intervalo' if es else 'interval'} {low}–{high}"
    noise = "–".join(shown_floor) if shown_floor else ("sin control" if es else "no control")
    within = f"±{compact(margin * 100, lang)}{' %' if es else '%'}"
    if verdict == "changed":
        return (f"{head} ({speed_text(ratio[0], lang)}; {interval}, fuera del ruido {noise})"
                if es else f"{head} ({speed_text(ratio[0], lang)}; {interval}, outside the "
                f"noise {noise})")
    if verdict == "no-measurable-difference":
        return (f"{head} ({interval}; al 90 %, dentro de {within})" if es
                else f"{head} ({interval}; at 90%, within {within})")
    return (f"{head} ({interval}; ruido del control {noise}; ni un cambio fuera del ruido "
            f"ni una equivalencia dentro de {within})" if es else
            f"{head} ({interval}; control noise {noise}; neither a change outside the noise "
            f"nor an equivalence within {within})")


def drift_detail(lang: str, *, kind: str, verdict: str, builds: tuple[str, ...],
                 named: tuple[str, ...], other: str, device: str, runs: tuple[int, ...],
                 needed: int, ratio: tuple[float, float, float] | None,
                 floor: float | None, clock: str, margin: float) -> str:
    """One drift item's detail in ``lang``; empty when the verdict says it all."""
    es = lang == "es"
    names = listed(named, lang)
    if verdict == "missing":
        if kind == "trial":
            return f"sin fila en {names}" if es else f"no row in {names}"
        return f"no observado en {names}" if es else f"not observed in {names}"
    if verdict == "single-build":
        return (f"solo {builds[0]} está registrada en {device}" if es
                else f"only {builds[0]} is recorded on {device}")
    if verdict == "failing" and kind == "example":
        return (f"la expectativa analítica falla solo en {names}" if es
                else f"the analytic expectation fails in {names} only")
    if verdict == "failing":
        if not named:
            return ("sin muestras de tiempo en todas las versiones" if es
                    else "no timing samples in every build")
        return (f"falla (error o calidad) solo en {names}" if es
                else f"fails (error or quality) in {names} only")
    if verdict == "other-hardware":
        return f"registrado en {' / '.join(named)}" if es else f"recorded on {' / '.join(named)}"
    if verdict == "within-tolerance":
        return ("los valores difieren dentro de la tolerancia analítica" if es
                else "values differ within the analytic tolerance")
    if verdict == "changed" and kind == "example":
        return "; ".join(named)
    if ratio is None and verdict == "inconclusive":
        counts = listed([f"{n} ({b})" for n, b in zip(runs, builds, strict=True)], lang)
        noise = (ratio_texts([floor], lang)[0] if floor is not None
                 else ("sin control" if es else "no control"))
        return (f"ejecuciones por versión: {counts}; un veredicto necesita {needed}; suelo "
                f"de ruido del control: {noise}" if es else f"runs per build: {counts}; a "
                f"verdict needs {needed}; control noise floor: {noise}")
    if ratio is None:
        return ""
    return _timing(lang, verdict, other, builds[0], ratio, floor, clock, margin)
