"""The MkDocs plugin ``harness``: turns ``<!-- harness:... -->`` markers into
tables and plots read from ``results/``. It never imports torch: the docs build
reads records, it does not run examples.

Errors a contributor must fix (unknown marker, argument or id; malformed
record) raise ``PluginError`` naming file and line. A stale record or a figure
typed by hand is a warning, shown on the page, that fails ``--strict``.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.utils.meta import get_data

from harness.core.errors import HarnessError, Location, suggest
from harness.core.types import TrialSpec
from harness.records.store import Records, load_all
from harness.sources.notebooks import NOTEBOOK_DIR, notebook_path
from harness.sources.pages import Marker, check_marker, find_includes, find_markers
from harness.sources.project import Project
from harness.sources.snippets import snippet_for_id
from harness.sources.trials import load_trials, workload_sources
from harness.views.measured import MEASURED_MARKERS, check_rows, render_measured
from harness.views.observed import render_observed

__all__ = ["HarnessConfig", "HarnessPlugin", "typed_figures"]

log = logging.getLogger("mkdocs.plugins.harness")

MARKERS: dict[str, frozenset[str]] = {
    "observed": frozenset({"snippet"}),
    "notebook": frozenset(),
    **MEASURED_MARKERS,
}
_NOTEBOOK_LINKS = {
    "es": "[:material-notebook: Abrir el cuaderno]({page}){{ .md-button }} "
          '<a class="md-button" href="../{folder}/{stem}/{name}" download>Descargar .ipynb</a>',
    "en": "[:material-notebook: Open the notebook]({page}){{ .md-button }} "
          '<a class="md-button" href="../{folder}/{stem}/{name}" download>Download .ipynb</a>',
}

_FENCE = re.compile(r"^(\s*)(```+|~~~+).*?^\1\2\s*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FIGURE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s?(?:ns|µs|us|ms|s|GFLOP/s|TFLOP/s|GB/s|TB/s|KiB|MiB|GiB|MB|GB)\b"
    r"|\b\d+(?:[.,]\d+)?\s?(?:×|x)\s(?:más\s)?(?:rápid|lent|faster|slower)"
)


class HarnessConfig(base.Config):
    results = c.Type(str, default="results")
    """Folder of the records, relative to mkdocs.yml."""
    check_typed_figures = c.Type(bool, default=True)
    """Warn about measured-looking figures typed into a page instead of a marker."""


def typed_figures(text: str, path: Path) -> list[str]:
    """Measured-looking numbers in prose (code, comments and markers excluded)."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731  keep line numbers
    prose = _INLINE_CODE.sub(blank, _COMMENT.sub(blank, _FENCE.sub(blank, text)))
    return [
        f"{path}:{prose.count(chr(10), 0, m.start()) + 1}: measured-looking figure "
        f"{m.group(0)!r} typed into the page; measured numbers come from a harness marker"
        for m in _FIGURE.finditer(prose)
    ]


