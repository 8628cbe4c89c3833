"""The measured trials of the site's ``trials/trials.toml``; no torch import. A trial
is data naming a function of ``trials/workloads.py``. :func:`spec_sha256` hashes its
fields and the *source text* of that function and the helpers it calls (read with
:mod:`ast`), so editing a workload makes its old rows stale without importing torch.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.core.errors import (
    HarnessError,
    Location,
    key_line,
    parse_toml,
    read_text,
    relative,
    suggest,
    table_entries,
)
from harness.core.types import (
    DEVICE_TYPES,
    DTYPES,
    TASKS,
    TRIAL_CLOCKS,
    TRIAL_RELATIONS,
    TrialExpectation,
    TrialSpec,
)

__all__ = ["EXPECT_KEYS", "FACTOR_BOUNDS", "TRIALS_FILE", "TRIAL_KEYS", "WORKLOADS_FILE",
           "Method", "load_method", "load_trials", "load_workloads", "shape_text",
           "spec_fields", "spec_sha256", "workload_sources"]

HERE = Path(__file__).resolve().parent.parent
#: The checkout's trials and workloads (the defaults when no configuration names others).
TRIALS_FILE = HERE.parent / "trials" / "trials.toml"
WORKLOADS_FILE = TRIALS_FILE.with_name("workloads.py")


def load_workloads(path: Path = WORKLOADS_FILE) -> ModuleType:
    """The workloads module at ``path``, executed; a missing file is an error naming it."""
    spec = importlib.util.spec_from_file_location("trial_workloads", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise HarnessError(f"{path}: no workloads file; expected the site's trials/workloads.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

TRIAL_KEYS: dict[str, str] = {
    "name": "unique trial name, lowercase letters, digits and _ (required)",
    "workload": "a function of trials/workloads.py (required)",
    "task": f"one of {', '.join(TASKS)} (required)",
    "dtype": "torch dtype name, e.g. float32 (required)",
    "shape": "array of integers, e.g. [1024, 1024]; [] for a scalar (required)",
    "batch": "items per call, integer >= 1 (default 1)",
    "threads": "CPU threads, integer >= 1 (default 1: 2-thread timings are bimodal here)",
    "tolerance": "largest accepted relative error vs the reference (default 0)",
    "reference_dtype": "dtype the reference is computed in (default float64)",
    "group": "the page table the trial belongs to (required)",
    "quick": "part of the quick (CI) record, true/false (default true)",
    "devices": f"device types it applies to, subset of {list(DEVICE_TYPES)}",
    "params": "inline table of workload parameters; clock = host | synchronized | events "
              "with calls and blocks (integers >= 1) times a fixed number of calls per block",
    "expect": "[trial.expect] table: an analytic claim about its latency (keys: "
              "harness.sources.trials.EXPECT_KEYS)",
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Method:
    """The ``[method]`` table of trials.toml: how trials are recorded and compared."""

    runs: int = 5
    """Separate processes per trial and build (the unit the drift verdict counts)."""
    blocks: int = 10
    """Timed blocks per run (their median is the run's summary)."""
    margin: float = 0.05
    """Equivalence margin: «sin diferencia medible» needs the 90 % interval inside ±margin."""
    margin_reason: str = ""
    margin_reason_en: str = ""
    instructions: tuple[str, ...] = ()
    """CPU trials whose instructions per call callgrind counts (slow: ~100 s each)."""


def load_method(path: Path = TRIALS_FILE, *, root: Path | None = None) -> Method:
    """The ``[method]`` table; a bad value names the file."""
    shown = relative(path, root or HERE.parent)
    raw = parse_toml(read_text(path, shown), shown).get("method")
    if raw is None:
        return Method()
    fields = {f.name: f for f in dataclasses.fields(Method)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise HarnessError(f"{shown}: unknown key {unknown[0]!r} in [method]"
                           f"{suggest(unknown[0], list(fields))}")
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    method = Method(**values)
    if not (isinstance(method.runs, int) and 1 <= method.runs <= 100 and
            isinstance(method.blocks, int) and 1 <= method.blocks <= 1000):
        raise HarnessError(f"{shown}: [method] runs and blocks must be integers ≥ 1")
    if not (isinstance(method.margin, float) and 0 < method.margin < 0.5
            and method.margin_reason and method.margin_reason_en):
        raise HarnessError(f"{shown}: [method] margin must be a number in (0, 0.5) with "
                           "margin_reason and margin_reason_en saying why")
    return method
_NAME = re.compile(r"^[a-z0-9_]+$")


def shape_text(shape: tuple[int, ...]) -> str:
    """``1024x1024`` as in the CSV; ``scalar`` for ``()`` so the cell is never empty."""
    return "x".join(str(n) for n in shape) if shape else "scalar"


def workload_sources(*, workloads: Path = WORKLOADS_FILE) -> dict[str, str]:
    """Each workload (a public function of the module taking only the keyword-only
    arguments ``spec`` and ``device``: the names a trial's ``workload`` may take), with
    its source plus that of every module-level function it reaches."""
    shown = Path("trials") / workloads.name
    source = read_text(workloads, shown)
    try:
        tree = ast.parse(source, filename=str(shown))
    except SyntaxError as exc:
        raise HarnessError(f"{shown}:{exc.lineno or 1}: not valid Python ({exc.msg})") from None
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    names = [name for name, node in functions.items()
             if not name.startswith("_") and not node.args.args
             and [a.arg for a in node.args.kwonlyargs] == ["spec", "device"]]
    lines = source.splitlines()
    result: dict[str, str] = {}
    for name in names:
        reached, pending = {name}, [functions[name]]
        while pending:
            for inner in ast.walk(pending.pop()):
                callee = inner.id if isinstance(inner, ast.Name) else None
                if callee in functions and callee not in reached:
                    reached.add(callee)
                    pending.append(functions[callee])
        # Whole lines by number: ast.get_source_segment re-splits the file per call.
        result[name] = "\n\n".join(
            "\n".join(lines[functions[n].lineno - 1 : functions[n].end_lineno])
            for n in sorted(reached))
    return result


def spec_fields(spec: TrialSpec) -> dict[str, Any]:
    """The declared fields :func:`spec_sha256` hashes (docs/assets/medir.py embeds them)."""
    # The expectation is a claim about the result, not part of the work measured.
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)
            if f.name not in ("location", "expect")}


