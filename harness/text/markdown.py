"""Record text made safe for Markdown: table cells and inline code. No torch import.

Every text a record carries passes through here before it reaches a page, so a
record can never inject markup or break a table row.
"""

from __future__ import annotations

import html
import re
import secrets

__all__ = ["RECORDED", "cell", "code", "html_text", "recorded", "without_marks"]

RECORDED = f"harness-recorded-{secrets.token_hex(8)}"
"""The comment that brackets a figure from a record or trials.toml (:func:`recorded`).
Random per process: a page cannot type it to pass a typed figure off as recorded."""
_MARKS = re.compile(rf"<!--/?{RECORDED}-->")

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]|#<>!])")
#: Characters Python-Markdown acts on even inside inline HTML (it makes links, images and
#: code spans before it protects the HTML, and a link's quotes break out of an attribute),
#: written as character references instead. (``#`` is left alone: html.escape writes
#: ``&#x27;``.)
_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "[]()!`*|{}\\~"})
#: An underscore that could open or close emphasis, written as a reference: one not
#: between two letters or digits («__init__» stays text, not «<strong>init</strong>»;
#: «mm_bf16» keeps its underscore, which Markdown never reads inside a word).
_EMPHASIS = re.compile(r"(?<![^\W_])_|_(?![^\W_])")


#: Runs of whitespace but the no-break spaces (U+00A0, U+2007, U+202F): those keep a
#: figure together («1 000», «2,5 ms») and are never a line break.
_BREAKING_SPACE = re.compile(r"[^\S\u00a0\u2007\u202f]+")


def _one_line(text: object) -> str:
    return _BREAKING_SPACE.sub(" ", str(text)).strip(" ")


def cell(text: object) -> str:
    """Record text made safe for a table cell: never markup, never a broken row."""
    flat = _one_line(text)
    # «~» as a reference: no extension of the site reads «\~» as an escape (it would show).
    return (_MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))
            .replace("\\&", "&").replace("~", "&#126;"))


def code(text: object) -> str:
    """Record text as inline code: HTML-escaped (Markdown escapes would show as
    backslashes inside a code span)."""
    return f"<code>{html_text(text)}</code>"


def html_text(text: object) -> str:
    """Record text for raw HTML (table cells, attributes, notes): escaped, one line.
    Markdown still runs inside the harness's ``markdown="1"`` blocks, so what it acts on
    is a character reference (a backslash would show inside raw HTML)."""
    return _EMPHASIS.sub("&#95;", html.escape(_one_line(text), quote=True).translate(_ENTITIES))


def recorded(markdown: str, *, block: bool = False) -> str:
    """``markdown`` bracketed by HTML comments naming :data:`RECORDED`, which Markdown
    keeps: the build's typed-figure check skips what they hold, then removes them.
    ``block`` keeps the comments on lines of their own (for a marker alone on its line)."""
    gap = "\n\n" if block else ""
    return f"<!--{RECORDED}-->{gap}{markdown}{gap}<!--/{RECORDED}-->"


def without_marks(text: str) -> str:
    """``text`` without the comments of :func:`recorded` (what a reader gets)."""
    return _MARKS.sub("", text)
