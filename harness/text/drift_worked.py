"""The drift page's worked example in words: one real trial's two medians, their
intervals, the ratio's interval and why the verdict follows, per language. The
figures come in already formatted (:mod:`harness.views.drift` reads them from the
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
    """The reference build."""
    other: str
    n1: int
    """Blocks of the reference."""
    n2: int
    m1: str
    """Median time per block of the reference, with its unit."""
    m2: str
    a1: str
    """Low end of the reference median's interval, with its unit."""
    b1: str
    a2: str
    b2: str
    k1: int
    """The 1-based ranks of the reference interval's ends among its sorted blocks."""
    j1: int
    k2: int
    j2: int
    point: str
    """The ratio of medians."""
    low: str
    high: str
    median_confidence: str
    confidence: str
    verdict: str
    """``changed`` or ``no-measurable-difference``."""
    includes_one: bool
    noise: str = ""
    """The noise band (``0,80–1,25``), when a control measured one."""
    speed: str = ""
    """How much faster or slower, for a change (``3,6× más rápido``)."""


_TEXT = {
    "es": {
        "steps": ("Fila «{label}»: {base} midió {n1} bloques, de mediana {m1}, y {other}, {n2}, "
                  "de mediana {m2}: {m2} / {m1} ≈ {point}, así que {other} tarda {point}× lo de "
                  "{base}. La mediana de {base} está entre {a1} y {b1} (sus bloques {k1}.º y "
                  "{j1}.º de menor a mayor) y la de {other}, entre {a2} y {b2} ({k2}.º y {j2}.º), "
                  "cada una con una confianza de al menos el {median_confidence}. El extremo bajo "
                  "de {other} entre el alto de {base}, {a2} / {b1} ≈ {low}, y el alto entre el "
                  "bajo, {b2} / {a1} ≈ {high}, dan el intervalo del cociente, {low}–{high}, que "
                  "contiene el cociente verdadero al menos el {confidence} de las veces. "),
        "includes": ("Incluye el 1: estos bloques no distinguen las dos versiones, y el "
                     "veredicto es «sin diferencia medible»."),
        "inside": ("Excluye el 1, pero entra en la banda de ruido ({noise}), tan ancha como "
                   "la mayor diferencia que el control midió entre una versión y ella misma: "
                   "el veredicto es «sin diferencia medible»."),
        "changed": "Excluye el 1{outside}: el veredicto es «cambió»; {other} es {speed}.",
        "outside": " y queda fuera de la banda de ruido ({noise})",
    },
    "en": {
        "steps": ("Row “{label}”: {base} measured {n1} blocks, median {m1}, and {other} {n2}, "
                  "median {m2}: {m2} / {m1} ≈ {point}, so {other} takes {point}× the time of "
                  "{base}. The median of {base} lies between {a1} and {b1} (its blocks {k1} and "
                  "{j1} in increasing order) and that of {other} between {a2} and {b2} (blocks "
                  "{k2} and {j2}), each with at least {median_confidence} confidence. The other "
                  "build's low end over the reference's high end, {a2} / {b1} ≈ {low}, and its "
                  "high end over the low end, {b2} / {a1} ≈ {high}, give the ratio's interval, "
                  "{low}–{high}, which holds the true ratio at least {confidence} of the time. "),
        "includes": ("It includes 1: these blocks do not tell the two builds apart, and the "
                     "verdict is “no measurable difference”."),
        "inside": ("It excludes 1 but reaches into the noise band ({noise}), as wide as the "
                   "largest difference the control measured between a build and itself: the "
                   "verdict is “no measurable difference”."),
        "changed": "It excludes 1{outside}: the verdict is “changed”; {other} is {speed}.",
        "outside": " and stays out of the noise band ({noise})",
    },
}


def worked_text(worked: Worked, lang: str) -> str:
    """The worked example as text; its parts arrive escaped, the sentences add none."""
    text, fields = _TEXT[lang], asdict(worked)
    if worked.includes_one:
        end = text["includes"]
    elif worked.verdict != "changed":
        end = text["inside"]
    else:
        end = text["changed"].replace(
            "{outside}", text["outside"] if worked.noise else "")
    return (text["steps"] + end).format(**fields)
