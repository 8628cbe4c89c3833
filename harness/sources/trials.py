"""Reading the measured trials declared in ``trials/trials.toml``. No torch import.

Trials and their workloads are content of the site, not code of the package: they live
in ``trials/`` beside ``snippets/`` (they feed several pages: Medir's tables, the drift
report, the notebooks) and reach the harness through the MkDocs plugin's ``trials`` and
``workloads`` options and the record command's ``--trials-file``/``--workloads`` (by
default, the checkout's ``trials/``). A trial is data
(:class:`~harness.core.types.TrialSpec`); the work it names is a function in
``trials/workloads.py``, loaded by path. :func:`spec_sha256` hashes both the declared
fields and the *source text* of that function (and of the module-level helpers it
calls), read with :mod:`ast`, so editing a workload makes every row recorded with the
old definition stale without importing torch here.
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

from harness.core.errors import HarnessError, Location, parse_toml, read_text, relative, suggest
from harness.core.types import (
    DEVICE_TYPES,
    DTYPES,
    TASKS,
    TRIAL_CLOCKS,
    TrialSpec,
)
from harness.sources.trial_expectations import check_references, parse_expectation

__all__ = [
    "TRIALS_FILE",
    "TRIAL_KEYS",
    "WORKLOADS_FILE",
    "Method",
    "load_method",
    "load_workloads",
    "load_trials",
    "shape_text",
    "spec_fields",
    "spec_sha256",
    "workload_names",
    "workload_sources",
]

HERE = Path(__file__).resolve().parent.parent
#: The checkout's trials and workloads (the defaults when no configuration names others).
TRIALS_FILE = HERE.parent / "trials" / "trials.toml"
WORKLOADS_FILE = TRIALS_FILE.with_name("workloads.py")


def load_workloads(path: Path = WORKLOADS_FILE) -> ModuleType:
    """The workloads module at ``path``, executed (it imports torch only inside its
    functions); a missing file is an error that names it."""
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
              "harness.sources.trial_expectations.EXPECT_KEYS)",
}
_REQUIRED = ("name", "workload", "task", "dtype", "shape", "group")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Method:
    """How the trials are recorded and compared: the ``[method]`` table of trials.toml."""

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


def _workload_functions(source: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(source)
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _is_workload(node: ast.FunctionDef) -> bool:
    # The convention that makes a function a workload: public, and called only
    # with the keyword-only arguments ``spec`` and ``device``.
    keywords = [a.arg for a in node.args.kwonlyargs]
    return not node.name.startswith("_") and keywords == ["spec", "device"] and not node.args.args


def workload_names(*, workloads: Path = WORKLOADS_FILE) -> list[str]:
    """Names a trial's ``workload`` may take, read from the module's text."""
    functions = _workload_functions(workloads.read_text(encoding="utf-8"))
    return sorted(name for name, node in functions.items() if _is_workload(node))


def workload_sources(*, workloads: Path = WORKLOADS_FILE) -> dict[str, str]:
    """Each workload's source plus that of every module-level function it reaches."""
    source = workloads.read_text(encoding="utf-8")
    functions = _workload_functions(source)
    lines = source.splitlines()
    result: dict[str, str] = {}
    for name, node in functions.items():
        if not _is_workload(node):
            continue
        reached, pending = {name}, [node]
        while pending:
            for inner in ast.walk(pending.pop()):
                callee = inner.id if isinstance(inner, ast.Name) else None
                if callee in functions and callee not in reached:
                    reached.add(callee)
                    pending.append(functions[callee])
        # Whole lines by number: ast.get_source_segment re-splits the file per call.
        texts = [
            "\n".join(lines[functions[n].lineno - 1 : functions[n].end_lineno])
            for n in sorted(reached)
        ]
        result[name] = "\n\n".join(texts)
    return result


def spec_fields(spec: TrialSpec) -> dict[str, Any]:
    """The declared fields :func:`spec_sha256` hashes (docs/assets/medir.py embeds them)."""
    # The expectation is a claim about the result, not part of the work measured.
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)
            if f.name not in ("location", "expect")}


def spec_sha256(spec: TrialSpec, *, sources: dict[str, str] | None = None) -> str:
    """Hash of the declared fields and of the workload's source text.

    ``sources`` (from :func:`workload_sources`) saves re-reading the module when
    hashing many specs; the location is left out, since moving a table in the
    file does not change what is measured.
    """
    code = (sources if sources is not None else workload_sources()).get(spec.workload, "")
    text = json.dumps(spec_fields(spec), sort_keys=True, default=list) + "\n" + code
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_line(lines: list[str], start: int, end: int, key: str) -> int:
    pattern = re.compile(rf"^\s*({re.escape(key)}\s*=|\[\s*trial\.{re.escape(key)}\s*\])")
    for number in range(start, end):
        if pattern.match(lines[number - 1]):
            return number
    return start


