"""The charts as HTML (harness/views/charts.py): marks where the data puts them on a log
axis, every series told apart, text only as HTML (never inside the SVG), every value
escaped. How they read at 390 and 1280 px is tested in a browser (tests/browser)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from harness.views.charts import (
    GREY,
    PALETTE,
    IntervalRow,
    Point,
    Series,
    interval_chart,
    line_chart,
    log_ticks,
    series_styles,
    tick_texts,
)

HOSTILE = '<img src=x onerror=alert(1)> " onclick="x [x](javascript:1)'


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


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (1e-6, 1e-1, [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]),  # wide: whole decades
        (1.0, 10.0, [1.0, 2.0, 5.0, 10.0]),                   # one decade: 1-2-5
        (0.8, 1.3, [0.8, 0.9, 1.0]),                          # a drift chart's range
        (3.0, 4.0, [3.0, 3.2, 3.4, 3.6, 3.8, 4.0]),           # finest level, thinned
    ],
)
def test_log_ticks_fit_the_range(low: float, high: float, expected: list[float]) -> None:
    assert log_ticks(low, high) == pytest.approx(expected)


class _Text(HTMLParser):
    """Text and attributes of a chart: what lies inside an <svg>, and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.in_svg, self.tags = 0, [], []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.depth += tag == "svg"

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "svg"

    def handle_data(self, data: str) -> None:
        if self.depth and data.strip():
            self.in_svg.append(data)


def _series() -> list[Series]:
    return [Series(label=f"float{bits} · torch 2.1{i}.0 {HOSTILE}", colour=b, dash=i, marker=i,
                   points=[Point(x=n, y=n * bits * (i + 1) * 1e6, note=HOSTILE, hollow=i == 1)
                           for n in (256.0, 1024.0, 4096.0)])
            for b, bits in enumerate((16, 32)) for i in range(2)]


def test_a_line_chart_puts_marks_on_log_axes_and_its_text_in_html_only() -> None:
    series = _series()
    html = line_chart(series, title=HOSTILE, x_label="Tamaño n", y_label="Rendimiento (TFLOP/s)",
                      x_ticks=[256.0, 1024.0, 4096.0], lang="es", y_scale=1e12,
                      element_id="c", description=HOSTILE, caption=HOSTILE)
    assert html.startswith('<figure class="harness-chart" id="c">') and "\n" not in html
    found = _Text()
    found.feed(html)
    assert found.in_svg == [] and "img" not in found.tags and "a" not in found.tags
    assert "onclick=" not in html.replace("&quot; onclick=&quot;", "")
    # Points a factor of 4 apart on x lie equally far apart: the axis is logarithmic.
    # A marker on the spot of an earlier one is drawn smaller, so both show.
    sizes = [float(v) for v in re.findall(r"--size:([\d.]+)em", html)]
    assert max(sizes) == 0.85 and min(sizes) < 0.85
    xs = [float(x) for x in re.findall(r"--x:([\d.]+)%", html)]
    assert all(0 <= x <= 100 for x in xs)
    marks = sorted({float(x) for x in re.findall(r'class="harness-mark" data-series="\d+" style="--x:([\d.]+)%',
                                                 html)})
    assert len(marks) == 3 and marks[1] - marks[0] == pytest.approx(marks[2] - marks[1], abs=0.02)
    assert html.count('class="harness-mark"') == 12 and html.count('<li data-series=') == 4
    assert html.count('class="harness-hollow"') == 6  # the failing points, unfilled
    styles = set(re.findall(r'<li data-series="\d" style="color:(#\w+)"><svg class="harness-key"'
                            r' viewBox="[^"]*" aria-hidden="true"><path[^>]*/><g[^>]*>(<\w+)',
                            html))
    assert len(styles) == 4  # every series its own colour and marker in the legend


def test_an_interval_chart_draws_each_rows_own_band_and_a_symmetric_log_axis() -> None:
    rows = [IntervalRow(label=HOSTILE, ratio=2.0, low=1.9, high=2.1, band=(1 / 1.1, 1.1),
                        verdict="changed", note=HOSTILE),
            IntervalRow(label="b", ratio=0.5, low=0.45, high=0.55, band=None,
                        verdict="no-measurable-difference")]
    html = interval_chart(rows, title="t", description=HOSTILE, axis="cociente",
                          faster="← más rápido", slower="más lento →", caption="c", lang="es",
                          element_id="d")
    assert "<img" not in html and "\n" not in html
    one = float(re.search(r'harness-one" style="--x:([\d.]+)%', html)[1])  # type: ignore[index]
    slow, fast = (float(x) for x in re.findall(r'harness-dot[^"]*" style="--x:([\d.]+)%', html))
    assert slow - one == pytest.approx(one - fast, abs=0.02) and slow > one
    assert html.count('class="harness-band"') == 1 and html.count("harness-changed") == 1
    (low, high), = ((float(a), float(b)) for a, b in re.findall(
        r'harness-band" style="--lo:([\d.]+)%;--hi:([\d.]+)%', html))
    assert one - low == pytest.approx(high - one, abs=0.05)
