"""Seals a page process before its first snippet (the child side of the page runner):
its own process group, a reaper of its orphans, and no network. Standard library only.

- **Process group and subreaper.** A process a snippet starts stays in the page's group,
  and one that double-forks to escape is re-parented to the page process instead of to
  init (Linux ``PR_SET_CHILD_SUBREAPER``), so the runner finds every one after the
  snippet (:func:`harness.run.guards.descendants`) and kills what is left.
- **No network.** The page moves into a network namespace of its own (Linux
  ``unshare(CLONE_NEWNET)``; with ``CLONE_NEWUSER`` when not root), which has no
  interface but a loopback that is down: a connection fails at once with
  «Network is unreachable» and the snippet fails naming its line. Where the kernel or
  the platform refuses, :func:`seal` says why, and the page runs with the network open.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["seal"]

_PR_SET_CHILD_SUBREAPER = 36
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000


def _unshare(flags: int) -> str:
    """"" on success, else the reason the kernel gave."""
    unshare = getattr(os, "unshare", None)  # Python 3.12+
    if unshare is not None:
        try:
            unshare(flags)
        except OSError as exc:
            return exc.strerror or str(exc)
        return ""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        return os.strerror(ctypes.get_errno())
    return ""


def seal() -> str:
    """Seal this (single-threaded, freshly started) process; returns "" when the network
    is closed, or why it stays open."""
    os.setpgrp()
    if sys.platform != "linux":
        return f"the network stays open on {sys.platform} (no network namespaces)"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    flags = _CLONE_NEWNET if os.geteuid() == 0 else _CLONE_NEWUSER | _CLONE_NEWNET
    why = _unshare(flags)
    return f"the network stays open: unshare refused ({why})" if why else ""
