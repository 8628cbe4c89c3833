"""Notebooks generated from a page, its snippets and the records. No torch import.

``docs/<slug>.md`` → ``docs/cuadernos/<slug>.ipynb``: the text becomes Markdown cells,
each Python include a code cell whose output is what the records observed (never a
run, so the freshness check is deterministic). The "generated, do not edit" note is
the last cell and the metadata, out of the reader's way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.types import Expectation, Observation, Snippet
from harness.records.store import DeviceRecord, Records, version_key
from harness.sources.pages import find_includes, find_markers
from harness.sources.project import Project
from harness.sources.trials import load_trials
from harness.text.markdown import cell as markdown_text
from harness.text.markdown import code, without_marks
from harness.text.words import in_lang, word
from harness.views.claims import render_claim

__all__ = ["NOTEBOOK_DIR", "build_notebook", "choose_record", "notebook_path", "notebook_text",
           "out_of_date", "pages_with_code", "python_text", "recorded_output"]

NOTEBOOK_DIR = "cuadernos"
_ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"(?P<title>[^"]*)")?\s*$')
# attr_list only ({ .md-button }, {#id}, {key=value}): braces in prose or code stay.
_ATTRS = re.compile(r"\{:?\s*(?:[.#][\w-]+|[\w-]+=)[^{}\n]*\}")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?^(?:---|\.\.\.)[ \t]*\n", re.S | re.M)
_PAGE_LINK = re.compile(r"\]\((?P<page>[\w-]+)(?:\.en)?\.md(?P<anchor>#[\w-]+)?\)")


def choose_record(records: list[DeviceRecord], snippet_id: str) -> DeviceRecord | None:
    """The newest CPU build that observed ``snippet_id`` (any device when no CPU did)."""
    observed = [r for r in records if r.observations_of(snippet_id)]
    cpu = [r for r in observed if r.device_type == "cpu"] or observed
    return max(cpu, key=lambda r: (version_key(r.torch_build), r.torch_build, r.device_key),
               default=None)


def python_text(value: Any, *, kind: str = "") -> str:
    """``value`` (JSON data from a record or an expectation) as ``print`` writes the
    Python value it stands for (``True``, ``6.0``, a bare top-level text, an exception's
    last traceback line). Floats keep 6 significant digits, as the observed block does:
    a record holds a float32 result as a double, with digits the float32 never had."""
    if kind == "exception" and isinstance(value, dict):
        return f"{value.get('type')}: {value.get('message', '')}"
    return str(value) if isinstance(value, str) else _python_repr(value)


def _python_repr(value: Any) -> str:
    if isinstance(value, float):
        return repr(float(f"{value:.6g}"))
    if isinstance(value, list):
        return "[" + ", ".join(_python_repr(item) for item in value) + "]"
    return repr(value)  # bool, int, None, str: Python's own repr


def _value(observation: Observation | None, snippet: Snippet, lang: str) -> str:
    if observation is None:
        return f"({word(lang, 'missing')})"
    text = python_text(observation.value, kind=observation.kind)
    if observation.kind == "tensor" and observation.dtype:
        text += f"  # {observation.dtype}"
    if observation.snippet_sha256 != snippet.sha256:
        text += f"  ({word(lang, 'stale')})"
    return text


def recorded_output(snippet: Snippet, expectations: list[Expectation],
                    records: list[DeviceRecord], lang: str) -> dict[str, Any] | None:
    """An nbformat ``display_data`` output (text/plain) for the cell of ``snippet``,
    or None when no record observed it. Its metadata repeats the provenance as data."""
    record = choose_record(records, snippet.id)
    if record is None or not expectations:
        return None
    found = {o.name: o for o in record.observations_of(snippet.id)}
    width = max(len(e.name) for e in expectations)
    lines = [f"{e.name:<{width}} = {_value(found.get(e.name), snippet, lang)}"
             for e in expectations]
    env = record.environment_of_runs({o.run_id for o in found.values()})
    device = env.device_name or env.cpu_model or record.device_key
    where = word(lang, record.device_type) if record.device_type in ("cpu", "cuda") else ""
    device = f"{where} · {device}" if where and where != device else device
    date = max((o.date for o in found.values() if o.date), default=env.date)[:10]
    lines.append(word(lang, "recorded_output").format(
        build=record.torch_build, device=device, date=date))
    return {"output_type": "display_data",
            "data": {"text/plain": [line + "\n" for line in lines[:-1]] + [lines[-1]]},
            "metadata": {"harness": {"torch_build": record.torch_build,
                                     "device": record.device_key, "date": date,
                                     "snippet_sha256": snippet.sha256}}}


def notebook_path(page: Path) -> Path:
    """``docs/x.md`` → ``docs/cuadernos/x.ipynb``; ``docs/x.en.md`` → ``….en.ipynb``."""
    return page.parent / NOTEBOOK_DIR / page.name.replace(".md", ".ipynb")


def pages_with_code(project: Project) -> list[Path]:
    """Pages (both languages) that include at least one Python snippet."""
    return [
        page for page in project.pages()
        if any(i.language == "python"
               for i in find_includes(page.read_text(encoding="utf-8"), page))
    ]


def _plain_markdown(text: str, depth: int = 0) -> str:
    """Material-only syntax made readable in Jupyter: admonitions become quotes, a
    nested one a quote inside its quote; a fence keeps its lines as they are. ``depth``:
    the admonitions already open where ``text`` starts (text after a code cell that
    sits in a fold goes on as that fold's quote)."""
    out: list[str] = []
    fence = ""  # the closing fence of the fenced block we are in, if any
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and not fence:
            depth = min(depth, indent // 4)
        body = line[4 * depth:] if line.strip() else ""
        quote = "> " * depth
        match = None if fence else _ADMONITION.match(body)
        if match:
            out.append(quote + (f"> **{match['title']}**" if match["title"] else ">"))
            depth += 1
            continue
        opened = re.match(r"(`{3,}|~{3,})", body)
        if fence:
            fence = "" if body.strip() == fence else fence
        elif opened:
            fence = opened[1]
        else:
            body = _ATTRS.sub("", body)
        out.append((quote + body).rstrip())
    # A notebook page sits at cuadernos/<slug>/: links to pages go up two levels.
    return _PAGE_LINK.sub(_site_link, "\n".join(out)).strip("\n")


def _site_link(match: re.Match[str]) -> str:
    page = "" if match["page"] == "index" else f"{match['page']}/"
    return f"](../../{page}{match['anchor'] or ''})"


def _markdown_cell(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def _code_cell(source: str, output: dict[str, Any] | None) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": {},
            "outputs": [output] if output else [],
            "source": source.rstrip("\n").splitlines(keepends=True)}


def _expectations_cell(project: Project, snippet_id: str, lang: str) -> str:
    """Each expectation as Python writes its value (``True``, ``6.0``), or for a
    ``raises`` one the exception's type and the stable part of its message."""
    lines = [f"**{word(lang, 'analytic')}**", ""]
    for e in project.expectations.get(snippet_id, []):
        # Inline HTML code, escaped: a value's backtick would close a Markdown code span
        # and let the rest through as markup.
        expected = code(e.raises) if e.raises else code(python_text(e.value))
        if e.raises and e.message:
            expected += f" ({word(lang, 'quoted', text=markdown_text(e.message))})"
        derivation = in_lang(lang, {"es": e.derivation, "en": e.derivation_en})
        # Data, as on the page: mkdocs-jupyter renders a Markdown cell's HTML.
        lines.append(f"- {code(e.name)} = {expected}: {markdown_text(derivation)}")
    return "\n".join(lines)


def build_notebook(project: Project, page: Path, records: Records) -> dict[str, Any]:
    """The notebook of ``page`` as nbformat-4 JSON data, its code cells carrying the
    recorded outputs of ``records``."""
    lang = "en" if page.name.endswith(".en.md") else "es"
    text = page.read_text(encoding="utf-8")
    front = _FRONT_MATTER.match(text)
    shown = project.shown(page)
    spans: list[tuple[int, int, dict[str, Any] | str]] = []
    for include in find_includes(text, shown):
        snippet = project.snippets.get(include.snippet_id)
        if snippet is None:
            raise HarnessError(f"{include.location}: unknown snippet {include.snippet_id!r}")
        source = snippet.path.read_text(encoding="utf-8")
        piece: dict[str, Any] | str = (  # not Python: shown as text, a fold it sits in stays one
            f"```{snippet.language}\n{source.rstrip()}\n```" if snippet.language != "py"
            else _code_cell(source, recorded_output(
                snippet, project.expectations.get(snippet.id, []), records.items, lang)))
        spans.append((include.start, include.end, piece))
    for marker in find_markers(text, shown):
        if marker.kind == "observed":
            note = _expectations_cell(project, marker.args.get("snippet", ""), lang)
        elif marker.kind == "notebook":  # the buttons that lead here: nothing to say
            note = ""
        elif marker.kind == "claim":  # the same sentence, checked the same way
            key = (page.name.split(".")[0], marker.args.get("id", ""))
            if key not in project.claims:
                raise HarnessError(f"{marker.location}: unknown claim {key[1]!r}; it must be "
                                   f"declared in snippets/{key[0]}/claims.toml")
            note = without_marks(render_claim(project.claims[key], records, load_trials(), lang,
                                              marker.location))
        else:
            what = marker.args.get("group") or marker.args.get("trial") or marker.kind
            note = word(lang, "notebook_measured", what=what)
        spans.append((marker.start, marker.end, note))
    cells: list[dict[str, Any]] = []
    position = front.end() if front else 0
    pending, depth = "", 0
    for start, end, piece in sorted(spans, key=lambda s: s[0]):
        pending += text[position:start]
        line_start = text.rfind("\n", 0, start) + 1
        here = text[line_start:text.find("\n", start)]
        indent = len(here) - len(here.lstrip(" "))  # a marker or fence inside a fold
        if isinstance(piece, str):  # indented like its marker or fence, every line
            first = " " * indent if start == line_start else ""
            pending += first + piece.replace("\n", "\n" + " " * indent)
        else:
            if markdown := _plain_markdown(pending, depth):
                cells.append(_markdown_cell(markdown))
            pending, depth = "", indent // 4  # the text after goes on in the code's fold
            cells.append(piece)
        position = end
    if markdown := _plain_markdown(pending + text[position:], depth):
        cells.append(_markdown_cell(markdown))
    # Code cells with a recorded output are numbered as a kernel running the notebook top
    # to bottom numbers them; one no record observed keeps None (``In [ ]:``).
    executed = [c for c in cells if c["cell_type"] == "code" and c["outputs"]]
    for count, executed_cell in enumerate(executed, start=1):
        executed_cell["execution_count"] = count
    note = word(lang, "notebook_note", page=page.name)
    if executed:
        note += " " + word(lang, "notebook_outputs")
    cells.append(_markdown_cell(f"---\n\n<small>{note}</small>"))
    metadata = {"harness": {"generated_from": f"docs/{page.name}", "note": note},
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def notebook_text(notebook: dict[str, Any]) -> str:
    """Stable serialisation, so a regenerated notebook is byte-identical when unchanged."""
    for index, cell in enumerate(notebook["cells"]):
        cell.setdefault("id", f"cell-{index}")
    return json.dumps(notebook, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def out_of_date(project: Project, records: Records) -> dict[Path, str]:
    """Notebook path → what it should contain, for every missing or changed notebook."""
    wanted = {notebook_path(p): notebook_text(build_notebook(project, p, records))
              for p in pages_with_code(project)}
    folder = project.root / "docs" / NOTEBOOK_DIR
    stray = {p: "" for p in folder.glob("*.ipynb") if p not in wanted} if folder.is_dir() else {}
    changed = {p: text for p, text in wanted.items()
               if not p.exists() or p.read_text(encoding="utf-8") != text}
    return {**changed, **stray}
