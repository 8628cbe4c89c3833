"""What the site's pages and files get beyond what MkDocs and its plugins make of them:
notebook pages, shared notebook styles, one search index per language.

* **Notebook pages.** Under mkdocs-static-i18n they need their page wrapper again
  (:func:`rewrap_notebooks`), and their buttons and the shared styles (:func:`notebook_page`).
* **Notebook styles.** mkdocs-jupyter inlines JupyterLab's stylesheet (~595 KB) into
  every notebook page; moved, in their order, into one file named by its digest and
  linked where the first block stood, the cascade is unchanged and a reader's browser
  downloads the styles once for every notebook page.
* **Search per language.** mkdocs-static-i18n merges every language's entries into one
  ``search/search_index.json``, and Material then mixes Spanish and English results;
  each other language gets its own ``<lang>/search/search_index.json``, its locations
  relative to ``<lang>/`` (overrides/main.html points a ``<lang>`` page's search there),
  and no title keeps a permalink's «¶».
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from html import escape
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from harness.records.commit import write_atomically
from harness.text.words import word

__all__ = ["notebook_page", "rewrap_notebooks", "search_languages", "share_notebook_styles",
           "split_search_index"]

# A block is what ``<style\b[^>]*>.*?</style>\s*`` (re.S | re.I) matches; the opening
# and closing tags are searched separately because that pattern's lazy ``.*?`` tries
# ``</style>`` at every character of JupyterLab's ~595 KB stylesheet (~20 ms a page).
_OPEN = re.compile(r"<style\b[^>]*>", re.I)
_CLOSE = re.compile(r"</style>\s*", re.I)
_INDEX = "search/search_index.json"


def share_notebook_styles(html: str, page_url: str, site_dir: Path) -> str:
    """``html`` with its ``<style>`` blocks (and the whitespace after each) replaced by a
    link to one shared stylesheet, written under ``site_dir`` (once per content: its name
    holds the digest)."""
    pieces, sheets, position = [], [], 0
    while ((opening := _OPEN.search(html, position))
           and (closing := _CLOSE.search(html, opening.end()))):
        pieces.append(html[position:opening.start()])
        sheets.append(html[opening.end():closing.start()])
        position = closing.end()
    if not sheets:
        return html
    data = "\n".join(sheets).encode("utf-8")
    name = f"assets/jupyter/notebook.{hashlib.sha256(data).hexdigest()[:16]}.css"
    target = Path(site_dir) / name
    if not target.exists():
        write_atomically(target, data)
    link = f'<link rel="stylesheet" href="{get_relative_url(name, page_url)}">\n'
    return pieces[0] + link + "".join(pieces[1:]) + html[position:]


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


def split_search_index(site_dir: Path, default: str, others: list[str],
                       excluded: tuple[str, ...] = ()) -> None:
    """Split the merged index into one per language, without the locations that start
    (after the language prefix) with one of ``excluded``."""
    path = Path(site_dir) / _INDEX
    if not path.exists():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    split: dict[str, list[dict[str, Any]]] = {default: [], **{lang: [] for lang in others}}
    for doc in index.get("docs", []):
        location = doc.get("location", "")
        lang = next((lang for lang in others
                     if location == lang or location.startswith(f"{lang}/")), default)
        if lang != default:
            location = location[len(lang) + 1:]
        if not location.startswith(excluded):
            title = str(doc.get("title", "")).replace("¶", "").strip()
            split[lang].append({**doc, "location": location, "title": title})
    for lang, entries in split.items():
        target = path if lang == default else Path(site_dir) / lang / _INDEX
        config = {**index.get("config", {}), "lang": [lang]}
        write_atomically(target, json.dumps({**index, "config": config, "docs": entries},
                                             ensure_ascii=False, separators=(",", ":")).encode())


def rewrap_notebooks(files: Files, config: MkDocsConfig, jupyter: BasePlugin) -> Files:  # type: ignore[type-arg]
    """Notebooks wrapped again in mkdocs-jupyter's ``NotebookFile``, in place, keeping
    i18n's Files and the per-language destination it computed: static-i18n's ``on_files``
    re-creates every File and drops the wrapper, so notebooks were copied as raw JSON
    (ultrabug/mkdocs-static-i18n#198). tests/integration/test_site_build.py checks both
    languages render."""
    from mkdocs_jupyter.plugin import NotebookFile  # type: ignore[import-untyped]

    for file in list(files):
        if isinstance(file, NotebookFile) or not jupyter.should_include(file):  # type: ignore[attr-defined]
            continue
        wrapped = NotebookFile(file, **config)
        wrapped.dest_path, wrapped.abs_dest_path = file.dest_path, file.abs_dest_path
        wrapped.url = file.url
        files.remove(file)
        files.append(wrapped)
    return files


def notebook_page(content: str, page: Page, config: MkDocsConfig, *, colab: str) -> str:
    """A notebook page as the site serves it: under its title (at its top when it has
    none) the buttons that offer its own file, as its article does, and the shared
    JupyterLab stylesheet linked instead of inlined, so the search plugin and the theme
    handle 20 KB, not 600 KB. «Descargar .ipynb» is there only when mkdocs-jupyter copies
    the notebook beside its page (``include_source``, which also sets ``page.nb_url``);
    «Abrir en Colab» only when ``colab``, Colab's address of the docs folder, is not ""
    (the repository is on GitHub)."""
    lang = str(config.theme.get("language") or "es")
    jupyter = config.plugins.get("mkdocs-jupyter")
    copied = str(getattr(page, "nb_url", "") or "")
    buttons = []
    if jupyter is not None and jupyter.config.get("include_source") and copied:
        # The copy sits in the page's own folder: a relative link works wherever the
        # site is served from (site_url's path, a preview, a folder on disk).
        href = escape(posixpath.basename(copied), quote=True)
        buttons.append(word(lang, "download_notebook").format(href=href))
    if colab:
        url = escape(f"{colab}/{page.file.src_uri}", quote=True)
        buttons.append(word(lang, "open_colab").format(url=url))
    if buttons:
        row = f'<p class="harness-notebook-links">{" ".join(buttons)}</p>\n'
        end = content.find("</h1>")
        at = end + len("</h1>") if end >= 0 else 0
        content = content[:at] + row + content[at:]
    return share_notebook_styles(content, page.url, Path(config.site_dir))
