"""docs/assets/medir.py, the command Medir offers a reader (issue 31), against the harness:
its generated part is what the trials and workloads give, the spec hash it computes from
its own text is the harness's for every trial it offers, and a stale copy fails."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

from support import ROOT

from harness.core.rows import CSV_HEADER
from harness.sources.trials import load_trials, spec_sha256, workload_sources
from harness.views.reader_box import GROUP, SCRIPT, script_problem


def test_medir_hashes_every_trial_as_the_harness() -> None:
    specs = load_trials()
    medir = runpy.run_path(str(ROOT / SCRIPT))
    offered = medir["TRIALS"]
    assert list(offered) == [s.name for s in specs.values() if s.group == GROUP]
    for name in offered:
        assert medir["spec_sha256"](name) == spec_sha256(specs[name]), name
    assert medir["HEADER"].split(",") == list(CSV_HEADER)
    assert script_problem(ROOT, specs, workload_sources()) == ""


def test_a_stale_copy_names_its_line(tmp_path: Path) -> None:
    copy = tmp_path / SCRIPT
    copy.parent.mkdir(parents=True)
    shutil.copy(ROOT / SCRIPT, copy)
    copy.write_text(copy.read_text(encoding="utf-8").replace('"tolerance": 0.001', '"tolerance": 0.01', 1),
                    encoding="utf-8")
    problem = script_problem(tmp_path, load_trials(), workload_sources())
    assert problem.startswith(f"{SCRIPT}:") and "python -m harness.views.reader_box" in problem
