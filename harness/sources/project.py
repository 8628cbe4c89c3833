"""A checkout's snippets, expectations and claims, read once, and a page's includes
resolved against them. Standard library only; every entry point starts here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import read_text, relative
from harness.core.types import Expectation, Snippet, Unchecked
from harness.sources.claims import Claim, load_claims
from harness.sources.pages import Include, find_includes
from harness.sources.snippets import find_snippets, load_expectations, snippet_for_id

__all__ = ["Project", "page_includes", "resolve_includes"]


@dataclass(frozen=True, kw_only=True)
class Project:
    """Snippets and expectations of a checkout, read once."""

    root: Path
    snippets: dict[str, Snippet]
    expectations: dict[str, list[Expectation]]
    unchecked: dict[str, Unchecked]
    """Snippets declared to have nothing to derive, with the reason."""
    claims: dict[tuple[str, str], Claim] = field(default_factory=dict)
    """Sentences about the records, by (page slug, claim id) (``claims.toml``)."""

    @classmethod
    def load(cls, root: Path) -> Project:
        snippets = find_snippets(root / "snippets")
        expectations, unchecked = load_expectations(root / "snippets", snippets, root=root)
        claims = load_claims(root / "snippets", root=root)
        return cls(root=root, snippets=snippets, expectations=expectations, unchecked=unchecked,
                   claims=claims)

    def pages(self) -> list[Path]:
        """Every page, both languages (``docs/<slug>.md`` and ``docs/<slug>.en.md``)."""
        return sorted((self.root / "docs").glob("*.md"))

    def spanish_pages(self) -> list[Path]:
        """The pages whose examples run (English twins include the same snippets)."""
        return [p for p in self.pages() if not p.name.endswith(".en.md")]

    def python_expectations(self) -> list[Expectation]:
        """The expectations of Python snippets: those a run observes and records."""
        return [e for items in self.expectations.values() for e in items
                if self.snippets[e.snippet].language == "py"]

    def expected_keys(self) -> set[tuple[str, str]]:
        """Every (snippet, name) an expectation asks for: what records may hold."""
        return {(e.snippet, e.name) for items in self.expectations.values() for e in items}

    def shown(self, path: Path) -> Path:
        return relative(path, self.root)


def page_includes(project: Project, page: Path) -> list[tuple[Include, Snippet]]:
    """A page's snippet includes in order, each resolved or failing with page:line."""
    shown = project.shown(page)
    return resolve_includes(project, read_text(page, shown), shown)


def resolve_includes(project: Project, text: str, shown: Path) -> list[tuple[Include, Snippet]]:
    """The includes of a page's ``text``, each resolved or failing with page:line."""
    return [(include, snippet_for_id(project.snippets, include.snippet_id, str(include.location)))
            for include in find_includes(text, shown)]
