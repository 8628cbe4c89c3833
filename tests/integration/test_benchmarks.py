"""Every script in benchmarks/ runs, in its quick mode: a benchmark that crashes cannot
back the claim it was written for (bench_timer.py once died on ``row["error"]`` after
rows became typed, and CONTRIBUTING's ±5 % could not be checked).

Scripts are found by glob, so a new one is covered without being listed here. A script
runs with ``--smoke`` if it has that flag (its smallest workload; it must then exit 0),
else with ``--quick``; one with neither needs an entry in :data:`TINY`, the smallest
arguments that still run its whole path. Each of these runs in seconds to a minute or
two: a smoke run checks that the script works, and its figures mean nothing.

Nothing is timed here (speed claims are the scripts' own, never a test's): a script
may exit 1 with its verdict ("over the limit") printed, and that passes; a traceback,
any other exit status, or a script that printed nothing fails.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from support import ROOT, run

BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
#: Script name → its arguments for a smoke run, where ``--quick`` is not enough or absent;
#: ``{tmp}`` is a fresh folder.
TINY: dict[str, list[str]] = {
    "make_big_site.py": ["{tmp}/site", "--articles", "2"],
    # Copies of three articles, medir-pytorch's records page among them: the 4 real ones
    # alone never reach make_big_site's copies, whose 64-article build once failed
    # --strict (the copies' records pages were left out, their snippets unincluded).
    "bench_build.py": ["--quick", "--articles", "7"],
    # Its cheapest figure: the cold and warm builds, printed, nothing written.
    "bench_suite.py": ["--only", "build", "--no-write"],
    # Its arguments and its search for Chromium, Node and Lighthouse: no build, no npm
    # install, no Lighthouse run (four runs take a minute or more; the scores are its own).
    "lighthouse.py": ["--check"],
    # One run, and no busy loop: the suite must not load its own machine on purpose.
    "stress_examples.py": ["--quick", "--spinners", "0"],
    # Its whole path (check, floor, serve) on the page whose snippets cost least: its
    # default page (que-es-pytorch, seven snippets) took the suite about 70 s more.
    "bench_loop.py": ["--quick", "--page", "elegir-pytorch"],
}
#: Scripts that measure torch itself need it; without torch they are skipped, not failed.
NEEDS_TORCH = {"bench_timer.py", "bench_record.py", "stress_examples.py", "bench_examples.py"}


def arguments(script: Path, tmp: Path) -> list[str]:
    if script.name in TINY:
        return [a.replace("{tmp}", str(tmp)) for a in TINY[script.name]]
    text = script.read_text(encoding="utf-8")
    if "--smoke" in text:  # its quick mode is a figure of its own (bench_record: 5 runs)
        return ["--smoke"]
    if "--quick" in text:
        return ["--quick"]
    pytest.fail(f"{script.relative_to(ROOT)} has no --quick flag and no entry in TINY "
                f"({Path(__file__).name}): give it one, so the smoke test can run it")


def test_benchmarks_are_found() -> None:
    assert {"bench_drift.py", "bench_timer.py", "bench_record.py"} <= {p.name for p in BENCHMARKS}


@pytest.mark.parametrize("script", BENCHMARKS, ids=[p.name for p in BENCHMARKS])
def test_each_benchmark_runs_in_its_quick_mode(script: Path, tmp_path: Path) -> None:
    if script.name in NEEDS_TORCH and importlib.util.find_spec("torch") is None:
        pytest.skip(f"{script.name} measures torch, which is not installed")
    done = run([sys.executable, str(script), *arguments(script, tmp_path)],
                          cwd=ROOT, capture_output=True, text=True)  # a backstop: only a hang reaches it
    output = done.stdout + done.stderr
    allowed = (0,) if "--smoke" in arguments(script, tmp_path) else (0, 1)
    assert done.returncode in allowed, f"{script.name} exited {done.returncode}:\n{output[-3000:]}"
    # The script's own crash (its file in a traceback), not a traceback it only reports.
    assert f'File "{script}"' not in done.stderr, output[-3000:]
    assert done.stdout.strip(), f"{script.name} printed nothing"
