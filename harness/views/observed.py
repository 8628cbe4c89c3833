"""The analytic-versus-observed block of an example. No torch import.

It opens on its verdict line and the table of values (analytic beside observed), with
the derivation and the provenance (builds, devices, dates, snippet hash) one click
away. Records that observed the same values share one column; records that never
observed the snippet add none. The block is raw HTML with ``markdown="1"`` so the
derivations stay Markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.core.compare import compare, format_value
from harness.core.types import Expectation, Observation, Snippet, Unchecked
from harness.records.store import DeviceRecord, version_key
from harness.text.markdown import cell, code, html_text
from harness.text.numbers import scientific
from harness.text.words import in_lang, word
from harness.views.html_table import Cell, Row, breakable, html_table

__all__ = ["ObservedBlock", "render_observed", "render_unchecked"]


_MESSAGE = 90
"""Characters of an exception message shown in the cell (the rest in its tooltip)."""


@dataclass(frozen=True, kw_only=True)
class ObservedBlock:
    markdown: str
    stale: list[str]
    """One message for all of a snippet's stale observations, naming each file and line."""


def _value(observation: Observation) -> str:
    if observation.kind == "exception" and isinstance(observation.value, dict):
        kind = observation.value.get("type", "")
        message = str(observation.value.get("message", ""))
        short = message if len(message) <= _MESSAGE else message[:_MESSAGE].rsplit(" ", 1)[0] + "…"
        return (f'{code(kind)}: <span title="{html_text(message)}">«{html_text(short)}»</span>'
                ).replace("|", "&#124;")
    return breakable(code(format_value(observation.value, kind=observation.kind)))


def _analytic(expectation: Expectation) -> str:
    """What the expectation asserts: a value, or for a ``raises`` one the exception's type
    and the stable part of its message, written as the observed side writes an exception."""
    if expectation.raises:
        message = f": «{html_text(expectation.message)}»" if expectation.message else ""
        return code(expectation.raises) + message
    return breakable(code(format_value(expectation.value)))


def _cell(expectation: Expectation, observation: Observation | None, snippet: Snippet,
          lang: str) -> tuple[str, str]:
    """(cell text, state: held, failed, known, missing or stale)."""
    if observation is None:
        return f"<em>{word(lang, 'missing')}</em>", "missing"
    verdict = compare(expectation, observation)
    dtype = f" ({html_text(observation.dtype)})" if observation.dtype else ""
    text = f"{_value(observation)}{dtype}"
    if verdict.rtol or verdict.atol:
        text += (f' <small>rtol {scientific(verdict.rtol, lang)}, '
                 f"atol {scientific(verdict.atol, lang)}</small>")
    if observation.snippet_sha256 != snippet.sha256:
        return f"<strong>{word(lang, 'stale')}</strong> · {text}", "stale"
    if verdict.holds:
        return f"✓ {text}", "held"
    if expectation.known_failure:
        why = html_text(expectation.known_failure)
        return f"⚠ {text} · {word(lang, 'known_failure')}: {why}", "known"
    reason = f": {html_text(verdict.reason)}" if verdict.reason else ""
    return (f'<span class="harness-bad">✗ {text} {word(lang, "expect_fails")}{reason}</span>',
            "failed")


def _stale_message(snippet_id: str, stale: dict[str, list[tuple[str, str]]]) -> list[str]:
    """One message for every build whose observations of the snippet are stale: the
    contributor re-records each build named, once (not one message per build)."""
    if not stale:
        return []
    first = next(iter(stale.values()))[0][0]
    where = "; ".join(f"torch {build}: " + ", ".join(f"{line} ({name})" for line, name in places)
                      for build, places in stale.items())
    builds = " ".join(f"`TORCH=torch=={build.split('+')[0]} make record-examples`"
                      for build in stale)
    return [f"{first}: observation of {snippet_id!r} was recorded from other code in "
            f"{len(stale)} record set(s) ({where}); run `python -m harness record --only "
            f"examples` with each of those builds: {builds} "
            "(CONTRIBUTING, «Adding an example», 6)"]


def _label(record: DeviceRecord) -> str:
    return f"torch {record.torch_build} ({record.device_key})"


