"""Finding snippets and reading their analytic expectations. Standard library only.

Layout: ``snippets/<page-slug>/<name>.<ext>``; a snippet's id is its path
under ``snippets/`` without the suffix. Expectations for a page's snippets live
in ``snippets/<page-slug>/expectations.toml`` as ``[[expect]]`` tables, so they
stay outside the code a reader copies.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError, Location, relative, suggest
from harness.core.types import Expectation, Snippet

__all__ = [
    "EXPECTATIONS_FILE",
    "EXPECT_KEYS",
    "SNIPPET_SUFFIXES",
    "find_snippets",
    "load_expectations",
    "snippet_for_id",
]

EXPECTATIONS_FILE = "expectations.toml"
SNIPPET_SUFFIXES = (".py", ".csv", ".yaml")
EXPECT_KEYS = {
    "snippet": "the snippet's file name without suffix (required)",
    "name": "a name the snippet defines, attributes allowed: x.grad (required)",
    "value": "the expected value: number, bool, text or list of numbers",
    "none": "true when the expected value is None (instead of value)",
    "derivation": "how the value follows by hand, in Spanish (required)",
    "derivation_en": "the same derivation in English",
    "rtol": "relative tolerance (default: by the observed dtype)",
    "atol": "absolute tolerance (default: by the observed dtype)",
}
_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def find_snippets(snippets_dir: Path) -> dict[str, Snippet]:
    """Every snippet under ``snippets_dir`` keyed by id, with its content hash."""
    found: dict[str, Snippet] = {}
    for path in sorted(snippets_dir.rglob("*")):
        if path.suffix not in SNIPPET_SUFFIXES or not path.is_file():
            continue
        snippet_id = path.relative_to(snippets_dir).with_suffix("").as_posix()
        if snippet_id in found:
            raise HarnessError(
                f"{path}: two snippets share the id {snippet_id!r}; "
                "rename one so that ids stay unique regardless of suffix."
            )
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        found[snippet_id] = Snippet(id=snippet_id, path=path, sha256=digest)
    return found


def snippet_for_id(snippets: dict[str, Snippet], snippet_id: str, where: str) -> Snippet:
    """Look ``snippet_id`` up or fail naming ``where`` and the valid ids."""
    try:
        return snippets[snippet_id]
    except KeyError:
        raise HarnessError(
            f"{where}: unknown snippet {snippet_id!r}.{suggest(snippet_id, set(snippets))}"
        ) from None


def _table_lines(text: str) -> list[int]:
    """1-based line of each ``[[expect]]`` header, in order."""
    return [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip().startswith("[[expect]]")
    ]


def _expectation(raw: dict[str, Any], page: str, where: Location) -> Expectation:
    unknown = set(raw) - set(EXPECT_KEYS)
    if unknown:
        key = sorted(unknown)[0]
        raise HarnessError(
            f"{where}: unknown key {key!r} in [[expect]].{suggest(key, EXPECT_KEYS)}"
        )
    for key in ("snippet", "name", "derivation"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise HarnessError(f"{where}: [[expect]] needs {key!r}: {EXPECT_KEYS[key]}.")
    if ("value" in raw) == bool(raw.get("none")):
        raise HarnessError(
            f"{where}: [[expect]] for {raw['name']!r} needs exactly one of "
            "'value' or 'none = true'."
        )
    if not _NAME.match(raw["name"]):
        raise HarnessError(
            f"{where}: name {raw['name']!r} is not a Python name with optional attributes "
            "(expected e.g. 'g' or 'x.grad')."
        )
    for key in ("rtol", "atol"):
        if key in raw and not (isinstance(raw[key], (int, float)) and raw[key] >= 0):
            raise HarnessError(f"{where}: {key!r} must be a non-negative number, not {raw[key]!r}.")
    return Expectation(
        snippet=f"{page}/{raw['snippet']}",
        name=raw["name"],
        value=None if raw.get("none") else raw["value"],
        derivation=raw["derivation"].strip(),
        derivation_en=raw.get("derivation_en", "").strip(),
        rtol=raw.get("rtol"),
        atol=raw.get("atol"),
        location=where,
    )


def load_expectations(
    snippets_dir: Path, snippets: dict[str, Snippet], *, root: Path | None = None
) -> dict[str, list[Expectation]]:
    """Every page's expectations, keyed by snippet id, validated against ``snippets``."""
    root = root or snippets_dir.parent
    result: dict[str, list[Expectation]] = {}
    for path in sorted(snippets_dir.glob(f"*/{EXPECTATIONS_FILE}")):
        shown = relative(path, root)
        text = path.read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise HarnessError(f"{shown}: malformed TOML: {exc}") from None
        extra = set(data) - {"expect"}
        if extra:
            raise HarnessError(
                f"{shown}:1: unknown top-level key {sorted(extra)[0]!r}; "
                "only [[expect]] tables are allowed."
            )
        lines = _table_lines(text)
        page = path.parent.name
        for index, raw in enumerate(data.get("expect", [])):
            where = Location(path=shown, line=lines[index] if index < len(lines) else 1)
            expectation = _expectation(raw, page, where)
            snippet_for_id(snippets, expectation.snippet, str(where))
            result.setdefault(expectation.snippet, []).append(expectation)
    return result