def spec_sha256(spec: TrialSpec, *, sources: dict[str, str] | None = None) -> str:
    """Hash of :func:`spec_fields` and the workload's source text (``sources``: from
    :func:`workload_sources`, read once for many specs)."""
    code = (sources if sources is not None else workload_sources()).get(spec.workload, "")
    text = json.dumps(spec_fields(spec), sort_keys=True, default=list) + "\n" + code
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Above these a relation stops meaning anything (below a factor of 1e6 accepts any
#: latency), as rtol's bound for the examples; a wider one needs factor_reason.
FACTOR_BOUNDS = {"below": 1.0, "within": 0.5}
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


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value: object) -> bool:
    return _is_number(value) and isinstance(value, int) and value >= 1


def _keys(raw: dict[str, Any], keys: dict[str, str], table: str, at: Any,
          where: Location) -> None:
    """No key outside ``keys`` (named at its line); every key whose help says
    "(required)" given (named at the table's ``where``)."""
    for key in raw:
        if key not in keys:
            raise HarnessError(f"{at(key)}: unknown key {key!r} in {table}.{suggest(key, keys)}")
    for key, help in keys.items():
        if help.endswith("(required)") and key not in raw:
            raise HarnessError(f"{where}: {table} needs {key!r}: {help}.")


def _expectation(raw: Any, at: Any) -> TrialExpectation:
    """``[trial.expect]``: a claim derived by hand about the trial's latency relative to
    another trial's; not part of the trial's hash, shown beside the measured ratio."""
    if not isinstance(raw, dict):
        raise HarnessError(f"{at('expect')}: expect must be a [trial.expect] table; keys: "
                           f"{', '.join(EXPECT_KEYS)}.")
    _keys(raw, EXPECT_KEYS, "[trial.expect]", at, at("expect"))
    bad = ("relation" if raw["relation"] not in TRIAL_RELATIONS else
           "factor" if not _is_number(raw["factor"]) or raw["factor"] <= 0 else
           next((k for k in ("of", "derivation", "derivation_en", "known_failure")
                 if k in raw and not (isinstance(raw[k], str) and raw[k].strip())), ""))
    if bad:
        raise HarnessError(f"{at(bad)}: {bad} = {raw[bad]!r} in [trial.expect]; expected "
                           f"{EXPECT_KEYS[bad]}.")
    bound = FACTOR_BOUNDS[raw["relation"]]
    if raw["factor"] > bound and not str(raw.get("factor_reason", "")).strip():
        raise HarnessError(
            f"{at('factor')}: factor = {raw['factor']!r} is above {bound:g} for relation "
            f"{raw['relation']!r}, where the claim stops meaning much; tighten it, or add "
            "factor_reason = \"why\" saying why a latency that far off would still be right")
    texts = {k: raw.get(k, "").strip() for k in ("derivation", "derivation_en", "known_failure")}
    return TrialExpectation(relation=raw["relation"], of=raw["of"], factor=float(raw["factor"]),
                            **texts, location=at("expect"))


