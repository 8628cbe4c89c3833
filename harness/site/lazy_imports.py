"""Deferring a third-party module's import until something first uses it.

mkdocs-jupyter's plugin module imports nbconvert (through ``mkdocs_jupyter.convert``)
and jupytext at its top, about 0.8 s on a 2-core machine, a third of a build in which
every notebook comes from the content-keyed cache (notebook_cache.py) and none is
converted. :func:`defer` puts a stand-in for such a module in ``sys.modules``; the
first attribute read from it imports the real module, and every later read is served
by it, so a build that converts a notebook behaves exactly as before.

The stand-in must be in place before the importer runs: the site lists the ``harness``
plugin before ``mkdocs-jupyter`` in mkdocs.yml (MkDocs imports plugins in that order).
Listed after it, nothing is deferred and nothing else changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

__all__ = ["defer"]


class _Deferred(types.ModuleType):
    """A module whose real import runs on the first read of a missing attribute."""

    def __getattr__(self, name: str) -> Any:
        # Only attributes the stand-in lacks reach here: __name__ and __spec__ (which
        # the import system reads) do not trigger the import.
        real = _load(self)
        return getattr(real, name)


def _load(stand_in: _Deferred) -> types.ModuleType:
    name = stand_in.__name__
    real = stand_in.__dict__.get("_deferred_real")
    if real is None:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        real = importlib.import_module(name)  # also binds it on its parent package
        stand_in.__dict__["_deferred_real"] = real
    return real


def defer(*names: str) -> list[str]:
    """Put a stand-in in ``sys.modules`` for each of ``names`` not imported yet (a
    submodule's parent package is imported now, not the submodule). Returns the
    names deferred."""
    deferred = []
    for name in names:
        if name in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        stand_in = _Deferred(name)
        stand_in.__spec__ = spec
        stand_in.__loader__ = spec.loader
        sys.modules[name] = stand_in
        parent, _, child = name.rpartition(".")
        if parent:
            # `from parent import child` then finds the stand-in without an import.
            setattr(sys.modules[parent], child, stand_in)
        deferred.append(name)
    return deferred
