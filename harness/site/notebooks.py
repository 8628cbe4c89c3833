"""Notebook pages under mkdocs-static-i18n: their page wrapper (:func:`rewrap_notebooks`),
and their buttons and shared styles (:func:`notebook_page`)."""

from __future__ import annotations

import html
import posixpath
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from harness.site.site_output import share_notebook_styles
from harness.text.words import word

__all__ = ["notebook_page", "rewrap_notebooks"]


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
        href = html.escape(posixpath.basename(copied), quote=True)
        buttons.append(word(lang, "download_notebook").format(href=href))
    if colab:
        url = html.escape(f"{colab}/{page.file.src_uri}", quote=True)
        buttons.append(word(lang, "open_colab").format(url=url))
    if buttons:
        row = f'<p class="harness-notebook-links">{" ".join(buttons)}</p>\n'
        end = content.find("</h1>")
        at = end + len("</h1>") if end >= 0 else 0
        content = content[:at] + row + content[at:]
    return share_notebook_styles(content, page.url, Path(config.site_dir))
