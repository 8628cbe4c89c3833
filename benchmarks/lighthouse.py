"""Lighthouse's four scores for the home and Medir pages, on a phone and a desktop.

    python benchmarks/lighthouse.py                  # build, serve, 2 pages × 2 forms
    python benchmarks/lighthouse.py --runs 3         # the median of 3 runs each
    python benchmarks/lighthouse.py --site DIR --page medir-pytorch/ --reports DIR
    python benchmarks/lighthouse.py --check          # find the tools, print the plan, stop

The site is built (``mkdocs build --strict``) for the address it is served at, so its
canonical, sitemap and hreflang links are the served ones, and served on 127.0.0.1 by
http.server with text gzipped, as GitHub Pages serves it (bare http.server would have
Lighthouse score the server's missing compression, not the site). Lighthouse runs with
Chromium from ``CHROME_PATH`` or PATH, headless, once per page and form: mobile (its
default) and ``--preset=desktop``. It prints the scores and, for each category under its
target (issue 20: accessibility, best practices and SEO 100, performance 90), the audits
that hold it back with the elements or files they name. Performance is a simulated slow
phone scaled from this machine's own timings: a busy 2-core machine scores lower.

Lighthouse is no dependency of the project: its 200 npm packages (~190 MB) would make the
npm install of ``make browser`` (axe-core alone) heavy for every contributor. npm installs
it on first use into ``.cache/lighthouse/<version>/`` (ignored, removed by ``make clean``;
later runs need no network). 12.8.2, since Lighthouse 13 needs Node 22 (Debian 12 has 18).
A benchmark, not a gate: without Chromium, Node or npm it says why and exits 0; it exits 1
only when the site does not build.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["CATEGORIES", "PAGES", "TARGETS", "VERSION", "failing_audits", "find_tools", "main"]

ROOT = Path(__file__).resolve().parent.parent
VERSION = "12.8.2"
NODE_AT_LEAST = (18, 16)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: Category → the least score (0–100) it should reach (issue 20's "done when").
TARGETS = {"performance": 90, "accessibility": 100, "best-practices": 100, "seo": 100}
PAGES = ("", "medir-pytorch/")
FORMS = ("mobile", "desktop")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"
#: Types GitHub Pages gzips; the rest (images, fonts, notebooks' downloads) go as they are.
TEXT = ("text/", "application/javascript", "application/json", "application/xml", "image/svg")
#: How many elements or files to name per failing audit (the JSON report has them all).
SHOWN = 4


def find_tools(*, lighthouse: Path) -> tuple[str | None, list[str]]:
    """Chromium, and why Lighthouse cannot run here (nothing if it can): no Chromium, no
    Node new enough, or neither ``lighthouse`` nor npm to install it."""
    missing: list[str] = []
    chromium = os.environ.get("CHROME_PATH") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if chromium is None:
        missing.append("no Chromium: set CHROME_PATH or put `chromium` on PATH "
                       "(`make browser` installs Debian's)")
    node = shutil.which("node")
    version = subprocess.run([node, "--version"], capture_output=True,
                             text=True).stdout.strip() if node else "not on PATH"
    if tuple(int(d) for d in version.lstrip("v").split(".") if d.isdigit()) < NODE_AT_LEAST:
        missing.append(f"Lighthouse {VERSION} is a Node program that needs Node "
                       f"{'.'.join(map(str, NODE_AT_LEAST))} or later; `node` is {version}")
    if not lighthouse.is_file() and shutil.which("npm") is None:
        missing.append(f"no {lighthouse} and no `npm` to install it")
    return chromium, missing


def install(*, cache: Path) -> str | None:
    """Install Lighthouse into ``cache`` with npm; None, or why it failed."""
    cache.mkdir(parents=True, exist_ok=True)
    print(f"Installing lighthouse@{VERSION} with npm into {cache} (once) ...", flush=True)
    try:
        done = subprocess.run(["npm", "install", "--prefix", str(cache), "--no-save", "--no-audit",
                               "--no-fund", "--no-package-lock", f"lighthouse@{VERSION}"],
                              capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm install took over 10 minutes"
    return None if done.returncode == 0 else f"npm install failed:\n{done.stderr[-1500:]}"


class _Host(SimpleHTTPRequestHandler):
    """The built site with text gzipped, as GitHub Pages serves it."""

    def do_GET(self) -> None:
        target = Path(self.translate_path(self.path))
        if target.is_dir() and self.path.split("?", 1)[0].endswith("/"):
            target = target / "index.html"
        kind = self.guess_type(str(target))
        if not (target.is_file() and kind.startswith(TEXT)
                and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        body = gzip.compress(target.read_bytes(), compresslevel=6)
        self.send_response(200)
        for name, value in (("Content-Type", kind), ("Content-Encoding", "gzip"),
                            ("Content-Length", str(len(body)))):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def run_once(*, lighthouse: Path, chromium: str, url: str, form: str,
             base: Path) -> dict[str, Any] | str:
    """One Lighthouse run: its JSON report, or why there is none."""
    command = [str(lighthouse), url, "--quiet", "--output=json", "--output=html",
               f"--output-path={base}", f"--chrome-flags={CHROME_FLAGS}",
               f"--only-categories={','.join(CATEGORIES)}"]
    try:
        done = subprocess.run(command + (["--preset=desktop"] if form == "desktop" else []),
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "CHROME_PATH": chromium})
    except subprocess.TimeoutExpired:
        return "Lighthouse ran over 5 minutes"
    report = base.with_name(base.name + ".report.json")
    if done.returncode != 0 or not report.is_file():
        return f"Lighthouse exited {done.returncode}:\n{done.stderr[-1500:]}"
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    error = found.get("runtimeError")
    return f"{error['code']}: {error['message']}" if error else found


def _score(report: dict[str, Any], category: str) -> int:
    score = report["categories"][category]["score"]
    return -1 if score is None else round(score * 100)  # None: the run could not score it


def _names(details: dict[str, Any], origin: str) -> list[str]:
    """The elements, files or messages an audit's table names, one line each."""
    lines = []
    for item in (i for i in details.get("items") or [] if isinstance(i, dict)):
        node = next((v for v in item.values() if isinstance(v, dict) and v.get("type") == "node"),
                    None)
        sub = (item.get("subItems") or {}).get("items", [])
        why = "; ".join(filter(None, [item.get("statistic"), *(
            i.get("reason") for i in sub if isinstance(i, dict))]))  # dom-size's, hreflang's
        where = item.get("url") or (item.get("sourceLocation") or {}).get("url")
        if node is not None:
            lines.append(f"{node.get('selector', '?')}  {node.get('snippet', '')[:110]}  {why}")
        elif where:
            lines.append(f"{str(where).replace(origin, '/')}  {item.get('description', '')}")
    return [line.rstrip() for line in lines]


