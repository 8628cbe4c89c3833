"""What the page runner costs: `pytest docs/<page>.md` against the same page's Python
snippets run with `runpy`, in page order, in one process (issue 25: at most 1.1×).

CPU seconds (user + system of the command and every process it waited for), measured
side by side in turn, A B A B, so that a machine's drift hits both; prints each pair
and the median of the per-pair ratios for every page. A script, not a timed test:

    python benchmarks/bench_examples.py                 # every page, 5 pairs each
    python benchmarks/bench_examples.py --pairs 9 --page que-es-pytorch
    python benchmarks/bench_examples.py --quick         # one page, one pair (smoke test)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.sources.project import Project, page_includes  # noqa: E402

LIMIT = 1.1
#: The snippets, in page order, in one process: what a reader running them pays.
RUNPY = ("import runpy, sys\n"
         "for path in sys.argv[1:]:\n    runpy.run_path(path, run_name='__main__')\n")


#: Python as a contributor runs it: writing bytecode (some machines set
#: PYTHONDONTWRITEBYTECODE, and then pytest would compile the harness on every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _cpu(command: list[str], cwd: Path) -> float:
    """CPU seconds of ``command`` and of the processes it waited for; fails if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False,
                          env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed:\n{(done.stdout + done.stderr)[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="A B pairs per page (default 5)")
    parser.add_argument("--page", action="append", help="a page's slug (default: every page)")
    parser.add_argument("--quick", action="store_true", help="one page, one pair")
    args = parser.parse_args(argv)
    project = Project.load(ROOT)
    pages = [p for p in project.spanish_pages()
             if any(s.language == "py" for _, s in page_includes(project, p))]
    if args.page:
        pages = [p for p in pages if p.stem in args.page]
    pairs = args.pairs
    if args.quick:
        pages, pairs = pages[:1], 1
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="bench-examples-") as scratch:
        for page in pages:
            snippets = [str(s.path) for _, s in page_includes(project, page) if s.language == "py"]
            pytest_run = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                          str(page.relative_to(ROOT))]
            runpy_run = [sys.executable, "-c", RUNPY, *snippets]
            ratios = []
            _cpu(pytest_run, ROOT)  # a first run writes the bytecode both then read
            for number in range(1, pairs + 1):
                a, b = _cpu(pytest_run, ROOT), _cpu(runpy_run, Path(scratch))
                ratios.append(a / b)
                print(f"{page.stem}  pair {number}: pytest {a:.2f} s, runpy {b:.2f} s, "
                      f"ratio {a / b:.3f}", flush=True)
            median = statistics.median(ratios)
            verdicts.append(median <= LIMIT)
            print(f"{page.stem}: median ratio {median:.3f} over {pairs} pairs "
                  f"({'within' if median <= LIMIT else 'OVER'} {LIMIT}×)", flush=True)
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