def render_observed(*, snippet: Snippet, expectations: list[Expectation],
                    records: list[DeviceRecord], lang: str) -> ObservedBlock:
    """The block of one example: one column per distinct observation across records."""
    columns = [r for r in records if r.observations_of(snippet.id)]
    states: dict[str, list[str]] = {}  # column label → each expectation's state
    stale: dict[str, list[tuple[str, str]]] = {}  # build → its stale (file:line, name)
    merged: dict[tuple[str, ...], list[DeviceRecord]] = {}  # identical columns become one
    for record in columns:
        found = {(o.snippet, o.name): o for o in record.observations_of(snippet.id)}
        column = [_cell(e, found.get((e.snippet, e.name)), snippet, lang) for e in expectations]
        states[_label(record)] = [state for _, state in column]
        merged.setdefault(tuple(t for t, _ in column), []).append(record)
        for e, (_, state) in zip(expectations, column, strict=True):
            if state == "stale":
                stale.setdefault(record.torch_build, []).append(
                    (str(record.observation_lines[(e.snippet, e.name)]), e.name))
    # Sets that observe the examples but not this one (a snippet newer than their record):
    # one column that says so, rather than leaving the build out of sight.
    absent = [r for r in records if r.observations and r not in columns]
    groups = [*merged.values(), *([absent] if absent or not merged else [])]
    # Provenance once per block (issue 28): a lone observed column reads «Observado» (its
    # builds are in the verdict and the fold); only columns that disagree name theirs.
    header = [word(lang, "value"), word(lang, "analytic")] + [
        f"{word(lang, 'observed')} · " + ", ".join(html_text(_label(r)) for r in group)
        if group and len(groups) > 1 else word(lang, "observed") for group in groups]
    missing = f"<em>{word(lang, 'missing')}</em>"
    # The name heads its own line on a phone: it needs no break points either.
    rows = [Row(cells=[Cell(html=code(e.name)), Cell(html=_analytic(e))]
                + [Cell(html=key[index]) for key in merged]
                + ([Cell(html=missing)] if absent or not merged else []))
            for index, e in enumerate(expectations)]
    table = html_table([(h, False) for h in header], rows,
                       css="harness-table harness-observed-values",
                       label=html_text(f"{word(lang, 'observed')} · {snippet.id}"))
    body = [f"**{word(lang, 'derivation')}**", ""]
    for e in expectations:
        text = in_lang(lang, {"es": e.derivation, "en": e.derivation_en})
        # The declared tolerance; each observed cell shows the one it was compared with.
        declared = [f"{name} {scientific(value, lang)}"
                    for name, value in (("rtol", e.rtol), ("atol", e.atol)) if value is not None]
        note = f" ({word(lang, 'tolerance')}: {', '.join(declared)})" if declared else ""
        # An expectation's text is data: escaped, never Markdown or HTML of its own.
        body.append(f"- {code(e.name)}: {cell(text)}{note}")
    body.append("")
    holding = [r for r in columns if all(s == "held" for s in states[_label(r)])]
    if columns:
        listed = ", ".join(cell(_label(r)) for r in holding) or word(lang, "none")
        if len(holding) >= 3:  # a range first, then each build
            listed = f"{cell('torch ' + _builds(holding, lang))} ({listed})"
        body.append(f"{word(lang, 'held_everywhere')}: {listed}.")
        for index, e in enumerate(expectations):
            failed = [label for label, s in states.items() if s[index] == "failed"]
            if failed:
                body.append(f"{code(e.name)} {word(lang, 'failed_value')}: "
                            f"{', '.join(cell(f) for f in failed)}.")
        body.append("")
        for record in columns:
            observed = record.observations_of(snippet.id)
            dates = [o.date for o in observed if o.date]
            env = record.environment_of_runs({o.run_id for o in observed})
            where = env.device_name or env.cpu_model or record.device_key
            threads = word(lang, "thread" if env.threads == 1 else "threads_word")
            # A phone breaks an id after «-»; only a longer run than 30 characters gets
            # break points after «/» and «_» (each <wbr> is an element: Medir's DOM stays
            # under 1,500, issue 28; a snippet name of any length must fit, issue 30).
            longest = max(len(run) for run in re.split(r"[-\s]", snippet.id))
            shown = breakable(code(snippet.id)) if longest > 30 else code(snippet.id)
            body.append(f"- torch {cell(env.torch_build)} · {cell(where)} · {env.threads} "
                        f"{threads} · {cell((max(dates, default='') or env.date)[:10])} · "
                        f"{word(lang, 'snippet')} {shown} "
                        f"{code('sha256:' + snippet.sha256[:12])}")
    else:
        body.append(word(lang, "no_output"))
    if stale:
        body += ["", f"**{word(lang, 'stale_note')}**"]
    kind, title = _heading(expectations, columns, holding, states, stale, lang)
    more = "\n".join(body)
    inner = (f"{table}\n"
             f'<details class="note harness-provenance" markdown="1">\n'
             f"<summary>{word(lang, 'derivation_provenance')}</summary>\n\n{more}\n\n</details>")
    if not columns:  # nothing to fold: a plain warning box
        markdown = (f'<div class="admonition {kind} harness-observed" markdown="1">\n'
                    f'<p class="admonition-title">{html_text(title)}</p>\n{inner}\n</div>\n')
    else:
        markdown = (f'<details class="{kind} harness-observed" open markdown="1">\n'
                    f"<summary>{html_text(title)}</summary>\n{inner}\n</details>\n")
    return ObservedBlock(markdown=markdown, stale=_stale_message(snippet.id, stale))


