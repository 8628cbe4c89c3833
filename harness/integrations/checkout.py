"""The checkout the command line works on: the folder that holds ``harness/`` beside
``docs/``, ``snippets/`` and ``results/``."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT"]

ROOT = Path(__file__).resolve().parents[2]
