"""Faults `mkdocs build --strict` must catch, each injected into a copy of the real
project. The build runs with torch import blocked, as in CI."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from support import copy_project, inject, record_files, reseal, run, without_torch

from faults.faults_figures import FIGURE_FAULTS
from faults.faults_records import RECORD_FAULTS, forged_and_signed_again, signed


def _stale_typed_and_markup(project: Path) -> int:
    """A stale record, a typed figure and markup in a record, in one copy; returns the
    page line above which the figure was typed."""
    snippet = project / "snippets/que-es-pytorch/derivada_cuadrado.py"
    snippet.write_text(snippet.read_text() + "print(x.grad.item())\n")
    figure_line = inject(project / "docs/medir-pytorch.md", "## Fijar trabajo comparable\n",
                         "## Fijar trabajo comparable\n\nEn mi portátil tardó 3,2 ms.\n")
    csv = record_files(project, ".csv")[0]
    text = csv.read_text()
    header, first, *rest = text.splitlines()
    cells = first.split(",")
    cells[header.split(",").index("error")] = '"<script>alert(1)</script> **x** | y"'
    cells[header.split(",").index("quality_pass")] = "false"  # a row with an error fails
    csv.write_text("\n".join([header, ",".join(cells), *rest]) + "\n")
    reseal(csv)  # as a run would have written it: the markup must meet the views
    return figure_line


def test_stale_record_typed_figure_and_markup_in_records_in_one_build(stale_build) -> None:
    project, figure_line, log = stale_build
    assert "ABORTED" in log and "BUILT" not in log, log  # the strict build fails
    assert re.search(r"results/[^/]+/cpu\.examples\.jsonl:\d+: observation of "
                     r"'que-es-pytorch/derivada_cuadrado' was recorded from other code in .*\(x\.grad\)",
                     log), log
    assert (f"docs/medir-pytorch.md:{figure_line + 2}: measured-looking figure '3,2 ms' typed "
            "into the page") in log
    page = (project / "site/medir-pytorch/index.html").read_text()
    assert "<script>alert(1)</script>" not in page
    # Text, not bold nor a cell break: escaped in the HTML, as typed once a browser reads it.
    assert "&lt;script&gt;alert" in page
    assert "<script>alert(1)</script> **x** | y" in html.unescape(page)
    assert "<strong>x</strong>" not in page
    stale_page = (project / "site/que-es-pytorch/index.html").read_text()
    assert "desactualizado" in stale_page


def _csv(project: Path) -> Path:
    return record_files(project, ".csv")[0]


def _jsonl(project: Path) -> Path:
    return record_files(project, ".examples.jsonl")[0]


def _shown(project: Path, path: Path) -> str:
    return re.escape(str(path.relative_to(project)))


def _cell(project: Path, column: str, value: str) -> str:
    """Put ``value`` in ``column`` of the first row of the first CPU record."""
    csv = _csv(project)
    header, first, *rest = csv.read_text().splitlines()
    cells = first.split(",")
    cells[header.split(",").index(column)] = value
    csv.write_text("\n".join([header, ",".join(cells), *rest]) + "\n")
    return rf"{_shown(project, csv)}:2: column '{column}' holds '{re.escape(value)}'"


def _json_line(project: Path, index: int, **changes: object) -> tuple[Path, int]:
    jsonl = _jsonl(project)
    lines = jsonl.read_text().splitlines()
    data = json.loads(lines[index])
    data.update(changes)
    lines[index] = json.dumps(data, ensure_ascii=False)
    jsonl.write_text("\n".join(lines) + "\n")
    return jsonl, index + 1


def _page(project: Path, text: str, page: str = "docs/elegir-pytorch.md") -> int:
    heading = "## Sources\n" if page.endswith(".en.md") else "## Fuentes\n"
    return inject(project / page, heading, text + "\n" + heading)


def _corrupt(project: Path) -> str:
    jsonl = _jsonl(project)
    lines = jsonl.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]
    jsonl.write_text("\n".join(lines) + "\n")
    return rf"{_shown(project, jsonl)}:3: not valid JSON"


def _missing_column(project: Path) -> str:
    csv = _csv(project)
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    column = rows[0].index("latency")
    csv.write_text("\n".join(",".join(r[:column] + r[column + 1:]) for r in rows) + "\n")
    return rf"{_shown(project, csv)}:1: missing column 'latency'"


def _duplicate_row(project: Path) -> str:
    csv = _csv(project)
    lines = csv.read_text().splitlines()
    csv.write_text("\n".join([*lines, lines[1]]) + "\n")
    return rf"{_shown(project, csv)}:{len(lines) + 1}: trial '[a-z0-9_]+' with 1 thread\(s\) already has a row at line 2"


def _header_only(project: Path) -> str:
    csv = _csv(project)
    csv.write_text(csv.read_text().splitlines()[0] + "\n")
    return rf"{_shown(project, csv)}:2: the record has a header and no row"


def _copied_folder(project: Path) -> str:
    folder = _csv(project).parent
    shutil.copytree(folder, folder.parent / "9.9.9+cpu")
    return r"results/9\.9\.9\+cpu/cpu\.env\.json:1: run '[^']+' was made with torch [^ ]+ on 'cpu', but the file is the record of torch 9\.9\.9\+cpu"


def _deleted_set(project: Path) -> str:
    folder = _csv(project).parent
    shutil.rmtree(folder)
    return (rf"results/unsigned\.sha256:\d+: lists {re.escape(folder.name)}/cpu\.csv, which is "
            r"missing")


def _no_results(project: Path) -> str:
    shutil.rmtree(project / "results")
    return r"results: the records folder is missing"


def _environment(value: str) -> object:
    def fault(project: Path) -> str:
        env = _csv(project).with_name("cpu.env.json")
        env.write_text(value)
        return rf"{_shown(project, env)}:1: expected an object"
    return fault


def _contradiction(project: Path) -> str:
    jsonl, line = _json_line(project, 0)
    data = json.loads(jsonl.read_text().splitlines()[0])
    value = data["value"]
    wrong = (not value) if isinstance(value, bool) else 12345.0 if isinstance(value, (int, float)) else None
    _json_line(project, 0, value=wrong, kind="bool" if isinstance(value, bool) else "number")
    return rf"{_shown(project, jsonl)}:1: recorded '[^']+' = .* contradicts the analytic expectation"


def _block_include(project: Path) -> str:
    line = _page(project, '```python\n--8<--\nelegir-pytorch/respuesta_conocida.py\n--8<--\n```\n')
    return rf"docs/elegir-pytorch\.md:{line + 1}: snippet include the harness would not run \(a block-format include\)"


def _quoted_include(project: Path) -> str:
    line = _page(project, '> ```python\n> --8<-- "elegir-pytorch/respuesta_conocida.py"\n> ```\n')
    return rf"docs/elegir-pytorch\.md:{line + 1}: snippet include the harness would not run \(inside a block quote"


def _lookalike(marker: str) -> object:
    def fault(project: Path) -> str:
        line = _page(project, marker + "\n")
        return rf"docs/elegir-pytorch\.md:{line}: .* looks like a harness marker but does not parse"
    return fault


def _both(project: Path, text: str) -> int:
    """Inject into the page and its twin, so the twin check does not catch it first."""
    _page(project, text, page="docs/elegir-pytorch.en.md")
    return _page(project, text)


def _unknown_marker(project: Path) -> str:
    line = _both(project, '<!-- harness:observd snippet="elegir-pytorch/respuesta_conocida" -->\n')
    return rf"docs/elegir-pytorch\.md:{line}: unknown marker 'harness:observd'\. Did you mean 'observed'\?"


def _missing_twin(project: Path) -> str:
    (project / "docs/elegir-pytorch.en.md").unlink()
    return r"docs/elegir-pytorch\.md:1: no English twin; create docs/elegir-pytorch\.en\.md"


def _twin_differs(project: Path) -> str:
    line = _page(project, '<!-- harness:environment -->\n')
    return (rf"docs/elegir-pytorch\.md:{line}: marker harness:environment is not in the English "
            r"twin; put the same line in docs/elegir-pytorch\.en\.md after docs/elegir-pytorch"
            r"\.en\.md:\d+ \(its ")


def _unchecked_snippet(project: Path) -> str:
    (project / "snippets/elegir-pytorch/sin_expectativa.py").write_text("import torch\n\nz = 1\n")
    line = _both(project, '```python\n--8<-- "elegir-pytorch/sin_expectativa.py"\n```\n')
    return (rf"docs/elegir-pytorch\.md:{line}: snippet 'elegir-pytorch/sin_expectativa' has no "
            r"analytic expectation")


def _orphan_expectation(project: Path) -> str:
    (project / "snippets/elegir-pytorch/huerfano.py").write_text("z = 1\n")
    toml = project / "snippets/elegir-pytorch/expectations.toml"
    line = toml.read_text().count("\n") + 2
    toml.write_text(toml.read_text() + '\n[[expect]]\nsnippet = "huerfano"\nname = "z"\nvalue = 1\n'
                    'derivation = "z = 1."\n')
    return (rf"snippets/elegir-pytorch/expectations\.toml:{line}: expectation for "
            r"'elegir-pytorch/huerfano', which no page includes")


def _missing_include(project: Path) -> str:
    line = _both(project, '```python\n--8<-- "elegir-pytorch/no_existe.py"\n```\n')
    return rf"docs/elegir-pytorch\.md:{line}: unknown snippet 'elegir-pytorch/no_existe'"


def _claim_flipped(project: Path) -> str:
    """A GPU set that also holds example observations: the backward page's claim that every
    observed output was recorded on a CPU stops holding, and the build names its line."""
    gpu = next((project / "results").glob("*/cuda-*.env.json"))
    run_id, run = next(iter(json.loads(gpu.read_text())["runs"].items()))
    build, key = gpu.parent.name, gpu.name.removesuffix(".env.json")
    lines = []
    for line in _jsonl(project).read_text().splitlines():
        data = json.loads(line)
        data.update(torch_build=build, device_key=key, run_id=run_id, date=run["date"])
        lines.append(json.dumps(data, ensure_ascii=False))
    gpu.with_name(f"{key}.examples.jsonl").write_text("\n".join(lines) + "\n")
    reseal(gpu)  # vouched for: the claim must meet the records, not the provenance check
    page = (project / "docs/backward-frente-a-autograd-grad.md").read_text().splitlines()
    line = next(n for n, text in enumerate(page, 1) if 'harness:claim id="ejemplos-solo' in text)
    return (rf"docs/backward-frente-a-autograd-grad\.md:{line}: claim 'ejemplos-solo-en-cpu' "
            r"\(snippets/backward-frente-a-autograd-grad/claims\.toml:\d+\) no longer holds: its "
            r"sentence asserts example-devices = \[cpu\], the records show \[cpu, cuda\]")


def _front_matter(project: Path) -> str:
    """A description holding ': ', unquoted: MkDocs would show the front matter as text."""
    page = project / "docs/elegir-pytorch.md"
    page.write_text(page.read_text().replace("según el cálculo necesario", "según: el cálculo", 1))
    return r"docs/elegir-pytorch\.md:2: the front matter is not valid YAML \(mapping values"


def _latin1_page(project: Path) -> str:
    """A page saved as Latin-1: the build names its line, not a UnicodeDecodeError."""
    page = project / "docs/elegir-pytorch.md"
    page.write_bytes(page.read_text().encode("latin-1", errors="replace"))
    return r"docs/elegir-pytorch\.md:2: byte 0xfa is not UTF-8"  # «según»


def _workloads_syntax(project: Path) -> str:
    workloads = project / "trials/workloads.py"
    workloads.write_text(workloads.read_text() + "\ndef (:\n")
    lines = workloads.read_text().count("\n")
    return rf"trials/workloads\.py:{lines}: not valid Python"


#: fault → a function that injects it into a copy and returns the pattern the log must show.
FAULTS = {
    "corrupt-jsonl": _corrupt,
    "missing-column": _missing_column,
    "nan-latency": lambda p: _cell(p, "latency", "nan"),
    "negative-latency": lambda p: _cell(p, "latency", "-0.0002"),
    "infinite-memory": lambda p: _cell(p, "memory", "inf"),
    "boolean-case": lambda p: _cell(p, "quality_pass", "TRUE"),
    "duplicate-row": _duplicate_row,
    "header-only": _header_only,
    "copied-folder": _copied_folder,
    "deleted-set": _deleted_set,
    "no-results": _no_results,
    "environment-null": _environment("null"),
    "environment-list": _environment("[]"),
    "contradiction": _contradiction,
    "block-include": _block_include,
    "quoted-include": _quoted_include,
    "marker-space": _lookalike('<!-- harness: observed snippet="elegir-pytorch/respuesta_conocida" -->'),
    "marker-case": _lookalike('<!-- Harness:observed snippet="elegir-pytorch/respuesta_conocida" -->'),
    "marker-unclosed": _lookalike('<!-- harness:observed snippet="elegir-pytorch/respuesta_conocida"'),
    "unknown-marker": _unknown_marker,
    "missing-twin": _missing_twin,
    "twin-differs": _twin_differs,
    "unchecked-snippet": _unchecked_snippet,
    "orphan-expectation": _orphan_expectation,
    "missing-include": _missing_include,
    "claim-flipped": _claim_flipped,
    "front-matter": _front_matter,
    "latin1-page": _latin1_page,
    "workloads-syntax": _workloads_syntax,
    **RECORD_FAULTS,  # issues 19 and 27: records, provenance, bad bytes and settings
    **FIGURE_FAULTS,  # issue 27: typed figures where the reader sees them
}

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


#: The key of the stale-record copy among the batch's builds (not a FAULTS entry).
STALE = "stale-typed-markup"
#: A copy whose first CPU set is signed by the test key it allows: it builds; so does one
#: whose forged set was signed again with that key.
SIGNED = "signed-set"
RESIGNED = "forged-and-signed-again"


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object, str]]:
    """Every broken copy of this module, built in one MkDocs process (it starts once):
    key → (the copy, what its injection returned, its build log)."""
    import sys

    roots: dict[str, Path] = {}
    injected: dict[str, object] = {}
    for key, inject_fault in [*FAULTS.items(), (STALE, _stale_typed_and_markup),
                              (SIGNED, signed), (RESIGNED, forged_and_signed_again)]:
        root = copy_project(tmp_path_factory.mktemp(key))
        roots[key], injected[key] = root, inject_fault(root)
    done = run(
        [sys.executable, "-c", BATCH_BUILD, *map(str, roots.values())],
        capture_output=True, text=True,
        env=without_torch(tmp_path_factory.mktemp("no-torch")),
    )
    logs = dict(zip(roots, done.stdout.split("=== ")[1:], strict=True))
    return {key: (root, injected[key], logs[key]) for key, root in roots.items()}


@pytest.fixture(scope="module")
def broken_builds(batch) -> dict[str, tuple[str, str]]:
    """fault → (expected pattern, that project's build log)."""
    return {fault: (str(batch[fault][1]), batch[fault][2]) for fault in FAULTS}


@pytest.fixture(scope="module")
def stale_build(batch) -> tuple[Path, int, str]:
    """The stale-record copy, the line its typed figure went under, and its build log."""
    root, figure_line, log = batch[STALE]
    assert isinstance(figure_line, int)
    return root, figure_line, log


@pytest.mark.parametrize("fault", list(FAULTS))
def test_bad_records_and_includes_stop_the_build_with_file_and_line(broken_builds, fault) -> None:
    pattern, log = broken_builds[fault]
    assert "ABORTED" in log and "BUILT" not in log, log
    assert re.search(pattern, log), log


def test_a_set_signed_by_an_allowed_key_builds_and_shows_its_grade(batch) -> None:
    project, _, log = batch[SIGNED]
    assert "BUILT" in log, log
    # The environment table, with each set's grade, is on Medir's records page.
    page = html.unescape((project / "site/medir-pytorch-registros/index.html").read_text())
    assert "registrado por CI (ejecución 4242, firmado)" in page
    assert "registrado fuera de CI, sin firma" in page  # the other sets
    english = html.unescape(
        (project / "site/en/medir-pytorch-registros/index.html").read_text())
    assert "recorded by CI (run 4242, signed)" in english
    project, _, log = batch[RESIGNED]
    assert "BUILT" in log, log  # the allowed key vouches, whatever the file says
    assert "registrado por CI (ejecución 4242, firmado)" in html.unescape(
        (project / "site/medir-pytorch-registros/index.html").read_text())
