"""An injector that refuses to inject into text that is not there (no silent passes),
for the copies of the real project that the fault tests break (support.copy_project)."""

from __future__ import annotations

from pathlib import Path


def inject(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (which must occur) by ``new``; return the 1-based line of the change."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fault target vanished from {path}: {old!r}"
    position = text.index(old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text.count("\n", 0, position) + 1


def record_files(root: Path, suffix: str) -> list[Path]:
    found = sorted((root / "results").glob(f"*/cpu{suffix}"))
    assert found, f"the project has no committed cpu{suffix} record to break"
    return found