def _check(raw: dict[str, Any], where: Location, at: Any, names: list[str]) -> TrialSpec:
    _keys(raw, TRIAL_KEYS, "[[trial]]", at, where)

    def fail(key: str, why: str) -> HarnessError:
        return HarnessError(f"{at(key)}: {key} = {raw[key]!r} {why}; expected {TRIAL_KEYS[key]}.")

    if not isinstance(raw["name"], str) or not _NAME.match(raw["name"]):
        raise fail("name", "is not a valid name")
    for key, valid in (("workload", names), ("task", TASKS), ("dtype", DTYPES),
                       ("reference_dtype", DTYPES)):
        if key in raw and raw[key] not in valid:
            raise HarnessError(
                f"{at(key)}: unknown {key} {raw[key]!r}.{suggest(str(raw[key]), set(valid))}")
    shape = raw["shape"]
    if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 1 for n in shape):
        raise fail("shape", "is not a list of positive integers")
    for key in ("batch", "threads"):
        if key in raw and not _is_count(raw[key]):
            raise fail(key, "is not an integer >= 1")
    if "tolerance" in raw and not (_is_number(raw["tolerance"])
                                   and 0 <= raw["tolerance"] < float("inf")):
        raise fail("tolerance", "is not a finite non-negative number")
    if "quick" in raw and not isinstance(raw["quick"], bool):
        raise fail("quick", "is not true or false")
    devices = raw.get("devices", list(DEVICE_TYPES))
    if not isinstance(devices, list) or not devices or any(d not in DEVICE_TYPES for d in devices):
        raise fail("devices", "names an unknown device type")
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise fail("params", "is not a table")
    if "clock" in params:  # a fixed-calls clock: a known clock, positive calls and blocks
        if params["clock"] not in TRIAL_CLOCKS:
            raise fail("params", f"names clock {params['clock']!r}, not one of "
                                 f"{list(TRIAL_CLOCKS)}")
        for key in ("calls", "blocks"):
            if not _is_count(params.get(key)):
                raise fail("params", f"has {key} = {params.get(key)!r}, not an integer >= 1 "
                                     "(clock needs it)")
    if not isinstance(params.get("synchronize", True), bool):
        raise fail("params", "has synchronize that is not true or false (a TOML boolean)")
    if not isinstance(raw["group"], str) or not _NAME.match(raw["group"]):
        raise fail("group", "is not a valid group name")
    # The declared values over TrialSpec's defaults, in the types its hash has always seen.
    return TrialSpec(**{
        **raw, "shape": tuple(shape), "devices": tuple(devices), "location": where,
        "tolerance": float(raw.get("tolerance", 0.0)),
        "expect": _expectation(raw["expect"], at) if "expect" in raw else None})


def _check_references(specs: dict[str, TrialSpec]) -> None:
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


def load_trials(
    path: Path = TRIALS_FILE, *, root: Path | None = None, workloads: Path = WORKLOADS_FILE
) -> dict[str, TrialSpec]:
    """Every trial of ``path`` keyed by name, in file order; errors name file:line."""
    shown = relative(path, root or HERE.parent)
    text = read_text(path, shown)
    data = parse_toml(text, shown)
    extra = set(data) - {"trial", "method"}
    if extra:
        raise HarnessError(
            f"{shown}:1: unknown top-level key {sorted(extra)[0]!r}; "
            "only [[trial]] tables and one [method] table are allowed.")
    names = list(workload_sources(workloads=workloads))
    specs: dict[str, TrialSpec] = {}
    for raw, where in table_entries(text, data, "trial", shown):
        spec = _check(raw, where, lambda key, s=where.line: Location(
            path=shown, line=key_line(text, s, key)), names)
        if spec.name in specs:
            raise HarnessError(
                f"{where}: trial name {spec.name!r} already used at {specs[spec.name].location}.")
        specs[spec.name] = spec
    _check_references(specs)
    return specs
