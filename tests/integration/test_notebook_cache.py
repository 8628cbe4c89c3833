"""The notebook-conversion cache (harness/integrations/notebook_cache.py) is never wrong:
a changed notebook, option, language or package version is converted again, a
damaged entry is a miss, an executed notebook is never cached, and what it serves
is what mkdocs-jupyter itself produces. No torch: nothing here runs a notebook."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import NOTEBOOK
from support import NOTEBOOK_OPTIONS as OPTIONS

from harness.integrations import notebook_cache
from harness.integrations.notebook_cache import Conversion, NotebookCache, render_fingerprint


@pytest.fixture(scope="module")
def fingerprint() -> str:
    return render_fingerprint(theme="material", language="es")


@pytest.fixture
def notebook(tmp_path: Path) -> Path:
    copy = tmp_path / "cuaderno.ipynb"
    shutil.copy2(NOTEBOOK, copy)
    return copy


def edit_first_markdown_cell(path: Path, text: str) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in data["cells"] if c["cell_type"] == "markdown")
    cell["source"] = text
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_second_conversion_is_a_hit_with_the_same_page(tmp_path, notebook, fingerprint):
    cache = NotebookCache(tmp_path / "cache", fingerprint)
    conversion = Conversion.of(OPTIONS, str(notebook))
    first = cache.converted(notebook, conversion)
    again = NotebookCache(tmp_path / "cache", fingerprint).converted(notebook, conversion)
    assert (cache.hits, cache.misses) == (0, 1)
    assert {k: again[k] for k in first} == first
    assert "jp-Cell" in first["content"]


def test_a_changed_notebook_is_converted_again(tmp_path, notebook, fingerprint):
    cache = NotebookCache(tmp_path / "cache", fingerprint)
    conversion = Conversion.of(OPTIONS, str(notebook))
    before = cache.converted(notebook, conversion)["content"]
    edit_first_markdown_cell(notebook, "## Un título que no estaba\n\nTexto nuevo del cuaderno.")
    after = cache.converted(notebook, conversion)
    assert cache.misses == 2
    assert "Texto nuevo del cuaderno." in after["content"]
    assert "Texto nuevo del cuaderno." not in before
    assert any(t["name"] == "Un título que no estaba" for t in after["toc_tokens"])


def test_options_language_and_versions_are_in_the_key(notebook, fingerprint, monkeypatch):
    cache = NotebookCache(Path("unused"), fingerprint)
    plain = Conversion.of(OPTIONS, str(notebook))
    keys = {
        cache.key(notebook, plain),
        cache.key(notebook, Conversion.of({**OPTIONS, "no_prompt": True}, str(notebook))),
        cache.key(notebook, Conversion.of({**OPTIONS, "toc_depth": 2}, str(notebook))),
        NotebookCache(Path("unused"), render_fingerprint(theme="material", language="en"))
        .key(notebook, plain),
        NotebookCache(Path("unused"), render_fingerprint(theme="mkdocs", language="es"))
        .key(notebook, plain),
    }
    monkeypatch.setattr(notebook_cache.metadata, "version",
                        lambda name: "0.0.0-other" if name == "nbconvert" else "1")
    keys.add(NotebookCache(Path("unused"), render_fingerprint(theme="material", language="es"))
             .key(notebook, plain))
    assert len(keys) == 6


def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path, notebook, fingerprint):
    cache = NotebookCache(tmp_path / "cache", fingerprint)
    conversion = Conversion.of(OPTIONS, str(notebook))
    good = cache.converted(notebook, conversion)
    entry = tmp_path / "cache" / f"{cache.key(notebook, conversion)}.json"
    entry.write_text(entry.read_text()[:100])  # cut short, as by a crash (writes are atomic)
    assert cache.converted(notebook, conversion)["content"] == good["content"]
    assert cache.misses == 2
    assert json.loads(entry.read_text())["content"] == good["content"]


def test_an_executed_notebook_is_never_cached(tmp_path, notebook, fingerprint, monkeypatch):
    calls = []
    monkeypatch.setattr(notebook_cache, "convert",
                        lambda source, conversion, templates=None: calls.append(source) or
                        {"content": "x", "toc_tokens": [], "title": None})
    cache = NotebookCache(tmp_path / "cache", fingerprint)
    executed = Conversion.of({**OPTIONS, "execute": True}, str(notebook))
    cache.converted(notebook, executed)
    cache.converted(notebook, executed)
    assert len(calls) == 2 and not (tmp_path / "cache").exists()
    ignored = Conversion.of({**OPTIONS, "execute": True, "execute_ignore": ["*.ipynb"]},
                            str(notebook))
    assert ignored.execute is False


def test_the_cache_serves_what_mkdocs_jupyter_produces(tmp_path, notebook, fingerprint):
    """Shared compiled templates change nothing: the same HTML and TOC as mkdocs-jupyter's
    own functions, called as its plugin calls them."""
    from mkdocs_jupyter.convert import nb2html
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    conversion = Conversion.of(OPTIONS, str(notebook))
    cached = NotebookCache(tmp_path / "cache", fingerprint).converted(notebook, conversion)
    assert cached["content"] == nb2html(str(notebook), **conversion.nb2html_arguments())
    assert [cached["toc_tokens"], cached["title"]] == list(_get_nb_toc_tokens(str(notebook), 6))


def test_old_entries_are_pruned_and_recent_ones_kept(tmp_path, fingerprint):
    import os
    import time

    folder = tmp_path / "cache"
    (folder / "templates").mkdir(parents=True)
    old, recent, template = folder / "old.json", folder / "recent.json", folder / "templates/t.code"
    for path in (old, recent, template):
        path.write_text("{}")
    long_ago = time.time() - 40 * 86400
    os.utime(old, (long_ago, long_ago))
    os.utime(template, (long_ago, long_ago))
    assert NotebookCache(folder, fingerprint).prune() == 2
    assert recent.exists() and not old.exists() and not template.exists()