class HarnessPlugin(BasePlugin[HarnessConfig]):
    def on_config(self, config: Any) -> Any:
        self.root = Path(config.config_file_path).resolve().parent
        try:
            self.project = Project.load(self.root)
            self.records: Records = load_all(self.root / self.config.results, root=self.root)
            self.specs: dict[str, TrialSpec] = load_trials()
            self.sources = workload_sources()  # once per build, not once per marker
            self._check_records()
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        return config

    def _check_records(self) -> None:
        for record in self.records.items:
            for (snippet, _name), where in record.observation_lines.items():
                if snippet not in self.project.snippets:
                    raise HarnessError(
                        f"{where}: record names unknown snippet {snippet!r}."
                        f"{suggest(snippet, set(self.project.snippets))}"
                    )
        check_rows(self.records, self.specs)

    @event_priority(-110)
    def on_files(self, files: Any, config: Any) -> Any:
        """Give notebooks back their page wrapper after mkdocs-static-i18n.

        static-i18n (on_files at priority -100) re-creates every File, dropping
        mkdocs-jupyter's NotebookFile, so notebooks were copied as raw JSON
        (ultrabug/mkdocs-static-i18n#198). Re-wrapping in place keeps i18n's own
        Files collection and the per-language destination it computed;
        tests/integration/test_site_build.py checks both languages render.
        """
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None:
            return files
        from mkdocs_jupyter.plugin import NotebookFile

        for file in list(files):
            if isinstance(file, NotebookFile) or not jupyter.should_include(file):
                continue
            wrapped = NotebookFile(file, **config)
            wrapped.dest_path, wrapped.abs_dest_path = file.dest_path, file.abs_dest_path
            wrapped.url = file.url
            files.remove(file)
            files.append(wrapped)
        return files

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:
        source = Path(page.file.abs_src_path).resolve()
        shown = source.relative_to(self.root) if source.is_relative_to(self.root) else source
        lang = config.theme.get("language", "es")
        # MkDocs hands over the page without its front matter; pad it back with empty
        # lines so every line reported below is the line in the file.
        # (static-i18n rewrites admonition lines but never adds or removes one.)
        raw = source.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        offset = raw[: len(raw) - len(body)].count("\n")
        padded = "\n" * offset + markdown
        return self._page(padded, shown, lang)[offset:]

    def _page(self, markdown: str, shown: Path, lang: str) -> str:
        try:
            included = set()
            for include in find_includes(markdown, shown):
                snippet_for_id(self.project.snippets, include.snippet_id, str(include.location))
                included.add(include.snippet_id)
            markers = find_markers(markdown, shown)
            pieces: list[str] = []
            position = 0
            for marker in markers:
                pieces += [markdown[position : marker.start], self._render(marker, included, lang)]
                position = marker.end
            pieces.append(markdown[position:])
        except HarnessError as exc:
            raise PluginError(str(exc)) from None
        if self.config.check_typed_figures:
            for message in typed_figures(markdown, shown):
                log.warning(message)
        return "".join(pieces)

    def _render(self, marker: Marker, included: set[str], lang: str) -> str:
        where = marker.location
        check_marker(marker.kind, marker.args, MARKERS, where)
        if marker.kind == "notebook":
            markdown, stale = self._notebook(where, lang), []
        elif marker.kind != "observed":
            markdown, stale = render_measured(
                marker.kind, marker.args, records=self.records, specs=self.specs,
                lang=lang, where=str(where), sources=self.sources,
            )
            # A class for the stylesheet (compact type) and for readers' tools to find.
            markdown = f'<div class="harness-measured" markdown>\n\n{markdown}\n\n</div>\n'
        else:
            markdown, stale = self._observed(marker, included, lang, where)
        for message in stale:
            log.warning(message)
        return markdown

    def _notebook(self, where: Location, lang: str) -> str:
        notebook = notebook_path(self.root / where.path)
        if not notebook.exists():
            raise HarnessError(
                f"{where}: no notebook {self.project.shown(notebook)}; "
                "run `python -m harness notebooks --write`"
            )
        stem = notebook.name.split(".")[0]
        return _NOTEBOOK_LINKS[lang].format(
            page=f"{NOTEBOOK_DIR}/{notebook.name}", folder=NOTEBOOK_DIR, stem=stem,
            name=notebook.name,
        )

    def _observed(
        self, marker: Marker, included: set[str], lang: str, where: Location
    ) -> tuple[str, list[str]]:
        snippet_id = marker.args.get("snippet", "")
        if snippet_id not in included:
            raise HarnessError(
                f"{where}: harness:observed names {snippet_id!r}, which this page does not "
                f"include.{suggest(snippet_id, included)}"
            )
        expectations = self.project.expectations.get(snippet_id, [])
        if not expectations:
            raise HarnessError(
                f"{where}: snippet {snippet_id!r} has no [[expect]] in "
                f"snippets/{snippet_id.split('/')[0]}/expectations.toml to compare with."
            )
        block = render_observed(
            snippet=self.project.snippets[snippet_id],
            expectations=expectations,
            records=self.records.items,
            lang=lang,
        )
        return block.markdown, block.stale
