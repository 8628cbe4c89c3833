"""The recorded output of a notebook's code cell, read from the records. No torch import.

A generated notebook carries, under each code cell, what the recorder observed when
it ran that snippet: each expected name's value, from the newest CPU build that
observed the snippet, and a provenance line (torch build, device, date). The docs
build never runs a snippet; this output comes from ``results/``, so it changes only
when a record or an expectation does (the notebook freshness check stays
deterministic: no date of "now"). Running the notebook replaces it with the
kernel's own output.
"""

from __future__ import annotations

from typing import Any

from harness.core.types import Expectation, Observation, Snippet
from harness.records.store import DeviceRecord, version_key
from harness.text.words import word

__all__ = ["choose_record", "python_text", "recorded_output"]


def choose_record(records: list[DeviceRecord], snippet_id: str) -> DeviceRecord | None:
    """The newest CPU build that observed ``snippet_id`` (any device when no CPU did)."""
    observed = [r for r in records if r.observations_of(snippet_id)]
    cpu = [r for r in observed if r.device_type == "cpu"] or observed
    return max(cpu, key=lambda r: (version_key(r.torch_build), r.torch_build, r.device_key),
               default=None)


def python_text(value: Any, *, kind: str = "") -> str:
    """``value`` (JSON data from a record or an expectation) as ``print(value)`` writes
    the Python value it stands for: ``True``, ``False``, ``None``, a float as a float
    (``6.0``, not ``6``), strings inside a list quoted. A top-level text is bare, as
    ``print`` writes a ``str``, a ``torch.dtype`` or a ``torch.device``; an exception is
    the last line of its traceback. Floats keep 6 significant digits, as the article's
    observed block does: a record holds a float32 result as a double
    (``0.6399999856948853``), with digits the float32 never had."""
    if kind == "exception" and isinstance(value, dict):
        return f"{value.get('type')}: {value.get('message', '')}"
    return str(value) if isinstance(value, str) else _python_repr(value)


def _python_repr(value: Any) -> str:
    if isinstance(value, float):
        return repr(float(f"{value:.6g}"))
    if isinstance(value, list):
        return "[" + ", ".join(_python_repr(item) for item in value) + "]"
    return repr(value)  # bool, int, None, str: Python's own repr


def _value(observation: Observation | None, snippet: Snippet, lang: str) -> str:
    if observation is None:
        return f"({word(lang, 'missing')})"
    text = python_text(observation.value, kind=observation.kind)
    if observation.kind == "tensor" and observation.dtype:
        text += f"  # {observation.dtype}"
    if observation.snippet_sha256 != snippet.sha256:
        text += f"  ({word(lang, 'stale')})"
    return text


def recorded_output(snippet: Snippet, expectations: list[Expectation],
                    records: list[DeviceRecord], lang: str) -> dict[str, Any] | None:
    """An nbformat ``display_data`` output (text/plain) for the cell of ``snippet``,
    or None when no record observed it. Its metadata repeats the provenance as data."""
    record = choose_record(records, snippet.id)
    if record is None or not expectations:
        return None
    found = {o.name: o for o in record.observations_of(snippet.id)}
    width = max(len(e.name) for e in expectations)
    lines = [f"{e.name:<{width}} = {_value(found.get(e.name), snippet, lang)}"
             for e in expectations]
    env = record.environment_of_runs({o.run_id for o in found.values()})
    device = env.device_name or env.cpu_model or record.device_key
    where = word(lang, record.device_type) if record.device_type in ("cpu", "cuda") else ""
    device = f"{where} · {device}" if where and where != device else device
    date = max((o.date for o in found.values() if o.date), default=env.date)[:10]
    lines.append(word(lang, "recorded_output").format(
        build=record.torch_build, device=device, date=date))
    return {
        "output_type": "display_data",
        "data": {"text/plain": [line + "\n" for line in lines[:-1]] + [lines[-1]]},
        "metadata": {"harness": {"torch_build": record.torch_build,
                                 "device": record.device_key, "date": date,
                                 "snippet_sha256": snippet.sha256}},
    }
