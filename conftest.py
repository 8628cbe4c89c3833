"""Collects every Spanish page's examples through Sybil (see harness/testing/page_examples.py).

It lives at the repository root because a conftest under tests/ cannot collect docs/.
"""

from pathlib import Path

from harness.testing.page_examples import make_sybil

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
