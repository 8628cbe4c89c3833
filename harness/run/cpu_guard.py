"""Noticing other work on the CPUs while a trial runs. Standard library only.

On a small shared machine (this project's VMs have 2 cores) another process
running beside a trial slows it by a share no IQR reveals: the trial is steady,
just steadily slower. :class:`QuietGuard` reads ``/proc/stat`` (every CPU's busy
time) and ``/proc/self/stat`` (this process's own CPU time) and reports how many
cores *other* processes kept busy, so the record command can wait for a quiet
machine before a trial and measure it again when it was shared. Where ``/proc``
is missing (macOS) it reports nothing and never waits.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Mark", "QuietGuard"]

_STAT = Path("/proc/stat")
_SELF = Path("/proc/self/stat")


def _snapshot() -> tuple[int, int, int] | None:  # a Mark
    """(all CPUs' jiffies, their busy jiffies, this process's jiffies) or None."""
    try:
        cpu = [int(x) for x in _STAT.read_text().splitlines()[0].split()[1:]]
        # Fields after the ")" that ends the command name: utime stime cutime cstime
        # are the 12th to 15th of them.
        own = [int(x) for x in _SELF.read_text().rsplit(")", 1)[1].split()[11:15]]
    except (OSError, ValueError, IndexError):
        return None
    total = sum(cpu[:8])  # user nice system idle iowait irq softirq steal
    return total, total - cpu[3] - cpu[4], sum(own)


Mark = tuple[int, int, int]


@dataclass(frozen=True, kw_only=True)
class QuietGuard:
    """How many cores other processes used since a :meth:`mark`."""

    limit: float = 0.2
    """Average cores others may use during a trial before it counts as shared."""
    patience: float = 120.0
    """Most seconds :meth:`wait` waits for quiet before going ahead anyway."""

    def mark(self) -> Mark | None:
        return _snapshot()

    def others(self, since: Mark | None, end: Mark | None = None) -> float:
        """Average number of cores other processes kept busy between ``since`` and ``end``
        (now, by default)."""
        end = end if end is not None else _snapshot()
        if since is None or end is None or end[0] == since[0]:
            return 0.0
        total, busy, own = (b - a for a, b in zip(since, end, strict=True))
        cores = os.cpu_count() or 1
        return max(0.0, (busy - own) / (total / cores))

    def wait(self, *, window: float = 1.0) -> bool:
        """Wait until others stayed under the limit for ``window`` s; False if they never did."""
        deadline = time.monotonic() + self.patience
        while time.monotonic() < deadline:
            since = self.mark()
            time.sleep(window)
            if self.others(since) <= self.limit:
                return True
        return False
