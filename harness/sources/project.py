"""A checkout's snippets and analytic expectations, read once, and a page's includes
resolved against them. Standard library only: the docs build, the notebook builder,
pytest and the record command all start here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import relative
from harness.core.types import Expectation, Snippet
from harness.sources.pages import Include, find_includes
from harness.sources.snippets import find_snippets, load_expectations, snippet_for_id

__all__ = ["Project", "page_includes"]


@dataclass(frozen=True, kw_only=True)
class Project:
    """Snippets and expectations of a checkout, read once."""

    root: Path
    snippets: dict[str, Snippet]
    expectations: dict[str, list[Expectation]]

    @classmethod
    def load(cls, root: Path) -> Project:
        snippets = find_snippets(root / "snippets")
        return cls(
            root=root,
            snippets=snippets,
            expectations=load_expectations(root / "snippets", snippets, root=root),
        )

    def shown(self, path: Path) -> Path:
        return relative(path, self.root)


def page_includes(project: Project, page: Path) -> list[tuple[Include, Snippet]]:
    """A page's snippet includes in order, each resolved or failing with page:line."""
    text = page.read_text(encoding="utf-8")
    found = []
    for include in find_includes(text, project.shown(page)):
        snippet = snippet_for_id(project.snippets, include.snippet_id, f"{include.location}")
        found.append((include, snippet))
    return found
