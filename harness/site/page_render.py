"""An article's Markdown with its markers rendered: each ``<!-- harness:... -->``
replaced by what its kind renders (:mod:`harness.views.markers`), followed by the
re-record hint when it showed a stale record, and indented like the marker when the
marker sits inside an admonition. No MkDocs objects: the plugin adapts it."""

from __future__ import annotations

from pathlib import Path

from harness.site.page_checks import rerecord_hint
from harness.sources.pages import find_markers
from harness.sources.project import resolve_includes
from harness.text.markdown import recorded
from harness.views.markers import PageContext, Site, render_marker

__all__ = ["render_page"]


def render_page(site: Site, markdown: str, shown: Path, lang: str) -> tuple[str, list[str]]:
    """``markdown`` (the page at ``shown``, a path for messages) with its markers
    rendered, and the stale-record warnings to log about it. What a marker renders is
    marked as recorded (:func:`recorded`) but a claim's sentence, whose values only are.
    A problem a contributor must fix raises HarnessError naming the page line."""
    warnings: list[str] = []
    resolved = resolve_includes(site.project, markdown, shown)
    page = PageContext(lang=lang, slug=shown.name.split(".")[0],
                       included={include.snippet_id for include, _ in resolved})
    pieces: list[str] = []
    position = 0
    for marker in find_markers(markdown, shown):
        rendered = render_marker(marker, site, page)
        warnings += rendered.stale
        text = rendered.markdown + rerecord_hint(rendered.stale, lang)
        indent = markdown[markdown.rfind("\n", 0, marker.start) + 1: marker.start]
        end = markdown.find("\n", marker.end)
        alone = not indent.strip() and not markdown[marker.end:end if end >= 0 else None].strip()
        if marker.kind != "claim":
            text = recorded(text, block=alone)
        # A marker indented into an admonition: what it renders takes its indentation.
        if indent and not indent.strip():
            text = text.replace("\n", "\n" + indent).rstrip(" ")
        pieces += [markdown[position : marker.start], text]
        position = marker.end
    pieces.append(markdown[position:])
    return "".join(pieces), warnings
