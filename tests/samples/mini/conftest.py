from pathlib import Path

from harness.testing.page_examples import make_sybil, pytest_terminal_summary

__all__ = ["pytest_collect_file", "pytest_terminal_summary"]

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
