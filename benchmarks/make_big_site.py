"""A bigger copy of the site, for measuring how the build grows with its articles.

    python benchmarks/make_big_site.py TARGET --articles 64

Copies the checkout's site (docs/, snippets/, results/, overrides/, mkdocs.yml) into
TARGET, then adds copies of the real articles under new slugs (``<slug>-2``,
``<slug>-3``, ...) until the site holds ``--articles`` articles: each copy has the
article's pages in both languages, its notebooks, its snippets and expectations, and
its observations in every record set (the same snippet bytes, so they are fresh), and
is listed in the nav. Nothing is invented: every page, snippet and number is the real
one under another name, so the copy builds `--strict` exactly as the site does.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import re
import secrets
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support import copy_project  # noqa: E402

from harness.records.commit import commit_set
from harness.records.provenance import vouch
from harness.records.store import SetPaths, load_all, read_observations

__all__ = ["ARTICLES", "make_big_site"]

ROOT = Path(__file__).resolve().parent.parent
#: What a build of the site reads (the harness itself is the installed package).
SITE = ("docs", "snippets", "trials", "results", "overrides", "mkdocs.yml")


def articles(root: Path = ROOT) -> list[str]:
    """The site's articles: the slugs with a snippets folder and a page."""
    return sorted(p.name for p in (root / "snippets").iterdir()
                  if p.is_dir() and (root / "docs" / f"{p.name}.md").exists())


ARTICLES = articles()


def _renamed(text: str, slug: str, new: str) -> str:
    """``text`` with every snippet id, path and page name of ``slug`` (``slug/...``,
    ``slug.md``) under ``new``: a copy's notebooks then differ from the article's, as
    another article's would, and are converted on their own."""
    return re.sub(rf"(?<![\w-]){re.escape(slug)}(?=[/.])", new, text)


def article_pages(docs: Path, slug: str) -> list[Path]:
    """The article's pages in both languages: ``<slug>.md`` and its companions
    (``<slug>-registros.md`` and the like), which include the article's snippets. A copy
    without a companion leaves its snippets unincluded, and the strict build refuses it."""
    return sorted(p for p in docs.glob(f"{slug}*.md")
                  if p.name in (f"{slug}.md", f"{slug}.en.md")
                  or f'"{slug}/' in p.read_text(encoding="utf-8"))


def _copy_article(root: Path, slug: str, new: str) -> list[tuple[str, str]]:
    """Copies ``slug`` under ``new``; returns its Spanish pages' (old stem, new name)."""
    docs = root / "docs"
    pages = article_pages(docs, slug)
    for source in pages:
        target = docs / source.name.replace(slug, new, 1)
        target.write_text(_renamed(source.read_text(encoding="utf-8"), slug, new),
                          encoding="utf-8")
    for notebook in (docs / "cuadernos").glob(f"{slug}.*ipynb"):
        target = notebook.with_name(notebook.name.replace(slug, new, 1))
        target.write_text(_renamed(notebook.read_text(encoding="utf-8"), slug, new),
                          encoding="utf-8")
    shutil.copytree(root / "snippets" / slug, root / "snippets" / new,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for examples in (root / "results").glob("*/*.examples.jsonl"):
        _record_copies(examples, slug, new)
    return [(p.stem, p.name.replace(slug, new, 1)) for p in pages
            if not p.name.endswith(".en.md")]


def _record_copies(examples: Path, slug: str, new: str) -> None:
    """The article's observations under its new slug, written the way a run writes them
    (commit_set, as a run of their own, then vouched for): appending them to the original
    runs would be a hand edit, which the build rightly refuses."""
    key = examples.name.removesuffix(".examples.jsonl")
    paths = SetPaths.of(examples.parent.parent, examples.parent.name, key)
    observed = [o for _, o in read_observations(examples, examples)
                if o.snippet.startswith(f"{slug}/")]
    if not observed:
        return
    record = next(r for r in load_all(examples.parent.parent).items
                  if r.torch_build == examples.parent.name and r.device_key == key)
    started = datetime.datetime.now(datetime.UTC)
    run = f"{started:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"
    now = started.isoformat(timespec="seconds")
    environment = dataclasses.replace(record.environments[observed[0].run_id], run_id=run,
                                      date=now, digest={}, trials=())
    commit_set(paths, environment=environment, observations=[
        dataclasses.replace(o, snippet=_renamed(o.snippet, slug, new), run_id=run, date=now)
        for o in observed])
    vouch(paths.folder.parent, paths.folder.name, key)  # as a person would after a run


def make_big_site(target: Path, *, articles: int) -> Path:
    """The site copied into ``target`` with ``articles`` articles in all (at least the
    real ones); returns ``target``."""
    copy_project(target, SITE)
    nav: list[str] = []
    copy = 1
    while len(ARTICLES) * copy < articles:
        copy += 1
        for slug in ARTICLES[: articles - len(ARTICLES) * (copy - 1)]:
            new = f"{slug}-{copy}"
            nav += [f'  - "{stem} ({copy})": {page}\n'
                    for stem, page in _copy_article(target, slug, new)]
            nav += [f'  - "{n.stem} ({copy})": cuadernos/{n.name}\n'
                    for n in sorted((target / "docs" / "cuadernos").glob(f"{new}.ipynb"))]
    # nav is the last key of mkdocs.yml: its list goes on with the copies.
    config = target / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    if not text.rstrip().splitlines()[-1].startswith(" "):
        raise SystemExit(f"{config}: expected nav to be the last key")
    config.write_text(text.rstrip("\n") + "\n" + "".join(nav), encoding="utf-8")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", type=Path, help="folder to write the site into (new)")
    parser.add_argument("--articles", type=int, default=64,
                        help="articles in all, the real ones included (default 64)")
    options = parser.parse_args()
    if options.target.exists():
        parser.error(f"{options.target} exists; give a new folder")
    make_big_site(options.target, articles=options.articles)
    print(f"{options.target}: {max(options.articles, len(ARTICLES))} articles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
