"""Every word the harness writes on a page: one catalogue per language, ``es.toml`` and
``en.toml`` beside this module. A missing key or placeholder raises rather than
inventing a word; a translation is made in the TOML files only, code never branches on
the language. No torch import.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from harness.core.errors import HarnessError

__all__ = ["LANGS", "catalogue", "in_lang", "listed", "word"]

LANGS = ("es", "en")


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    path = Path(__file__).with_name(f"{lang}.toml")
    if lang not in LANGS:
        raise HarnessError(f"no catalogue for language {lang!r}; expected one of {LANGS}")
    with path.open("rb") as file:
        table: dict[str, str] = tomllib.load(file)
    return table


def word(lang: str, key: str, /, **values: object) -> str:
    """``key`` in ``lang``, its placeholders filled from ``values`` (with none given, the
    template as written). Raises :class:`KeyError` naming a missing key or placeholder."""
    table = catalogue(lang)
    if key not in table:
        near = difflib.get_close_matches(key, table, n=3)
        raise KeyError(f"{lang}.toml has no key {key!r}" + (f"; did you mean {near}?"
                                                            if near else ""))
    template = table[key]
    if not values:
        return template
    try:
        return template.format(**values)
    except KeyError as missing:
        raise KeyError(f"{lang}.toml: {key!r} needs placeholder {missing}") from None


def in_lang(lang: str, texts: Mapping[str, str]) -> str:
    """A text a source gives per language (a derivation, a reason: Spanish always, other
    languages optionally), in ``lang``, else in Spanish."""
    return texts.get(lang) or texts["es"]


def listed(items: Sequence[str], lang: str, conjunction: str = "drift_and") -> str:
    """``a, b y c`` / ``a, b and c``; ``conjunction``: the catalogue key of «y»."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word(lang, conjunction)} {items[-1]}"
