"""Shared fixtures: a copy of the tiny sample project that tests may break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SAMPLES = Path(__file__).parent / "samples"
ROOT = Path(__file__).parent.parent


@pytest.fixture
def mini(pytester: pytest.Pytester) -> Path:
    """tests/samples/mini copied into pytester's directory (its own rootdir).

    Run it with ``pytester.runpytest_subprocess``: an in-process run drops the
    modules it imported, and importing torch's C extension twice in one process
    crashes it.
    """

    shutil.copytree(SAMPLES / "mini", pytester.path, dirs_exist_ok=True)
    (pytester.path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return pytester.path
