"""The build caches added for speed are never wrong: a changed input is a miss with the
output a build without the cache makes, and what cannot be keyed is never cached.

* rendered pages (harness/integrations/render_cache.py), on a small MkDocs project;
* search entries (harness/integrations/search_cache.py), on Material's own indexer;
* notebook conversions made ahead in a second process (notebook_cache.prefetch);
* the whole site: a snippet edit reaches the built page, and a warm build imports
  neither nbconvert nor jupytext (harness/integrations/lazy_imports.py).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import NOTEBOOK, NOTEBOOK_OPTIONS, ROOT, copy_project

from harness.integrations import render_cache, search_cache
from harness.integrations.render_cache import RenderCache
from harness.integrations.search_cache import SearchCache

MKDOCS_YML = """\
site_name: Cache
docs_dir: docs
markdown_extensions:
  - toc:
      permalink: true
  - attr_list
  - pymdownx.superfences
  - pymdownx.highlight
  - pymdownx.snippets:
      base_path: [!relative $config_dir/snippets]
      check_paths: true
validation:
  links:
    anchors: warn
"""

INDEX = """\
# Portada

Ver [la otra](otra.md#seccion) y [aquí](#uso).

## Uso {#uso}

```python
--8<-- "ejemplo.py"
```
"""

OTHER = "# Otra\n\n## Sección {#seccion}\n\nTexto.\n"


@contextmanager
def mkdocs_log() -> Iterator[list[str]]:
    """The messages MkDocs' logger emits meanwhile (what --strict counts)."""
    messages: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)


def _age(root: Path) -> None:
    """Date every file a while back: a rendering that read a file modified in the last
    RECENT_SECONDS is not cached (it may have changed while being read)."""
    past = time.time() - 60
    for path in root.rglob("*"):
        os.utime(path, (past, past))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "snippets").mkdir()
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "docs" / "index.md").write_text(INDEX)
    (root / "docs" / "otra.md").write_text(OTHER)
    (root / "snippets" / "ejemplo.py").write_text("x = 1  # primera versión\n")
    _age(root)
    return root


