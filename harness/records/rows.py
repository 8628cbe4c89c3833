"""Trial rows at the store's edge: CSV text ⇄ :class:`~harness.core.rows.TrialRow`.

Every cell is converted by its column's kind and checked for range: times and
memory are finite and non-negative, booleans are exactly ``true``/``false``,
each (trial, threads) appears once, and a file with a header and no row is an
error. A UTF-8 byte-order mark is accepted. Every message names file and line.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError, Location
from harness.core.rows import COLUMNS, CSV_HEADER, Column, TrialRow

__all__ = ["NUMBER_DIGITS", "SAMPLE_DIGITS", "format_rows", "parse_rows"]

_BY_NAME = {c.name: c for c in COLUMNS}
#: Significant digits a number cell keeps, and each of ``samples_s``'s numbers: a stored
#: value is within half a unit in the last kept digit of what was measured, so the checks
#: between cells (:mod:`harness.records.consistency`) allow exactly that rounding.
NUMBER_DIGITS = 6
SAMPLE_DIGITS = 4


def _number_text(value: float) -> str:
    return f"{value:.{NUMBER_DIGITS}g}"


def _cell_text(column: Column, value: Any) -> str:
    if value is None:
        return ""
    if column.kind == "bool":
        return "true" if value else "false"
    if column.kind == "float":
        return _number_text(float(value))
    if column.kind == "floats":
        return " ".join(f"{v:.{SAMPLE_DIGITS}g}" for v in value)
    return str(value)


def format_rows(rows: list[TrialRow], *, columns: tuple[str, ...] = CSV_HEADER) -> str:
    """The CSV text of ``rows`` under ``columns`` (the full header by default)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell_text(_BY_NAME[c], getattr(row, c)) for c in columns])
    return out.getvalue()


def _float(text: str, where: str, column: Column) -> float:
    name = column.name
    try:
        value = float(text)
    except ValueError:
        raise HarnessError(f"{where}: column {name!r} holds {text!r}; expected a number") from None
    low, bound = (0.0, "> 0") if column.positive else (-1.0, "≥ 0")
    if not math.isfinite(value) or value <= low or value < 0:
        raise HarnessError(
            f"{where}: column {name!r} holds {text!r}; expected a finite number {bound}"
        )
    return value


def _cell(column: Column, text: str, where: str) -> Any:
    if text == "":
        if column.required:
            raise HarnessError(f"{where}: column {column.name!r} is empty; it is required")
        return column.default
    if column.kind == "text":
        return text
    if column.kind == "bool":
        if text not in ("true", "false"):
            raise HarnessError(
                f"{where}: column {column.name!r} holds {text!r}; expected true or false"
            )
        return text == "true"
    if column.kind == "int":
        if not text.isdigit():
            raise HarnessError(
                f"{where}: column {column.name!r} holds {text!r}; expected an integer ≥ 0"
            )
        return int(text)
    if column.kind == "floats":
        return tuple(_float(part, where, column) for part in text.split())
    return _float(text, where, column)


def parse_rows(text: str, shown: Path) -> list[TrialRow]:
    """Rows of a record file's ``text``; errors name ``shown`` and the line."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    header = next(reader, None)
    expected = ",".join(CSV_HEADER)
    if header is None:
        raise HarnessError(f"{shown}:1: empty record; expected the header {expected}")
    missing = [c for c in CSV_HEADER if c not in header]
    unknown = [c for c in header if c not in CSV_HEADER]
    repeated = sorted({c for c in header if header.count(c) > 1})
    if missing or unknown or repeated:
        what = (f"missing column {missing[0]!r}" if missing else
                f"unknown column {unknown[0]!r}" if unknown else f"column {repeated[0]!r} twice")
        raise HarnessError(f"{shown}:1: {what}; expected the header {expected}")
    rows: list[TrialRow] = []
    seen: dict[tuple[str, int], int] = {}
    for cells in reader:
        line = reader.line_num
        if not any(cells):
            continue
        where = f"{shown}:{line}"
        if len(cells) != len(header):
            raise HarnessError(f"{where}: {len(cells)} cells where the header has {len(header)}")
        values = {name: _cell(_BY_NAME[name], cell, where)
                  for name, cell in zip(header, cells, strict=True)}
        row = TrialRow(**values, location=Location(path=shown, line=line))
        if row.key in seen:
            raise HarnessError(
                f"{where}: trial {row.trial!r} with {row.threads} thread(s) already has a row "
                f"at line {seen[row.key]}; a record holds one row per trial and thread count"
            )
        seen[row.key] = line
        rows.append(row)
    if not rows:
        raise HarnessError(f"{shown}:2: the record has a header and no row; expected at least one")
    return rows
