"""Snippets (``snippets/<page-slug>/<name>.<ext>``, id: the path without suffix) and their
analytic expectations (``[[expect]]`` in ``snippets/<page-slug>/expectations.toml``,
outside the code a reader copies). Standard library only.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from pathlib import Path
from typing import Any

from harness.core.errors import (
    HarnessError,
    Location,
    key_line,
    parse_toml,
    read_text,
    relative,
    suggest,
    table_entries,
)
from harness.core.types import Expectation, Snippet, Unchecked

__all__ = ["EXPECT_KEYS", "assignment_line", "defined_names", "find_snippets", "imported_modules",
           "load_expectations", "snippet_for_id"]

_SUFFIXES = (".py", ".csv", ".yaml")
EXPECT_KEYS = {
    "snippet": "the snippet's file name without suffix (required)",
    "name": "a name the snippet defines, attributes allowed: x.grad (required)",
    "value": "the expected value: number, bool, text or list of numbers",
    "none": "true when the expected value is None (instead of value)",
    "derivation": "how the value follows by hand, in Spanish (required)",
    "derivation_en": "the same derivation in English",
    "rtol": "relative tolerance (default: by the observed dtype)",
    "atol": "absolute tolerance (default: by the observed dtype)",
    "raises": "for a caught exception the snippet binds: its type name (instead of value)",
    "message": "with raises: a stable substring of the exception's message",
    "known_failure": "why this expectation is known not to hold (the page shows it)",
    "tolerance_reason": "why rtol > 0.1 or atol > 1 (TOLERANCE_BOUNDS) still checks something",
}
#: Above these a comparison stops meaning anything (rtol = 1e9 accepts any value of the
#: right sign) unless ``tolerance_reason`` says why the wide tolerance is still a check.
TOLERANCE_BOUNDS = {"rtol": 0.1, "atol": 1.0}
UNCHECKED_KEYS = {
    "snippet": "the snippet's file name without suffix (required)",
    "reason": "why there is nothing to derive by hand, in Spanish (required)",
    "reason_en": "the same reason in English",
}
_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def find_snippets(snippets_dir: Path) -> dict[str, Snippet]:
    """Every snippet under ``snippets_dir`` keyed by id, with its content hash."""
    found: dict[str, Snippet] = {}
    inside = snippets_dir.resolve()
    for path in sorted(snippets_dir.rglob("*")):
        if path.suffix not in _SUFFIXES or not path.is_file():
            continue
        snippet_id = path.relative_to(snippets_dir).with_suffix("").as_posix()
        if not path.resolve().is_relative_to(inside):
            raise HarnessError(f"{path}:1: snippet {snippet_id!r} is a link to "
                               f"{path.resolve()}, outside snippets/; a page shows only "
                               "files that live in snippets/ (copy it there)")
        if snippet_id in found:
            raise HarnessError(
                f"{path}: two snippets share the id {snippet_id!r}; "
                "rename one so that ids stay unique regardless of suffix.")
        found[snippet_id] = Snippet(id=snippet_id, path=path,
                                    sha256=_digest(path, relative(path, snippets_dir.parent)))
    return found


def _digest(path: Path, shown: Path) -> str:
    """The hash of the snippet's text with LF line ends: a checkout that writes CRLF
    (Windows, core.autocrlf) holds the same snippet, not a stale one."""
    text = read_text(path, shown).replace("\r\n", "\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def snippet_for_id(snippets: dict[str, Snippet], snippet_id: str, where: str) -> Snippet:
    """Look ``snippet_id`` up or fail naming ``where`` and the valid ids."""
    try:
        return snippets[snippet_id]
    except KeyError:
        raise HarnessError(
            f"{where}: unknown snippet {snippet_id!r}.{suggest(snippet_id, set(snippets))}"
        ) from None


def _required(raw: dict[str, Any], table: str, keys: dict[str, str], where: Location) -> None:
    """No key outside ``keys``, and each key whose help says "(required)" is non-empty text."""
    for key in sorted(set(raw) - set(keys))[:1]:
        raise HarnessError(f"{where}: unknown key {key!r} in [[{table}]].{suggest(key, keys)}")
    for key, help in keys.items():
        if help.endswith("(required)") and not (isinstance(raw.get(key), str)
                                                and raw[key].strip()):
            raise HarnessError(f"{where}: [[{table}]] needs {key!r}: {help}.")


def _unchecked(raw: dict[str, Any], page: str, where: Location) -> Unchecked:
    _required(raw, "unchecked", UNCHECKED_KEYS, where)
    return Unchecked(snippet=f"{page}/{raw['snippet']}", reason=raw["reason"].strip(),
                     reason_en=str(raw.get("reason_en", "")).strip(), location=where)


def _check_tolerances(raw: dict[str, Any], where: Location, text: str) -> None:
    """rtol and atol are finite numbers ≥ 0 (not booleans), at most their bound unless
    ``tolerance_reason`` states why a wider one still checks something."""
    for key, bound in TOLERANCE_BOUNDS.items():
        if key not in raw:
            continue
        value = raw[key]
        at = Location(path=where.path, line=key_line(text, where.line, key))
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or value < 0:
            raise HarnessError(f"{at}: {key!r} must be a non-negative number, not {value!r} "
                               f"(write {key} = 1e-3, without quotes).")
        if not math.isfinite(value):
            raise HarnessError(f"{at}: {key} = {value!r} accepts every value (or none); "
                               f"expected a finite tolerance, at most {bound:g}")
        if value > bound and "tolerance_reason" not in raw:
            raise HarnessError(
                f"{at}: {key} = {value!r} is above {bound:g}, where the comparison stops "
                f"meaning much; tighten it, or add tolerance_reason = \"why\" to this "
                "[[expect]] saying why a value that far off would still be right")


def _expectation(raw: dict[str, Any], page: str, where: Location, text: str = "") -> Expectation:
    _required(raw, "expect", EXPECT_KEYS, where)
    if "none" in raw and not isinstance(raw["none"], bool):
        at = Location(path=where.path, line=key_line(text, where.line, "none"))
        raise HarnessError(f"{at}: 'none' must be true or false (a TOML boolean, without "
                           f"quotes), not {raw['none']!r}")
    forms = [k for k in ("value", "raises") if k in raw] + (["none"] if raw.get("none") else [])
    if len(forms) != 1:
        raise HarnessError(
            f"{where}: [[expect]] for {raw['name']!r} needs exactly one of "
            "'value', 'none = true' or 'raises = \"ExceptionType\"'.")
    if "message" in raw and "raises" not in raw:
        raise HarnessError(f"{where}: 'message' goes with 'raises'; {EXPECT_KEYS['message']}.")
    for key in ("raises", "message", "known_failure", "derivation_en", "tolerance_reason"):
        if key in raw and not (isinstance(raw[key], str) and raw[key].strip()):
            raise HarnessError(f"{where}: {key!r} must be non-empty text: {EXPECT_KEYS[key]}.")
    if not _NAME.match(raw["name"]):
        raise HarnessError(
            f"{where}: name {raw['name']!r} is not a Python name with optional attributes "
            "(expected e.g. 'g' or 'x.grad').")
    _check_tolerances(raw, where, text)
    # The declared values over Expectation's defaults ("none" is its value None), prose trimmed.
    texts = {k: raw.get(k, "").strip()
             for k in ("derivation", "derivation_en", "known_failure", "tolerance_reason")}
    return Expectation(**{"value": None, **{k: v for k, v in raw.items() if k != "none"},
                          **texts, "snippet": f"{page}/{raw['snippet']}", "location": where})


def load_expectations(
    snippets_dir: Path, snippets: dict[str, Snippet], *, root: Path | None = None
) -> tuple[dict[str, list[Expectation]], dict[str, Unchecked]]:
    """Every page's expectations keyed by snippet id, and the snippets declared
    unchecked, validated against ``snippets``."""
    root = root or snippets_dir.parent
    result: dict[str, list[Expectation]] = {}
    unchecked: dict[str, Unchecked] = {}
    for path in sorted(snippets_dir.glob("*/expectations.toml")):
        shown = relative(path, root)
        text = read_text(path, shown)
        data = parse_toml(text, shown)
        extra = set(data) - {"expect", "unchecked"}
        if extra:
            raise HarnessError(
                f"{shown}:1: unknown top-level key {sorted(extra)[0]!r}; "
                "only [[expect]] and [[unchecked]] tables are allowed.")
        page = path.parent.name
        for table in ("expect", "unchecked"):
            for raw, where in table_entries(text, data, table, shown):
                if table == "expect":
                    expectation = _expectation(raw, page, where, text)
                    snippet_for_id(snippets, expectation.snippet, str(where))
                    result.setdefault(expectation.snippet, []).append(expectation)
                    continue
                entry = _unchecked(raw, page, where)
                snippet_for_id(snippets, entry.snippet, str(where))
                if entry.snippet in unchecked or entry.snippet in result:
                    raise HarnessError(
                        f"{where}: {entry.snippet!r} is declared unchecked but also has "
                        "expectations (or a second [[unchecked]]); keep one")
                unchecked[entry.snippet] = entry
    return result, unchecked


def defined_names(source: str) -> set[str]:
    """Names a snippet binds at module level, also inside if/try/for/with blocks
    (``except ... as e`` is not: Python deletes that name after the block)."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(ast.parse(source).body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        targets: list[ast.expr] = (
            node.targets if isinstance(node, ast.Assign) else
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For,
                                               ast.AsyncFor)) else
            [i.optional_vars for i in node.items if i.optional_vars]
            if isinstance(node, (ast.With, ast.AsyncWith)) else [])
        names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        for field in ("body", "orelse", "finalbody"):
            pending += getattr(node, field, [])
        pending += [stmt for handler in getattr(node, "handlers", []) for stmt in handler.body]
    return names


def assignment_line(source: str, dotted: str) -> int | None:
    """Last line of ``source`` that binds the root of ``dotted`` (for failure messages)."""
    root = dotted.split(".")[0]
    line: int | None = None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == root and isinstance(node.ctx, ast.Store):
            line = max(line or 0, node.lineno)
    return line


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in ``source``, at any depth; a relative one is ``.``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module or "." if not node.level else "."))
    return found
