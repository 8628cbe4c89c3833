"""The harness's own HTML kept out of Markdown's way while MkDocs renders a page.

A rendered marker is mostly HTML the harness made whole (tables, plots, «Todas las
columnas»): Markdown passes a block of raw HTML through unchanged, but only after
parsing it twice, once in MkDocs' anchor scan and once in ``md_in_html``, which is
most of what a measured page costs to convert. :func:`stash` swaps each such block for
an empty ``<div>`` that Markdown treats the same way (a block-level element alone on
its line, at its start); :func:`restore` puts the block back in the page's HTML.

A block is swapped only when Markdown would have passed it through as it is: it starts
at column 0 (not inside an admonition or a list), holds exactly one element (on one
line or several, with no blank line between) whose tag Markdown treats as block-level,
with every element in it closed, no ``markdown`` attribute (md_in_html would render
inside it), and no comment, script or style. The ids in what was swapped (MkDocs reads
raw HTML's ids for its anchor validation) are given back with it: :func:`anchor_ids`.
"""

from __future__ import annotations

import hashlib
import html
import re

__all__ = ["anchor_ids", "restore", "stash"]

#: A tag, with attribute values quoted (the harness escapes ``<`` and ``>`` in values).
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)(?:[^>\"']|\"[^\"]*\"|'[^']*')*?(/?)>")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
         "source", "track", "wbr"}
#: First tags Python-Markdown treats as block-level (its ``block_level_elements``).
_BLOCK = {"blockquote", "details", "div", "dl", "figure", "nav", "ol", "p", "pre", "section",
          "table", "ul"}
_UNSAFE = re.compile(r"<!--|<!\[|<script|<style|\smarkdown\b", re.I)
#: The anchors MkDocs' raw-HTML scan registers: every id, and an ``<a>``'s name.
_ANCHOR = re.compile(r'\sid="([^"]*)"|<a\s[^>]*?\bname="([^"]*)"')
#: Shorter lines cost Markdown little; leaving them keeps the swap to what matters.
MIN_CHARS = 200
_PLACEHOLDER = '<div data-harness-stash="{key}"></div>'
_PLACED = re.compile(r'<div data-harness-stash="[0-9a-f]{20}"></div>')


def _element_end(lines: list[str], first: int) -> int:
    """The index of the line that closes the one element starting ``lines[first]``
    (lines after it until then hold no blank line), or -1 when that is not a block
    Markdown would pass through unchanged."""
    if not lines[first].startswith("<"):
        return -1
    open_tags: list[str] = []
    for number in range(first, len(lines)):
        line = lines[number]
        if not line.strip() or _UNSAFE.search(line):
            return -1  # a blank line ends Markdown's raw block
        for match in _TAG.finditer(line):
            closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
            if not open_tags and number == first and match.start() == 0 and name not in _BLOCK:
                return -1
            if closing:
                if not open_tags or open_tags.pop() != name:
                    return -1
            elif name not in _VOID and not self_closing:
                open_tags.append(name)
            if not open_tags:
                return number if match.end() == len(line.rstrip()) else -1
    return -1


def stash(text: str, chunks: dict[str, str]) -> str:
    """``text`` with each block Markdown would pass through unchanged swapped for a
    placeholder line, the block kept in ``chunks`` under the placeholder."""
    lines = text.split("\n")
    out: list[str] = []
    number = 0
    while number < len(lines):
        end = _element_end(lines, number)
        block = "\n".join(lines[number:end + 1]) if end >= 0 else ""
        if len(block) >= MIN_CHARS:
            placeholder = _PLACEHOLDER.format(key=hashlib.sha256(block.encode()).hexdigest()[:20])
            chunks[placeholder] = block
            out.append(placeholder)
            number = end + 1
        else:
            out.append(lines[number])
            number += 1
    return "\n".join(out)


def restore(html: str, chunks: dict[str, str]) -> str:
    """``html`` with every placeholder of ``chunks`` back to its line."""
    if not chunks:
        return html
    return _PLACED.sub(lambda found: chunks.get(found.group(0), found.group(0)), html)


def anchor_ids(chunks: dict[str, str]) -> set[str]:
    """The anchors in what :func:`stash` swapped out, as MkDocs would have read them."""
    return {html.unescape(found.group(1) or found.group(2)) for block in chunks.values()
            for found in _ANCHOR.finditer(block)}
