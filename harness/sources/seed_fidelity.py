"""Every Spanish article keeps its seed (``seeds/<page-slug>.txt``): each prose item of
the page (paragraph, list item, table row, heading, FAQ question) is in the seed once
whitespace and Markdown are normalised, or inside an admonition titled «Ampliación»; a
heading the seed lacks ends in «(ampliación)». Deliberate rewrites are data in
``seeds/rewrites.toml``; one that no longer matches its seed or page is a problem.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError, parse_toml, read_text, table_entries

__all__ = ["REWRITES", "Rewrite", "load_rules", "seed_problems", "seed_slugs", "unmarked_additions"]

MARK = "Ampliación"
#: The deliberate rewrites, as messages name them (the file is always under seeds/).
REWRITES = "seeds/rewrites.toml"

_ADMONITION = re.compile(
    r'^(?P<indent>[ ]*)(?:!!!|\?\?\?\+?)[ ]+(?P<kind>[\w-]+)(?:[ ]+"(?P<title>[^"]*)")?[ ]*$')
_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}[ ]+(?P<text>.+?)[ ]*#*[ ]*$")
_MARKED_HEADING = re.compile(rf"[ ]\({MARK.lower()}\)(?:[ ]*\{{[^}}]*\}})?$")
_LIST_ITEM = re.compile(r"^[ ]*(?:[-*+]|\d+\.)[ ]+(?P<text>.*)$")
_TABLE_SEPARATOR = re.compile(r"^[ ]*\|[ \t|:-]*$")


@dataclass(frozen=True)
class _Item:
    """One prose unit of a page at its line; ``marked``: inside an «Ampliación»."""

    line: int
    text: str
    marked: bool


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    seed: str
    """The seed's text, as the seed has it."""
    text: str
    """What the page says instead."""
    page: str = ""
    """The page slug it belongs to; empty: any page whose seed has the text."""
    line: int = 0
    """Its ``[[rewrite]]`` line in ``seeds/rewrites.toml``."""


def _normalise(text: str) -> str:
    """Plain words: no Markdown links, escapes, inline code or emphasis; one space."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|])", r"\1", text)
    text = text.replace("`", "").replace("*", "")
    return " ".join(text.split())


def _is_mark(title: str | None) -> bool:
    return title is not None and (title == MARK or title.startswith(f"{MARK}:"))


def _prose_items(text: str) -> list[_Item]:
    """The page's prose in order, each item with its line and whether it is marked."""
    lines = text.splitlines()
    items: list[_Item] = []
    stack: list[tuple[int, bool]] = []  # (admonition indent, marked) from outer to inner
    paragraph: list[str] = []
    start = index = 0
    if lines and lines[0].strip() == "---":  # front matter
        index = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0) + 1

    def marked() -> bool:
        return bool(stack) and stack[-1][1]

    def flush() -> None:
        if paragraph:
            items.append(_Item(start, " ".join(paragraph), marked()))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1
        if not line.strip():
            flush()
            continue
        indent = len(line) - len(line.lstrip(" "))
        while stack and indent < stack[-1][0] + 4:
            flush()
            stack.pop()
        stripped = line.strip()
        fence = _FENCE.match(line)
        if fence:
            flush()
            closing = re.compile(rf"^[ ]*{fence['fence'][0]}{{{len(fence['fence'])},}}[ ]*$")
            while index < len(lines) and not closing.match(lines[index]):
                index += 1
            index += 1
            continue
        if stripped.startswith("<!--"):
            flush()
            while index < len(lines) and "-->" not in lines[index - 1]:
                index += 1
            continue
        admonition = _ADMONITION.match(line)
        if admonition:
            flush()
            inner = marked() or _is_mark(admonition["title"])
            if admonition["kind"] == "question" and admonition["title"]:
                items.append(_Item(number, admonition["title"], inner))
            stack.append((len(admonition["indent"]), inner))
            continue
        heading = _HEADING.match(line)
        if heading and indent == 0:
            flush()
            items.append(_Item(number, heading["text"],
                               marked() or bool(_MARKED_HEADING.search(heading["text"]))))
            continue
        if stripped.startswith("|"):
            flush()
            if not _TABLE_SEPARATOR.match(line):
                items.append(_Item(number, stripped, marked()))
            continue
        item = _LIST_ITEM.match(line)
        if item:
            flush()
            paragraph.append(item["text"])
            start = number
            continue
        if not paragraph:
            start = number
        paragraph.append(stripped)
    flush()
    return items


