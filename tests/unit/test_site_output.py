"""Post-processing of the built site (harness/site/site_output.py): the faster forms
do exactly what the plain ones did."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from harness.site import site_output
from harness.site.site_output import split_search_index

#: What share_notebook_styles matched and kept before the tags were searched separately.
STYLE = re.compile(r"<style\b[^>]*>.*?</style>\s*", re.S | re.I)


def _text(block: str) -> str:
    return re.sub(r"^<style\b[^>]*>|</style>\s*$", "", block.strip(), flags=re.I)


def test_shared_styles_are_those_of_the_one_regular_expression(tmp_path: Path) -> None:
    pieces = ["<style", "<STYLE", "<ſtyle", "</style>", "</Style>", "</ſtyle>", ">", "<", " ",
              "\n", "\u2003", "a", "_", "type='x'", "</styl", "<styles>", "\t"]
    rng = random.Random(12)
    for _ in range(20000):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        shared = site_output.share_notebook_styles(html, "page/", tmp_path)
        blocks = list(STYLE.finditer(html))
        if not blocks:
            assert shared == html
            continue
        link = re.search(r'<link rel="stylesheet" href="\.\./([^"]+)">\n', shared)
        assert link is not None, html
        css = "\n".join(_text(m.group()) for m in blocks)
        assert (tmp_path / link[1]).read_text(encoding="utf-8") == css, html
        first = blocks[0].start()
        assert shared == html[:first] + link[0] + STYLE.sub("", html[first:]), html


def test_the_split_index_leaves_out_the_excluded_pages_of_each_language(
        tmp_path: Path) -> None:
    urls = ["", "cuadernos/a/", "cuadernos", "en/", "en/cuadernos/a/", "en/b/", "b/",
            "fr/cuadernos/a/", "e", "en", "x/cuadernos/a/", "cuadernos/en/x/"]
    docs = [{"location": url + anchor, "title": "t ¶", "text": url}
            for url in urls for anchor in ("", "#s")]
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text(json.dumps({"config": {},
                                                                      "docs": docs}))
    split_search_index(tmp_path, "es", ["en"], excluded=("cuadernos/",))
    kept = {path: {(doc["text"], doc["location"], doc["title"]) for doc in json.loads(
        (tmp_path / path / "search_index.json").read_text())["docs"]}
        for path in ("search", "en/search")}
    assert {text for text, _, _ in kept["search"]} == {
        "", "cuadernos", "b/", "fr/cuadernos/a/", "e", "en", "x/cuadernos/a/"}  # en#s: not en/
    assert {(text, location) for text, location, _ in kept["en/search"]} == {
        ("en/", ""), ("en/", "#s"), ("en/b/", "b/"), ("en/b/", "b/#s"), ("en", "")}
    assert {title for entries in kept.values() for _, _, title in entries} == {"t"}


def _words(separator: str, text: str) -> list[str]:
    """``text`` split as Material's search splits it (its ``split``: the ranges between
    the separator's matches, empty ones dropped), lowercased as its tokenizer does."""
    return [word.lower() for word in re.split(separator, text) if word]


def test_the_search_separator_splits_marks_and_keeps_numbers() -> None:
    from mkdocs.config import load_config

    config = load_config(config_file=str(Path(__file__).parents[2] / "mkdocs.yml"))
    separator = config.plugins["material/search"].config.separator
    assert separator is not None and "(?" not in separator.replace("(?:", "").replace(
        "(?!", ""), separator  # only what lunr's JavaScript RegExp reads alike
    assert _words(separator, "la marca «ruidosa»: la mediana") == [
        "la", "marca", "ruidosa", "la", "mediana"]
    assert _words(separator, "“quoted” (x.grad) ¿sí? ¡no! a/b_c a·b 3×4 → fin.") == [
        "quoted", "x", "grad", "sí", "no", "a", "b", "c", "a", "b", "3", "4", "fin"]
    assert _words(separator, "torch 2.13.0+cpu tarda 0,28× y 1.5e-3; x &lt; y &amp; z") == [
        "torch", "2.13.0+cpu", "tarda", "0,28", "y", "1.5e", "3", "x", "y", "z"]
    assert _words(separator, "uno, dos. tres") == ["uno", "dos", "tres"]
