"""Small HTML pieces the views share: a table that stacks into labelled rows on a
phone, a collapsible block, a CSV download, code that may wrap. No torch import.

HTML, not Markdown, for a row class (failing rows are tinted), a ``data-label`` per
cell (the phone prints the column name beside each value) and a ``<caption>``. Callers
pass escaped contents. No blank line is written: it would end the raw HTML block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from harness.text.markdown import html_text

__all__ = ["Cell", "Row", "breakable", "csv_link", "details", "html_table"]


@dataclass(frozen=True, kw_only=True)
class Cell:
    html: str
    numeric: bool = False  # right-aligned, tabular figures
    css: str = ""
    span: int = 1  # rows this cell spans (a trial's label over its builds)


@dataclass(frozen=True, kw_only=True)
class Row:
    cells: list[Cell]
    css: str = ""
    title: str = ""  # plain text for the row's tooltip (escaped here)
    first_of_group: bool = True


def html_table(header: list[tuple[str, bool]], rows: list[Row], *, caption: str = "",
               css: str = "harness-table", label: str = "") -> str:
    """``header``: (escaped label, numeric). Cells line up with the header from the right
    when a row's spanning first cell is left out (rows after the first of a group).
    ``label``: the escaped name of the scrolling region (default: the caption's text),
    which is focusable so that a keyboard can scroll it."""
    name = label or re.sub(r"<[^>]*>", "", caption)
    named = f' role="region" aria-label="{name}"' if name else ""
    out = [f'<div class="harness-scroll" tabindex="0"{named}><table class="{css}">']
    if caption:
        out.append(f"<caption>{caption}</caption>")
    num = ' class="harness-num"'
    out.append("<thead><tr>" + " ".join(
        f'<th scope="col"{num if n else ""}>{label}</th>' for label, n in header) + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        labels = [label for label, _ in header][len(header) - len(row.cells):]
        attrs = f' class="{row.css}"' if row.css else ""
        attrs += f' title="{html_text(row.title)}"' if row.title else ""
        cells = []
        for label, one in zip(labels, row.cells, strict=True):
            classes = " ".join(c for c in (one.css, "harness-num" if one.numeric else "") if c)
            span = f' rowspan="{one.span}"' if one.span > 1 else ""
            tag = "th" if one is row.cells[0] and row.first_of_group else "td"
            scope = ' scope="row"' if tag == "th" else ""
            cells.append(f'<{tag}{scope}{span} data-label="{label}"'
                         f'{f" class={chr(34)}{classes}{chr(34)}" if classes else ""}>'
                         f"{one.html}</{tag}>")
        out.append(f"<tr{attrs}>" + " ".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    # A space between cells and rows (a browser lays tables out without it) keeps
    # their words apart in the search index, which reads the text as written.
    return " ".join(out)


def details(summary: str, body: str, *, searched: bool = True) -> str:
    """A collapsed block; ``summary`` and ``body`` are escaped HTML. ``searched=False``
    leaves it out of the search index (Material's ``data-search-exclude``)."""
    excluded = "" if searched else " data-search-exclude"
    return (f'<details class="harness-more"{excluded}><summary>{summary}</summary>{body}'
            "</details>")


def breakable(code_html: str) -> str:
    """``<code>`` from :func:`harness.text.markdown.code` that may wrap after ``/`` and
    ``_`` (a snippet id, a long name on a phone), and nowhere inside a word."""
    inner = code_html.removeprefix("<code>").removesuffix("</code>")
    return "<code>" + re.sub(r"(/|_|&#95;)", r"\1<wbr>", inner) + "</code>"


def csv_link(text: str, *, filename: str, label: str) -> str:
    """A download link carrying ``text`` as a ``data:`` URI: the file is the page's own
    data, so it needs no file written beside the page and cannot drift from it."""
    href = "data:text/csv;charset=utf-8," + quote(text, safe="")
    return (f'<a class="harness-csv" download="{html_text(filename)}" href="{href}">'
            f"{label}</a>")
