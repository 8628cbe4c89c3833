from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Expectation, Observation, Snippet
from harness.records.store import DeviceRecord, Records
from harness.text.markdown import cell, code
from harness.text.numbers import decimal
from harness.views.environment import environment_table
from harness.views.measured_context import Context, threads_text
from harness.views.observed import render_observed
from harness.views.svg import NARROW_WIDTH, Point, Series, svg_chart, text_width, tick_texts
from harness.views.svg_marks import GREY, PALETTE, series_styles

SNIPPET = Snippet(id="p/s", path=Path("snippets/p/s.py"), sha256="a" * 64)
EXPECT = Expectation(snippet="p/s", name="g", value=6.0, derivation="2·3 = 6",
                     derivation_en="2·3 = 6 (en)", location=Location(path=Path("e.toml"), line=1))


def record(build: str, value: float, sha: str = "a" * 64) -> DeviceRecord:
    observation = Observation(snippet="p/s", name="g", kind="tensor", value=value,
                              dtype="torch.float32", snippet_sha256=sha)
    environment = Environment(torch_build=build, device_key="cpu", device_name="", run_id="r",
                              python="3.11",
                              platform="linux", threads=1, date="2026-11-30T10:00:00",
                              cpu_model="AMD EPYC 9B14")
    return DeviceRecord(torch_build=build, device_key="cpu", environments={"r": environment},
                        observations=[observation],
                        observation_lines={("p/s", "g"): Location(path=Path(f"results/{build}/cpu.examples.jsonl"), line=3)})


def test_no_record_says_sin_medicion() -> None:
    block = render_observed(snippet=SNIPPET, expectations=[EXPECT], records=[], lang="es")
    assert "<em>sin medición</em>" in block.markdown
    assert block.markdown.startswith('<div class="admonition warning harness-observed" markdown="1">')
    assert block.stale == []


def test_each_build_is_a_column_and_failures_are_shown() -> None:
    block = render_observed(snippet=SNIPPET, expectations=[EXPECT],
                            records=[record("2.13.0+cpu", 6.0), record("2.14.1", 7.0)], lang="es")
    text = block.markdown
    assert text.startswith('<details class="failure harness-observed" open markdown="1">\n'
                           "<summary>✗ No se cumple: g · torch 2.14.1; se cumplió en torch "
                           "2.13.0+cpu</summary>")
    assert "Se cumplió en: torch 2.13.0+cpu (cpu)." in text
    assert "<code>g</code> no se cumplió en: torch 2.14.1 (cpu)." in text
    assert '<span class="harness-bad">✗ <code>7</code> (torch.float32)' in text
    assert "AMD EPYC 9B14 · 1 hilo · 2026-11-30" in text


def test_all_holding_shows_its_values_and_folds_derivation_and_provenance() -> None:
    block = render_observed(snippet=SNIPPET, expectations=[EXPECT],
                            records=[record("2.13.0+cpu", 6.0), record("2.14.1", 6.0)], lang="es")
    first, summary, table, provenance = block.markdown.splitlines()[:4]
    assert first == '<details class="success harness-observed" open markdown="1">'  # values in view
    # Provenance in plain words (issue 28): releases and device kinds; builds are folded.
    assert summary == "<summary>✓ Se cumple: g · torch 2.13–2.14 · CPU</summary>"
    # Identical columns merge; each cell carries its column's name for the phone layout.
    assert table.count('<th scope="col">') == 3
    assert '<td data-label="Observado">✓ <code>6</code>' in table  # one column: no builds
    assert provenance == '<details class="note harness-provenance" markdown="1">'  # folded
    assert block.markdown.index("fragmento <code>p/s</code>") > block.markdown.index(provenance)


def test_long_identifiers_break_only_after_slash_and_underscore() -> None:
    from harness.views.observed import breakable
    assert breakable(code("backward/segundo_paso")) == "<code>backward/<wbr>segundo_<wbr>paso</code>"
    assert breakable(code("a<b>")) == "<code>a&lt;b&gt;</code>"


