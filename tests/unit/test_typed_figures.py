"""The typed-figure rule (harness/site/plugin.py) on rendered HTML: what it refuses,
what it leaves alone, and that a recorded figure passes only inside the marks the harness
made in this process (tests/faults/faults_figures.py builds the same faults for real)."""

from __future__ import annotations

import pytest

from harness.site.plugin import typed_figures
from harness.text.markdown import recorded, without_marks


@pytest.mark.parametrize(("html", "found"), [
    ("<p>Tarda 0,9 ms en total.</p>", ["0,9 ms"]),
    ("<p>Tarda <code>0,9 ms</code>.</p>", ["0,9 ms"]),
    ('<span class="mi">3</span><span class="w"> </span><span class="n">µs</span>', ["3 µs"]),
    ("<p>15× más rápido, 15 veces menos, 93 % del pico, 2 x faster</p>",
     ["15×", "15 veces", "93 %", "2 x"]),
    ("<p>51,4 TFLOP/s y 192 MiB</p>", ["51,4 TFLOP/s", "192 MiB"]),
    ("<p>torch 2.13.0, 2 hilos, 1024×1024, 10⁻³, el 2026-12-01, capa 3</p>", []),
    ('<pre><code>print(f"{ratio:.1%}")</code></pre>', []),
    ("<p>con una confianza del 95 %, nunca más del 100 %</p>", []),
])
def test_figures_typed_into_the_text_are_found(html: str, found: list[str]) -> None:
    assert typed_figures(html) == found


def test_a_recorded_figure_passes_only_inside_this_process_marks() -> None:
    page = f"<p>Tarda {recorded('0,9 ms')}; la tabla:</p>{recorded('<td>3 ms</td>', block=True)}"
    assert typed_figures(page) == []
    assert without_marks(page) == "<p>Tarda 0,9 ms; la tabla:</p>\n\n<td>3 ms</td>\n\n"
    forged = "<p>Tarda <!--harness-recorded-0123456789abcdef-->0,9 ms<!--/harness-recorded-0123456789abcdef--></p>"
    assert typed_figures(forged) == ["0,9 ms"]
