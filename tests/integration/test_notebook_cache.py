"""The cache folders (harness/site/notebooks.py): mkdocs-jupyter's own cache, one folder
per language build and per converter, the converter named by a digest of its code, and
the folders of other code versions removed (the page and search caches use the same)."""

from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

from harness.site.notebooks import cache_folder, converter_digest, prune_versions

PACKAGE = Path(find_spec("mkdocs_jupyter").origin).parent


def test_the_digest_follows_the_converters_code(tmp_path: Path) -> None:
    copy = tmp_path / "mkdocs_jupyter"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert converter_digest(copy) == converter_digest() == converter_digest(PACKAGE)
    template = copy / "templates" / "mkdocs_html" / "notebook.html.j2"
    template.write_text(template.read_text() + "\n")
    edited = converter_digest(copy)
    assert edited != converter_digest()
    (copy / "tests").mkdir(exist_ok=True)
    (copy / "tests" / "extra.py").write_text("x = 1\n")  # its tests do not convert
    assert converter_digest(copy) == edited


def test_each_language_and_converter_has_its_own_folder(tmp_path: Path) -> None:
    es, en = cache_folder(tmp_path, "abc", "es"), cache_folder(tmp_path, "abc", "en")
    assert es != en and es.parent == en.parent == tmp_path / "abc"
    assert cache_folder(tmp_path, "def", "es").parent != es.parent


def test_only_the_folders_of_other_converters_are_pruned(tmp_path: Path) -> None:
    for digest in ("old", "new"):
        for language in ("es", "en"):
            folder = cache_folder(tmp_path / "notebooks", digest, language)
            folder.mkdir(parents=True)
            (folder / "entry.json").write_text("{}")
    prune_versions(tmp_path / "notebooks", "new")
    assert sorted(p.name for p in (tmp_path / "notebooks").iterdir()) == ["new"]
    assert len(list((tmp_path / "notebooks" / "new").rglob("entry.json"))) == 2
    prune_versions(tmp_path / "absent", "new")  # no cache yet: nothing to do
