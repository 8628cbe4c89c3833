"""The drift page's worked example in words: one real trial's run summaries, the
pairwise ratios the interval is read from, and why the verdict follows, per language.
The figures come in already formatted (:mod:`harness.views.drift` reads them from the
records); this module only puts them in sentences. No torch import.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["Worked", "worked_text"]


@dataclass(frozen=True, kw_only=True)
class Worked:
    """The figures of one worked example, formatted for the page's language."""

    label: str
    base: str
    other: str
    n1: int
    """Runs of the reference."""
    n2: int
    runs1: str
    """The reference's run summaries, with their unit."""
    runs2: str
    pairs: int
    """n1·n2: the ratios between each run of one build and each run of the other."""
    k: int
    """The rank of the run interval's ends among the sorted ratios (from each end)."""
    runs_low: str
    runs_high: str
    """The run interval, before the drift between windows widens it to low–high."""
    window: str
    """w, the drift between two windows of one build (a standard deviation, in %)."""
    point: str
    low: str
    high: str
    confidence: str
    verdict: str
    margin: str
    noise: str = ""
    speed: str = ""


_TEXT = {
    "es": {
        "steps": ("Fila «{label}»: las {n1} ejecuciones de {base} se resumen en {runs1} y las "
                  "{n2} de {other}, en {runs2}. Se dividen cada una de {other} entre cada una "
                  "de {base}: {pairs} cocientes, cuya mediana, {point}, estima el cociente. "
                  "Del {k}.º menor al {k}.º mayor va el intervalo de las ejecuciones, "
                  "{runs_low}–{runs_high} (lo garantiza el recuento exacto de Mann-Whitney); "
                  "ensanchado con la deriva entre ventanas ({window}), queda en {low}–{high}, "
                  "que contiene el cociente verdadero al menos el {confidence} de las veces. "),
        "changed": ("Excluye el 1 y el ruido del control ({noise}): el veredicto es «cambió»; "
                    "{other} es {speed}."),
        "no-measurable-difference": ("El intervalo al 90 % cae dentro de ±{margin}: el "
                                     "veredicto es «sin diferencia medible»."),
        "inconclusive": ("Ni excluye a la vez el 1 y el ruido del control ({noise}) ni cae "
                         "dentro de ±{margin}: el veredicto es «no concluyente»."),
    },
    "en": {
        "steps": ("Row “{label}”: the {n1} runs of {base} are summarised as {runs1} and the "
                  "{n2} of {other} as {runs2}. Each run of {other} is divided by each of "
                  "{base}: {pairs} ratios, whose median, {point}, estimates the ratio. The "
                  "runs' interval, from the {kth} smallest ratio to the {kth} largest, is "
                  "{runs_low}–{runs_high} (the exact Mann–Whitney count guarantees it); "
                  "widened by the drift between windows ({window}), it becomes {low}–{high}, "
                  "which holds the true ratio at least {confidence} of the time. "),
        "changed": ("It excludes 1 and the control's noise ({noise}): the verdict is "
                    "“changed”; {other} is {speed}."),
        "no-measurable-difference": ("The 90% interval lies within ±{margin}: the verdict "
                                     "is “no measurable difference”."),
        "inconclusive": ("It neither excludes both 1 and the control's noise ({noise}) nor "
                         "lies within ±{margin}: the verdict is “inconclusive”."),
    },
}


def worked_text(worked: Worked, lang: str) -> str:
    """The worked example as text; its parts arrive escaped, the sentences add none."""
    text = _TEXT[lang]
    return (text["steps"] + text[worked.verdict]).format(**asdict(worked),
                                                         kth=_ordinal_en(worked.k))


def _ordinal_en(k: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st."""
    last = 0 if 10 <= k % 100 <= 20 else k % 10
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(last, 'th')}"
