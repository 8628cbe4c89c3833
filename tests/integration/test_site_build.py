"""The real site: `mkdocs build --strict` passes without torch, every page exists in both
languages, notebooks render as pages (the static-i18n/mkdocs-jupyter fix) and download."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGES = ["", "que-es-pytorch/", "backward-frente-a-autograd-grad/", "medir-pytorch/",
         "elegir-pytorch/"]
NOTEBOOKS = ["que-es-pytorch", "backward-frente-a-autograd-grad", "medir-pytorch",
             "elegir-pytorch"]


def test_the_site_builds_strict(site_build: tuple[Path, list[str]]) -> None:
    """The one failure a broken build gives: the tests that read the built site are
    skipped then, naming its first problem (tests/conftest.py, ``built_site``)."""
    _, problems = site_build
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_is_built_in_both_languages(built_site: Path, page: str) -> None:
    spanish = (built_site / page / "index.html").read_text()
    english = (built_site / "en" / page / "index.html").read_text()
    assert '<html lang="es"' in spanish and '<html lang="en"' in english
    assert "sin medición" not in english or page == ""  # English pages speak English
    # So does the chrome around them: footer, palette switch, description; and the Spanish
    # pages' chrome speaks Spanish.
    for words in ("Cambiar a modo", "colaboradores de", "Hecho con", "Serie en español"):
        assert words not in english, words
    for words in ("Switch to", "contributors to", "Made with", "A Spanish-language series"):
        assert words not in spanish, words


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebooks_render_as_pages_in_both_languages(built_site: Path, name: str) -> None:
    for prefix, suffix in (("", ".ipynb"), ("en/", ".en.ipynb")):
        html = (built_site / prefix / "cuadernos" / name / "index.html").read_text()
        assert html.lstrip().startswith("<!doctype html>"), "notebook copied as raw JSON"
        assert "jp-Cell" in html
        assert (built_site / prefix / "cuadernos" / name / f"{name}{suffix}").is_file()


def test_examples_show_analytic_beside_observed(built_site: Path) -> None:
    html = (built_site / "que-es-pytorch" / "index.html").read_text()
    assert html.count('class="admonition') >= 3
    assert "harness-observed" in html
    assert "Expectativa analítica" in html


def test_article_pages_link_their_notebook(built_site: Path) -> None:
    for name in NOTEBOOKS:
        html = (built_site / name / "index.html").read_text()
        assert re.search(rf'href="\.\./cuadernos/{name}/{name}\.ipynb" download', html), name
        english = (built_site / "en" / name / "index.html").read_text()
        assert re.search(rf'href="\.\./cuadernos/{name}/{name}\.en\.ipynb" download', english)
