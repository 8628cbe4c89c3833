"""Every Spanish article keeps its seed: prose not in the seed is marked «Ampliación».

The rule lives in harness/sources/seed_fidelity.py (so that `make check` runs it too);
the deliberate rewrites of seed text are data in seeds/rewrites.toml. These tests run
it on the real pages and on small samples. Standard library only: no torch.
"""

from __future__ import annotations

import pytest
from support import ROOT

from harness.core.errors import HarnessError
from harness.sources.seed_fidelity import (
    load_rules,
    seed_problems,
    seed_slugs,
    unmarked_additions,
)

SEEDS = ROOT / "seeds"
DOCS = ROOT / "docs"
SLUGS = seed_slugs(ROOT)


def test_every_seed_has_its_page() -> None:
    assert SLUGS, "no seeds under seeds/"
    for slug in SLUGS:
        assert (DOCS / f"{slug}.md").is_file(), f"seeds/{slug}.txt has no docs/{slug}.md"
    rewrites = load_rules(SEEDS)
    pages = {r.page for r in rewrites if r.page}
    assert rewrites and pages <= set(SLUGS), pages - set(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_added_prose_is_marked(slug: str) -> None:
    problems = [p for p in seed_problems(ROOT, slug) if p.startswith("docs/")]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_rewrite_is_still_used(slug: str) -> None:
    problems = [p for p in seed_problems(ROOT, slug) if p.startswith("seeds/")]
    assert not problems, "\n".join(problems)


SAMPLE_SEED = "Título\nUna frase del artículo original.\nOtra frase."
SAMPLE_PAGES = {
    "paragraph": "# Título\n\nUna frase del artículo original.\n\nUn párrafo añadido sin marca.\n",
    "list item": "# Título\n\n- Otra frase.\n- Un elemento añadido.\n",
    "sentence appended": "Una frase del artículo original. Y otra añadida.\n",
    "other admonition": '!!! note "Nota"\n\n    Un párrafo añadido en otro recuadro.\n',
    "after the box": '!!! info "Ampliación"\n\n    Marcado.\n\nSin marcar.\n',
    "heading": "## Una sección nueva\n\nOtra frase.\n",
}


@pytest.mark.parametrize("case", sorted(SAMPLE_PAGES))
def test_an_unmarked_addition_is_reported(case: str) -> None:
    problems = unmarked_additions("sample", SAMPLE_PAGES[case], SAMPLE_SEED)
    assert len(problems) == 1, problems
    assert problems[0].startswith("docs/sample.md:"), problems


def test_marked_additions_code_and_markers_pass() -> None:
    page = (
        "---\ndescription: algo nuevo\n---\n\n# Título\n\n"
        "Una frase del *artículo* [original](x.md).\n\n"
        '!!! info "Ampliación"\n\n    Un párrafo añadido.\n\n    - Una lista añadida.\n\n'
        '??? note "Ampliación: detalle"\n\n    ```python\n    print("código")\n    ```\n\n'
        '<!-- harness:observed snippet="x/y" -->\n\n```text\nNada de esto cuenta.\n```\n'
    )
    assert unmarked_additions("sample", page, SAMPLE_SEED) == []


def test_the_report_names_page_line_and_start() -> None:
    (problem,) = unmarked_additions(
        "sample", SAMPLE_PAGES["paragraph"], SAMPLE_SEED
    )
    assert problem == (
        "docs/sample.md:5: not in seeds/sample.txt and not inside «Ampliación»: "
        "'Un párrafo añadido sin marca.'; put it under !!! info \"Ampliación\" (indented 4 "
        "spaces), or restore the seed's wording, or list a deliberate rewrite in "
        "seeds/rewrites.toml"
    )


def test_a_rewrite_that_no_longer_matches_names_its_line(tmp_path) -> None:
    (tmp_path / "seeds").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "seeds/sample.txt").write_text(SAMPLE_SEED, encoding="utf-8")
    (tmp_path / "docs/sample.md").write_text("# Título\n\nOtra frase.\n", encoding="utf-8")
    (tmp_path / "seeds/rewrites.toml").write_text(
        '# a comment\n\n[[rewrite]]\npage = "sample"\nseed = "No está."\npage_text = "Nada."\n',
        encoding="utf-8")
    problems = seed_problems(tmp_path, "sample")
    assert problems[0].startswith("seeds/rewrites.toml:3: the rewrite of 'No está.' no longer "
                                  "matches seeds/sample.txt"), problems
    assert problems[1].startswith("seeds/rewrites.toml:3: docs/sample.md no longer says"), problems


def test_a_heading_that_says_it_is_added_passes() -> None:
    page = "## Una sección nueva (ampliación)\n\nOtra frase.\n"
    assert unmarked_additions("sample", page, SAMPLE_SEED) == []
    # only at the end, in those words: a heading that merely mentions it is reported
    mentions = "## La ampliación de una sección\n\nOtra frase.\n"
    assert len(unmarked_additions("sample", mentions, SAMPLE_SEED)) == 1


@pytest.mark.parametrize(("entry", "message"), [
    ('pag = "sample"', "seeds/rewrites.toml:3: unknown key 'pag' in a [[rewrite]]"),
    ('page = "no-such-page"', "seeds/rewrites.toml:3: page = 'no-such-page' names no seeded "
                              "page; expected one of sample"),
    ("page = 3", "seeds/rewrites.toml:3: page = 3 names no seeded page"),
])
def test_a_mistyped_rewrite_names_its_line(tmp_path, entry: str, message: str) -> None:
    """A mistyped «page» made a page's rewrite apply to every page, silently."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds/sample.txt").write_text(SAMPLE_SEED, encoding="utf-8")
    (tmp_path / "seeds/rewrites.toml").write_text(
        f'# a comment\n\n[[rewrite]]\n{entry}\nseed = "x"\npage_text = "y"\n', encoding="utf-8")
    with pytest.raises(HarnessError) as caught:
        load_rules(tmp_path / "seeds")
    assert str(caught.value).startswith(message), caught.value
