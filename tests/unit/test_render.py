from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from harness.core.errors import Location
from harness.core.rows import TrialRow
from harness.core.types import Environment, Expectation, Observation, Snippet
from harness.records.store import DeviceRecord, Records
from harness.text.markdown import cell, code, html_text
from harness.text.numbers import decimal
from harness.views.measured import Context, environment_table, threads_text
from harness.views.observed import render_observed

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
    from harness.views.html_table import breakable
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
        "results/2.13.0+cpu/cpu.examples.jsonl:3: observation of 'p/s' was recorded from "
        "other code in 1 record set(s) (torch 2.13.0+cpu: "
        "results/2.13.0+cpu/cpu.examples.jsonl:3 (g)); run `python -m harness record --only "
        "examples` with each of those builds: "
        "`TORCH=torch==2.13.0 make record-examples` (CONTRIBUTING, «Adding an example», 6)"
    ]


def test_stale_observations_of_several_builds_are_one_message() -> None:
    block = render_observed(snippet=SNIPPET, expectations=[EXPECT],
                            records=[record("2.13.0+cpu", 6.0, sha="b" * 64),
                                     record("2.14.1+cu130", 6.0, sha="b" * 64)], lang="en")
    assert len(block.stale) == 1
    assert "in 2 record set(s)" in block.stale[0]
    assert ("`TORCH=torch==2.13.0 make record-examples` "
            "`TORCH=torch==2.14.1 make record-examples`") in block.stale[0]
    assert "- <code>g</code>: 2·3 = 6 (en)" in block.markdown


def test_cells_never_carry_markup() -> None:
    assert cell("<b>x</b> | y") == "&lt;b&gt;x&lt;/b&gt; \\| y"
    assert cell("*a* `b` [c](d)") == "\\*a\\* \\`b\\` \\[c\\](d)"


def test_code_cells_escape_html_and_pipes_without_backslashes() -> None:
    assert code("a|<b>_c") == "<code>a&#124;&lt;b&gt;&#95;c</code>"


@pytest.mark.parametrize(("text", "shown"), [
    ("in Module.__init__: x", "<p>in Module.__init__: x</p>"),
    ("a _u_ b *v* ~~w~~", "<p>a _u_ b *v* ~~w~~</p>"),
    ("mm_bf16", "<p>mm_bf16</p>"),
])
def test_record_text_is_never_emphasis_in_a_markdown_block(text: str, shown: str) -> None:
    """Through the site's Markdown with md_in_html, as a harness block holds record text:
    underscores and tildes read as typed, with no backslash."""
    import markdown

    convert = markdown.Markdown(extensions=["md_in_html", "attr_list", "tables"]).convert
    block = convert(f'<div markdown="1">\n\n<p>{html_text(text)}</p>\n\n</div>')
    assert unescape(block.removeprefix("<div>\n").removesuffix("\n</div>")) == shown
    table = convert(f"| a |\n|---|\n| {cell(text)} |")
    assert unescape(re.search(r"<td>(.*)</td>", table)[1]) == shown[3:-4]


def test_numbers_follow_the_language() -> None:
    assert decimal(1.234, "es") == "1,23"
    assert decimal(1.234, "en") == "1.23"


# --- the environment table (issue 20: smaller layout defects); charts: test_charts.py ---

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


def test_record_text_keeps_its_no_break_spaces_and_loses_its_line_breaks() -> None:
    """A figure grouped or joined to its unit with a no-break space («1 000», «2,5 ms»)
    stays whole in a cell or in raw HTML; a line break from a record never reaches a
    table row. (str.split() took U+202F and U+00A0 for breaking whitespace.)"""
    for render in (cell, html_text):
        assert render("1\u202f000\u00a0ms") == "1\u202f000\u00a0ms"
        assert render(" a\n\tb\r\n c \u2028d ") == "a b c d"
