"""A contributor's loop against its floors, side by side, in CPU seconds (issue 22).

    python benchmarks/bench_loop.py                 # que-es-pytorch, 3 pairs of each
    python benchmarks/bench_loop.py --quick         # 1 pair of each, no warm-up (smoke test)
    python benchmarks/bench_loop.py --page elegir-pytorch --pairs 5

- **check**: ``python -m harness check PAGE`` (what ``make check PAGE=<slug>`` runs) in a
  copy of the project, against its floor: the page's snippets run directly with
  ``python``, one after another, plus one warm ``mkdocs build --strict``. CPU seconds of
  each command and every process under it, sampled from /proc. Target: at most 2x.
- **serve**: the ``mkdocs serve`` rebuild after a snippet edit, until the served page
  shows the edit, against a reload of the same site with the ``harness`` plugin removed
  after a page edit (the floor's notebooks re-wrapped as in benchmarks/bench_build.py).
  CPU seconds of the serving process and its children, read from /proc. Target: at
  most 1.5x.

Every figure is measured in turn, A B A B, after one untimed run of each (caches warm);
the ratio quoted is the median of the per-pair ratios. Over a target, the script
names what dominates (the check's steps, each timed alone). It reports and exits 0;
1 only when a command it measures fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
from bench_build import floor_n, pairs  # noqa: E402
from support import BACKSTOP_S, COPIED, SERVED, copy_project, free_port, serving  # noqa: E402

from harness.sources.project import Project, page_includes  # noqa: E402

__all__ = ["TARGETS", "main"]

#: comparison → the most its median ratio may be (issue 22).
TARGETS = {"check": 2.0, "serve": 1.5}
#: What `check` reads besides the site: seeds and the spelling configuration.
CHECKED = (*COPIED, "seeds", "pyproject.toml", ".codespell-words.txt")
_TICK = os.sysconf("SC_CLK_TCK")


def _own_cpu(stat: str) -> tuple[int, float]:
    """(parent pid, utime + stime in seconds) from a /proc/<pid>/stat line."""
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def tree_cpu_seconds(command: list[str], *, cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds of ``command`` and every process under it, sampled from /proc every
    50 ms (a floor: the last 50 ms of each process can be missed). Sampled, not
    getrusage: a process that is never waited for would not count."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    seen: dict[tuple[int, str], float] = {}
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
    reader.start()
    while True:
        tree, stats = {process.pid}, {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stats[int(entry.name)] = (entry / "stat").read_text()
                except OSError:
                    continue
        parents = {pid: _own_cpu(text)[0] for pid, text in stats.items()}
        grew = True  # to a fixpoint: a child's pid can be lower than its parent's
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
        for pid in tree & set(stats):
            start = stats[pid].rsplit(")", 1)[1].split()[19]  # tells a reused pid apart
            seen[(pid, start)] = max(seen.get((pid, start), 0.0), _own_cpu(stats[pid])[1])
        if process.poll() is not None:
            break
        time.sleep(0.05)
    reader.join(timeout=10)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} in {cwd} failed:\n{''.join(output)[-3000:]}")
    return sum(seen.values())


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "HARNESS_CACHE": str(cache)}


class Loop:
    """The check and its floor on one copy of the project."""

    def __init__(self, scratch: Path, page: str) -> None:
        self.root = copy_project(scratch / "check-copy", CHECKED)
        self.page = page
        self.env = _env(scratch / "check-cache")
        self.site = scratch / "floor-site"
        project = Project.load(self.root)
        self.snippets = [snippet.path for _, snippet in
                         page_includes(project, self.root / "docs" / f"{page}.md")
                         if snippet.language == "py"]

    def run(self, *command: str) -> float:
        return tree_cpu_seconds(list(command), cwd=self.root, env=self.env)

    def check(self) -> float:
        return self.run(sys.executable, "-m", "harness", "check", self.page)

    def build(self) -> float:
        return self.run(sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(self.site))

    def floor(self) -> float:
        return sum(self.run(sys.executable, str(path)) for path in self.snippets) + self.build()

    def steps(self) -> dict[str, float]:
        """The check's heavy steps, each run alone as the check runs it."""
        codespell = str(Path(sys.executable).with_name("codespell"))
        found = {
            "spelling": self.run(codespell, f"docs/{self.page}.md", f"docs/{self.page}.en.md",
                                 f"snippets/{self.page}"),
            "examples (pytest)": self.run(sys.executable, "-m", "pytest", "-q", "-p",
                                          "no:randomly", "-p", "no:cacheprovider",
                                          f"docs/{self.page}.md"),
            "strict build": self.build(),
        }
        found["the rest (sources, markers, seeds, notebooks)"] = self.check() - sum(found.values())
        return found


