"""The catalogues (harness/text/es.toml, en.toml) hold only words a page can show: both
languages have the same keys and the same placeholders, every key is used by the
harness (literally or through a prefix it completes at run time, ``f"drift_{verdict}"``),
a missing key or placeholder fails loudly, and no code branches on the language."""

from __future__ import annotations

import re
import subprocess
from string import Formatter

import pytest
from support import HARNESS, ROOT

from harness.text.words import LANGS, catalogue, word

#: A key a module composes: ``f"clock_{...}"`` or ``'plot_short_' + y``.
_PREFIX = re.compile(r"""f["']([a-z]+(?:_[a-z]+)*_)\{|["']([a-z]+(?:_[a-z]+)*_)["']\s*\+""")


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name is not None}


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    es, en = catalogue("es"), catalogue("en")
    assert set(es) == set(en), sorted(set(es) ^ set(en))
    differ = sorted(k for k in es if _placeholders(es[k]) != _placeholders(en[k]))
    assert not differ, f"placeholders differ between es.toml and en.toml: {differ}"
    assert all(text for lang in LANGS for text in catalogue(lang).values())


def test_a_missing_key_or_placeholder_fails_loudly() -> None:
    with pytest.raises(KeyError, match="es.toml has no key 'laten'; did you mean"):
        word("es", "laten")
    with pytest.raises(KeyError, match="'logical_cpus' needs placeholder 'n'"):
        word("es", "logical_cpus", m=2)
    assert word("es", "logical_cpus", n=2) == "de 2 CPU lógicas"


def test_every_word_is_used() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in HARNESS.rglob("*.py")
                        if p.name != "words.py")
    prefixes = {a or b for a, b in _PREFIX.findall(sources)}
    unused = sorted(k for k in catalogue("es")
                    if f'"{k}"' not in sources and f"'{k}'" not in sources
                    and not any(k.startswith(p) for p in prefixes))
    assert not unused, f"words no module uses (remove them from harness/text/*.toml): {unused}"


def test_no_code_branches_on_the_language() -> None:
    """A sentence differs by language in the catalogue only."""
    found = subprocess.run(
        ["git", "grep", "-nE", r"""lang [!=]= ['"]|if es else|\bes = lang""", "--", "harness"],
        cwd=ROOT, capture_output=True, text=True, check=False).stdout
    assert not found, found
