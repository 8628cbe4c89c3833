"""Reading pages: snippet includes (a fenced block whose body is a pymdownx.snippets line,
``--8<-- "que-es-pytorch/derivada_cuadrado.py"``) and one-line ``harness:`` markers
(``<!-- harness:observed snippet="..." -->``). Standard library only.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError, Location

__all__ = ["Include", "Marker", "find_includes", "find_markers", "literal_spans",
           "parse_marker_args"]

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_INCLUDE = re.compile(r"""^[ \t]*-{1,}8<-{1,}[ \t]+(?P<q>["'])(?P<target>[^"']+)(?P=q)[ \t]*$""")
_MARKER = re.compile(r"<!--\s*harness:(?P<kind>[\w-]+)(?P<args>.*?)-->")
_ARG = re.compile(r'\s*(?P<key>[\w-]+)="(?P<value>[^"]*)"\s*')


@dataclass(frozen=True, kw_only=True)
class Include:
    snippet_id: str
    """Path under ``snippets/`` without suffix or section."""
    target: str
    """The include target as written, e.g. ``x/y.py`` or ``x/y.py:shown``."""
    language: str
    location: Location
    """Line of the opening fence."""
    start: int
    """Character offset of the opening fence in the page text."""
    end: int
    """Character offset just after the closing fence."""


@dataclass(frozen=True, kw_only=True)
class Marker:
    kind: str
    args: dict[str, str]
    location: Location
    start: int
    end: int


def find_includes(text: str, path: Path) -> list[Include]:
    """Fenced blocks whose whole body is snippet includes, in page order."""
    found: list[Include] = []
    lines = text.splitlines(keepends=True)
    offsets = list(itertools.accumulate(map(len, lines), initial=0))
    index = 0
    while index < len(lines):
        opened = _FENCE_OPEN.match(lines[index].rstrip("\n"))
        first, index = index, index + 1
        if not opened:
            continue
        closing = re.compile(rf"^{re.escape(opened['indent'])}{opened['fence']}[ \t]*$")
        while index < len(lines) and not closing.match(lines[index].rstrip("\n")):
            index += 1
        matches = [_INCLUDE.match(b.rstrip("\n")) for b in lines[first + 1:index] if b.strip()]
        index = min(index + 1, len(lines))  # past the closing fence, if there is one
        if not matches or not all(matches):
            continue
        language = (opened["info"].split() or [""])[0]
        found += [Include(snippet_id=m["target"].split(":", 1)[0].rsplit(".", 1)[0],
                          target=m["target"], language=language,
                          location=Location(path=path, line=first + 1),
                          start=offsets[first], end=offsets[index]) for m in matches if m]
    return found


def parse_marker_args(raw: str, where: Location) -> dict[str, str]:
    args: dict[str, str] = {}
    position = 0
    raw = raw.rstrip()
    while position < len(raw):
        match = _ARG.match(raw, position)
        if not match:
            raise HarnessError(
                f"{where}: cannot read marker arguments at {raw[position:].strip()!r}; "
                'expected key="value" pairs separated by spaces.')
        if match["key"] in args:
            raise HarnessError(f"{where}: argument {match['key']!r} given twice.")
        args[match["key"]] = match["value"]
        position = match.end()
    return args


_FENCED = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}).*?^(?P=indent)(?P=fence)[ \t]*$",
                     re.M | re.S)
_INLINE_CODE = re.compile(r"(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.S)


def literal_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every fenced block and inline code span: what a page shows as code,
    where a marker is text to read, not a marker to expand."""
    spans = [m.span() for m in _FENCED.finditer(text)]
    position = 0
    for start, end in [*spans, (len(text), len(text))]:
        spans += [(position + m.start(), position + m.end())
                  for m in _INLINE_CODE.finditer(text[position:start])]
        position = end
    return sorted(spans)


def find_markers(text: str, path: Path) -> list[Marker]:
    """Every ``<!-- harness:... -->`` marker, in page order, arguments parsed; one inside
    a fenced block or an inline code span is the code it shows, and is left alone."""
    markers: list[Marker] = []
    literal = literal_spans(text)
    for match in _MARKER.finditer(text):
        if any(start <= match.start() < end for start, end in literal):
            continue
        where = Location(path=path, line=text.count("\n", 0, match.start()) + 1)
        markers.append(Marker(kind=match["kind"], args=parse_marker_args(match["args"], where),
                              location=where, start=match.start(), end=match.end()))
    return markers
