"""What the plugin adds to, or checks in, an article's Markdown besides its markers:
the re-record hint after a stale marker, measured-looking figures typed by hand, and
the Colab address of the docs folder. Plain functions of text, tested on their own."""

from __future__ import annotations

import re
from pathlib import Path

from harness.text.words import LANGS, word

__all__ = ["colab_base", "rerecord_hint", "typed_figures"]

_FENCE = re.compile(r"^(\s*)(```+|~~~+).*?^\1\2\s*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FIGURE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s?(?:ns|µs|us|ms|s|GFLOP/s|TFLOP/s|GB/s|TB/s|KiB|MiB|GiB|MB|GB)\b"
    r"|\b\d+(?:[.,]\d+)?\s?(?:×|x)\s(?:más\s)?(?:rápid|lent|faster|slower)"
)
_COMMAND = re.compile(r"`(python -m harness record[^`]*)`")
_GITHUB = re.compile(r"^https://github\.com/(?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_BRANCH = re.compile(r"^(?:edit|blob|tree)/(?P<branch>[^/]+)/")


def rerecord_hint(stale: list[str], lang: str) -> str:
    """The commands that refresh what a marker showed stale, as a paragraph after it.

    A strict build fails on stale records, so only the preview (``mkdocs serve``,
    not strict) ever shows it: there a snippet edit re-renders its page at once.
    """
    commands = list(dict.fromkeys(m.group(1) for text in stale for m in _COMMAND.finditer(text)))
    if not commands:
        return ""
    shown = " · ".join(f"`{command}`" for command in commands)
    label = word(lang if lang in LANGS else "en", "rerecord")
    return f'\n<p class="harness-rerecord" markdown>{label}: {shown}</p>\n'


def colab_base(repo_url: str | None, edit_uri: str | None, docs_dir: str) -> str:
    """Colab's address of the repository's docs folder (``…/github/<owner>/<repo>/blob/
    <branch>/docs``), or "" when the repository is not on GitHub. The branch is the
    one ``edit_uri`` names (``edit/main/docs/``), else ``main``."""
    match = _GITHUB.match(repo_url or "")
    if match is None:
        return ""
    branch = _BRANCH.match(edit_uri or "")
    return (f"https://colab.research.google.com/github/{match['repo']}/blob/"
            f"{branch['branch'] if branch else 'main'}/{Path(docs_dir).name}")


def _blank(match: re.Match[str]) -> str:
    """The match as spaces, its newlines kept: line numbers stay those of the file."""
    return re.sub(r"[^\n]", " ", match.group(0))


def typed_figures(text: str, path: Path) -> list[str]:
    """Measured-looking numbers in prose (code, comments and markers excluded)."""
    prose = _INLINE_CODE.sub(_blank, _COMMENT.sub(_blank, _FENCE.sub(_blank, text)))
    return [
        f"{path}:{prose.count(chr(10), 0, m.start()) + 1}: measured-looking figure "
        f"{m.group(0)!r} typed into the page; measured numbers come from a harness marker"
        for m in _FIGURE.finditer(prose)
    ]
