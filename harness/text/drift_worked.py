"""The drift page's worked example in words: one real trial's run summaries, the
pairwise ratios the interval is read from, and why the verdict follows, worded by the
catalogues (``drift_worked_*``). The figures come in already formatted
(:mod:`harness.views.drift` reads them from the records). No torch import.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from harness.text.words import word

__all__ = ["Worked", "worked_text"]


@dataclass(frozen=True, kw_only=True)
class Worked:
    """The figures of one worked example, formatted for the page's language; the
    catalogues' ``drift_worked_steps`` says what each is (``k``: the rank, from each
    end, of the run interval's ends among the ``pairs`` = n1·n2 sorted ratios)."""

    label: str
    base: str
    other: str
    n1: int
    n2: int
    runs1: str
    runs2: str
    pairs: int
    k: int
    runs_low: str
    runs_high: str
    window: str
    point: str
    low: str
    high: str
    confidence: str
    verdict: str
    margin: str
    noise: str = ""
    speed: str = ""


def worked_text(worked: Worked, lang: str) -> str:
    """The worked example as text; its parts arrive escaped, the sentences add none."""
    last = 0 if 10 <= worked.k % 100 <= 20 else worked.k % 10  # 1st, 2nd, 3rd, 11th, 21st
    kth = word(lang, f"ordinal_{last if last in (1, 2, 3) else 'n'}", k=worked.k)
    steps = word(lang, "drift_worked_steps", **asdict(worked), kth=kth)
    return steps + word(lang, f"drift_worked_{worked.verdict}", **asdict(worked))