def test_known_failure_and_exception_are_readable() -> None:
    known = Expectation(snippet="p/s", name="g", value=6.0, derivation="d", known_failure="porque sí",
                        location=Location(path=Path("e.toml"), line=1))
    block = render_observed(snippet=SNIPPET, expectations=[known],
                            records=[record("2.13.0+cpu", 7.0)], lang="es")
    assert block.markdown.startswith('<details class="warning harness-observed" open markdown="1">'
                                     "\n<summary>⚠ Fallo conocido: g")
    assert "fallo conocido: porque sí" in block.markdown
    raised = Observation(snippet="p/s", name="e", kind="exception", snippet_sha256="a" * 64,
                         value={"type": "RuntimeError", "types": ["RuntimeError"],
                                "message": "Trying to backward <twice> | " + "x " * 60})
    from harness.views.observed import _value
    shown = _value(raised)
    assert shown.startswith("<code>RuntimeError</code>: <span title=")
    assert "&lt;twice&gt;" in shown and "|" not in shown and "…»" in shown


def test_stale_observation_is_marked_and_reported_with_its_line() -> None:
    block = render_observed(snippet=SNIPPET, expectations=[EXPECT],
                            records=[record("2.13.0+cpu", 6.0, sha="b" * 64)], lang="en")
    assert "<strong>stale</strong> · " in block.markdown
    assert block.stale == [
        "results/2.13.0+cpu/cpu.examples.jsonl:3: observation of 'p/s' (g) was recorded from "
        "other code; run `python -m harness record --only examples` with torch 2.13.0+cpu "
        "(CONTRIBUTING, «Adding an example», 6)"
    ]
    assert "- <code>g</code>: 2·3 = 6 (en)" in block.markdown


def test_cells_never_carry_markup() -> None:
    assert cell("<b>x</b> | y") == "&lt;b&gt;x&lt;/b&gt; \\| y"
    assert cell("*a* `b` [c](d)") == "\\*a\\* \\`b\\` \\[c\\](d)"


def test_code_cells_escape_html_and_pipes_without_backslashes() -> None:
    assert code("a|<b>_c") == "<code>a&#124;&lt;b&gt;_c</code>"


def test_numbers_follow_the_language() -> None:
    assert decimal(1.234, "es") == "1,23"
    assert decimal(1.234, "en") == "1.23"


# --- charts and the environment table (issue 20: plots that fit, smaller layout defects) ---

