"""``python -m harness``: see :mod:`harness.integrations.cli`."""

import sys

from harness.integrations.cli import main

sys.exit(main())
