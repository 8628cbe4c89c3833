"""The typed configuration of the ``harness`` MkDocs plugin (its behaviour is in
:mod:`harness.site.plugin`), as mkdocs-material's plugins keep theirs."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c

__all__ = ["HarnessConfig"]


class HarnessConfig(base.Config):  # type: ignore[no-untyped-call]  # mkdocs untyped
    results = c.Type(str, default="results")
    """Folder of the records, relative to mkdocs.yml."""
    trials = c.Type(str, default="trials/trials.toml")
    """The site's measured trials (content, not code), relative to mkdocs.yml."""
    workloads = c.Type(str, default="trials/workloads.py")
    """The trials' workload functions, relative to mkdocs.yml."""