def _builds(records: list[DeviceRecord], lang: str) -> str:
    """The torch builds of ``records`` as a reader scans them: oldest to newest, and from
    three on as a range with its count («2.6.0+cu124–2.14.1+cu130, 4 versiones»)."""
    builds = sorted(dict.fromkeys(r.torch_build for r in records), key=version_key)
    if len(builds) < 3:
        return ", ".join(builds)
    return f"{builds[0]}–{builds[-1]}, {len(builds)} {word(lang, 'builds_word')}"


def _heading(expectations: list[Expectation], columns: list[DeviceRecord],
             holding: list[DeviceRecord], states: dict[str, list[str]],
             stale: dict[str, list[tuple[str, str]]], lang: str) -> tuple[str, str]:
    """(admonition kind, one-line verdict)."""

    def named(state: str) -> list[str]:  # the expectations in ``state`` in some column
        return sorted({expectations[i].name for values in states.values()
                       for i, s in enumerate(values) if s == state})

    if stale:
        return "warning", word(lang, "verdict_stale")
    if not columns:
        return "warning", f"{word(lang, 'verdict_none')} ({word(lang, 'missing')})"
    if failed := named("failed"):
        failing = [r for r in columns if "failed" in states[_label(r)]]
        where = f" · torch {_builds(failing, lang)}"
        if holding:
            where += f"; {word(lang, 'held_everywhere').lower()} torch {_builds(holding, lang)}"
        return "failure", f"✗ {word(lang, 'verdict_fail')}: {', '.join(failed)}{where}"
    names = ", ".join(e.name for e in expectations)
    builds = _builds(columns, lang)
    if known := named("known"):
        return "warning", f"⚠ {word(lang, 'verdict_known')}: {', '.join(known)} · {builds}"
    if named("missing"):
        return "warning", f"{word(lang, 'verdict_none')}: {names}"
    # In plain words: torch releases and device kinds; builds and processors are folded.
    versions = sorted({".".join(r.torch_build.split("+")[0].split(".")[:2]) for r in columns},
                      key=version_key)
    shown = versions[0] if len(versions) == 1 else f"{versions[0]}–{versions[-1]}"
    kinds = ", ".join(dict.fromkeys(word(lang, r.device_type) for r in columns))
    return "success", f"✓ {word(lang, 'verdict_ok')}: {names} · torch {shown} · {kinds}"


def render_unchecked(entry: Unchecked, lang: str) -> str:
    """The block for a snippet declared to have nothing to derive: the reason, shown."""
    reason = in_lang(lang, {"es": entry.reason, "en": entry.reason_en})
    return f'!!! note harness-observed "{word(lang, "unchecked_title")}"\n\n    {cell(reason)}\n'