def _check(raw: dict[str, Any], where: Location, line_of: Any, names: list[str]) -> TrialSpec:
    for key in raw:
        if key not in TRIAL_KEYS:
            shown = Location(path=where.path, line=line_of(key))
            raise HarnessError(
                f"{shown}: unknown key {key!r} in [[trial]].{suggest(key, set(TRIAL_KEYS))}"
            )
    for key in _REQUIRED:
        if key not in raw:
            raise HarnessError(f"{where}: [[trial]] needs {key!r}: {TRIAL_KEYS[key]}.")

    def fail(key: str, why: str) -> HarnessError:
        at = Location(path=where.path, line=line_of(key))
        return HarnessError(f"{at}: {key} = {raw[key]!r} {why}; expected {TRIAL_KEYS[key]}.")

    if not isinstance(raw["name"], str) or not _NAME.match(raw["name"]):
        raise fail("name", "is not a valid name")
    if raw["workload"] not in names:
        at = Location(path=where.path, line=line_of("workload"))
        raise HarnessError(
            f"{at}: unknown workload {raw['workload']!r}."
            f"{suggest(str(raw['workload']), set(names))}"
        )
    for key, valid in (("task", TASKS), ("dtype", DTYPES), ("reference_dtype", DTYPES)):
        if key in raw and raw[key] not in valid:
            at = Location(path=where.path, line=line_of(key))
            raise HarnessError(
                f"{at}: unknown {key} {raw[key]!r}.{suggest(str(raw[key]), set(valid))}"
            )
    shape = raw["shape"]
    if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 1 for n in shape):
        raise fail("shape", "is not a list of positive integers")
    for key in ("batch", "threads"):
        if key in raw and not (
            isinstance(raw[key], int) and not isinstance(raw[key], bool) and raw[key] >= 1
        ):
            raise fail(key, "is not an integer >= 1")
    if "tolerance" in raw and not (
        isinstance(raw["tolerance"], (int, float)) and not isinstance(raw["tolerance"], bool)
        and 0 <= raw["tolerance"] < float("inf")
    ):
        raise fail("tolerance", "is not a finite non-negative number")
    if "quick" in raw and not isinstance(raw["quick"], bool):
        raise fail("quick", "is not true or false")
    devices = raw.get("devices", list(DEVICE_TYPES))
    if not isinstance(devices, list) or not devices or any(d not in DEVICE_TYPES for d in devices):
        raise fail("devices", "names an unknown device type")
    if not isinstance(raw.get("params", {}), dict):
        raise fail("params", "is not a table")
    _check_clock(raw.get("params", {}), fail)
    if not isinstance(raw.get("params", {}).get("synchronize", True), bool):
        raise fail("params", "has synchronize that is not true or false (a TOML boolean)")
    if not isinstance(raw["group"], str) or not _NAME.match(raw["group"]):
        raise fail("group", "is not a valid group name")
    return TrialSpec(
        name=raw["name"],
        workload=raw["workload"],
        task=raw["task"],
        dtype=raw["dtype"],
        shape=tuple(shape),
        batch=raw.get("batch", 1),
        threads=raw.get("threads", 1),
        tolerance=float(raw.get("tolerance", 0.0)),
        reference_dtype=raw.get("reference_dtype", "float64"),
        group=raw["group"],
        quick=raw.get("quick", True),
        devices=tuple(devices),
        params=dict(raw.get("params", {})),
        expect=parse_expectation(raw["expect"], where, line_of) if "expect" in raw else None,
        location=where,
    )


def _check_clock(params: dict[str, Any], fail: Any) -> None:
    """A fixed-calls clock names a known clock and positive call and block counts."""
    if "clock" not in params:
        return
    if params["clock"] not in TRIAL_CLOCKS:
        raise fail("params", f"names clock {params['clock']!r}, not one of {list(TRIAL_CLOCKS)}")
    for key in ("calls", "blocks"):
        value = params.get(key)
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise fail("params", f"has {key} = {value!r}, not an integer >= 1 (clock needs it)")


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
            "only [[trial]] tables and one [method] table are allowed."
        )
    lines = text.splitlines()
    headers = [n for n, line in enumerate(lines, start=1) if line.strip().startswith("[[trial]]")]
    names = workload_names(workloads=workloads)
    specs: dict[str, TrialSpec] = {}
    for index, raw in enumerate(data.get("trial", [])):
        start = headers[index] if index < len(headers) else 1
        end = headers[index + 1] if index + 1 < len(headers) else len(lines) + 1
        where = Location(path=shown, line=start)
        spec = _check(raw, where, lambda key, s=start, e=end: _key_line(lines, s, e, key), names)
        if spec.name in specs:
            raise HarnessError(
                f"{where}: trial name {spec.name!r} already used at {specs[spec.name].location}."
            )
        specs[spec.name] = spec
    check_references(specs)
    return specs
