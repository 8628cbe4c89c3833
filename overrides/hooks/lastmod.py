"""The sitemap's ``<lastmod>``: the date of each page's last commit, from git.

MkDocs gives every page the build's date (``page.update_date``), which tells a search
engine that every page changed on every deploy. This hook adds one Jinja filter,
``git_lastmod``, that overrides/sitemap.xml applies to a page's source file:
``git log -1 --format=%cI -- <file>``. Where git cannot say — no git, a file never
committed, or a shallow clone, whose one commit would date every page alike — it gives
"" and the sitemap leaves ``<lastmod>`` out (it is optional) rather than state a wrong
date. The pages workflow checks out the whole history for it (``fetch-depth: 0``).
Listed under ``hooks:`` in mkdocs.yml; MkDocs does not copy ``.py`` files of the theme
folder into the site.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

__all__ = ["git_lastmod", "on_env"]


def _git(folder: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def git_lastmod(path: str | None) -> str:
    """The committer date (ISO 8601) of the last commit that touched ``path``, or ""."""
    if not path:
        return ""
    folder = Path(path).parent
    if _git(folder, "rev-parse", "--is-shallow-repository") != "false":
        return ""
    return _git(folder, "log", "-1", "--format=%cI", "--", Path(path).name)


def on_env(env: Any, config: Any, files: Any) -> Any:
    env.filters["git_lastmod"] = git_lastmod
    return env
