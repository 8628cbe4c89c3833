"""Analytic expectations of measured trials: ``[trial.expect]`` in ``trials/trials.toml``.
No torch import.

An expectation relates a trial's latency to another trial's of the same record set
(``below`` a factor of it, or ``within`` a relative tolerance). It is a claim derived by
hand, kept apart from what is measured: it is not part of a trial's hash, and the page
shows each one beside the measured ratio with its verdict.
"""

from __future__ import annotations

from typing import Any

from harness.core.errors import HarnessError, Location, suggest
from harness.core.types import TRIAL_RELATIONS, TrialExpectation, TrialSpec

__all__ = ["EXPECT_KEYS", "FACTOR_BOUNDS", "check_references", "parse_expectation"]

EXPECT_KEYS: dict[str, str] = {
    "relation": f"one of {', '.join(TRIAL_RELATIONS)} (required)",
    "of": "the other trial's name, measured on the same devices (required)",
    "factor": "below: latency < factor × the other's; within: |ratio − 1| ≤ factor; a number "
              "> 0 (required)",
    "derivation": "why it must hold, in Spanish (required)",
    "derivation_en": "the derivation in English",
    "known_failure": "why it is known not to hold (shown on the page)",
    "factor_reason": "why a factor above its bound (FACTOR_BOUNDS) still checks something",
}
#: Above these a relation stops meaning anything (below a factor of 1e6 accepts any
#: latency), as rtol's bound for the examples; a wider one needs factor_reason.
FACTOR_BOUNDS = {"below": 1.0, "within": 0.5}


def parse_expectation(raw: Any, where: Location, line_of: Any) -> TrialExpectation:
    at = Location(path=where.path, line=line_of("expect"))
    if not isinstance(raw, dict):
        raise HarnessError(f"{at}: expect must be a [trial.expect] table; keys: "
                           f"{', '.join(EXPECT_KEYS)}.")
    for key in raw:
        if key not in EXPECT_KEYS:
            shown = Location(path=where.path, line=line_of(key))
            raise HarnessError(f"{shown}: unknown key {key!r} in [trial.expect]."
                               f"{suggest(key, set(EXPECT_KEYS))}")
    for key in ("relation", "of", "factor", "derivation"):
        if key not in raw:
            raise HarnessError(f"{at}: [trial.expect] needs {key!r}: {EXPECT_KEYS[key]}.")
    bad = ("relation" if raw["relation"] not in TRIAL_RELATIONS else
           "factor" if isinstance(raw["factor"], bool)
           or not isinstance(raw["factor"], (int, float)) or raw["factor"] <= 0 else
           next((k for k in ("of", "derivation", "derivation_en", "known_failure")
                 if k in raw and not (isinstance(raw[k], str) and raw[k].strip())), ""))
    if bad:
        shown = Location(path=where.path, line=line_of(bad))
        raise HarnessError(f"{shown}: {bad} = {raw[bad]!r} in [trial.expect]; expected "
                           f"{EXPECT_KEYS[bad]}.")
    bound = FACTOR_BOUNDS[raw["relation"]]
    if raw["factor"] > bound and not str(raw.get("factor_reason", "")).strip():
        shown = Location(path=where.path, line=line_of("factor"))
        raise HarnessError(
            f"{shown}: factor = {raw['factor']!r} is above {bound:g} for relation "
            f"{raw['relation']!r}, where the claim stops meaning much; tighten it, or add "
            "factor_reason = \"why\" saying why a latency that far off would still be right")
    return TrialExpectation(
        relation=raw["relation"], of=raw["of"], factor=float(raw["factor"]),
        derivation=raw["derivation"].strip(), derivation_en=raw.get("derivation_en", "").strip(),
        known_failure=raw.get("known_failure", "").strip(), location=at)


def check_references(specs: dict[str, TrialSpec]) -> None:
    """An expectation compares with a declared trial that runs wherever it runs."""
    for spec in specs.values():
        if spec.expect is None:
            continue
        other = specs.get(spec.expect.of)
        if other is None or other.name == spec.name:
            raise HarnessError(
                f"{spec.expect.location}: expect.of = {spec.expect.of!r} is not another "
                f"trial.{suggest(spec.expect.of, set(specs) - {spec.name})}")
        if not set(spec.devices) <= set(other.devices):
            raise HarnessError(
                f"{spec.expect.location}: expect.of = {other.name!r} does not run on every "
                f"device {spec.name!r} runs on ({list(spec.devices)})")
