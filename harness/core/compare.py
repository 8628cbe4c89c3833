"""Comparing an analytic expectation with an observation, by value. No torch import.

Tolerances follow the defaults of ``torch.testing.assert_close`` for the
*observed* dtype, because the precision a run can reach is the run's dtype's,
not the one the derivation was done in. Printed reprs are never compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from harness.core.types import Expectation, Observation

__all__ = ["Verdict", "compare", "format_value"]

#: (rtol, atol) by dtype, as in torch.testing.assert_close.
_TOLERANCES: dict[str, tuple[float, float]] = {
    "torch.float16": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (1.3e-6, 1e-5),
    "torch.float64": (1e-7, 1e-7),
    "torch.complex64": (1.3e-6, 1e-5),
    "torch.complex128": (1e-7, 1e-7),
    "float": (1e-7, 1e-7),
}


@dataclass(frozen=True, kw_only=True)
class Verdict:
    holds: bool
    reason: str
    """Empty when the expectation holds; otherwise why not, in English."""
    rtol: float = 0.0
    atol: float = 0.0


def _leaves(value: Any) -> tuple[tuple[int, ...], list[Any]]:
    """(shape, leaves in order) of a nested list; ValueError for a ragged one."""
    if not isinstance(value, list):
        return (), [value]
    parts = [_leaves(item) for item in value]
    inner = {shape for shape, _ in parts}
    if len(inner) > 1:
        raise ValueError("ragged list")
    return (len(value), *(inner.pop() if inner else ())), [x for _, xs in parts for x in xs]


def _numbers_close(expected: Any, observed: Any, rtol: float, atol: float) -> str:
    try:
        (want_shape, wants), (got_shape, gots) = _leaves(expected), _leaves(observed)
    except ValueError:
        return "the expected value is a ragged list"
    if want_shape != got_shape:
        return f"shape differs: expected {list(want_shape)}, observed {list(got_shape)}"
    for index, (want, got) in enumerate(zip(wants, gots, strict=True)):
        where = f"element {index}: " if want_shape else ""  # nothing for a scalar
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return f"element {index} is {got!r}, not a number"
        if math.isnan(want) or math.isnan(got):
            # NaN is explicit: an expected NaN matches only an observed NaN (as
            # torch.testing.assert_close with equal_nan=True), and a NaN never
            # matches a number, whatever the tolerance.
            if math.isnan(want) and math.isnan(got):
                continue
            return f"{where}expected {want!r}, observed {got!r}"
        if want == got:  # equal infinities too: inf - inf is NaN, not 0
            continue
        if math.isinf(want) or math.isinf(got):
            return f"{where}expected {want!r}, observed {got!r}"
        if not abs(got - want) <= atol + rtol * abs(want):
            return (f"{where}|{got!r} - {want!r}| > "
                    f"atol + rtol·|expected| = {atol} + {rtol}·{abs(want)}")
    return ""


def _exception(expectation: Expectation, observation: Observation) -> Verdict:
    if observation.kind != "exception":
        return Verdict(holds=False, reason=f"expected a caught {expectation.raises}, observed "
                                           f"{observation.kind} {observation.value!r}")
    got = observation.value
    if expectation.raises not in got.get("types", [got.get("type")]):
        return Verdict(holds=False, reason=f"expected {expectation.raises}, observed {got['type']}")
    if expectation.message not in got.get("message", ""):
        return Verdict(holds=False, reason=f"the message does not contain "
                                           f"{expectation.message!r}: {got.get('message')!r}")
    return Verdict(holds=True, reason="")


def compare(expectation: Expectation, observation: Observation) -> Verdict:
    """Whether ``observation`` satisfies ``expectation``; never by printed repr."""
    want, got = expectation.value, observation.value
    if observation.kind == "error":
        return Verdict(holds=False, reason=f"the run raised: {got}")
    if expectation.raises:
        return _exception(expectation, observation)
    if want is None:
        ok = observation.kind == "none"
        return Verdict(holds=ok, reason="" if ok else f"expected None, observed {observation.kind}")
    if isinstance(want, bool):
        ok = isinstance(got, bool) and got is want
        return Verdict(holds=ok, reason="" if ok else f"expected {want}, observed {got!r}")
    if isinstance(want, str):
        ok = observation.kind == "text" and got == want
        return Verdict(holds=ok, reason="" if ok else f"expected {want!r}, observed {got!r}")
    if observation.kind not in ("number", "tensor", "sequence"):
        return Verdict(holds=False, reason=f"expected a number, observed {observation.kind}")
    dtype = observation.dtype or ("float" if isinstance(got, float) else "")
    rtol, atol = _TOLERANCES.get(dtype, (0.0, 0.0))
    rtol = rtol if expectation.rtol is None else expectation.rtol
    atol = atol if expectation.atol is None else expectation.atol
    reason = _numbers_close(want, got, rtol, atol)
    return Verdict(holds=not reason, reason=reason, rtol=rtol, atol=atol)


def format_value(value: Any, *, kind: str = "") -> str:
    """A short, stable text for a value (tables and messages), never a torch repr."""
    if kind == "none" or value is None:
        return "None"
    if kind == "exception" and isinstance(value, dict):
        return f"{value.get('type')}: {value.get('message', '')}"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        inner = ", ".join(format_value(item) for item in value[:8])
        return f"[{inner}{', …' if len(value) > 8 else ''}]"
    return str(value)
