"""The drift page in plain words (issue 20): Spanish details with no English in them,
rows sorted by the size of their effect, identical and single-build items counted
rather than listed, Medir's trial labels, a worked example read from the records, a
chart with one dot and one noise band per row, and ratios rounded so that an interval that
excludes 1 never reads as reaching it. No torch."""

from __future__ import annotations

import html
import math
import random
import re
import sys
from html.parser import HTMLParser
from typing import Literal

from support import ROOT, run

from harness.commands.drift import report_for
from harness.records.drift import Drift, Setup, Verdict
from harness.records.drift_stats import runs_needed, timing_verdict
from harness.sources.trials import load_trials
from harness.text.numbers import ratio_texts
from harness.text.words import catalogue
from harness.views.drift import detail, drift_markdown, trial_labels

BUILDS = ("2.13.0+cpu", "2.14.1+cu130")
#: Words both editions write: names of things, and Spanish words that are English too.
SHARED = {"cpu", "gpu", "cuda", "matmul", "float", "bfloat", "autograd", "grad", "backward",
          "torch", "cu", "control", "no", "comparable", "error", "vertical",
          # A statistician's names, and code (time.thread_time), in both editions.
          "bootstrap", "mann", "whitney", "time", "thread", "callgrind", "valgrind", "timer",
          "collect"}


def times(median: float, n: int = 5, seed: int = 1) -> tuple[float, ...]:
    """``n`` run summaries around ``median`` (± 2 %)."""
    rng = random.Random(seed)
    return tuple(median * (1 + rng.uniform(-0.02, 0.02)) for _ in range(n))


def timing(item: str, base: tuple[float, ...], other: tuple[float, ...], *,
           floor: float | None = 1.1) -> Drift:
    """A trial's drift as :func:`harness.records.drift.trial_drift` makes it."""
    needed = runs_needed(1)
    setup = Setup(device="cpu", builds=BUILDS, one_session=True,
                  controls=BUILDS[:1] if floor else (), window=0.01 if floor else None,
                  shifts=5 if floor else 0)
    common = dict(kind="trial", item=item, device="cpu", builds=BUILDS, setup=setup,
                  runs=(len(base), len(other)), needed=needed, floor=floor, clock="cpu",
                  margin=0.05)
    if min(len(base), len(other)) < needed:
        return Drift(verdict="inconclusive", **common)  # type: ignore[arg-type]
    verdict, (interval,) = timing_verdict(base, [other], floor=floor, margin=0.05,
                                          window=setup.window)
    return Drift(verdict=verdict, other=BUILDS[1], interval=interval,  # type: ignore[arg-type]
                 samples=(base, other), **common)


def other(kind: Literal["example", "trial"], item: str, verdict: Verdict,
          named: tuple[str, ...] = ()) -> Drift:
    """An item on the CPU key whose verdict is not about timings."""
    return Drift(kind=kind, item=item, device="cpu", verdict=verdict, builds=BUILDS, named=named)


def every_verdict() -> list[Drift]:
    """One item of every verdict, the timings at three sizes of effect."""
    base = times(1e-3)
    made = [timing("matmul_512_float64", base, times(0.28e-3, seed=2)),
            timing("matmul_256_float32", base, times(1.6e-3, seed=3)),
            timing("mlp_inference_b4", base, times(1.0e-3, seed=4)),
            timing("matmul_1024_float32", base, times(2e-3, n=1, seed=5))]
    made += [other("trial", "matmul_2048_float32", "failing", BUILDS[1:]),
             other("trial", "threads_matmul_1024_float32_t2", "missing", BUILDS[:1]),
             other("trial", "mlp_training_b1", "other-hardware", ("A CPU", "B CPU")),
             Drift(kind="trial", item="matmul_8192_float32", device="cuda-nvidia-h200",
                   verdict="single-build", builds=("2.11.0+cu130",))]
    made += [other("example", f"que-es-pytorch/s n{i}", "identical") for i in range(3)]
    made += [other("example", "que-es-pytorch/s t", v, BUILDS[1:])
             for v in ("within-tolerance", "failing", "missing")]
    assert {d.verdict for d in made} >= {"changed", "no-measurable-difference", "inconclusive"}
    return made