def _cpu(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid``, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / _TICK


def _settled(pid: int) -> float:
    """The process's CPU seconds once it has gone quiet (its rebuild has finished)."""
    last = _cpu(pid)
    while True:
        time.sleep(0.4)
        now = _cpu(pid)
        if now - last < 0.02:
            return now
        last = now


def _base_path(root: Path) -> str:
    """The path part of the copy's ``site_url`` as MkDocs reads it (``!ENV`` included)."""
    from urllib.parse import urlsplit

    from mkdocs.config import load_config

    path = urlsplit(load_config(str(root / "mkdocs.yml")).site_url or "/").path
    return path if path.endswith("/") else path + "/"


class Served:
    """``mkdocs serve`` on a copy; :meth:`reload` edits a file and waits for the page."""

    def __init__(self, root: Path, cache: Path, edited: str, page: str) -> None:
        self.root, self.edited = root, root / edited
        port = free_port()
        self.url = f"http://127.0.0.1:{port}{_base_path(root)}{page}/"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=root, env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        problem = serving(self.url, self.process)  # support's backstop against a hang
        if problem:
            self.close()
            raise RuntimeError(problem)
        _settled(self.process.pid)

    def reload(self) -> float:
        mark = f"bench{uuid.uuid4().hex[:10]}"
        comment = "# " if self.edited.suffix == ".py" else "\n"
        before = _settled(self.process.pid)
        with self.edited.open("a", encoding="utf-8") as file:
            file.write(f"{comment}{mark}\n")
        deadline = time.monotonic() + BACKSTOP_S  # against a hang, not a limit
        while time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                with urllib.request.urlopen(self.url, timeout=5) as answer:
                    if mark in answer.read().decode("utf-8", "replace"):
                        return _settled(self.process.pid) - before
            except OSError:
                continue
        raise RuntimeError(f"{self.url} did not show the edit of {self.edited} within "
                           f"{BACKSTOP_S} s: it hangs")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def serve_pairs(scratch: Path, page: str, count: int, *,
                warm: bool) -> list[tuple[float, float]]:
    harness = copy_project(scratch / "serve-harness", SERVED)
    floor = floor_n(copy_project(scratch / "serve-floor", SERVED))
    snippet = next(s.path for _, s in page_includes(Project.load(harness),
                                                    harness / "docs" / f"{page}.md")
                   if s.language == "py")
    # The harness copy shares the check's build cache: the same files, so its first
    # build finds every entry.
    servers = [Served(harness, scratch / "check-cache", str(snippet.relative_to(harness)), page)]
    try:
        servers.append(Served(floor, scratch / "serve-cache-b", f"docs/{page}.md", page))
        for server in servers if warm else ():  # untimed: the first reload warms imports
            server.reload()
        return pairs(servers[0].reload, servers[1].reload, count)
    finally:
        for server in servers:
            server.close()


def report(name: str, floor: str, measured: list[tuple[float, float]],
           dominates: Callable[[], str]) -> None:
    target = TARGETS[name]
    ratios = [a / b for a, b in measured]
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio <= target else "OVER"
    print(f"{name}: {statistics.median(a for a, _ in measured):.2f} CPU-s / {floor} "
          f"{statistics.median(b for _, b in measured):.2f} CPU-s = {ratio:.2f}x (pairs: "
          f"{', '.join(f'{a:.2f}|{b:.2f}' for a, b in measured)}; target <= {target}x) {verdict}",
          flush=True)
    if verdict != "ok":
        print(f"  dominates: {dominates()}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="1 pair of each, no untimed warm-up (a smoke run, not a figure)")
    parser.add_argument("--page", default="que-es-pytorch", help="the page's slug")
    parser.add_argument("--pairs", type=int, default=3, help="pairs per comparison (default 3)")
    parser.add_argument("--only", default="check,serve", help="comma-separated: check, serve")
    options = parser.parse_args()
    count = 1 if options.quick else options.pairs
    only = set(options.only.split(","))
    try:
        with tempfile.TemporaryDirectory(prefix="bench-loop-") as scratch:
            if "check" in only:
                loop = Loop(Path(scratch), options.page)
                if not options.quick:  # untimed: the build cache and bytecode warm for both
                    loop.check()
                    loop.floor()
                found = pairs(loop.check, loop.floor, count)

                def steps() -> str:
                    parts = sorted(loop.steps().items(), key=lambda item: -item[1])
                    return ", ".join(f"{name} {cpu:.2f} CPU-s" for name, cpu in parts)

                report("check", f"floor ({len(loop.snippets)} snippets + warm build)", found,
                       steps)
            if "serve" in only:
                found = serve_pairs(Path(scratch), options.page, count, warm=not options.quick)
                report("serve", "floor (no harness plugin, page edit)", found,
                       lambda: "the harness plugin's rebuild of the edited page's markers "
                               "and of every page including the snippet")
    except RuntimeError as exc:
        print(f"bench_loop: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
