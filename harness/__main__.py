"""``python -m harness``: the command line (:mod:`harness.commands.cli`)."""

import sys

from harness.commands.cli import main

sys.exit(main())
