"""A notebook writes expected and observed values as Python prints them (issue 20): the
oracle is Python's own ``print``, fed the value the JSON or TOML stands for."""

from __future__ import annotations

import contextlib
import io
import json
import tomllib
from typing import Any

import pytest

from harness.views.notebooks import python_text


def printed(value: Any) -> str:
    """What ``print(value)`` writes, without its newline."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(value)
    return out.getvalue().removesuffix("\n")


# Each as an expectations.toml or a record's JSON writes it, and what Python made of it.
VALUES = [True, False, None, 6, -4, 6.0, 0.8, -1.6, 1e-05, 2.5e-07, 12345.0,
          [2.0, -4.0], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [2, 3], [True, False], [],
          "torch.float32", "cpu", "MulBackward0", ["a", "b c"], [None, 1.5]]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_values_read_as_python_prints_them(value: Any) -> None:
    through_json = json.loads(json.dumps(value))
    assert python_text(through_json) == printed(value)


def test_toml_booleans_are_pythons_not_json() -> None:
    data = tomllib.loads("a = true\nb = false\nc = [1.0, 2.0]\nd = 6.0")
    shown = {key: python_text(value) for key, value in data.items()}
    assert shown == {"a": "True", "b": "False", "c": "[1.0, 2.0]", "d": "6.0"}


def test_a_float32_result_recorded_as_a_double_keeps_its_own_digits() -> None:
    # torch.tensor([0.64, -1.28]).tolist(): the float32 values as Python doubles.
    assert python_text([0.6399999856948853, -1.2799999713897705]) == printed([0.64, -1.28])
    assert python_text(0.800000011920929) == "0.8"


def test_an_exception_is_its_tracebacks_last_line() -> None:
    value = {"type": "RuntimeError", "types": ["RuntimeError", "Exception"],
             "message": "grad can be implicitly created only for scalar outputs"}
    assert python_text(value, kind="exception") == (
        "RuntimeError: grad can be implicitly created only for scalar outputs")
    assert python_text(None, kind="none") == "None"
