"""The typed configuration of the ``harness`` MkDocs plugin (its behaviour is in
:mod:`harness.site.plugin`), as mkdocs-material's plugins keep theirs."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c

__all__ = ["CACHE_VARIABLE", "HarnessConfig"]

CACHE_VARIABLE = "HARNESS_CACHE"
"""The environment variable that overrides ``cache_dir`` ("" turns the caches off)."""


class HarnessConfig(base.Config):  # type: ignore[no-untyped-call]  # mkdocs untyped
    results = c.Type(str, default="results")
    """Folder of the records, relative to mkdocs.yml."""
    trials = c.Type(str, default="trials/trials.toml")
    """The site's measured trials (content, not code), relative to mkdocs.yml."""
    workloads = c.Type(str, default="trials/workloads.py")
    """The trials' workload functions, relative to mkdocs.yml."""
    check_typed_figures = c.Type(bool, default=True)
    """Warn about measured-looking figures typed into a page instead of a marker."""
    cache_dir = c.Type(str, default=".cache/harness")
    """Build caches, relative to mkdocs.yml ("" turns them off): mkdocs-jupyter's
    notebook conversions, one folder per language build, and the theme's compiled
    templates. Each is keyed on content and on the code that fills it, and is safe to
    delete. The environment variable HARNESS_CACHE overrides it (the tests use their
    own)."""
