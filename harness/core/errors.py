"""Errors a contributor must fix, and the pieces every message is made of.

A :class:`HarnessError` names the file and line at fault (a :class:`Location`)
and, where a name was mistyped, the closest valid one (:func:`suggest`).
Standard library only: every layer imports this module.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HarnessError", "Location", "parse_toml", "relative", "suggest"]


class HarnessError(Exception):
    """An input problem a contributor must fix; the message names file and line."""


@dataclass(frozen=True, kw_only=True)
class Location:
    path: Path
    """File the problem or the item comes from (repository-relative when possible)."""
    line: int
    """1-based line number."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def relative(path: Path, root: Path) -> Path:
    """``path`` relative to ``root`` when it lies below it, for messages."""
    try:
        return path.resolve().relative_to(root.resolve())
    except ValueError:
        return path


def suggest(wrong: str, valid: Iterable[str]) -> str:
    """A short 'did you mean' clause followed by the valid choices."""
    ordered = sorted(valid)
    close = difflib.get_close_matches(wrong, ordered, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"{hint} Valid: {', '.join(ordered) or '(none)'}."


def parse_toml(text: str, shown: object) -> dict[str, Any]:
    """``text`` (the file ``shown``) as TOML; a syntax error names ``shown`` and its line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise HarnessError(
            f"{shown}:{line.group(1) if line else 1}: malformed TOML: {exc}") from None
