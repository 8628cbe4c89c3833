from pathlib import Path

from harness.integrations.pytest_pages import make_sybil

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
