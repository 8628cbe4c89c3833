"""Record faults for the strict-build catalogue (``FAULTS`` in test_faults_build.py): one
per family of issue 19 — cells that disagree, a run's environment, a digest, duplicates,
sizes, a forged journal, bad bytes and meaningless settings. Each injects into a copy
and returns the pattern the build's log must show (file:line and what was expected)."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

from support import inject, record_files

__all__ = ["RECORD_FAULTS"]


def _shown(project: Path, path: Path) -> str:
    return re.escape(str(path.relative_to(project)))


def _row_cell(project: Path, trial: str, column: str, value: str) -> tuple[Path, int]:
    """Put ``value`` in ``column`` of ``trial``'s row of the first CPU record (cells stay
    valid one by one); returns the file and the row's line."""
    csv = record_files(project, ".csv")[0]
    lines = csv.read_text().splitlines()
    header = lines[0].split(",")
    number = next(n for n, line in enumerate(lines) if line.startswith(trial + ","))
    cells = lines[number].split(",")
    cells[header.index(column)] = value
    lines[number] = ",".join(cells)
    csv.write_text("\n".join(lines) + "\n")
    return csv, number + 1


def _failure_shown_as_pass(project: Path) -> str:
    csv, line = _row_cell(project, "matmul_256_bfloat16", "quality_pass", "true")
    return (rf"{_shown(project, csv)}:{line}: trial 'matmul_256_bfloat16': quality_pass is true "
            r"but quality_error [0-9.e-]+ exceeds the tolerance 0\.001")


def _latency_halved(project: Path) -> str:
    csv, line = _row_cell(project, "matmul_256_float32", "latency", "0.000186487")
    return (rf"{_shown(project, csv)}:{line}: trial 'matmul_256_float32': latency 0\.000186487 s "
            r"is not the median of samples_s")


def _first_run(project: Path, key: str, value: object) -> tuple[Path, str]:
    """Set ``key`` of the first run in the first CPU environment file; (file, run id)."""
    env = record_files(project, ".env.json")[0]
    data = json.loads(env.read_text())
    run = next(iter(data["runs"]))
    data["runs"][run][key] = value
    env.write_text(json.dumps(data, indent=2))
    return env, run


def _environment_text_threads(project: Path) -> str:
    env, run = _first_run(project, "threads", "muchos")
    return (rf"{_shown(project, env)}:3: run '{run}' field 'threads' holds 'muchos'; "
            r"expected an integer")


def _new_run_without_digest(project: Path) -> str:
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    _first_run(project, "digest", {})  # a run recorded after digests, with its digest cleared
    env, run = _first_run(project, "date", now)
    return rf"{_shown(project, env)}:1: run '{run}' \(dated .*\) has no digest \(«sin huella»\)"


def _duplicate_observation(project: Path) -> str:
    jsonl = record_files(project, ".examples.jsonl")[0]
    lines = jsonl.read_text().splitlines()
    data = json.loads(lines[0])
    data["value"] = 27.0
    jsonl.write_text("\n".join([*lines, json.dumps(data, ensure_ascii=False)]) + "\n")
    return (rf"{_shown(project, jsonl)}:{len(lines) + 1}: a second observation of "
            rf"'{re.escape(data['snippet'])}' '{data['name']}' \(another value\) after "
            rf"{_shown(project, jsonl)}:1")


def _huge_observation(project: Path) -> str:
    jsonl = record_files(project, ".examples.jsonl")[0]
    lines = jsonl.read_text().splitlines()
    data = json.loads(lines[1])
    data["value"] = "x" * 200_000
    lines[1] = json.dumps(data, ensure_ascii=False)
    jsonl.write_text("\n".join(lines) + "\n")
    return rf"{_shown(project, jsonl)}:2: an observed value of 200,002 characters"


def _forged_journal(project: Path) -> str:
    folder = record_files(project, ".csv")[0].parent
    journal = folder / ".cpu.commit.json"
    journal.write_text(json.dumps([[".cpu.csv.abc.tmp", str(project / "mkdocs.yml")]]))
    return (rf"{_shown(project, journal)}:1: names '.*mkdocs\.yml', outside the record folder")


def _latin1_byte(project: Path) -> str:
    csv, line = _row_cell(project, "matmul_256_float32", "error", "")
    data = csv.read_bytes().splitlines(keepends=True)
    data[line - 1] = data[line - 1].replace(b",true,", b",true,\xe9", 1)
    csv.write_bytes(b"".join(data))
    return rf"{_shown(project, csv)}:{line}: byte 0xe9 is not UTF-8"


_TOML = "snippets/elegir-pytorch/expectations.toml"


def _bom_in_toml(project: Path) -> str:
    toml = project / _TOML
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes())
    return rf"{re.escape(_TOML)}:1: the file starts with a UTF-8 byte-order mark \(BOM\)"


def _none_as_text(project: Path) -> str:
    line = inject(project / _TOML, 'name = "residual_ok"\nvalue = true\n',
                  'name = "residual_ok"\nnone = "no"\nvalue = true\n') + 1
    return rf"{re.escape(_TOML)}:{line}: 'none' must be true or false"


def _rtol_infinite(project: Path) -> str:
    line = inject(project / _TOML, 'name = "solution"\n', 'name = "solution"\nrtol = inf\n') + 1
    return (rf"{re.escape(_TOML)}:{line}: rtol = inf accepts every value \(or none\); "
            r"expected a finite tolerance, at most 0\.1")


def _rtol_meaningless(project: Path) -> str:
    line = inject(project / _TOML, 'name = "solution"\n', 'name = "solution"\nrtol = 1e9\n') + 1
    return (rf"{re.escape(_TOML)}:{line}: rtol = 1000000000\.0 is above 0\.1, where the "
            r"comparison stops meaning much; .*tolerance_reason")


#: fault → its injection (merged into test_faults_build.FAULTS).
RECORD_FAULTS = {
    "failure-shown-as-pass": _failure_shown_as_pass,
    "latency-halved": _latency_halved,
    "environment-text-threads": _environment_text_threads,
    "new-run-without-digest": _new_run_without_digest,
    "duplicate-observation": _duplicate_observation,
    "huge-observation": _huge_observation,
    "forged-journal": _forged_journal,
    "latin1-byte-in-csv": _latin1_byte,
    "bom-in-toml": _bom_in_toml,
    "none-as-text": _none_as_text,
    "rtol-infinite": _rtol_infinite,
    "rtol-meaningless": _rtol_meaningless,
}
