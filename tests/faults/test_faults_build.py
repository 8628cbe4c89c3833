"""Faults `mkdocs build --strict` must catch, each injected into a copy of the real
project. The build runs with torch import blocked, as in CI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import inject, record_files


@pytest.fixture
def build(site_builder):
    def run(root: Path) -> tuple[int, str]:
        done = site_builder(root, root / "site", poison=root / "no-torch")
        return done.returncode, done.stdout + done.stderr

    return run


def test_stale_record_typed_figure_and_markup_in_records_in_one_build(project: Path, build) -> None:
    snippet = project / "snippets/que-es-pytorch/derivada_cuadrado.py"
    snippet.write_text(snippet.read_text() + "print(x.grad.item())\n")
    figure_line = inject(project / "docs/medir-pytorch.md", "## Fijar trabajo comparable\n",
                         "## Fijar trabajo comparable\n\nEn mi portátil tardó 3,2 ms.\n")
    csv = record_files(project, ".csv")[0]
    text = csv.read_text()
    header, first, *rest = text.splitlines()
    cells = first.split(",")
    cells[header.split(",").index("error")] = '"<script>alert(1)</script> **x** | y"'
    csv.write_text("\n".join([header, ",".join(cells), *rest]) + "\n")
    code, log = build(project)
    assert code != 0
    assert re.search(r"results/[^/]+/cpu\.examples\.jsonl:\d+: observation of "
                     r"'que-es-pytorch/derivada_cuadrado' \(x\.grad\) was recorded from other code",
                     log), log
    assert (f"docs/medir-pytorch.md:{figure_line + 2}: measured-looking figure '3,2 ms' typed "
            "into the page") in log
    page = (project / "site/medir-pytorch/index.html").read_text()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; **x** | y" in page  # text, not bold nor a cell break
    assert "<strong>x</strong>" not in page
    stale_page = (project / "site/que-es-pytorch/index.html").read_text()
    assert "desactualizado" in stale_page


@pytest.mark.parametrize("fault", ["corrupt", "missing-column", "unknown-device",
                                   "unknown-snippet", "missing-include"])
def test_bad_records_and_includes_stop_the_build_with_file_and_line(
    project: Path, build, fault: str
) -> None:
    if fault == "corrupt":
        jsonl = record_files(project, ".examples.jsonl")[0]
        lines = jsonl.read_text().splitlines()
        lines[2] = lines[2][: len(lines[2]) // 2]
        jsonl.write_text("\n".join(lines) + "\n")
        expected = rf"{re.escape(str(jsonl.relative_to(project)))}:3: not valid JSON"
    elif fault == "missing-column":
        csv = record_files(project, ".csv")[0]
        rows = [line.split(",") for line in csv.read_text().splitlines()]
        column = rows[0].index("latency")
        csv.write_text("\n".join(",".join(r[:column] + r[column + 1:]) for r in rows) + "\n")
        expected = rf"{re.escape(str(csv.relative_to(project)))}:1: missing column 'latency'"
    elif fault == "unknown-device":
        csv = record_files(project, ".csv")[0]
        (csv.parent / "tpu.csv").write_text(csv.read_text())
        expected = r"tpu\.csv:1: unknown device 'tpu'\. .*Valid: cpu, cuda, mps, xpu"
    elif fault == "unknown-snippet":
        jsonl = record_files(project, ".examples.jsonl")[0]
        lines = jsonl.read_text().splitlines()
        data = json.loads(lines[0])
        data["snippet"] = "que-es-pytorch/derivada_cuadradoo"
        lines[0] = json.dumps(data, ensure_ascii=False)
        jsonl.write_text("\n".join(lines) + "\n")
        expected = (rf"{re.escape(str(jsonl.relative_to(project)))}:1: record names unknown "
                    r"snippet 'que-es-pytorch/derivada_cuadradoo'")
    else:
        line = inject(project / "docs/elegir-pytorch.md", "## Fuentes\n",
                      '```python\n--8<-- "elegir-pytorch/no_existe.py"\n```\n\n## Fuentes\n')
        expected = rf"docs/elegir-pytorch\.md:{line}: unknown snippet 'elegir-pytorch/no_existe'"
    code, log = build(project)
    assert code != 0
    assert re.search(expected, log), log