def text_of(page: str) -> str:
    """What a reader reads: no tags, no SVG, entities resolved."""
    page = re.sub(r"<svg.*?</svg>", "", page, flags=re.S).replace("<wbr>", "")
    return html.unescape(re.sub(r"<[^>]*>", " ", page))


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-záéíóúñü]{2,}", text.lower()))


def without_names(text: str, reports: list[list[Drift]]) -> str:
    """``text`` less the names the records give (builds, device keys, snippet and trial
    ids): they read the same in both editions."""
    names = {n for r in reports for d in r for n in (*d.builds, d.device, d.item)}
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def english_words(reports: list[list[Drift]]) -> set[str]:
    """Every word the English edition writes (its table of words, its rendered reports,
    Medir's English trial labels among them), less the names the records give and the
    words both languages share (:data:`SHARED`)."""
    drift = [text for key, text in catalogue("en").items() if key.startswith("drift_")]
    english = " ".join([*drift, *(
        text_of(drift_markdown(r, "en", specs=load_trials(), chart=True)) for r in reports)])
    return words(without_names(english, reports)) - SHARED


def test_the_spanish_report_holds_no_english_detail() -> None:
    real = report_for(ROOT, ROOT / "results")
    reports = [every_verdict(), real]
    english = english_words(reports)
    assert {"takes", "interval", "only", "recorded", "faster", "slower"} <= english
    for report in reports:
        spanish = text_of(drift_markdown(report, "es", specs=load_trials(), chart=True))
        leaked = sorted(words(without_names(spanish, reports)) & english)
        assert not leaked, f"English words on the Spanish page: {leaked}"
        without_builds = re.sub(r"\d+\.\d+\.\d+(\+\w+)?", "", spanish)
        assert not re.findall(r"\d\.\d", without_builds), "a decimal point on the Spanish page"
        for d in report:
            english_detail = detail(d, "en")
            assert not english_detail or english_detail not in spanish


def test_rows_read_changes_first_then_by_size_of_effect() -> None:
    report = every_verdict()
    page = drift_markdown(report, "es", specs=load_trials())
    trials = page[page.index("Ensayos medidos"):]
    # Changes (the larger first), then failing, missing, other hardware, inconclusive.
    order = ("float64", "256×256", "2048×2048", "2 hilos", "lote 1", "1024×1024", "lote 4")
    positions = [trials.index(m) for m in order]
    assert positions == sorted(positions), order
    assert "<strong>cambió</strong>" in trials
    changed = [d for d in report if d.verdict == "changed"]
    assert [abs(math.log(d.interval.ratio)) for d in changed if d.interval] == sorted(
        (abs(math.log(d.interval.ratio)) for d in changed if d.interval), reverse=True)


def test_identical_and_single_build_items_are_counted_not_listed() -> None:
    page = drift_markdown(every_verdict(), "es", specs=load_trials())
    assert ("3 salidas observadas idénticas en todas las versiones (2.13.0+cpu y 2.14.1+cu130)"
            in text_of(page))
    assert ("1 ensayo medido en una sola versión (2.11.0+cu130): nada con que compararlos"
            in text_of(page))
    assert "n0" not in page and "8192" not in page  # no row of theirs
    english = drift_markdown(every_verdict(), "en", specs=load_trials())
    assert "3 observed outputs identical in every build" in english


def test_trials_are_named_as_medir_names_them() -> None:
    labels = trial_labels(load_trials(), "es")
    assert labels["matmul_512_float64"] == "matmul · float64 · 512×512"
    assert labels["mlp_inference_b4"] == "perceptrón · inferencia · lote 4"
    assert labels["threads_matmul_1024_float32_t2"] == "hilos de CPU · 2 hilos"
    page = drift_markdown(report_for(ROOT, ROOT / "results"), "es", specs=load_trials())
    assert '<span class="harness-part">512×512</span>' in page
    assert "matmul_512_float64" not in page and "mlp_inference" not in page


