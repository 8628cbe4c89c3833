"""Whole-project checks: every example is checked, every check has an example, nothing
the harness would skip hides on a page. Each problem is one line, ``file:line: what is
wrong; what to do``; the build, pytest and the record command all run them.
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError, read_text
from harness.sources.pages import find_includes, find_markers, literal_spans
from harness.sources.project import Project
from harness.sources.snippets import defined_names, imported_modules

__all__ = ["Problem", "check_pages", "check_project", "raise_problems"]

#: A line pymdownx.snippets would read as an include, possibly inside a block quote.
_INCLUDE_LINE = re.compile(r"^(?P<quote>(?:[ \t]*>)*)[ \t]*-{1,}8<-{1,}(?P<rest>.*)$")
#: Anything that starts like a harness marker, in any case and spacing.
_LOOKS_LIKE_MARKER = re.compile(r"<!--\s*harness\b", re.I)
#: What an example may import: what a reader who installed torch has (promise 4).
_READER_HAS = frozenset({"torch", "numpy", *sys.stdlib_module_names})


@dataclass(frozen=True, kw_only=True)
class Problem:
    message: str
    """``file:line: what is wrong; what to do``."""
    pages: tuple[Path, ...] = ()
    """The Spanish pages whose examples it concerns (empty: the whole project)."""
    twin: bool = False
    """A difference between a page and its English twin: the page's examples still run
    (a contributor writes the twin after them); the notebooks and the build need it."""

    def __str__(self) -> str:
        return self.message


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_pages(text: str, shown: Path) -> list[str]:
    """Problems a single page can have on its own: skipped includes, broken markers."""
    problems: list[str] = []
    covered: set[int] = set()
    for include in find_includes(text, shown):
        first = _line_of(text, include.start)
        covered |= set(range(first, _line_of(text, include.end) + 1))
    for number, line in enumerate(text.splitlines(), start=1):
        match = _INCLUDE_LINE.match(line)
        if not match or number in covered:
            continue
        why = ("inside a block quote, where Sybil does not collect it" if match["quote"] else
               "a block-format include" if not match["rest"].strip() else
               "not the only line of a fenced block")
        problems.append(
            f"{shown}:{number}: snippet include the harness would not run ({why}); write it as "
            'a fenced block whose only line is --8<-- "<page>/<name>.py", outside block quotes')
    strict = {m.start for m in find_markers(text, shown)}
    literal = literal_spans(text)
    for match in _LOOKS_LIKE_MARKER.finditer(text):
        if match.start() not in strict and not any(a <= match.start() < b for a, b in literal):
            end = text.find("\n", match.start())
            snippet = text[match.start(): end if end != -1 else None][:60]
            problems.append(
                f"{shown}:{_line_of(text, match.start())}: {snippet!r} looks like a harness "
                'marker but does not parse; expected <!-- harness:kind key="value" --> on one '
                "line, lowercase, no space after the colon")
    return problems


def _signature(text: str, shown: Path) -> list[tuple[str, int, str | None]]:
    """The page's includes and markers in order, each as (what, its line, the snippet
    it names if any)."""
    items: list[tuple[int, str, int, str | None]] = [
        (i.start, f"include {i.target}", i.location.line, i.snippet_id)
        for i in find_includes(text, shown)]
    items += [(m.start, " ".join([f"marker harness:{m.kind}",
                                  *(f'{k}="{v}"' for k, v in sorted(m.args.items()))]),
               m.location.line, m.args.get("snippet"))
              for m in find_markers(text, shown)]
    return [item[1:] for item in sorted(items)]


def _which_to_fix(project: Project, spanish: tuple[Path, str | None],
                  twin: tuple[Path, str | None]) -> str:
    """The next step for two lines that differ: fix the one naming an unknown snippet."""
    wrong = [shown for shown, snippet in (spanish, twin)
             if snippet is not None and snippet not in project.snippets]
    if len(wrong) == 1:
        right = twin[0] if wrong[0] == spanish[0] else spanish[0]
        return f"{wrong[0]} names a snippet that does not exist: copy the line of {right} there"
    return ("the two pages must have the same line: decide which one is right (`make check` "
            "names an unknown id on its own) and copy it into the other")


def _place(items: list[tuple[str, int, str | None]], index: int, shown: Path) -> str:
    """Where item ``index`` of the Spanish order belongs in the twin ``shown``."""
    if index > 0:
        what, line, _ = items[index - 1]
        return f"after {shown}:{line} (its {what})"
    return f"before {shown}:{items[0][1]} (its {items[0][0]})" if items else f"in {shown}"


def _twin_problems(project: Project, page: Path) -> list[str]:
    """Each difference between the includes and markers of ``page`` and of its twin, at
    the Spanish page's line, with where in the twin the fix goes."""
    twin = page.with_name(page.name.replace(".md", ".en.md"))
    shown, shown_twin = project.shown(page), project.shown(twin)
    if not twin.exists():
        return [f"{shown}:1: no English twin; create {shown_twin} with the same snippet "
                "includes and harness markers, in the same order (the examples run without it; "
                "the notebooks and the strict build need it)"]
    mine = _signature(read_text(page, shown), shown)
    theirs = _signature(read_text(twin, shown_twin), shown_twin)
    matcher = difflib.SequenceMatcher(a=[w for w, _, _ in mine], b=[w for w, _, _ in theirs],
                                      autojunk=False)
    problems: list[str] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        for offset in range(max(a1 - a0, b1 - b0)):
            a, b = a0 + offset, b0 + offset
            if a < a1 and b < b1:
                problems.append(
                    f"{shown}:{mine[a][1]}: has {mine[a][0]}, but {shown_twin}:{theirs[b][1]} has "
                    f"{theirs[b][0]} in its place; "
                    + _which_to_fix(project, (shown, mine[a][2]), (shown_twin, theirs[b][2])))
            elif a < a1:
                problems.append(
                    f"{shown}:{mine[a][1]}: {mine[a][0]} is not in the English twin; put the "
                    f"same line in {shown_twin} {_place(theirs, b0, shown_twin)}")
            else:
                problems.append(
                    f"{shown_twin}:{theirs[b][1]}: {theirs[b][0]} is not on the Spanish page "
                    f"{shown}; remove it from the twin, or add it to {shown} "
                    f"{_place(mine, a0, shown)}")
    return problems


