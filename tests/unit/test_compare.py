from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.compare import compare, format_value
from harness.core.errors import Location
from harness.core.types import Expectation, Observation


def expect(value, **kw) -> Expectation:
    return Expectation(snippet="p/s", name="v", value=value, derivation="d",
                       location=Location(path=Path("e.toml"), line=1), **kw)


def seen(kind, value, dtype=None) -> Observation:
    return Observation(snippet="p/s", name="v", kind=kind, value=value, dtype=dtype)


@pytest.mark.parametrize(
    ("want", "got", "holds"),
    [
        (6.0, seen("tensor", 6.0, "torch.float32"), True),
        (6.0, seen("tensor", 6.000001, "torch.float32"), True),   # within fp32 rtol
        (6.0, seen("number", 6.000001), False),                   # a Python float is fp64
        (6.0, seen("tensor", 6.02, "torch.bfloat16"), True),      # bf16 default rtol 1.6e-2
        (6.0, seen("tensor", 6.2, "torch.bfloat16"), False),
        ([[1.0, 2.0]], seen("tensor", [[1.0, 2.0]], "torch.float32"), True),
        ([1.0, 2.0], seen("tensor", [[1.0, 2.0]], "torch.float32"), False),  # shape differs
        ([2, 3], seen("sequence", [2, 3]), True),
        (None, seen("none", None), True),
        (None, seen("tensor", 0.0, "torch.float32"), False),
        (True, seen("bool", True), True),
        (True, seen("number", 1), False),                          # never truthiness
        ("torch.float32", seen("text", "torch.float32"), True),
        ("6", seen("tensor", 6.0, "torch.float32"), False),         # never by printed repr
        (6.0, seen("error", "boom"), False),
        # Infinities: equal ones are equal (inf - inf is NaN, not 0), opposite ones differ.
        (float("inf"), seen("number", float("inf")), True),
        (float("-inf"), seen("number", float("-inf")), True),
        (float("inf"), seen("number", float("-inf")), False),
        ([float("inf"), 1.0], seen("tensor", [float("inf"), 1.0], "torch.float32"), True),
        (float("inf"), seen("number", 1e308), False),
        # NaN is explicit: an expected NaN matches only a NaN, a NaN never matches a number.
        (float("nan"), seen("number", float("nan")), True),
        (float("nan"), seen("number", 0.0), False),
        (0.0, seen("tensor", float("nan"), "torch.float32"), False),
        (1.0, seen("number", float("nan")), False),
    ],
)
def test_compare_by_value_with_dtype_aware_tolerance(want, got, holds) -> None:
    assert compare(expect(want), got).holds is holds


def test_explicit_tolerance_overrides_the_dtype_default() -> None:
    assert compare(expect(6.0, rtol=0.1), seen("tensor", 6.5, "torch.float32")).holds
    verdict = compare(expect(6.0), seen("tensor", 6.5, "torch.float32"))
    assert "|6.5 - 6.0| > atol + rtol" in verdict.reason


def test_format_value_is_short_and_stable() -> None:
    assert format_value(6.0) == "6"
    assert format_value(None) == "None"
    assert format_value(list(range(10))) == "[0, 1, 2, 3, 4, 5, 6, 7, …]"


def caught(type_name: str, message: str, *bases: str) -> Observation:
    return seen("exception", {"type": type_name, "types": [type_name, *bases, "Exception"],
                              "message": message})


@pytest.mark.parametrize(
    ("raises", "message", "got", "holds"),
    [
        ("RuntimeError", "second time", caught("RuntimeError", "Trying ... a second time"), True),
        ("Exception", "", caught("RuntimeError", "x"), True),                    # a base class
        ("ValueError", "", caught("RuntimeError", "x"), False),
        ("RuntimeError", "second time", caught("RuntimeError", "other text"), False),
        ("RuntimeError", "", seen("none", None), False),                         # nothing raised
    ],
)
def test_an_expected_exception_is_compared_by_type_and_stable_message(
    raises: str, message: str, got: Observation, holds: bool
) -> None:
    assert compare(expect(None, raises=raises, message=message), got).holds is holds
