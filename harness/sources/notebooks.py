"""Notebooks generated from a page and its snippets, in page order. No torch import.

``docs/<slug>.md`` → ``docs/cuadernos/<slug>.ipynb`` (``.en.md`` → ``.en.ipynb``).
The article's text becomes Markdown cells, every Python include a code cell with
the snippet's source, every ``harness:observed`` marker a cell listing the
analytic expectations to compare with. Notebooks carry no outputs: an output
committed here would be a figure without its environment; observed outputs are
on the article pages, read from the records.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.sources.pages import find_includes, find_markers
from harness.sources.project import Project
from harness.text.words import word

__all__ = [
    "NOTEBOOK_DIR",
    "build_notebook",
    "notebook_path",
    "notebook_text",
    "out_of_date",
    "pages_with_code",
]

NOTEBOOK_DIR = "cuadernos"
_ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"(?P<title>[^"]*)")?\s*$')
# attr_list only ({ .md-button }, {#id}, {key=value}): braces in prose or code stay.
_ATTRS = re.compile(r"\{:?\s*(?:[.#][\w-]+|[\w-]+=)[^{}\n]*\}")
_PAGE_LINK = re.compile(r"\]\((?P<page>[\w-]+)(?:\.en)?\.md(?P<anchor>#[\w-]+)?\)")
_NOTES = {
    "es": ("Cuaderno generado a partir de `docs/{page}` y de `snippets/`; no lo edites a mano. "
           "Las salidas observadas, con su entorno, están en la página del artículo."),
    "en": ("Notebook generated from `docs/{page}` and `snippets/`; do not edit it by hand. "
           "Observed outputs, with their environment, are on the article's page."),
}
_MEASURED = {
    "es": "*La tabla medida `{what}` está en la página del artículo, con su entorno.*",
    "en": "*The measured table `{what}` is on the article's page, with its environment.*",
}


def notebook_path(page: Path) -> Path:
    """``docs/x.md`` → ``docs/cuadernos/x.ipynb``; ``docs/x.en.md`` → ``….en.ipynb``."""
    return page.parent / NOTEBOOK_DIR / page.name.replace(".md", ".ipynb")


def pages_with_code(project: Project) -> list[Path]:
    """Pages (both languages) that include at least one Python snippet."""
    return [
        page for page in sorted((project.root / "docs").glob("*.md"))
        if any(i.language == "python"
               for i in find_includes(page.read_text(encoding="utf-8"), page))
    ]


def _plain_markdown(text: str) -> str:
    """Material-only syntax made readable in Jupyter: admonitions become quotes."""
    out: list[str] = []
    in_admonition = False
    for line in text.splitlines():
        match = _ADMONITION.match(line)
        if match:
            in_admonition = True
            out.append(f"> **{match['title']}**" if match["title"] else ">")
            continue
        if in_admonition and (line.startswith("    ") or not line.strip()):
            out.append("> " + line[4:] if line.strip() else ">")
            continue
        in_admonition = False
        out.append(_ATTRS.sub("", line))
    # A notebook page sits at cuadernos/<slug>/: links to pages go up two levels.
    return _PAGE_LINK.sub(_site_link, "\n".join(out)).strip("\n")


def _site_link(match: re.Match[str]) -> str:
    page = "" if match["page"] == "index" else f"{match['page']}/"
    return f"](../../{page}{match['anchor'] or ''})"




def _markdown_cell(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def _code_cell(source: str) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source.rstrip("\n").splitlines(keepends=True)}


def _expectations_cell(project: Project, snippet_id: str, lang: str) -> str:
    lines = [f"**{word(lang, 'analytic')}**", ""]
    for e in project.expectations.get(snippet_id, []):
        derivation = e.derivation_en if lang == "en" and e.derivation_en else e.derivation
        value = "None" if e.value is None else json.dumps(e.value, ensure_ascii=False)
        lines.append(f"- `{e.name}` = `{value}`: {derivation}")
    return "\n".join(lines)


def build_notebook(project: Project, page: Path) -> dict[str, Any]:
    """The notebook of ``page`` as nbformat-4 JSON data."""
    lang = "en" if page.name.endswith(".en.md") else "es"
    text = page.read_text(encoding="utf-8")
    shown = project.shown(page)
    spans: list[tuple[int, int, dict[str, Any] | str]] = []
    for include in find_includes(text, shown):
        snippet = project.snippets.get(include.snippet_id)
        if snippet is None:
            raise HarnessError(f"{include.location}: unknown snippet {include.snippet_id!r}")
        source = snippet.path.read_text(encoding="utf-8")
        cell = (_code_cell(source) if snippet.language == "py"
                else _markdown_cell(f"```{snippet.language}\n{source.rstrip()}\n```"))
        spans.append((include.start, include.end, cell))
    for marker in find_markers(text, shown):
        if marker.kind == "observed":
            note = _expectations_cell(project, marker.args.get("snippet", ""), lang)
        else:
            what = marker.args.get("group") or marker.args.get("trial") or marker.kind
            note = _MEASURED[lang].format(what=what)
        spans.append((marker.start, marker.end, note))
    cells = [_markdown_cell(_NOTES[lang].format(page=page.name))]
    position = 0
    pending = ""
    for start, end, piece in sorted(spans, key=lambda s: s[0]):
        pending += text[position:start]
        if isinstance(piece, str):
            pending += piece
        else:
            if _plain_markdown(pending):
                cells.append(_markdown_cell(_plain_markdown(pending)))
            pending = ""
            cells.append(piece)
        position = end
    pending += text[position:]
    if _plain_markdown(pending):
        cells.append(_markdown_cell(_plain_markdown(pending)))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def notebook_text(notebook: dict[str, Any]) -> str:
    """Stable serialisation, so a regenerated notebook is byte-identical when unchanged."""
    for index, cell in enumerate(notebook["cells"]):
        cell.setdefault("id", f"cell-{index}")
    return json.dumps(notebook, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def out_of_date(project: Project) -> dict[Path, str]:
    """Notebook path → what it should contain, for every missing or changed notebook."""
    wanted = {notebook_path(p): notebook_text(build_notebook(project, p))
              for p in pages_with_code(project)}
    folder = project.root / "docs" / NOTEBOOK_DIR
    stray = {p: "" for p in folder.glob("*.ipynb") if p not in wanted} if folder.is_dir() else {}
    changed = {p: text for p, text in wanted.items()
               if not p.exists() or p.read_text(encoding="utf-8") != text}
    return {**changed, **stray}
