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

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.utils import get_relative_url

from harness.records.commit import write_atomically

__all__ = ["STYLE_FOLDER", "left_out_of_search", "search_languages", "share_notebook_styles",
           "split_search_index"]

STYLE_FOLDER = "assets/jupyter"
"""Where the shared notebook stylesheet is written, relative to the site."""

# A block is what ``<style\b[^>]*>.*?</style>\s*`` (re.S | re.I) matches; the opening
# and closing tags are searched separately because that pattern's lazy ``.*?`` tries
# ``</style>`` at every character of JupyterLab's ~595 KB stylesheet (~20 ms a page).
_OPEN = re.compile(r"<style\b[^>]*>", re.I)
_CLOSE = re.compile(r"</style>\s*", re.I)
_CLOSE_AT_END = re.compile(r"</style>\s*$", re.I)
_INDEX = "search/search_index.json"


def _style_blocks(html: str) -> list[tuple[int, int]]:
    """(start, end) of each ``<style>`` block, with the whitespace after it."""
    blocks, position = [], 0
    while (opening := _OPEN.search(html, position)) is not None:
        closing = _CLOSE.search(html, opening.end())
        if closing is None:
            break
        blocks.append((opening.start(), closing.end()))
        position = closing.end()
    return blocks


def _style_text(block: str) -> str:
    """A block's stylesheet: without its tags (what ``^<style…>|</style>\\s*$`` removed)."""
    text = block.strip()
    opening = _OPEN.match(text)
    if opening is not None:
        text = text[opening.end():]
    # Stripped, the text can only end in the closing tag itself: try it there alone.
    closing = _CLOSE_AT_END.match(text, max(len(text) - len("</style>"), 0))
    return text[:closing.start()] if closing is not None else text


def share_notebook_styles(html: str, page_url: str, site_dir: Path) -> str:
    """``html`` with its ``<style>`` blocks replaced by a link to one shared stylesheet,
    written under ``site_dir`` (once per content: its name holds the digest)."""
    blocks = _style_blocks(html)
    if not blocks:
        return html
    css = "\n".join(_style_text(html[start:end]) for start, end in blocks)
    data = css.encode("utf-8")
    name = f"{STYLE_FOLDER}/notebook.{hashlib.sha256(data).hexdigest()[:16]}.css"
    target = Path(site_dir) / name
    if not target.exists():
        write_atomically(target, data)
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page_url)}">\n'
    pieces, position = [], 0
    for index, (start, end) in enumerate(blocks):
        pieces += [html[position:start], link if index == 0 else ""]
        position = end
    pieces.append(html[position:])
    return "".join(pieces)


def _entry(doc: dict[str, Any], prefix: str) -> dict[str, Any]:
    location = doc.get("location", "")
    return {**doc, "location": location[len(prefix):] if prefix else location,
            "title": str(doc.get("title", "")).replace("¶", "").strip()}


def _language(location: str, default: str, others: list[str]) -> str:
    return next((lang for lang in others
                 if location == lang or location.startswith(f"{lang}/")), default)


def search_languages(config: MkDocsConfig) -> tuple[str, list[str]] | None:
    """(default language, the other built languages) when mkdocs-static-i18n builds
    several, so that ``on_post_build`` splits the search index per language."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return None
    languages = [lang.locale for lang in i18n.config.languages if lang.build]
    default = next((lang.locale for lang in i18n.config.languages if lang.default),
                   languages[0] if languages else "")
    return default, [lang for lang in languages if lang != default]


def left_out_of_search(page_url: str, others: list[str], excluded: tuple[str, ...]) -> bool:
    """Whether :func:`split_search_index` leaves out every entry of the page at
    ``page_url`` (an entry's location is the page's URL, with an anchor or not):
    indexing such a page is work whose result is thrown away."""
    for lang in others:
        prefix = f"{lang}/"
        if page_url.startswith(prefix):
            return page_url[len(prefix):].startswith(excluded)
        if prefix.startswith(page_url):
            return False  # its entries could fall on either side of the prefix: keep them
    return page_url.startswith(excluded)


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
        lang = _language(location, default, others)
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
