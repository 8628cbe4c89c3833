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

__all__ = ["MAX_SECONDS", "HarnessError", "Location", "key_line", "parse_seconds", "parse_toml",
           "read_text", "relative", "suggest", "table_entries"]


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
    """``text`` (the file ``shown``) as TOML; a syntax error names ``shown`` and its line.

    A byte-order mark is named as such: TOML forbids it, and tomllib's own message
    ("Invalid statement") does not say that an invisible character is at fault.
    """
    if text.startswith("\ufeff"):
        raise HarnessError(
            f"{shown}:1: the file starts with a UTF-8 byte-order mark (BOM), which TOML does "
            "not allow; save it as UTF-8 without BOM")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise HarnessError(
            f"{shown}:{line.group(1) if line else 1}: malformed TOML: {exc}") from None


def read_text(path: Path, shown: object, *, limit: int | None = None) -> str:
    """``path`` decoded as UTF-8; a byte that is not UTF-8 (Latin-1 ``é``, say) names
    ``shown`` and its line, and a file above ``limit`` bytes is refused before it is read."""
    if limit is not None:
        size = path.stat().st_size
        if size > limit:
            raise HarnessError(
                f"{shown}:1: {size:,} bytes; the largest file accepted here is {limit:,} bytes "
                "(a record that large is not one a recording run writes)")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise HarnessError(
            f"{shown}:{line}: byte 0x{data[exc.start]:02x} is not UTF-8 (a file saved as "
            "Latin-1 or cp1252?); expected UTF-8 text") from None


def table_entries(text: str, data: dict[str, Any], table: str,
                  shown: Path) -> list[tuple[Any, Location]]:
    """Each ``[[table]]`` entry of TOML ``text`` (parsed: ``data``) at its header's line, for
    messages (tomllib gives no lines; an inline array's entries have no header: line 1)."""
    lines = [n for n, line in enumerate(text.splitlines(), 1)
             if line.strip().startswith(f"[[{table}]]")]
    return [(raw, Location(path=shown, line=lines[i] if i < len(lines) else 1))
            for i, raw in enumerate(data.get(table, []))]


def key_line(text: str, start: int, key: str) -> int:
    """The line of ``key = ...`` (or of a ``[<table>.key]`` sub-table) in the table whose
    header is line ``start``; ``start`` when the key has no line of its own."""
    pattern = re.compile(rf"\s*({re.escape(key)}\s*=|\[\s*[\w.]*\.{re.escape(key)}\s*\])")
    for number, line in enumerate(text.splitlines()[start:], start=start + 1):
        if line.strip().startswith("[["):
            break
        if pattern.match(line):
            return number
    return start


#: The most seconds any setting takes: a day. More would leave a hang unguarded.
MAX_SECONDS = 86_400.0


def parse_seconds(raw: str, *, what: str) -> float:
    """Seconds a person typed (an option, an environment variable): ``raw`` greater than 0
    and at most :data:`MAX_SECONDS`, as every such setting reads them (``float()`` alone
    takes ``nan``, so a hang guard never fires, and ``inf``, which overflows a clock);
    ``what`` names where it came from in the error (``HARNESS_EXAMPLE_TIMEOUT='abc'``)."""
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:  # also false for nan
        raise HarnessError(f"{what}: expected a number of seconds greater than 0 and at most "
                           f"{MAX_SECONDS:g}")
    return value
