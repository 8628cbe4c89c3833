"""Post-processing of the built site: shared notebook styles, one search index per language.

* **Notebook styles.** mkdocs-jupyter inlines JupyterLab's stylesheet (~595 KB) into
  every notebook page. :func:`share_notebook_styles` moves a page's ``<style>`` blocks,
  in their order, into one file named by the digest of its content
  (``assets/jupyter/notebook.<digest>.css``), written once, and links it where the
  first block stood: the cascade is unchanged, and a reader's browser downloads the
  styles once for every notebook page.
* **Search per language.** mkdocs-static-i18n merges every language's entries into
  one ``search/search_index.json``, and Material then mixes Spanish and English
  results. :func:`split_search_index` writes the default language's entries there
  and each other language's under ``<lang>/search/search_index.json``, its
  locations relative to ``<lang>/`` (overrides/main.html points the search of a
  ``<lang>`` page there). Notebook copies of the articles are left out of both,
  so they never crowd out the articles, and no title keeps a permalink's «¶».
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from harness.records.files import write_atomically

__all__ = ["STYLE_FOLDER", "share_notebook_styles", "split_search_index"]

STYLE_FOLDER = "assets/jupyter"
"""Where the shared notebook stylesheet is written, relative to the site."""

_STYLE = re.compile(r"<style\b[^>]*>.*?</style>\s*", re.S | re.I)
_INDEX = "search/search_index.json"


def share_notebook_styles(html: str, page_url: str, site_dir: Path) -> str:
    """``html`` with its ``<style>`` blocks replaced by a link to one shared stylesheet,
    written under ``site_dir`` (once per content: its name holds the digest)."""
    blocks = list(_STYLE.finditer(html))
    if not blocks:
        return html
    css = "\n".join(re.sub(r"^<style\b[^>]*>|</style>\s*$", "", b.group(0).strip(), flags=re.I)
                    for b in blocks)
    data = css.encode("utf-8")
    name = f"{STYLE_FOLDER}/notebook.{hashlib.sha256(data).hexdigest()[:16]}.css"
    target = Path(site_dir) / name
    if not target.exists():
        write_atomically(target, data)
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page_url)}">\n'
    pieces, position = [], 0
    for index, block in enumerate(blocks):
        pieces += [html[position:block.start()], link if index == 0 else ""]
        position = block.end()
    pieces.append(html[position:])
    return "".join(pieces)


def _entry(doc: dict[str, Any], prefix: str) -> dict[str, Any]:
    location = doc.get("location", "")
    return {**doc, "location": location[len(prefix):] if prefix else location,
            "title": str(doc.get("title", "")).replace("¶", "").strip()}


def split_search_index(site_dir: Path, default: str, others: list[str],
                       excluded: tuple[str, ...] = ()) -> dict[str, int]:
    """Split the merged index into one per language; leave out locations that start
    (after the language prefix) with one of ``excluded``. Returns entries per language."""
    path = Path(site_dir) / _INDEX
    if not path.exists():
        return {}
    index = json.loads(path.read_text(encoding="utf-8"))
    docs = index.get("docs", [])
    prefixes = {lang: f"{lang}/" for lang in others}
    split: dict[str, list[dict[str, Any]]] = {default: [], **{lang: [] for lang in others}}
    for doc in docs:
        location = doc.get("location", "")
        lang = next((lang for lang, p in prefixes.items()
                     if location == p.rstrip("/") or location.startswith(p)), default)
        entry = _entry(doc, prefixes.get(lang, ""))
        if lang != default and entry["location"] == lang:
            entry["location"] = ""
        if not entry["location"].startswith(excluded):
            split[lang].append(entry)
    for lang, entries in split.items():
        target = path if lang == default else Path(site_dir) / lang / _INDEX
        config = {**index.get("config", {}), "lang": [lang]}
        write_atomically(target, json.dumps({**index, "config": config, "docs": entries},
                                             ensure_ascii=False, separators=(",", ":")).encode())
    return {lang: len(entries) for lang, entries in split.items()}
