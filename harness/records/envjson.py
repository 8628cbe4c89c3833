"""A record set's ``<device>.env.json`` read as data, and the type rule every stored
value follows. No torch import.

Each stored value is checked against the annotation of the dataclass field it fills
(:class:`~harness.core.types.Environment`, :class:`~harness.core.types.Observation`),
by one generic rule rather than a list of fields: a field added later is checked too.
Dates are real ISO-8601 instants and not in the future; the file's device key is the
one its device name gives.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import math
import re
import types
import typing
from pathlib import Path
from typing import Any, Literal

from harness.core.errors import HarnessError, read_text
from harness.core.types import Environment

__all__ = [
    "CLOCK_SKEW",
    "MAX_RECORD_BYTES",
    "date_problem",
    "device_key",
    "json_value",
    "read_environments",
    "type_problem",
    "typed_fields",
]

#: The largest record file read. A run of every trial and example writes under 100 kB;
#: benchmarks/bench_drift.py's full size (90,000 rows) writes a 22 MB examples.jsonl. A
#: 130 MB record once took 755 s and 9 GB to build; this refuses it in milliseconds.
MAX_RECORD_BYTES = 48 * 1024 * 1024
#: How far in the future a date may lie: the recording machine's clock may run ahead.
CLOCK_SKEW = datetime.timedelta(minutes=10)


def device_key(device_type: str, device_name: str = "") -> str:
    """File stem for a device: ``cpu`` or ``cuda-nvidia-h200``."""
    if device_type == "cpu" or not device_name:
        return device_type
    return f"{device_type}-{re.sub(r'[^a-z0-9]+', '-', device_name.lower()).strip('-')}"


def _describe(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def type_problem(value: Any, hint: Any) -> str | None:
    """What ``value`` (decoded JSON) should have been to fit ``hint``; ``None`` if it fits.
    A JSON array fills a ``tuple[...]`` field; floats are finite."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return None
    if origin in (typing.Union, types.UnionType):
        fits = any(type_problem(value, a) is None for a in args)
        return None if fits else " or ".join(_describe(a) for a in args)
    if origin is Literal:
        return None if value in args else f"one of {', '.join(map(repr, args))}"
    if hint is type(None):
        return None if value is None else "null"
    if hint is bool:
        return None if isinstance(value, bool) else "true or false"
    if hint is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if hint is float:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if number and math.isfinite(value) else "a finite number"
    if hint is str:
        return None if isinstance(value, str) else "text"
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            return f"a list ({_describe(hint)})"
        variadic = len(args) == 2 and args[1] is Ellipsis
        if not variadic and len(args) != len(value):
            return f"a list of {len(args)}"
        for index, item in enumerate(value):
            expected = args[0] if variadic else args[index]
            if type_problem(item, expected):
                return f"a list of {_describe(expected)} (item {index} is {item!r})"
        return None
    if origin is dict:
        if not isinstance(value, dict):
            return f"an object ({_describe(hint)})"
        for key, item in value.items():
            if type_problem(key, args[0]) or type_problem(item, args[1]):
                return f"an object of {_describe(args[1])} (key {key!r} holds {item!r})"
        return None
    return None  # a type this rule does not know is not a stored field's


@functools.cache
def _hints(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """``cls``'s resolved annotations, and the fields stored as tuples. Once per class:
    get_type_hints evaluates every annotation's string on each call, which was most of
    reading a record set of many rows."""
    hints = typing.get_type_hints(cls)
    tupled = frozenset(name for name, hint in hints.items() if any(
        typing.get_origin(h) is tuple for h in (hint, *typing.get_args(hint))))
    return hints, tupled


def typed_fields(cls: type, raw: dict[str, Any], where: str, what: str) -> dict[str, Any]:
    """``raw``'s fields checked against ``cls``'s annotations, JSON arrays as tuples."""
    hints, tupled = _hints(cls)
    found: dict[str, Any] = {}
    for name, value in raw.items():
        wrong = type_problem(value, hints[name])
        if wrong:
            raise HarnessError(f"{where}: {what} field {name!r} holds {value!r}; expected {wrong}")
        found[name] = tuple(value) if name in tupled and isinstance(value, list) else value
    return found


def date_problem(text: str, *, now: datetime.datetime | None = None) -> str | None:
    """Why ``text`` is not a real recording date (ISO 8601, UTC unless it says otherwise,
    not in the future beyond :data:`CLOCK_SKEW`); ``None`` when it is one. Empty: not
    recorded."""
    if not text:
        return None
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        return f"date {text!r} is not an ISO 8601 date (e.g. 2026-11-30T18:44:30+00:00)"
    if when.tzinfo is None:  # a bare date or local time: read as UTC
        when = when.replace(tzinfo=datetime.UTC)
    if when > (now or datetime.datetime.now(datetime.UTC)) + CLOCK_SKEW:
        return f"date {text!r} is in the future; a record is made before it is read"
    return None


def json_value(text: str, shown: object, line: int = 1) -> Any:
    """``text`` as JSON; invalid or too deeply nested JSON names ``shown`` and the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise HarnessError(f"{shown}:{line + exc.lineno - 1}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise HarnessError(f"{shown}:{line}: JSON nested too deeply to read (thousands of "
                           "levels); a record's values are a few levels deep") from None


def _run_lines(text: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        found = re.match(r'\s*("(?:[^"\\]|\\.)*")\s*:\s*\{', line)
        if found:
            lines.setdefault(json.loads(found.group(1)), number)
    return lines


def read_environments(path: Path, shown: Path) -> dict[str, Environment]:
    """The runs of a ``.env.json`` file, keyed by run id, every field of its type."""
    text = read_text(path, shown, limit=MAX_RECORD_BYTES).removeprefix("\ufeff")
    data = json_value(text, shown)
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, dict) or not runs:
        raise HarnessError(
            f'{shown}:1: expected an object {{"runs": {{"<run id>": {{environment}}}}}} with at '
            f"least one run, found "
            f"{type(data).__name__ if not isinstance(data, dict) else 'no runs'}"
        )
    known = {f.name for f in dataclasses.fields(Environment)}
    lines = _run_lines(text)
    found: dict[str, Environment] = {}
    for run_id, raw in runs.items():
        where = f"{shown}:{lines.get(run_id, 1)}"
        if not isinstance(raw, dict):
            raise HarnessError(
                f"{where}: run {run_id!r} is {type(raw).__name__}; expected an object")
        unknown = set(raw) - known
        if unknown:
            raise HarnessError(f"{where}: run {run_id!r} has unknown key {sorted(unknown)[0]!r}")
        try:
            env = Environment(**typed_fields(Environment, raw, where, f"run {run_id!r}"))
        except TypeError as exc:
            raise HarnessError(f"{where}: run {run_id!r} is incomplete ({exc})") from None
        if env.run_id != run_id:
            raise HarnessError(f"{where}: run {run_id!r} names itself {env.run_id!r}")
        wrong = date_problem(env.date)
        if wrong:
            raise HarnessError(f"{where}: run {run_id!r}: {wrong}")
        implied = device_key(env.device_key.split("-", 1)[0], env.device_name)
        if implied != env.device_key:
            raise HarnessError(
                f"{where}: run {run_id!r} was made on {env.device_name!r}, whose device key is "
                f"{implied!r}, but it is filed as {env.device_key!r} (a hand-edited name?)")
        found[run_id] = env
    return found
