"""A page's markers checked against the records as the docs build checks them, but
without MkDocs: unknown marker kinds, arguments and ids, claims the records
contradict, stale records and malformed or unpublished record sets. ``check`` runs
it before the page's examples, so that these problems come first and once.

The build's own path is the same (:func:`~harness.views.markers.render_marker` on
every marker, :func:`~harness.records.validate.check_records` on the records); this
module only collects every problem instead of stopping at the first.
"""

from __future__ import annotations

from harness.core.errors import HarnessError
from harness.records.store import load_all
from harness.records.validate import check_records
from harness.sources.pages import find_markers
from harness.sources.project import Project, resolve_includes
from harness.sources.trials import load_trials, workload_sources
from harness.views.markers import PageContext, Site, render_marker

__all__ = ["marker_problems"]


def marker_problems(project: Project, slug: str) -> list[str]:
    """Every problem of ``docs/<slug>.md`` and its twin's markers, each once, in page
    order (the Spanish page first); record problems come before them."""
    results = project.root / "results"
    try:
        records = load_all(results, root=project.root)
        workloads = project.root / "trials" / "workloads.py"
        specs = load_trials(workloads.with_name("trials.toml"), root=project.root,
                            workloads=workloads)
    except HarnessError as exc:
        return [str(exc)]
    found: dict[str, None] = dict.fromkeys(
        check_records(records, project=project, specs=specs, results=results))
    site = Site(project=project, records=records, specs=specs,
                sources=workload_sources(workloads=workloads))
    for name, lang in ((f"{slug}.md", "es"), (f"{slug}.en.md", "en")):
        path = project.root / "docs" / name
        if not path.is_file():
            continue  # the sources step names a missing twin
        text, shown = path.read_text(encoding="utf-8"), project.shown(path)
        try:
            included = {include.snippet_id for include, _ in resolve_includes(project, text, shown)}
        except HarnessError as exc:
            found.setdefault(str(exc))
            continue
        page = PageContext(lang=lang, slug=slug, included=included)
        for marker in find_markers(text, shown):
            try:
                rendered = render_marker(marker, site, page)
            except HarnessError as exc:
                found.setdefault(str(exc))
                continue
            for message in rendered.stale:
                found.setdefault(message)
    return list(found)
