"""The one home of the test suite's shared paths, project-copy and fault helpers.

Importable as ``support`` from any test (pyproject sets ``pythonpath = ["tests"]``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

__all__ = ["BACKSTOP_S", "CHROMIUM_ARGS", "COPIED", "HARNESS", "NOTEBOOK", "NOTEBOOK_OPTIONS", "ROOT",
           "SAMPLES", "SERVED", "SITE_HOME", "copy_project", "free_port", "inject", "record_files",
           "run", "serving", "site_path", "without_torch"]

ROOT = Path(__file__).resolve().parents[1]
"""The checkout under test."""
SAMPLES = ROOT / "tests" / "samples"
HARNESS = ROOT / "harness"
#: A committed notebook, and mkdocs-jupyter's options as the site sets them, for the
#: notebook-conversion tests.
NOTEBOOK = ROOT / "docs" / "cuadernos" / "que-es-pytorch.ipynb"
NOTEBOOK_OPTIONS = {
    "execute": False, "execute_ignore": [], "kernel_name": "", "theme": "",
    "allow_errors": False, "show_input": True, "no_input": False, "no_prompt": False,
    "remove_tag_config": {}, "highlight_extra_classes": "", "include_requirejs": False,
    "custom_mathjax_url": "", "toc_depth": 6, "ignore_h1_titles": True,
}
#: What a copy of the project needs to build and to run its page examples.
COPIED = ("docs", "snippets", "trials", "results", "overrides", "mkdocs.yml", "conftest.py")
#: What a copy of the project needs to be served (`mkdocs serve` runs its harness plugin).
SERVED = ("docs", "snippets", "trials", "results", "overrides", "harness", "mkdocs.yml")
#: Debian's Chromium, headless, as the browser tests and the serve benchmark drive it.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


#: Where the shared test build says the site and its repository live (mkdocs.yml reads
#: them from the environment; the Pages workflow sets them from the real repository):
#: a sample home, so the tests see the repository widget, edit and Colab links.
SITE_HOME = {"SITE_URL": "https://que-es-pytorch.github.io/que-es-pytorch/",
             "REPO_URL": "https://github.com/que-es-pytorch/que-es-pytorch",
             "REPO_NAME": "que-es-pytorch/que-es-pytorch", "EDIT_URI": "edit/main/docs/"}


def copy_project(target: Path, names: tuple[str, ...] = COPIED) -> Path:
    """Copy ``names`` of the checkout into ``target`` (created), for a test to break."""
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    return target


def inject(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (which must occur) by ``new`` in a copy's file, for a fault test;
    return the 1-based line of the change. A target that is not there fails the test
    (no silent passes)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fault target vanished from {path}: {old!r}"
    position = text.index(old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text.count("\n", 0, position) + 1


def record_files(root: Path, suffix: str) -> list[Path]:
    """The committed CPU record files ending in ``suffix`` of the project at ``root``."""
    found = sorted((root / "results").glob(f"*/cpu{suffix}"))
    assert found, f"the project has no committed cpu{suffix} record to break"
    return found


def site_path(config: Path = ROOT / "mkdocs.yml") -> str:
    """The path part of ``config``'s ``site_url`` in the shared test build, with a trailing
    slash ("/" without one); ``!ENV [NAME, "default"]`` reads NAME as that build gets it
    (:data:`SITE_HOME` over the environment), else the default."""
    text = config.read_text()
    found = re.search(r"^site_url:\s*(\S+)", text, re.M)
    from_env = re.search(r'^site_url:\s*!ENV\s*\[\s*(\w+)\s*,\s*"([^"]*)"\s*\]', text, re.M)
    url = ({**os.environ, **SITE_HOME}.get(from_env[1], from_env[2]) if from_env
           else found.group(1) if found else "/")
    path = urlsplit(url).path
    return path if path.endswith("/") else path + "/"


#: How long a test's subprocess or server may take before it is reported as hung: a
#: backstop only a hang reaches, never a time limit a slow or busy machine can hit. Under
#: pytest-timeout's 1800 s (pyproject), so a hang is named here, command and all.
BACKSTOP_S = 1500


def run(command: list[str], *, backstop: float = BACKSTOP_S,
        **options: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(command, **options)`` under ``backstop`` seconds; past it the test
    fails as a hang, naming the command, not as the change's failure."""
    try:
        return subprocess.run(command, timeout=backstop, **options)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: `{' '.join(map(str, command))}` still ran after {backstop:.0f} s "
                    "(a backstop for a hang, not a time limit)", pytrace=False)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serving(url: str, server: subprocess.Popen, timeout: float = BACKSTOP_S) -> str:
    """Wait until ``url`` answers 200; "" then, or why not (the server exited, or it hung
    past the backstop)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return f"mkdocs serve exited ({server.returncode})"
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return ""
        except OSError:
            time.sleep(0.2)
    return f"hung: mkdocs serve did not answer {url} within {timeout} s (a backstop for a hang)"


def without_torch(folder: Path) -> dict[str, str]:
    """An environment for a subprocess in which ``import torch`` fails (a ``torch``
    module in ``folder``, first on PYTHONPATH): for what must never import torch, such
    as the docs build (CONTRIBUTING, promise 5)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "torch.py").write_text(
        'raise ImportError("torch was imported where it must not be")\n')
    return {**os.environ, "PYTHONPATH": str(folder)}


def reseal(record: Path) -> None:
    """Vouch for the record set that holds ``record`` as it now is, as a person does with
    ``publish add`` after a run: a fault that puts hostile text into a record (markup in
    an error message) must meet the views, not the check that no one vouched for it."""
    from harness.records.provenance import vouch

    vouch(record.parent.parent, record.parent.name, record.name.split(".", 1)[0])