def test_the_worked_example_is_read_from_the_first_compared_row() -> None:
    report = every_verdict()
    page = text_of(drift_markdown(report, "es", specs=load_trials()))
    worked = page[page.index("Ejemplo resuelto"):]
    assert "Fila «matmul · float64 · 512×512»" in worked  # the largest change
    assert "las 5 ejecuciones" in worked and "el veredicto es «cambió»" in worked
    assert "2.14.1+cu130 es 3,6× más rápido" in worked and "25 cocientes" in worked
    # From the records: other samples, other figures, and the reason that fits them.
    faster = [timing("matmul_512_float64", times(1e-3), times(0.5e-3, seed=9))]
    noisy = [timing("matmul_512_float64", times(1e-3), times(1.05e-3, seed=9), floor=1.2)]
    same = [timing("matmul_512_float64", times(1e-3), times(1e-3, seed=9))]
    for report, reason in ((faster, "2,0× más rápido"), (noisy, "el veredicto es «no "
                           "concluyente»"), (same, "«sin diferencia medible»")):
        assert reason in text_of(drift_markdown(report, "es", specs=load_trials()))


def test_the_english_worked_example_writes_real_ordinals() -> None:
    """Five runs a build put the runs' interval at the 2nd ratio from each end: not «2th»."""
    english = text_of(drift_markdown(every_verdict(), "en", specs=load_trials()))
    worked = english[english.index("Worked example"):]
    assert "from the 2nd smallest ratio to the 2nd largest" in worked, worked[:600]
    assert not re.search(r"\b(1|2|3)th\b", english)


def test_a_rounded_interval_keeps_its_side_of_one_and_of_the_band() -> None:
    assert ratio_texts([0.9951, 0.9989], "es") == ["0,995", "0,999"]
    assert ratio_texts([0.97, 1.03], "es") == ["0,97", "1,03"]
    assert ratio_texts([0.801, 0.9], "en", pivots=(1.0, 0.8)) == ["0.801", "0.900"]
    assert ratio_texts([0.7999, 0.9], "en", pivots=(1.0, 0.8)) == ["0.7999", "0.9000"]
    assert ratio_texts([0.012, 0.0125], "es") == ["0,012", "0,013"]


def test_the_chart_draws_one_dot_per_compared_item_with_its_own_band() -> None:
    # The committed records hold one run per build (no interval): fabricated ones do.
    real = [d for d in every_verdict() if d.interval is not None]
    page = drift_markdown(real, "es", specs=load_trials(), chart=True)
    assert page.count('class="harness-dot') == len(real) > 0
    floors = [d for d in real if d.floor is not None]
    assert page.count('class="harness-band"') == len(floors) > 0


def test_the_command_line_report_keeps_working_without_a_chart() -> None:
    done = run([sys.executable, "-m", "harness", "drift", "--lang", "es"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Drift between torch builds")
    assert "<table" in done.stdout and "harness-interval-chart" not in done.stdout
    # The committed records hold one run per build: every timing is «no concluyente».
    assert "**Método.**" in done.stdout and "no concluyente" in done.stdout
    text = run([sys.executable, "-m", "harness", "drift", "--format", "text"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert text.returncode == 0 and "runs per build" in text.stdout


def test_record_text_reaches_the_page_as_text() -> None:
    """Processors, values and names from a record, hostile, through the real Markdown."""
    import markdown

    hostile = ('<img src=x onerror=alert(1)>', '[x](javascript:alert(1))', '" onclick="x',
               "</td></tr></table><b>bold</b>", "`code` **strong** | cell")
    report = [*every_verdict(), other("trial", "mlp_training_b4", "other-hardware", hostile),
              other("example", "p/s <b>x</b>", "changed", hostile)]
    for lang in ("es", "en"):
        page = markdown.markdown(drift_markdown(report, lang, specs=load_trials(), chart=True),
                                 extensions=["tables"])
        found = _Elements()
        found.feed(page)
        assert not found.bad, (lang, found.bad)
        assert "&lt;img src=x onerror=alert&#40;1&#41;&gt;" in page


class _Elements(HTMLParser):
    """Elements and attributes a hostile string could have spelt."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("img", "b", "script", "a"):
            self.bad.append(tag)
        self.bad += [name for name, _ in attrs if name.startswith("on")]
