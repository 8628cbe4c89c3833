"""The drift report's words and sentences, per language: verdicts (with their plural
for the summary), details, the counts of what is not listed, the notes on how the
builds were recorded and the chart's labels. Ratios are written by
:mod:`harness.text.ratios`. :mod:`harness.text.words` merges :data:`DRIFT_WORDS`
into its table. No torch import.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.text.numbers import compact
from harness.text.ratios import interval_texts, ratio_texts, speed_text

__all__ = ["DRIFT_WORDS", "collapsed_text", "drift_detail", "listed", "verdict_count"]

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
        "drift_verdict": "Veredicto",
        "drift_detail": "Detalle",
        "drift_example": "Ejemplo",
        "drift_examples": "Ejemplos observados",
        "drift_trials": "Ensayos medidos",
        "drift_builds": "Versiones comparadas",
        "drift_summary": "Resumen",
        "drift_setup": "Cómo se registraron",
        "drift_one_session": "{builds}: registradas en una misma sesión (un trabajo, una máquina)",
        "drift_sessions": ("{builds}: registradas en sesiones distintas, quizá en máquinas "
                           "distintas: cada diferencia mezcla torch y máquina"),
        "drift_variants": "las versiones difieren también en la variante de la rueda ({variants})",
        "drift_floor": ("control: {controls} registrada dos veces, intercalada con las demás; "
                        "cada ensayo toma su propio suelo de ruido de la diferencia entre sus "
                        "dos registros"),
        "drift_no_floor": "sin control: ruido desconocido, ningún ensayo puede leerse «cambió»",
        "drift_method": ("**Método.** La unidad es la ejecución (un proceso aparte), no el "
                         "bloque: los bloques de un mismo proceso no son independientes. Cada "
                         "versión se registra en {runs} ejecuciones; cada una se resume en la "
                         "mediana de sus {blocks} bloques, del tiempo de CPU del hilo medido "
                         "(`time.thread_time`) donde se registró y si no del tiempo de reloj; "
                         "el detalle de cada ensayo dice cuál. El intervalo del cociente es "
                         "exacto (Mann-Whitney, sin suponer una distribución: con {runs} "
                         "ejecuciones un bootstrap promete más de lo que cubre). «Cambió» "
                         "exige que el intervalo excluya el 1 y el suelo de ruido del propio "
                         "ensayo; «sin diferencia medible», una prueba de equivalencia: el "
                         "intervalo al 90 % dentro de ±{margin}, margen elegido porque "
                         "{reason}. Lo demás es «no concluyente». Con {builds} versiones, un "
                         "veredicto necesita al menos {needed} ejecuciones por versión."),
        "drift_reading": ("**Cómo leer un cociente.** La referencia de cada registro es su "
                          "versión más antigua ({references}). El cociente compara el tiempo "
                          "por ejecución de la otra versión con el de la referencia: 1 es el "
                          "mismo tiempo; por debajo de 1 la otra versión tarda menos (es más "
                          "rápida) y por encima, más. Su intervalo contiene el cociente "
                          "verdadero al menos el {confidence} de las veces."),
        "drift_against": "referencia {base}, frente a {others}",
        "drift_chart_title": "Cociente de tiempos frente a {base}, ensayo por ensayo ({device})",
        "drift_chart_axis": "cociente de tiempos (escala logarítmica)",
        "drift_faster": "← más rápido",
        "drift_slower": "más lento →",
        "drift_chart_caption": ("Cada punto es el cociente de medianas de un ensayo frente a "
                                "{base}, y su barra, su intervalo (confianza de al menos el "
                                "{confidence}); la línea vertical marca el 1 (el mismo tiempo). "
                                "Punto relleno: cambió; hueco: sin diferencia medible o no "
                                "concluyente."),
        "drift_chart_band": " La franja gris es el margen de equivalencia ({low}–{high}).",
        "drift_worked": "Ejemplo resuelto",
        "drift_no_control": "sin control",
        "drift_instructions": "Instrucciones por llamada",
        "drift_instructions_control": "Control (misma versión)",
        "drift_instructions_note": ("Instrucciones por llamada contadas con callgrind "
                                    "(`Timer.collect_callgrind` de torch sobre valgrind), para "
                                    "los ensayos pequeños de la CPU donde el recuento cabe en "
                                    "un trabajo: no dependen de la carga de la máquina, así que "
                                    "distinguen versiones donde el tiempo no puede. No son "
                                    "tiempo: una versión puede ejecutar más instrucciones y "
                                    "tardar menos (instrucciones más anchas, mejor uso de la "
                                    "caché). El control cuenta otra vez la misma versión; su "
                                    "diferencia mide la dispersión del recuento: {spread}."),
        "env_tf32": "Precisión de matmul en float32 (TF32)",
        "first_call_fresh": "1.ª llamada",
        "memory_reserved_short": "reservada",
        "env_tf32_allowed": "TF32 permitido en CUDA",
        "env_tf32_refused": "TF32 no permitido en CUDA",
        "env_tf32_unknown": "TF32 en CUDA sin registrar",
        "drift_group_matmul": "matmul",
        "drift_group_mlp": "perceptrón",
        "drift_group_threads": "hilos de CPU",
        "drift_group_sync": "muchas llamadas",
        "drift_group_sync_calls": "pocas llamadas",
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
        "drift_verdict": "Verdict",
        "drift_detail": "Detail",
        "drift_example": "Example",
        "drift_examples": "Observed examples",
        "drift_trials": "Measured trials",
        "drift_builds": "Builds compared",
        "drift_summary": "Summary",
        "drift_setup": "How they were recorded",
        "drift_one_session": "{builds}: recorded in one session (one job, one machine)",
        "drift_sessions": ("{builds}: recorded in different sessions, perhaps on different "
                           "machines: every difference mixes torch and machine"),
        "drift_variants": "the builds also differ in wheel variant ({variants})",
        "drift_floor": ("control: {controls} recorded twice, interleaved with the others; "
                        "each trial takes its own noise floor from the difference between its "
                        "two records"),
        "drift_no_floor": "no control: noise unknown, no trial can read “changed”",
        "drift_method": ("**Method.** The unit is the run (a separate process), not the "
                         "block: blocks of one process are not independent. Each build is "
                         "recorded in {runs} runs; each is summarised by the median of its "
                         "{blocks} blocks, of the timed thread's CPU time "
                         "(`time.thread_time`) where recorded and else of wall time; each "
                         "trial's detail says which. The ratio's interval is exact "
                         "(Mann–Whitney, assuming no distribution: with {runs} runs a "
                         "bootstrap promises more than it covers). “Changed” requires the "
                         "interval to exclude 1 and the trial's own noise floor; “no "
                         "measurable difference”, an equivalence test: the 90% interval inside "
                         "±{margin}, a margin chosen because {reason}. Anything else is "
                         "“inconclusive”. With {builds} builds, a verdict needs at least "
                         "{needed} runs per build."),
        "drift_reading": ("**How to read a ratio.** Each record's reference is its oldest "
                          "build ({references}). The ratio compares the other build's time per "
                          "run with the reference's: 1 is the same time; below 1 the other "
                          "build takes less time (it is faster), above 1 more. Its interval "
                          "holds the true ratio at least {confidence} of the time."),
        "drift_against": "reference {base}, against {others}",
        "drift_chart_title": "Time ratio against {base}, trial by trial ({device})",
        "drift_chart_axis": "time ratio (logarithmic scale)",
        "drift_faster": "← faster",
        "drift_slower": "slower →",
        "drift_chart_caption": ("Each dot is a trial's ratio of medians against {base}, and "
                                "its bar its interval (at least {confidence} confidence); the "
                                "vertical line marks 1 (the same time). Filled dot: changed; "
                                "hollow: no measurable difference or inconclusive."),
        "drift_chart_band": " The grey band is the equivalence margin ({low}–{high}).",
        "drift_worked": "Worked example",
        "drift_no_control": "no control",
        "drift_instructions": "Instructions per call",
        "drift_instructions_control": "Control (same build)",
        "drift_instructions_note": ("Instructions per call counted with callgrind (torch's "
                                    "`Timer.collect_callgrind` over valgrind), for the small "
                                    "CPU trials where a count fits a job: they do not depend on "
                                    "the machine's load, so they tell builds apart where time "
                                    "cannot. They are not time: a build can run more "
                                    "instructions and take less (wider instructions, better "
                                    "cache use). The control counts the same build again; its "
                                    "difference measures the count's spread: {spread}."),
        "env_tf32": "float32 matmul precision (TF32)",
        "first_call_fresh": "1st call",
        "memory_reserved_short": "reserved",
        "env_tf32_allowed": "TF32 allowed on CUDA",
        "env_tf32_refused": "TF32 not allowed on CUDA",
        "env_tf32_unknown": "TF32 on CUDA not recorded",
        "drift_group_matmul": "matmul",
        "drift_group_mlp": "perceptron",
        "drift_group_threads": "CPU threads",
        "drift_group_sync": "many calls",
        "drift_group_sync_calls": "few calls",
    },
}

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
    text = forms[count != 1] if forms else DRIFT_WORDS[lang][f"drift_{verdict}"]
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
    (point, low, high), shown_floor, _ = interval_texts(ratio, floor, lang)
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