def _code_problems(project: Project, snippet_id: str) -> list[str]:
    """A Python snippet that does not parse, or imports what a reader with torch alone
    does not have (``python snippets/<...>.py`` runs the whole file)."""
    snippet = project.snippets[snippet_id]
    if snippet.language != "py":
        return []
    shown = project.shown(snippet.path)
    try:
        imports = imported_modules(snippet.path.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        return [f"{shown}:{exc.lineno}: not valid Python: {exc.msg}"]
    return [f"{shown}:{line}: imports {module.partition('.')[0]!r}; an example imports only "
            "torch, numpy and the standard library (a reader runs it with torch alone)"
            for line, module in imports if module.partition(".")[0] not in _READER_HAS]


def _scope_problems(project: Project, snippet_id: str) -> list[str]:
    snippet = project.snippets[snippet_id]
    if snippet.language != "py":
        return []
    try:
        names = defined_names(snippet.path.read_text(encoding="utf-8"))
    except SyntaxError:
        return []  # _code_problems reports it
    return [
        f"{e.location}: expectation names {e.name!r}, which {project.shown(snippet.path)} does "
        f"not define (an earlier snippet of the page may; an expectation checks only its own "
        f"snippet). Names it defines: {', '.join(sorted(names)) or '(none)'}."
        for e in project.expectations.get(snippet_id, [])
        if e.name.split(".")[0] not in names
    ]


def check_project(project: Project) -> list[Problem]:
    """Every problem of the checkout's pages, snippets and expectations."""
    problems: list[Problem] = []
    included: dict[str, list[Path]] = {}
    for page in project.spanish_pages():
        shown = project.shown(page)
        text = read_text(page, shown)
        mine = check_pages(text, shown)
        for include in find_includes(text, shown):
            if include.snippet_id not in project.snippets:
                continue  # page_includes reports it with the valid ids
            included.setdefault(include.snippet_id, []).append(shown)
            if (include.snippet_id not in project.expectations
                    and include.snippet_id not in project.unchecked):
                page_slug = include.snippet_id.split("/")[0]
                mine.append(
                    f"{include.location}: snippet {include.snippet_id!r} has no analytic "
                    f"expectation; add [[expect]] to snippets/{page_slug}/expectations.toml, or "
                    "[[unchecked]] with the reason if there is truly nothing to derive")
        problems += [Problem(message=m, pages=(shown,)) for m in mine]
        problems += [Problem(message=m, pages=(shown,), twin=True)
                     for m in _twin_problems(project, page)]
    for twin in (p for p in project.pages() if p.name.endswith(".en.md")):
        shown = project.shown(twin)
        problems += [Problem(message=m) for m in check_pages(read_text(twin, shown), shown)]
    for snippet_id, pages_of in sorted(included.items()):
        problems += [Problem(message=m, pages=tuple(pages_of))
                     for m in _code_problems(project, snippet_id)]
    for snippet_id, items in sorted(project.expectations.items()):
        pages = tuple(included.get(snippet_id, ()))
        if not pages:
            problems.append(Problem(message=(
                f"{items[0].location}: expectation for {snippet_id!r}, which no page "
                "includes; include the snippet on its page or remove the expectation")))
        problems += [Problem(message=m, pages=pages) for m in _scope_problems(project, snippet_id)]
    for snippet_id, entry in sorted(project.unchecked.items()):
        if snippet_id not in included:
            problems.append(Problem(message=f"{entry.location}: [[unchecked]] for {snippet_id!r}, "
                                            "which no page includes"))
    return problems


def raise_problems(problems: list[str] | list[Problem]) -> None:
    """One HarnessError listing every problem (a contributor fixes them in one pass)."""
    if problems:
        raise HarnessError("\n".join(str(p) for p in problems))
