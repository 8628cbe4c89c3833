"""A page's opening ``---`` block that MkDocs cannot read as front matter (it would show
it as text): the plugin's message names the line and what is wrong
(tests/faults/test_faults_build.py builds the unquoted ': ' case for real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.site.plugin import front_matter_problem


@pytest.mark.parametrize(("raw", "message"), [
    ("---\ntitle: a\ndescription: a: b\n---\n# T\n",
     "p.md:3: the front matter is not valid YAML (mapping values are not allowed here)"),
    ("---\ndescription: a\n\n# T\n", "p.md:1: the front matter is not closed by a '---' line"),
    ("---\n- a\n- b\n---\n# T\n", "p.md:1: the front matter is not a mapping of keys to values"),
])
def test_an_unreadable_front_matter_is_named_at_its_line(raw: str, message: str) -> None:
    assert front_matter_problem(raw, Path("p.md")).startswith(message)