def _render(root: Path, folder: Path | None) -> tuple[RenderCache, dict[str, object]]:
    """Render every page of ``root`` as MkDocs' build does, through a RenderCache."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.pages import Page

    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
    files = get_files(config)
    cache = RenderCache(folder, config)
    pages = {}
    for file in files.documentation_pages():
        page = Page(None, file, config)
        config._current_page = page
        page.read_source(config)
        cache.install(page)
        page.render(config, files)
        config._current_page = None
        pages[file.src_uri] = page
    for page in pages.values():  # as the build does once every page is rendered
        page.validate_anchor_links(files=files, log_level=config.validation.links.anchors)
    return cache, {uri: _summary(page) for uri, page in pages.items()}


def _toc(items) -> list:
    return [[i.title, i.id, i.level, getattr(i, "active", None), _toc(i.children)]
            for i in items]


def _summary(page) -> tuple:
    links = page.links_to_anchors
    return (page.content, _toc(page.toc), page._title_from_render,
            sorted(page.present_anchor_ids),
            None if links is None else {f.src_uri: dict(a) for f, a in links.items()})


def test_a_hit_restores_exactly_what_a_rendering_sets(tmp_path, project):
    _, plain = _render(project, None)
    first, cold = _render(project, tmp_path / "pages")
    second, warm = _render(project, tmp_path / "pages")
    assert (first.hits, first.misses) == (0, 2)
    assert (second.hits, second.misses) == (2, 0)
    assert cold == plain and warm == plain
    assert "primera versión" in warm["index.md"][0]
    links = warm["index.md"][4]
    assert links["otra.md"] == {"seccion": "otra.md#seccion"} and "uso" in links["index.md"]


def test_an_edited_snippet_is_a_miss_and_shows(tmp_path, project):
    _render(project, tmp_path / "pages")
    (project / "snippets" / "ejemplo.py").write_text("x = 2  # segunda versión\n")
    _age(project)
    cache, pages = _render(project, tmp_path / "pages")
    assert (cache.hits, cache.misses) == (1, 1)  # only the page that includes it
    assert "segunda versión" in pages["index.md"][0]
    assert pages == _render(project, None)[1]


def test_a_snippet_read_as_it_changes_is_not_cached(tmp_path, project):
    (project / "snippets" / "ejemplo.py").write_text("x = 3\n")  # modified just now
    _render(project, tmp_path / "pages")
    cache, _ = _render(project, tmp_path / "pages")
    assert (cache.hits, cache.misses) == (1, 1)


def test_a_new_file_under_the_snippets_folder_is_a_miss(tmp_path, project):
    _render(project, tmp_path / "pages")
    (project / "snippets" / "nuevo.py").write_text("y = 0\n")
    _age(project)
    cache, _ = _render(project, tmp_path / "pages")
    assert cache.misses == 2


def test_a_page_that_warns_is_never_cached_and_warns_every_time(tmp_path, project):
    (project / "docs" / "otra.md").write_text(OTHER + "\nVer [nada](falta.md).\n")
    _age(project)
    for hits in (0, 1):  # index.md is a hit the second time, otra.md renders again
        with mkdocs_log() as messages:
            cache, _ = _render(project, tmp_path / "pages")
        assert any("falta.md" in m for m in messages)
        assert (cache.hits, cache.misses) == (hits, 2 - hits)


def test_a_link_target_that_disappears_is_a_miss_and_warns(tmp_path, project):
    _render(project, tmp_path / "pages")
    (project / "docs" / "otra.md").unlink()
    with mkdocs_log() as messages:
        cache, pages = _render(project, tmp_path / "pages")
    assert cache.misses == 1 and any("otra.md#seccion" in m for m in messages)
    assert pages == _render(project, None)[1]


def test_a_link_to_a_missing_anchor_warns_on_every_build(tmp_path, project):
    """Anchors are checked after rendering, from what a hit restores."""
    (project / "docs" / "index.md").write_text(INDEX.replace("#seccion", "#ninguna"))
    _age(project)
    for hits in (0, 2):
        with mkdocs_log() as messages:
            cache, _ = _render(project, tmp_path / "pages")
        assert cache.hits == hits
        assert any("does not contain an anchor '#ninguna'" in m for m in messages), messages


def test_a_quieter_build_shares_no_entry_with_a_louder_one(tmp_path, project):
    """Under `mkdocs build -q` a broken link logs nothing: that rendering must not be
    served to a build whose --strict would count the warning."""
    (project / "docs" / "otra.md").write_text(OTHER + "\nVer [nada](falta.md).\n")
    _age(project)
    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with mkdocs_log() as messages:
            _render(project, tmp_path / "pages")
        assert messages == []
    finally:
        logger.setLevel(level)
    with mkdocs_log() as messages:
        cache, _ = _render(project, tmp_path / "pages")
    assert any("falta.md" in m for m in messages) and cache.hits == 0


def test_an_extension_it_does_not_know_turns_it_off(tmp_path, project):
    text = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(text.replace("  - attr_list\n", "  - pymdownx.b64\n"))
    _render(project, tmp_path / "pages")
    assert not (tmp_path / "pages").exists()


def test_this_module_and_the_package_versions_are_in_the_key(project, monkeypatch):
    from mkdocs.config import load_config

    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / "site"))
    first = render_cache.context_digest(config, None)
    monkeypatch.setattr(render_cache.metadata, "version",
                        lambda name: "0.0.0-other" if name == "pymdown-extensions" else "1")
    assert first is not None and render_cache.context_digest(config, None) != first


# Search entries ------------------------------------------------------------------------


def _index():
    from material.plugins.search.plugin import SearchIndex

    return SearchIndex(lang=["es"], separator=r"[\s\-]+", pipeline=["trimmer"],
                       fields={"title": {"boost": 1000.0}, "text": {"boost": 1.0}})


def _page(content: str):
    from mkdocs.structure.toc import get_toc

    toc = get_toc([{"level": 2, "id": "uso", "name": "Uso", "children": []}])
    return SimpleNamespace(content=content, url="portada/", title="Portada", toc=toc,
                           meta={})


PAGE_HTML = '<h1 id="portada">Portada</h1><p>Hola.</p><h2 id="uso">Uso</h2><p>{}</p>'


def test_search_entries_are_cached_and_follow_the_content(tmp_path):
    plain = _index()
    plain.add_entry_from_context(_page(PAGE_HTML.format("Primera")))
    for expected_hits in (0, 1):
        index, cache = _index(), SearchCache(tmp_path / "search")
        cache.install(index)
        index.add_entry_from_context(_page(PAGE_HTML.format("Primera")))
        assert index.entries == plain.entries and cache.hits == expected_hits
    index, cache = _index(), SearchCache(tmp_path / "search")
    cache.install(index)
    index.add_entry_from_context(_page(PAGE_HTML.format("Segunda")))
    assert cache.misses == 1 and "Segunda" in json.dumps(index.entries)


def test_search_entries_are_not_cached_when_jieba_segments_them(tmp_path, monkeypatch):
    import material.plugins.search.plugin as material_search

    monkeypatch.setattr(material_search, "jieba", object())
    assert search_cache.search_fingerprint(_index()) is None
    index = _index()
    SearchCache(tmp_path / "search").install(index)
    index.add_entry_from_context(_page(PAGE_HTML.format("x")))
    assert index.entries and not (tmp_path / "search").exists()


# Notebooks converted ahead -------------------------------------------------------------

PREFETCH = """
import json, sys
from pathlib import Path
from harness.integrations.notebook_cache import (
    Conversion, NotebookCache, convert, prefetch, render_fingerprint)
