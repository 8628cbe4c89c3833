"""The word table holds only words a page can show: every key is used by the harness,
literally or through a prefix it completes at run time (``f"drift_{verdict}"``), and
both languages have the same keys."""

from __future__ import annotations

import re

from support import HARNESS

from harness.text.words import WORDS

#: A key a module composes: ``f"clock_{...}"`` or ``'plot_short_' + y``.
_PREFIX = re.compile(r"""f["']([a-z]+(?:_[a-z]+)*_)\{|["']([a-z]+(?:_[a-z]+)*_)["']\s*\+""")


def test_both_languages_have_the_same_words() -> None:
    assert set(WORDS["es"]) == set(WORDS["en"])


def test_every_word_is_used() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in HARNESS.rglob("*.py")
                        if not p.name.endswith("words.py"))
    prefixes = {a or b for a, b in _PREFIX.findall(sources)}
    unused = sorted(k for k in WORDS["es"]
                    if f'"{k}"' not in sources and f"'{k}'" not in sources
                    and not any(k.startswith(p) for p in prefixes))
    assert not unused, f"words no module uses (remove them from harness/text/): {unused}"
