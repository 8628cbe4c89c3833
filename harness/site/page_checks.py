"""What the plugin adds to, or checks in, an article besides its markers: the re-record
hint, measured-looking figures typed by hand, the Colab address of the docs folder.
Plain functions of text."""

from __future__ import annotations

import html
import re
from pathlib import Path

from harness.text.markdown import RECORDED
from harness.text.words import LANGS, word

__all__ = ["colab_base", "figure_line", "rerecord_hint", "typed_figures"]

#: A measured-looking figure in a page's text: a number with a unit of time, rate or
#: size, or a ratio («15×», «15 veces», «93 %»). Not a number that follows a point, a
#: comma or a letter (a version's parts, ``:.1%`` in code), nor a × between two numbers
#: (a shape such as 1024×1024).
_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)*"
_FIGURE = re.compile(
    rf"(?P<number>{_NUMBER})\s*(?:"
    r"(?:[GT]FLOP/s|[KMGT]B/s|[KMGT]iB|[kKMGT]B|ns|µs|μs|us|ms|s)(?![\w/])"
    r"|×(?!\s*\d)|%|x(?=\s+(?:faster|slower)\b)"
    r"|(?<=\s)(?:veces|times)\b)")
#: Percentages that are a definition, not a measurement: the whole, and the levels of a
#: statistical test (a 95 % confidence, a 5 % false alarm rate, a 97.5 % one-sided bound).
_LEVELS = {"100", "99", "97.5", "95", "5"}
_RECORDED = re.compile(rf"<!--{RECORDED}-->.*?<!--/{RECORDED}-->", re.S)
_TAG = re.compile(r"<[^>]*>")
_UNSEEN = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
_COMMAND = re.compile(r"`(python -m harness record[^`]*)`")
_GITHUB = re.compile(r"^https://github\.com/(?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_BRANCH = re.compile(r"^(?:edit|blob|tree)/(?P<branch>[^/]+)/")


def rerecord_hint(stale: list[str], lang: str) -> str:
    """The commands that refresh what a marker showed stale, as a paragraph after it
    (only the preview, not strict, shows it: a strict build fails on stale records)."""
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


def typed_figures(content: str) -> list[str]:
    """Measured-looking figures in a rendered page's HTML ``content`` (its code, inline
    code, claim sentences and admonitions included; not its scripts and stylesheets)
    that no marker brought from a record or trials.toml
    (:func:`harness.text.markdown.recorded`)."""
    text = html.unescape(_TAG.sub(" ", _UNSEEN.sub(" ", _RECORDED.sub(" ", content))))
    return [" ".join(m.group(0).split()) for m in _FIGURE.finditer(text)
            if not (m.group(0).endswith("%") and m["number"].replace(",", ".") in _LEVELS)]


def figure_line(text: str, figure: str) -> int | None:
    """The 1-based line of ``text`` (Markdown or TOML) where ``figure`` was typed: its
    number followed, within a few marks of Markdown, by the rest of it; or None."""
    found = _FIGURE.match(figure)
    number = found.group("number") if found else figure
    rest = re.escape(figure[len(number):].strip())
    pattern = re.compile(rf"(?<![\w.,]){re.escape(number)}[\s`*_<>/\\\w=\"'-]{{0,40}}?{rest}")
    for number_, line in enumerate(text.splitlines(), 1):
        if pattern.search(line):
            return number_
    return None