options = json.loads(sys.argv[3])
source, folder = Path(sys.argv[1]), Path(sys.argv[2])
cache = NotebookCache(folder, render_fingerprint(theme="material", language="es"))
conversion = Conversion.of(options, str(source))
running = prefetch([(cache, source, conversion)])
assert running is not None and "nbconvert" not in sys.modules
assert running.wait_for(cache._path(cache.key(source, conversion)))
entry = cache.load(cache.key(source, conversion))
fresh = convert(source, conversion)
assert {k: entry[k] for k in fresh} == fresh, "prefetched entry differs"
assert cache.converted(source, conversion) == entry and cache.hits == 1
running.stop()
print("ok")
"""


def test_a_prefetched_conversion_is_the_conversion(tmp_path):
    """In a fresh process (a fork is only safe without threads, unlike a pytest worker)."""
    notebook = tmp_path / "cuaderno.ipynb"
    shutil.copy2(NOTEBOOK, notebook)
    done = subprocess.run(
        [sys.executable, "-c", PREFETCH, str(notebook), str(tmp_path / "cache"),
         json.dumps(NOTEBOOK_OPTIONS)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


# The whole site ------------------------------------------------------------------------

BUILD = """
import runpy, sys
sys.argv = ["mkdocs", "build", "-q", "-d", sys.argv[1]]
try:
    runpy.run_module("mkdocs", run_name="__main__")
finally:
    # jupytext itself stays in sys.modules as a stand-in until first used.
    print("IMPORTED:", *[m for m in ("nbconvert", "jupytext.formats") if m in sys.modules])
"""


def test_a_snippet_edit_reaches_the_page_through_every_cache(tmp_path):
    """Two builds of a copy with the run's shared cache (HARNESS_CACHE, tests/conftest.py:
    the copy's unchanged pages and notebooks are hits); between them a snippet changes
    (not strict: its records are then stale). The second build imports no notebook
    tooling."""
    root = copy_project(tmp_path / "copy", ("docs", "snippets", "results", "overrides",
                                            "mkdocs.yml"))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

    def build(site: str) -> str:
        done = subprocess.run([sys.executable, "-c", BUILD, str(tmp_path / site)], cwd=root,
                              env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    build("first")
    snippet = root / "snippets" / "que-es-pytorch" / "derivada_cuadrado.py"
    snippet.write_text(snippet.read_text() + "# una línea nueva del fragmento\n")
    _age(root / "snippets")
    second = build("second")
    assert second.strip().endswith("IMPORTED:"), second
    for language in ("", "en/"):
        page = (tmp_path / "second" / language / "que-es-pytorch" / "index.html").read_text()
        assert "una línea nueva del fragmento" in page
