"""The drift report's words and sentences, per language: verdicts (with their plural
for the summary), details and the notes on how the builds were recorded. Numbers
take the page's decimal separator. :mod:`harness.text.words` merges
:data:`DRIFT_WORDS` into its table. No torch import.
"""

from __future__ import annotations

from harness.text.numbers import decimal

__all__ = ["DRIFT_WORDS", "drift_detail", "percent_band", "verdict_count"]

DRIFT_WORDS: dict[str, dict[str, str]] = {
    "es": {
        "drift_identical": "idéntico",
        "drift_within-tolerance": "dentro de la tolerancia analítica",
        "drift_changed": "cambió",
        "drift_failing": "falla en una versión",
        "drift_missing": "falta en una versión",
        "drift_no-measurable-difference": "sin diferencia medible",
        "drift_inconclusive": "no concluyente",
        "drift_other-hardware": "otro procesador: no comparable",
        "drift_single-build": "una sola versión registrada",
        "drift_item": "Elemento",
        "drift_device": "Registro",
        "drift_verdict": "Veredicto",
        "drift_detail": "Detalle",
        "drift_examples": "Ejemplos observados",
        "drift_trials": "Ensayos medidos",
        "drift_builds": "Versiones comparadas",
        "drift_summary": "Resumen",
        "drift_setup": "Cómo se registraron",
        "drift_one_session": "{builds}: registradas en una misma sesión (un trabajo, una máquina)",
        "drift_sessions": ("{builds}: registradas en sesiones distintas, quizá en máquinas "
                           "distintas: cada diferencia mezcla torch y máquina"),
        "drift_variants": "las versiones difieren también en la variante de la rueda ({variants})",
        "drift_floor": ("suelo de ruido ±{floor} (control: {controls} frente a sí misma); una "
                        "diferencia dentro de él se lee «sin diferencia medible»"),
        "drift_no_floor": "sin control: ruido desconocido",
        "drift_min_blocks": ("un veredicto sobre tiempos necesita al menos {n} bloques por "
                             "versión; con menos, «no concluyente»"),
    },
    "en": {
        "drift_identical": "identical",
        "drift_within-tolerance": "within the analytic tolerance",
        "drift_changed": "changed",
        "drift_failing": "fails in one build",
        "drift_missing": "missing in one build",
        "drift_no-measurable-difference": "no measurable difference",
        "drift_inconclusive": "inconclusive",
        "drift_other-hardware": "other processor: not comparable",
        "drift_single-build": "one build recorded",
        "drift_item": "Item",
        "drift_device": "Record",
        "drift_verdict": "Verdict",
        "drift_detail": "Detail",
        "drift_examples": "Observed examples",
        "drift_trials": "Measured trials",
        "drift_builds": "Builds compared",
        "drift_summary": "Summary",
        "drift_setup": "How they were recorded",
        "drift_one_session": "{builds}: recorded in one session (one job, one machine)",
        "drift_sessions": ("{builds}: recorded in different sessions, perhaps on different "
                           "machines: every difference mixes torch and machine"),
        "drift_variants": "the builds also differ in wheel variant ({variants})",
        "drift_floor": ("noise floor ±{floor} (control: {controls} against itself); a "
                        "difference inside it reads “no measurable difference”"),
        "drift_no_floor": "no control: noise unknown",
        "drift_min_blocks": ("a verdict on timings needs at least {n} blocks per build; with "
                             "fewer, “inconclusive”"),
    },
}

#: Spanish summary forms (one, many) where the verdict agrees with its count.
_SPANISH_PLURAL: dict[str, tuple[str, str]] = {
    "identical": ("idéntico", "idénticos"),
    "changed": ("cambió", "cambiaron"),
    "failing": ("falla en una versión", "fallan en una versión"),
    "missing": ("falta en una versión", "faltan en una versión"),
    "inconclusive": ("no concluyente", "no concluyentes"),
    "other-hardware": ("en otro procesador: no comparable", "en otro procesador: no comparables"),
    "single-build": ("con una sola versión registrada", "con una sola versión registrada"),
}
_ENGLISH_PLURAL: dict[str, tuple[str, str]] = {
    "failing": ("fails in one build", "fail in one build"),
    "other-hardware": ("on another processor: not comparable",
                       "on another processor: not comparable"),
    "single-build": ("with one build recorded", "with one build recorded"),
}


def verdict_count(verdict: str, count: int, lang: str) -> str:
    """``20 cambiaron``, ``1 cambió``, ``63 idénticos``: a count that agrees."""
    forms = (_SPANISH_PLURAL if lang == "es" else _ENGLISH_PLURAL).get(verdict)
    text = forms[count != 1] if forms else DRIFT_WORDS[lang][f"drift_{verdict}"]
    return f"{count} {text}"


def _listed(items: tuple[str, ...], lang: str) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {'y' if lang == 'es' else 'and'} {items[-1]}"


def _ratio(lang: str, other: str, base: str, ratio: tuple[float, float, float]) -> str:
    point, low, high = (decimal(v, lang) for v in ratio)
    if lang == "es":
        return f"{other} tarda {point}× lo de {base} (intervalo {low}–{high})"
    return f"{other} takes {point}× the time of {base} (interval {low}–{high})"


def percent_band(floor: float, lang: str) -> str:
    """A noise floor factor (≥ 1) as ``4,2 %``."""
    return f"{decimal((floor - 1) * 100, lang, digits=2)} %"


def drift_detail(lang: str, *, kind: str, verdict: str, builds: tuple[str, ...],
                 named: tuple[str, ...], other: str, device: str, blocks: tuple[int, ...],
                 min_blocks: int, ratio: tuple[float, float, float] | None,
                 floor: float | None) -> str:
    """One drift item's detail in ``lang``; empty when the verdict says it all."""
    es = lang == "es"
    names = _listed(named, lang)
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
    if verdict == "inconclusive":
        counts = _listed(tuple(f"{n} ({b})" for n, b in zip(blocks, builds, strict=True)), lang)
        return (f"bloques por versión: {counts}; un veredicto necesita {min_blocks}" if es
                else f"blocks per build: {counts}; a verdict needs {min_blocks}")
    if ratio is None:
        return ""
    text = _ratio(lang, other, builds[0], ratio)
    low, high = ratio[1], ratio[2]
    if verdict == "no-measurable-difference" and floor is not None and (high < 1 or low > 1):
        band = percent_band(floor, lang)
        text += f"; dentro del ruido (±{band})" if es else f"; inside the noise (±{band})"
    return text
