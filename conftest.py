"""Collects every Spanish page's examples through Sybil (see harness/pytest_pages.py).

It lives at the repository root because a conftest under tests/ cannot collect docs/.
"""

from pathlib import Path

from harness.integrations.pytest_pages import make_sybil

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
