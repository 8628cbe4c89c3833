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


FAULTS = ["corrupt", "missing-column", "unknown-device", "unknown-snippet", "missing-include"]

#: Builds several projects in one process (MkDocs starts once), torch import blocked
#: by the caller's PYTHONPATH; each build's log follows a "=== <root>" line.
BATCH_BUILD = """
import logging, sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.basicConfig(level=logging.WARNING, stream=sys.stdout, format="%(levelname)s - %(message)s")
for root in sys.argv[1:]:
    print("=== " + root, flush=True)
    try:
        config = load_config(config_file=root + "/mkdocs.yml", site_dir=root + "/site", strict=True)
        config.plugins.on_startup(command="build", dirty=False)
        build(config)
        print("BUILT", flush=True)
    except BaseException as exc:
        print(f"ABORTED {type(exc).__name__}: {exc}", flush=True)
"""


def break_project(project: Path, fault: str) -> str:
    """Inject ``fault`` into ``project``; return the pattern the build log must show."""
    if fault == "corrupt":
        jsonl = record_files(project, ".examples.jsonl")[0]
        lines = jsonl.read_text().splitlines()
        lines[2] = lines[2][: len(lines[2]) // 2]
        jsonl.write_text("\n".join(lines) + "\n")
        return rf"{re.escape(str(jsonl.relative_to(project)))}:3: not valid JSON"
    if fault == "missing-column":
        csv = record_files(project, ".csv")[0]
        rows = [line.split(",") for line in csv.read_text().splitlines()]
        column = rows[0].index("latency")
        csv.write_text("\n".join(",".join(r[:column] + r[column + 1:]) for r in rows) + "\n")
        return rf"{re.escape(str(csv.relative_to(project)))}:1: missing column 'latency'"
    if fault == "unknown-device":
        csv = record_files(project, ".csv")[0]
        (csv.parent / "tpu.csv").write_text(csv.read_text())
        return r"tpu\.csv:1: unknown device 'tpu'\. .*Valid: cpu, cuda, mps, xpu"
    if fault == "unknown-snippet":
        jsonl = record_files(project, ".examples.jsonl")[0]
        lines = jsonl.read_text().splitlines()
        data = json.loads(lines[0])
        data["snippet"] = "que-es-pytorch/derivada_cuadradoo"
        lines[0] = json.dumps(data, ensure_ascii=False)
        jsonl.write_text("\n".join(lines) + "\n")
        return (rf"{re.escape(str(jsonl.relative_to(project)))}:1: record names unknown "
                r"snippet 'que-es-pytorch/derivada_cuadradoo'")
    line = inject(project / "docs/elegir-pytorch.md", "## Fuentes\n",
                  '```python\n--8<-- "elegir-pytorch/no_existe.py"\n```\n\n## Fuentes\n')
    return rf"docs/elegir-pytorch\.md:{line}: unknown snippet 'elegir-pytorch/no_existe'"


@pytest.fixture(scope="module")
def broken_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """fault → (expected pattern, that project's build log), all built in one process."""
    import os
    import shutil
    import subprocess
    import sys

    from .conftest import COPIED, ROOT

    roots, expected = {}, {}
    for fault in FAULTS:
        root = tmp_path_factory.mktemp(fault)
        for name in COPIED:
            (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, root / name)
        roots[fault], expected[fault] = root, break_project(root, fault)
    poison = tmp_path_factory.mktemp("no-torch")
    (poison / "torch.py").write_text('raise ImportError("the docs build imported torch")\n')
    done = subprocess.run(
        [sys.executable, "-c", BATCH_BUILD, *map(str, roots.values())],
        capture_output=True, text=True, timeout=180,
        env={**os.environ, "PYTHONPATH": str(poison), "NO_MKDOCS_2_WARNING": "1"},
    )
    logs = dict(zip(roots, done.stdout.split("=== ")[1:], strict=True))
    return {fault: (expected[fault], logs[fault]) for fault in FAULTS}


@pytest.mark.parametrize("fault", FAULTS)
def test_bad_records_and_includes_stop_the_build_with_file_and_line(broken_builds, fault) -> None:
    pattern, log = broken_builds[fault]
    assert "ABORTED" in log and "BUILT" not in log, log
    assert re.search(pattern, log), log
