"""Record faults for the strict-build catalogue (``FAULTS`` in test_faults_build.py): one
per family of issues 19 and 27 — cells that disagree, a run's environment, duplicates,
sizes, an interrupted write, bad bytes and meaningless settings; and evidence that must
not vouch for itself: a forged but self-consistent edit, a copy to a new build, a
backdated run (each on a set signed by a throwaway key the copy allows), a fraction of
peak, a tolerance or a device that its trial does not declare, a look-alike build name,
another commit in one build, JSON too deep to read. Each injects into a copy and returns
the pattern the build's log must show (file:line and what was expected)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from support import inject, record_files

from harness.records.provenance import NAMESPACE, sign_set
from harness.records.store import format_rows, parse_rows

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


@functools.cache
def _test_key() -> Path:
    """A throwaway ed25519 key, made once per test run (never the workflow's)."""
    key = Path(tempfile.mkdtemp(prefix="records-test-key-")) / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "faults", "-f",
                    str(key)], check=True)
    return key


def signed(project: Path) -> Path:
    """Sign the first CPU set of the copy with the test key, which the copy's
    allowed_signers then allows, as the workflow signs a set it recorded; its cpu.csv."""
    csv = record_files(project, ".csv")[0]
    results, key = csv.parent.parent, _test_key()
    sign_set(results, csv.parent.name, "cpu", private_key=key.read_text(), run="4242")
    public = key.with_suffix(".pub").read_text().strip()
    (results / "allowed_signers").write_text(
        f'records-test@example namespaces="{NAMESPACE}" {public}\n')
    return csv


def _unvouched(project: Path, path: Path) -> str:
    return (rf"{_shown(project, path)}:1: not signed by an allowed signer "
            r"\(results/allowed_signers\) and ")


def _forged_consistent_edit(project: Path) -> str:
    """Halve matmul_1024_float32's latency, every derived cell kept consistent."""
    csv = signed(project)
    rows = parse_rows(csv.read_text(), csv)
    rows = [dataclasses.replace(
        r, latency=r.latency / 2, samples_s=tuple(x / 2 for x in r.samples_s),
        latency_iqr_s=r.latency_iqr_s / 2, throughput=r.throughput * 2)
        if r.trial == "matmul_1024_float32" and r.latency and r.latency_iqr_s
        and r.throughput else r for r in rows]
    csv.write_text(format_rows(rows))
    return _unvouched(project, csv) + "it changed since results/unsigned.sha256:"


def forged_and_signed_again(project: Path) -> Path:
    """The forged edit above, then signed again with the allowed key: the key, not the
    file, is what vouches, so this copy builds."""
    _forged_consistent_edit(project)
    return signed(project)


def _copied_to_a_new_build(project: Path) -> str:
    """torch 2.15.0 that never ran: the signed set copied, torch_build rewritten."""
    folder = signed(project).parent
    copy = folder.with_name("2.15.0+cpu")
    shutil.copytree(folder, copy)
    for path in copy.glob("cpu.*"):
        path.write_text(path.read_text().replace(folder.name, copy.name))
    return _unvouched(project, copy / "cpu.csv") + "results/unsigned.sha256 does not list it"


def _backdated_run(project: Path) -> str:
    signed(project)
    env, run = _first_run(project, "date", "2026-11-01T00:00:00+00:00")
    return (rf"{_shown(project, env)}:1: run '{run}' is dated '2026-11-01T00:00:00\+00:00', "
            "not when its id says it started")


def _gpu_row(project: Path, name: str, **cells: str) -> tuple[Path, int]:
    csv = next((project / "results").glob("*/cuda-*.csv"))
    lines = csv.read_text().splitlines()
    header = lines[0].split(",")
    number = next(n for n, line in enumerate(lines) if line.startswith(name + ","))
    values = lines[number].split(",")
    for column, value in cells.items():
        values[header.index(column)] = value
    lines[number] = ",".join(values)
    csv.write_text("\n".join(lines) + "\n")
    return csv, number + 1


def _peak_fraction_raised(project: Path) -> str:
    csv, line = _gpu_row(project, "matmul_8192_float32", peak_fraction="0.964214")
    return (rf"{_shown(project, csv)}:{line}: trial 'matmul_8192_float32': peak_fraction "
            r"0\.964214 is not throughput / the run's peak \(0\.7642")


