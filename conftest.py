"""Collects every Spanish page's examples through Sybil, and says in pytest's summary
when their page processes could not close the network (harness/testing/page_examples.py).

It lives at the repository root because a conftest under tests/ cannot collect docs/.
"""

from pathlib import Path

from harness.testing.page_examples import make_sybil, pytest_terminal_summary

__all__ = ["pytest_collect_file", "pytest_terminal_summary"]

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
