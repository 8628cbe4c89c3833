"""The docs build against its two floors, side by side, in CPU seconds.

    python benchmarks/bench_build.py             # 4 articles and 64, 5 and 3 pairs
    python benchmarks/bench_build.py --quick     # 4 articles, 1 pair, no warm-up
    python benchmarks/bench_build.py --quick --articles 7   # the suite's smoke run
    python benchmarks/bench_build.py --articles 4,16 --pairs 3

Each build is ``mkdocs build --strict`` in a fresh process, measured in CPU seconds
(user + sys of the process and its children). Three sites are made from the same files:

- **harness**: the site as it is;
- **floor N**: the same site with only the ``harness`` plugin removed. Its notebooks
  are still converted by mkdocs-jupyter, re-wrapped by a 15-line ``on_files`` hook,
  since without the harness mkdocs-static-i18n drops mkdocs-jupyter's NotebookFile
  (its issue 198);
- **floor P**: the same Markdown pages built by MkDocs + Material + i18n alone (no
  harness, no mkdocs-jupyter, no notebooks).

The harness keeps no cache of its own: only mkdocs-jupyter's (one folder per language)
and Jinja's compiled templates, both under ``HARNESS_CACHE``. Cold: the harness with
that folder empty against floor N with mkdocs-jupyter's cache empty. Warm: the harness
again with that folder full against floor P. The two
builds of a pair run one after the other, in turn (A B, then B A), so a machine that
drifts weighs on both; the ratio quoted is the median of the per-pair ratios. Targets
(issue 25): cold at most 1.2× floor N, warm at most 1.5× floor P. The script reports;
it exits 1 only when a build fails.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_big_site import ARTICLES, make_big_site  # noqa: E402

__all__ = ["TARGETS", "cpu_seconds", "floor_n", "floor_p", "main"]

#: (harness build, floor) → the most its median ratio may be (issue 25).
TARGETS = {"cold": ("floor N", 1.2), "warm": ("floor P", 1.5)}

#: The floor-N hook: mkdocs-jupyter's wrapper back on the notebooks after static-i18n,
#: with the harness's own function for it (imported alone: no plugin of the harness runs).
REWRAP = '''\
from mkdocs.plugins import event_priority

from harness.site.site_output import rewrap_notebooks


@event_priority(-110)  # after mkdocs-static-i18n's on_files (-100)
def on_files(files, config):
    return rewrap_notebooks(files, config, config.plugins["mkdocs-jupyter"])
'''


def _plugin_block(text: str, name: str) -> re.Pattern[str]:
    """A plugin's entry in mkdocs.yml's ``plugins:`` list, with its options and the
    comment lines just above it."""
    return re.compile(rf"(?:^  #.*\n)*^  - {re.escape(name)}:.*\n(?:^    .*\n|^\s*\n)*", re.M)


def floor_n(site: Path) -> Path:
    """``site`` (a copy) without the harness plugin, notebooks re-wrapped by a hook."""
    config = site / "mkdocs.yml"
    text = _plugin_block(config.read_text(), "harness").sub("", config.read_text(), count=1)
    (site / "rewrap_notebooks.py").write_text(REWRAP)
    # mkdocs.yml's own hooks stay (the sitemap's lastmod filter); the re-wrap joins them.
    if "\nhooks:\n" in text:
        text = text.replace("\nhooks:\n", "\nhooks:\n  - rewrap_notebooks.py\n", 1)
    else:
        text = text.replace("\nplugins:\n", "\nhooks:\n  - rewrap_notebooks.py\n\nplugins:\n")
    config.write_text(text)
    return site


def floor_p(site: Path) -> Path:
    """``site`` (a copy) without the harness, mkdocs-jupyter and the notebooks."""
    config = site / "mkdocs.yml"
    text = config.read_text()
    for name in ("harness", "mkdocs-jupyter"):
        text = _plugin_block(text, name).sub("", text, count=1)
    head, nav = text.split("\nnav:\n")
    kept = [line for line in nav.splitlines(keepends=True)
            if ": cuadernos/" not in line and line.strip() != "- Cuadernos:"]
    text = head + "\nnav:\n" + "".join(kept)
    config.write_text(text)
    shutil.rmtree(site / "docs" / "cuadernos")
    return site


def cpu_seconds(command: list[str], *, cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + sys, the process and every child it waited for) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} in {cwd} failed:\n{done.stdout[-3000:]}"
                           f"{done.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


class Sites:
    """The three sites of one size, and how to build each cold or warm."""

    def __init__(self, scratch: Path, articles: int) -> None:
        source = make_big_site(scratch / "harness", articles=articles)
        self.roots = {"harness": source}
        for name, make in (("floor N", floor_n), ("floor P", floor_p)):
            copy = scratch / name.replace(" ", "-")
            shutil.copytree(source, copy)
            self.roots[name] = make(copy)
        self.scratch = scratch

    def build(self, name: str, *, cold: bool) -> float:
        root = self.roots[name]
        cache = self.scratch / f"cache-{name.replace(' ', '-')}"
        if cold:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(root / ".cache", ignore_errors=True)  # mkdocs-jupyter's own
        env = {**os.environ, "HARNESS_CACHE": str(cache)}
        site = self.scratch / f"site-{name.replace(' ', '-')}"
        return cpu_seconds([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                           cwd=root, env=env)


def pairs(first: Callable[[], float], second: Callable[[], float],
          count: int) -> list[tuple[float, float]]:
    """``count`` pairs of (first, second) CPU seconds, run A B, then B A, in turn."""
    found = []
    for index in range(count):
        if index % 2 == 0:
            a = first()
            b = second()
        else:
            b = second()
            a = first()
        found.append((a, b))
    return found


def measure(scratch: Path, articles: int, count: int, *,
            warm_up: bool = True) -> dict[str, list[tuple[float, float]]]:
    sites = Sites(scratch, articles)
    # Untimed: each site once, so that every timed build finds bytecode and file caches
    # as warm as the others, and the harness its build cache full (the cold pair fills
    # it anyway: a smoke run skips this).
    for name in sites.roots if warm_up else ():
        sites.build(name, cold=True)
    return {
        "cold": pairs(lambda: sites.build("harness", cold=True),
                      lambda: sites.build("floor N", cold=True), count),
        "warm": pairs(lambda: sites.build("harness", cold=False),
                      lambda: sites.build("floor P", cold=False), count),
    }


def report(articles: int, found: dict[str, list[tuple[float, float]]]) -> list[str]:
    """One line per comparison; and the lines of those over their target."""
    over = []
    for kind, measured in found.items():
        floor, target = TARGETS[kind]
        ratios = [a / b for a, b in measured]
        ratio = statistics.median(ratios)
        verdict = "ok" if ratio <= target else "OVER"
        harness = statistics.median(a for a, _ in measured)
        line = (f"{articles:>3} articles, {kind}: harness {harness:.2f} CPU-s / {floor} "
                f"{statistics.median(b for _, b in measured):.2f} CPU-s = "
                f"{ratio:.2f}x (median of {len(ratios)}: "
                f"{', '.join(f'{r:.2f}' for r in ratios)}; target <= {target}x) {verdict}")
        print(line, flush=True)
        if verdict != "ok":
            over.append(line)
    return over


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="1 pair each, no warm-up, at today's size unless --articles "
                             "(a smoke run)")
    parser.add_argument("--articles",
                        help="comma-separated site sizes in articles (default: today's and 64)")
    parser.add_argument("--pairs", type=int, default=0,
                        help="pairs per comparison (default 5 at today's size, 3 above)")
    options = parser.parse_args()
    default = [len(ARTICLES)] if options.quick else [len(ARTICLES), 64]
    sizes = [int(n) for n in options.articles.split(",")] if options.articles else default
    over = []
    with tempfile.TemporaryDirectory(prefix="bench-build-") as scratch:
        for articles in sizes:
            count = 1 if options.quick else options.pairs or (5 if articles <= len(ARTICLES) else 3)
            folder = Path(scratch) / f"{articles}-articles"
            over += report(articles, measure(folder, articles, count,
                                             warm_up=not options.quick))
    if over:
        print(f"{len(over)} comparison(s) over target", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