def _contrast(one: str, other: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""
    def luminance(colour: str) -> float:
        def channel(c: float) -> float:
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (channel(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_series_colour_has_3_to_1_against_both_backgrounds() -> None:
    for colour in (*PALETTE, GREY):  # white, and Material's slate background
        assert _contrast(colour, "#ffffff") >= 3 and _contrast(colour, "#1e2129") >= 3, colour


def test_no_two_series_share_colour_and_marker() -> None:
    # Twelve series whose hints collide: four colours × three markers, then three failing
    # series of one build, then two more asking for a pair already taken.
    wanted = [(c, m, m, False) for c in range(4) for m in range(3)]
    wanted += [(0, 1, 1, True)] * 3 + [(2, 0, 0, False), (2, 0, 0, False)]
    styles = series_styles(wanted)
    pairs = [(s.colour, s.marker) for s in styles]
    assert len(set(pairs)) == len(pairs), pairs
    assert [s.colour for s in styles[12:15]] == [GREY] * 3 and styles[12].dash == "4 3"
    assert [s.marker for s in styles[:3]] == ["circle", "square", "triangle"]  # as asked


def test_an_axis_keeps_one_tick_notation_in_the_page_language() -> None:
    assert tick_texts([0.1, 1.0, 10.0, 100.0, 1000.0], lang="es") == ["0,1", "1", "10", "100",
                                                                      "1000"]
    # With a five-digit tick every four-digit one is grouped too: never 1000 beside 10 000.
    assert tick_texts([1e3, 1e4, 1e5], lang="es") == ["1\u202f000", "10\u202f000", "100\u202f000"]
    assert tick_texts([1e3, 1e4], lang="en") == ["1,000", "10,000"]
    assert tick_texts([5e-5, 1e-4, 2e-4], lang="es", scale=1e-6) == ["50", "100", "200"]
    # Past what plain numbers show well, the whole axis is in powers of ten, no "1e+06".
    assert tick_texts([1e-7, 1e-6, 1e-5], lang="es") == ["10⁻⁷", "10⁻⁶", "10⁻⁵"]
    assert tick_texts([1e5, 2e6], lang="en") == ["10⁵", "2×10⁶"]


def _chart(*, narrow: bool, lang: str = "es") -> str:
    series = [Series(label=f"float{bits} · torch 2.1{i}.0+cu130 · cuda-nvidia-h200",
                     points=[Point(x=n, y=n * bits * (i + 1) * 1e6) for n in (256.0, 1024.0)],
                     dash=i, colour=b)
              for b, bits in enumerate((16, 32, 64)) for i in range(2)]
    return svg_chart(series, title="t", x_label="Tamaño n (primera dimensión de la forma)",
                     y_label="Rendimiento (TFLOP/s)", element_id="c", lang=lang,
                     y_scale=1e12, narrow=narrow)


def test_phone_chart_is_drawn_at_the_column_with_its_legend_under_the_plot() -> None:
    svg = _chart(narrow=True)
    width, height = map(float, re.search(r'viewBox="0 0 (\S+) (\S+)"', svg).groups())
    assert width == NARROW_WIDTH and 'class="harness-chart-narrow"' in svg
    plot = re.search(r'<rect x="(\S+)" y="(\S+)" width="(\S+)" height="(\S+)"', svg)
    bottom = float(plot[2]) + float(plot[4])
    labels = re.findall(r'<text class="harness-line-label" x="(\S+)" y="(\S+)"[^>]*>([^<]*)', svg)
    assert len(labels) == 6 and all(float(y) > bottom + 30 for _, y, _ in labels)
    # Each text's estimated box (its anchor, its width) lies inside the drawing.
    for x, y, anchor, text in re.findall(
            r'<text(?: class="[^"]*")? x="(\S+)" y="(\S+)"(?: text-anchor="(\w+)")?[^>]*>([^<]*)',
            svg):
        w = text_width(text)
        left = float(x) - {"middle": w / 2, "end": w}.get(anchor, 0)
        assert 0 <= left and left + w <= width and 0 < float(y) <= height, text


def test_wide_chart_keeps_labels_at_line_ends_and_one_tick_notation() -> None:
    svg = _chart(narrow=False, lang="en")
    assert 'viewBox="0 0 688 ' in svg and "e+" not in svg
    ticks = re.findall(r'class="harness-tick-y"[^>]*>([^<]*)<', svg)
    assert ticks and all(re.fullmatch(r"[\d,.]+", t) for t in ticks), ticks


def test_threads_are_said_in_words() -> None:
    assert threads_text([1, 2, 1], "es") == "1 o 2 hilos"
    assert threads_text([4, 1, 2], "es") == "1, 2 o 4 hilos"
    assert threads_text([1], "es") == "1 hilo"
    assert threads_text([1, 2], "en") == "1 or 2 threads"


def _env_record(build: str, *, threads: int, cpus: int, rows: list[int]) -> DeviceRecord:
    environment = Environment(torch_build=build, device_key="cpu", device_name="Xeon",
                              run_id="r", threads=threads, date="2026-11-30T10:00:00",
                              extra={"torch_default_threads": threads, "cpu_count": cpus})
    trials = [TrialRow(trial=f"m{n}", torch_build=build, device="cpu", dtype="float32",
                       shape="4x4", batch=1, task="compute", threads=n, tolerance=1e-3,
                       spec_sha256="ab", synchronized=True, run_id="r", latency=1.0,
                       quality_pass=True) for n in rows]
    return DeviceRecord(torch_build=build, device_key="cpu", environments={"r": environment},
                        rows=trials)


def test_environment_says_what_threads_are_and_draws_shared_cells_as_one_box() -> None:
    records = Records(items=[_env_record("2.6.0", threads=2, cpus=2, rows=[]),
                             _env_record("2.10.0", threads=2, cpus=2, rows=[]),
                             _env_record("2.13.0", threads=1, cpus=2, rows=[1, 2, 1])])
    html = environment_table(Context(records=records, specs={}, lang="es", sources={}))
    threads = unescape(html.split("Hilos de CPU</th>")[1].split("</tr>")[0]).strip()
    assert threads == ('<td colspan="2" class="harness-span">2 hilos, por omisión de torch '
                       "(de 2 CPU lógicas)</td> <td>1 o 2 hilos según el ensayo (de 2 CPU "
                       "lógicas)</td>")
    # Every spanning cell is marked (the style sheet draws it as one box); a field all
    # sets share is listed under the table instead of spanning every column.
    assert html.count("colspan=") == html.count('class="harness-span"') > 0
    assert '<ul class="harness-env-common"><li>Dispositivo: ' in html and "igual en todos" not in html
