"""The drift report's sentences: a verdict's count, an item's detail, the rows counted
instead of listed. Every word is in the catalogues (``drift_*`` keys); ratios are
written by :mod:`harness.text.numbers`. No torch import."""

from __future__ import annotations

from collections.abc import Sequence

from harness.text.numbers import compact, interval_texts, ratio_texts, speed_text
from harness.text.words import word

__all__ = ["collapsed_text", "drift_detail", "listed", "verdict_count"]


def verdict_count(verdict: str, count: int, lang: str) -> str:
    """``20 cambiaron``, ``1 cambió``, ``63 idénticos``: a count that agrees."""
    return f"{count} {word(lang, f'drift_{_form(count)}_{verdict}')}"


def _form(count: int) -> str:
    return "one" if count == 1 else "many"


def collapsed_text(kind: str, verdict: str, count: int, builds: Sequence[str],
                   lang: str) -> str:
    """``73 ejemplos idénticos en todas las versiones (2.6.0, 2.10.0 y 2.13.0)``, or for a
    single build ``32 ensayos medidos en una sola versión (2.11.0): nada con que
    compararlos``: the rows a reviewer need not read one by one, as one count."""
    key = f"drift_collapsed_{kind}_{verdict}_{_form(count)}"
    return word(lang, key, count=count, where=listed(builds, lang))


def listed(items: Sequence[str], lang: str, conjunction: str = "drift_and") -> str:
    """``a, b y c`` / ``a, b and c``; ``conjunction``: the catalogue key of «y»."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word(lang, conjunction)} {items[-1]}"


def _timing(lang: str, verdict: str, other: str, base: str, ratio: tuple[float, float, float],
            floor: float | None, clock: str, margin: float) -> str:
    (point, low, high), shown_floor = interval_texts(ratio, floor, lang)
    head = word(lang, "drift_detail_head", other=other, point=point, base=base,
                time=word(lang, f"drift_clock_{clock}"))
    interval = word(lang, "drift_detail_interval", low=low, high=high)
    noise = "–".join(shown_floor) if shown_floor else word(lang, "drift_no_control")
    within = word(lang, "percent", n=f"±{compact(margin * 100, lang)}")
    key = {"changed": "drift_detail_changed",
           "no-measurable-difference": "drift_detail_equivalent"}.get(
        verdict, "drift_detail_inconclusive")
    return word(lang, key, head=head, speed=speed_text(ratio[0], lang), interval=interval,
                noise=noise, within=within)


def drift_detail(lang: str, *, kind: str, verdict: str, builds: tuple[str, ...],
                 named: tuple[str, ...], other: str, device: str, runs: tuple[int, ...],
                 needed: int, ratio: tuple[float, float, float] | None,
                 floor: float | None, clock: str, margin: float) -> str:
    """One drift item's detail in ``lang``; empty when the verdict says it all."""
    names = listed(named, lang)
    if verdict == "failing" and kind == "trial" and not named:
        return word(lang, "drift_detail_no_samples")
    if verdict in ("missing", "failing"):
        return word(lang, f"drift_detail_{verdict}_{kind}", names=names)
    if verdict == "single-build":
        return word(lang, "drift_detail_single", build=builds[0], device=device)
    if verdict == "other-hardware":
        return word(lang, "drift_detail_hardware", names=" / ".join(named))
    if verdict == "within-tolerance":
        return word(lang, "drift_detail_within")
    if verdict == "changed" and kind == "example":
        return "; ".join(named)
    if ratio is None and verdict == "inconclusive":
        counts = listed([f"{n} ({b})" for n, b in zip(runs, builds, strict=True)], lang)
        noise = (ratio_texts([floor], lang)[0] if floor is not None
                 else word(lang, "drift_no_control"))
        return word(lang, "drift_detail_runs", counts=counts, needed=needed, noise=noise)
    if ratio is None:
        return ""
    return _timing(lang, verdict, other, builds[0], ratio, floor, clock, margin)
