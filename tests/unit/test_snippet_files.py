"""Snippet files the harness reads as a contributor's editor or checkout leaves them:
CRLF line ends are the same snippet, a byte that is not UTF-8 names its line, and a link
out of snippets/ is refused (else a page would publish whatever it points at)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.core.errors import HarnessError
from harness.sources.snippets import find_snippets


def _snippets(tmp_path: Path, name: str, data: bytes) -> Path:
    folder = tmp_path / "snippets" / "pagina"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return tmp_path / "snippets"


def test_crlf_line_ends_are_the_same_snippet(tmp_path: Path) -> None:
    lf = find_snippets(_snippets(tmp_path / "lf", "a.py", b"x = 1\ny = 2\n"))
    crlf = find_snippets(_snippets(tmp_path / "crlf", "a.py", b"x = 1\r\ny = 2\r\n"))
    other = find_snippets(_snippets(tmp_path / "other", "a.py", b"x = 1\ny = 3\n"))
    assert lf["pagina/a"].sha256 == crlf["pagina/a"].sha256 != other["pagina/a"].sha256


def test_a_byte_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    folder = _snippets(tmp_path, "a.py", b"x = 1\n# a\xf1o\n")
    with pytest.raises(HarnessError, match=r"a\.py:2: byte 0xf1 is not UTF-8"):
        find_snippets(folder)


def test_a_link_out_of_snippets_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("token = 'x'\n")
    folder = _snippets(tmp_path, "a.py", b"x = 1\n")
    os.symlink(outside, folder / "pagina" / "leak.py")
    with pytest.raises(HarnessError, match=r"leak\.py:1: snippet 'pagina/leak' is a link to "
                                           r".*secret\.py, outside snippets/"):
        find_snippets(folder)