def failing_audits(report: dict[str, Any], category: str) -> list[tuple[str, str, list[str]]]:
    """(id, title and value, names) of the audits that cost ``category`` points: scored
    ones under 1 (performance: metrics and diagnostics under 0.9, insights left out as
    they repeat the diagnostics)."""
    parts = urlsplit(report["finalDisplayedUrl"])
    found = []
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        score = audit.get("score")
        if (score is None or ref.get("group") == "hidden"
                or audit["scoreDisplayMode"] in ("informative", "manual", "notApplicable")
                or score >= (0.9 if category == "performance" else 1)):
            continue
        value = f": {audit['displayValue']}" if audit.get("displayValue") else ""
        found.append((ref["id"], f"{audit['title']}{value}",
                      _names(audit.get("details") or {}, f"{parts.scheme}://{parts.netloc}/")))
    return found


#: (page, form) → that configuration's reports, one per run.
Results = dict[tuple[str, str], list[dict[str, Any]]]


def _median(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The run whose performance score is the median (the lower one of an even count)."""
    return sorted(reports, key=lambda r: _score(r, "performance"))[(len(reports) - 1) // 2]


def _table(results: Results, *, runs: int) -> None:
    def row(cells: list[str]) -> str:
        return "  ".join(f"{c:<16}" if i < 2 else f"{c:>14}" for i, c in enumerate(cells))
    print("\n" + row(["page", "form", *CATEGORIES, "cpu index", "dom-size"]))
    for (page, form), found in results.items():
        cells = [f"/{page}", form] + ([] if found else ["no result (see above)"])
        for category in CATEGORIES if found else ():
            scores = sorted(_score(r, category) for r in found)
            spread = f" ({scores[0]}–{scores[-1]})" if scores[0] != scores[-1] else ""
            cells.append(f"{_score(_median(found), category)}{spread}")
        median = _median(found) if found else {}
        dom = (median.get("audits") or {}).get("dom-size", {}).get("numericValue")
        print(row(cells + [f"{median['environment']['benchmarkIndex']:.0f}",
                           "—" if dom is None else f"{dom:.0f}"] * bool(found)))
    print(f"\nThe median of {runs} run(s) by performance (in parentheses the range). Targets: "
          + ", ".join(f"{c} {t}" for c, t in TARGETS.items()) + ".\ncpu index: Lighthouse's "
          "benchmarkIndex here; under 1000 the CPU is slower than Lighthouse expects. dom-size: "
          "the elements Lighthouse counts in the page's body (issue 28: Medir under 1,500).")


def _failures(results: Results) -> None:
    """Per page and category under target, each audit that holds it back, once, with the
    forms it fails in when not all of them."""
    for page in dict.fromkeys(page for page, _ in results):
        forms = {f: _median(found) for (p, f), found in results.items() if p == page and found}
        for category in CATEGORIES:
            low = {f: r for f, r in forms.items() if _score(r, category) < TARGETS[category]}
            if not low:
                continue
            scores = ", ".join(f"{f} {_score(r, category)}" for f, r in low.items())
            print(f"\n/{page} · {category} {scores} (target {TARGETS[category]}):")
            seen: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
            for form, report in low.items():
                for audit_id, title, names in failing_audits(report, category):
                    seen.setdefault((audit_id, title), ([], names))[0].append(form)
            for (audit_id, title), (where, names) in seen.items():
                tag = "" if len(where) == len(FORMS) else f" [{', '.join(where)}]"
                more = [f"… and {len(names) - SHOWN} more"] if len(names) > SHOWN else []
                print(f"  {audit_id}{tag} — {title}", *names[:SHOWN], *more, sep="\n      ")


def _measure(*, lighthouse: Path, chromium: str, site: Path, built: bool, pages: list[str],
             runs: int, reports: Path) -> Results | str:
    """Build ``site`` (``mkdocs build --strict``) unless ``built``, serve it and run
    Lighthouse: the reports, or the build's output where it fails."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Host, directory=str(site)))
    server.daemon_threads = True
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    done = None if built else subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
        capture_output=True, text=True, env={**os.environ, "SITE_URL": origin})
    if done is not None and done.returncode != 0:
        server.server_close()
        return (done.stdout + done.stderr)[-3000:]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    results: Results = {}
    try:
        for page, form in ((p, f) for p in pages for f in FORMS):
            print(f"Lighthouse: /{page} {form} ...", flush=True)
            name = f"{page.strip('/').replace('/', '_') or 'inicio'}-{form}"
            found = [run_once(lighthouse=lighthouse, chromium=chromium, url=origin + page,
                              form=form, base=reports / f"{name}-{n}") for n in range(runs)]
            for error in dict.fromkeys(f for f in found if isinstance(f, str)):
                print(f"  no result: {error}")
            results[page, form] = [f for f in found if not isinstance(f, str)]
    finally:
        server.shutdown()
        server.server_close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--site", type=Path, help="serve this built site instead of building")
    parser.add_argument("--page", action="append", help="a page's path, as medir-pytorch/ "
                        f"(repeatable; default: {', '.join(f'/{p}' for p in PAGES)})")
    parser.add_argument("--runs", type=int, default=1, help="runs per page and form (median)")
    parser.add_argument("--reports", type=Path, help="keep Lighthouse's JSON and HTML here")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "lighthouse" / VERSION,
                        help="where npm installs Lighthouse (default: .cache/lighthouse/VERSION)")
    parser.add_argument("--check", action="store_true",
                        help="find the tools and print the plan; build and run nothing")
    args = parser.parse_args(argv)
    pages = [p.lstrip("/") for p in args.page or PAGES]
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: expected 1 or more")
    if args.site is not None and not (args.site / "index.html").is_file():
        parser.error(f"--site {args.site}: no index.html there (build the site first)")
    lighthouse = args.cache / "node_modules" / ".bin" / "lighthouse"
    chromium, missing = find_tools(lighthouse=lighthouse)
    installed = lighthouse.is_file()
    print(f"Chromium: {chromium or 'not found'}; Lighthouse {VERSION}: {lighthouse}"
          + ("" if installed else " (not installed yet: npm installs it on a real run)"))
    print(f"Plan: {' '.join(f'/{p}' for p in pages)} × {', '.join(FORMS)} × {args.runs} run(s)")
    if missing or chromium is None or args.check:
        if missing:
            print("\n- ".join(["Lighthouse cannot run here, so no scores:", *missing]))
        return 0
    if not installed and (why := install(cache=args.cache)) is not None:
        print(f"Lighthouse cannot be installed here, so no scores: {why}")
        return 0
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as scratch:
        reports = args.reports or Path(scratch) / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        results = _measure(lighthouse=lighthouse, chromium=chromium, pages=pages, runs=args.runs,
                           site=args.site or Path(scratch) / "site",
                           built=args.site is not None, reports=reports)
        if isinstance(results, str):
            print(f"The site does not build:\n{results}")
            return 1
        _table(results, runs=args.runs)
        _failures(results)
    if args.reports:
        print(f"\nLighthouse's reports (open the .html in a browser): {args.reports}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