def _tolerance_raised(project: Path) -> str:
    csv, line = _gpu_row(project, "matmul_8192_bfloat16", tolerance="0.01", quality_pass="true")
    return (rf"{_shown(project, csv)}:{line}: trial 'matmul_8192_bfloat16' has tolerance = "
            r"0\.01, but trials/trials\.toml:\d+ declares tolerance = 0\.001")


def _cpu_trial_in_gpu_record(project: Path) -> str:
    csv, line = _gpu_row(project, "matmul_1024_float32", trial="threads_matmul_1024_float32_t1")
    return (rf"{_shown(project, csv)}:{line}: trial 'threads_matmul_1024_float32_t1' runs on "
            r"cpu only \(trials/trials\.toml:\d+\), yet this cuda record holds a row of it")


def _lookalike_build(project: Path) -> str:
    folder = record_files(project, ".csv")[0].parent
    fake = folder.with_name(folder.name.replace("c", "\u0441", 1))  # a Cyrillic «с»
    shutil.copytree(folder, fake)
    for path in fake.glob("cpu.*"):
        path.write_text(path.read_text().replace(folder.name, fake.name))
    return (rf"{_shown(project, fake / 'cpu.env.json')}:1: '{re.escape(fake.name)}' is not a "
            "torch build "
            "as PEP 440 writes it in ASCII")


def _another_commit(project: Path) -> str:
    env = record_files(project, ".env.json")[0]
    data = json.loads(env.read_text())
    run = sorted(data["runs"])[-1]
    data["runs"][run]["torch_git"] = "0" * 40
    env.write_text(json.dumps(data, indent=2))
    return (rf"{_shown(project, env)}:1: run '{run}' was made with torch_git 000000000000, "
            r".* one build has one commit")


def _failing_rows_deleted(project: Path) -> str:
    """The bfloat16 rows that fail quality, deleted: every other cell stays valid."""
    csv = record_files(project, ".csv")[0]
    lines = csv.read_text().splitlines()
    csv.write_text("\n".join(line for line in lines if "_bfloat16," not in line) + "\n")
    return (rf"{_shown(project, csv)}:1: run '[^']+' measured 13 trial\(s\) "
            r"\(results/2\.13\.0\+cpu/cpu\.env\.json\), but this file has no row of "
            r"'matmul_256_bfloat16'")


def _deep_json(project: Path) -> str:
    jsonl = record_files(project, ".examples.jsonl")[0]
    lines = jsonl.read_text().splitlines()
    jsonl.write_text("\n".join([*lines, "[" * 3000 + "]" * 3000]) + "\n")
    return rf"{_shown(project, jsonl)}:{len(lines) + 1}: JSON nested too deeply to read"


def _key_twice(project: Path) -> str:
    """A field twice in one run of an environment: JSON keeps the last one silently."""
    env = record_files(project, ".env.json")[0]
    lines = env.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if '"cpu_id":' in line)
    second = next(n for n, line in enumerate(lines) if n > first and '"cpu_id":' in line)
    lines.insert(second + 1, '      "cpu_id": "forged",')
    env.write_text("\n".join(lines) + "\n")
    return rf"{_shown(project, env)}:{second + 2}: key 'cpu_id' twice in one object"


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


def _interrupted_swap(project: Path) -> str:
    """A run killed between its two renames: the complete new folder beside the old."""
    folder = record_files(project, ".csv")[0].parent
    shutil.copytree(folder, folder.with_name(f".{folder.name}.new"))
    return rf"results/\.{re.escape(folder.name)}\.new: a recording run was interrupted"


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
    "forged-consistent-edit": _forged_consistent_edit,
    "copied-to-a-new-build": _copied_to_a_new_build,
    "backdated-run": _backdated_run,
    "peak-fraction-raised": _peak_fraction_raised,
    "tolerance-raised": _tolerance_raised,
    "cpu-trial-in-gpu-record": _cpu_trial_in_gpu_record,
    "lookalike-build": _lookalike_build,
    "another-commit-in-a-build": _another_commit,
    "deep-json": _deep_json,
    "failing-rows-deleted": _failing_rows_deleted,
    "duplicate-observation": _duplicate_observation,
    "key-twice": _key_twice,
    "huge-observation": _huge_observation,
    "interrupted-swap": _interrupted_swap,
    "latin1-byte-in-csv": _latin1_byte,
    "bom-in-toml": _bom_in_toml,
    "none-as-text": _none_as_text,
    "rtol-infinite": _rtol_infinite,
    "rtol-meaningless": _rtol_meaningless,
}
