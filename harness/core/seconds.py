"""Seconds a person types (an option, an environment variable), read strictly.

``float()`` accepts ``nan``, ``inf`` and ``1e400``: a hang guard given ``nan`` never
fires, and ``inf`` overflows a clock. One reader, so every place that takes a number
of seconds refuses the same things with the same words. Standard library only.
"""

from __future__ import annotations

from harness.core.errors import HarnessError

__all__ = ["MAX_SECONDS", "parse_seconds"]

#: The most seconds any setting takes: a day. More would leave a hang unguarded.
MAX_SECONDS = 86_400.0


def parse_seconds(raw: str, *, what: str) -> float:
    """``raw`` as seconds, greater than 0 and at most :data:`MAX_SECONDS`; ``what`` names
    where it came from in the error (``HARNESS_EXAMPLE_TIMEOUT='abc'``)."""
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:  # also false for nan
        raise HarnessError(f"{what}: expected a number of seconds greater than 0 and at most "
                           f"{MAX_SECONDS:g}")
    return value