def load_rules(seeds: Path) -> tuple[Rewrite, ...]:
    """``seeds/rewrites.toml`` (no file: no rewrites); a bad entry names its line."""
    path = seeds / "rewrites.toml"
    if not path.is_file():
        return ()
    text = read_text(path, REWRITES)
    data = parse_toml(text, REWRITES)
    rewrites: list[Rewrite] = []
    slugs = seed_slugs(seeds.parent)
    for raw, where in table_entries(text, data, "rewrite", Path(REWRITES)):
        if not (isinstance(raw, dict) and isinstance(raw.get("seed"), str)
                and isinstance(raw.get("page_text"), str)):
            raise HarnessError(f"{where}: a [[rewrite]] needs seed = \"<the seed's "
                               'text>" and page_text = "<what the page says>"')
        unknown = sorted(set(raw) - {"seed", "page_text", "page"})
        if unknown:  # a mistyped «page» would make the rewrite apply to every page
            raise HarnessError(f"{where}: unknown key {unknown[0]!r} in a [[rewrite]]; its "
                               "keys are seed, page_text and page")
        if "page" in raw and raw["page"] not in slugs:
            raise HarnessError(f"{where}: page = {raw['page']!r} names no seeded page; "
                               f"expected one of {', '.join(slugs)}")
        rewrites.append(Rewrite(seed=raw["seed"], text=raw["page_text"],
                                page=str(raw.get("page", "")), line=where.line))
    return tuple(rewrites)


def unmarked_additions(slug: str, page: str, seed: str,
                       rules: tuple[Rewrite, ...] = ()) -> list[str]:
    """The page's rewrites that no longer match ``seed``, every prose item of ``page``
    (``docs/<slug>.md``) neither in ``seed`` (rewrites applied) nor marked, then the
    page's rewrites whose text ``page`` no longer says."""
    shown = f"docs/{slug}.md"
    reference = _normalise(" ".join(seed.splitlines()))
    problems: list[str] = []
    for rewrite in rules:
        if rewrite.page not in ("", slug):
            continue
        old = _normalise(rewrite.seed)
        if rewrite.page and old not in reference:
            problems.append(
                f"{REWRITES}:{rewrite.line}: the rewrite of {rewrite.seed[:60]!r} no longer "
                f"matches seeds/{slug}.txt; remove it, or copy the seed's text into `seed`")
        reference = reference.replace(old, _normalise(rewrite.text))
    for item in _prose_items(page):
        words = _normalise(item.text)
        if not words or item.marked or words in reference:
            continue
        problems.append(
            f"{shown}:{item.line}: not in seeds/{slug}.txt and not inside «{MARK}»: "
            f"{words[:70]!r}; put it under !!! info \"{MARK}\" (indented 4 spaces), or restore "
            f"the seed's wording, or list a deliberate rewrite in {REWRITES}")
    flat = _normalise(" ".join(page.split()))
    return problems + [
        f"{REWRITES}:{rewrite.line}: {shown} no longer says {rewrite.text[:60]!r}; "
        "remove the rewrite, or update its page_text to what the page says"
        for rewrite in rules if rewrite.page == slug and _normalise(rewrite.text) not in flat]


def seed_slugs(root: Path) -> list[str]:
    """The slugs of every seed article of the checkout at ``root``."""
    return sorted(path.stem for path in (root / "seeds").glob("*.txt"))


def seed_problems(root: Path, slug: str) -> list[str]:
    """Every fidelity problem of ``docs/<slug>.md`` (none when it has no seed)."""
    seed, page = root / "seeds" / f"{slug}.txt", root / "docs" / f"{slug}.md"
    if not seed.is_file():
        return []
    if not page.is_file():
        return [f"seeds/{slug}.txt:1: the seed has no page; write docs/{slug}.md"]
    rules = load_rules(root / "seeds")
    return unmarked_additions(slug, read_text(page, f"docs/{slug}.md"),
                              read_text(seed, f"seeds/{slug}.txt"), rules)
