from pathlib import Path

from harness.testing.page_examples import make_sybil

pytest_collect_file = make_sybil(Path(__file__).parent).pytest()
