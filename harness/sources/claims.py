"""Claims: sentences about the records, declared with the predicate that makes them true.

A page states a fact about what was measured or observed only through a
``<!-- harness:claim id="..." -->`` marker, declared in ``snippets/<page>/claims.toml``
as a ``[[claim]]`` with ``id``, ``predicate``, its arguments, ``es``/``en`` sentences and
optionally ``expect`` (what the sentence asserts the predicate reads: the strict build
fails, naming the page line, when the records say otherwise). Without ``expect`` the
sentence is generated: its ``{value}`` is filled from the records. Standard library only;
the predicates are :mod:`harness.records.claims`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import (
    HarnessError,
    Location,
    parse_toml,
    read_text,
    relative,
    suggest,
    table_entries,
)

__all__ = ["ARGUMENTS", "CLAIMS_FILE", "PREDICATES", "VALUE", "Claim", "load_claims"]

CLAIMS_FILE = "claims.toml"

#: What each argument names (all are required).
ARGUMENTS = {
    "device": "a device type (cpu, cuda…)", "than": "the baseline dtype",
    "trial": "a trial of trials/trials.toml", "group": "a trial group",
    "field": "one of its settings (tolerance, shape, batch…)",
    "task": "inference, training, gradients or compute",
}
#: Each predicate a claim can read (harness/records/claims.py) and its arguments.
PREDICATES: dict[str, tuple[str, ...]] = {
    "example-devices": (),
    "faster-passing": ("device", "than"),
    "faster-failing": ("device", "than"),
    "trial-setting": ("trial", "field"),
    "latency-flat": ("group", "device", "task"),
}
#: The predicate that reads only configuration (trials.toml), never a record: its
#: sentence may not present what it says as something measured or observed.
_CONFIG_ONLY = "trial-setting"
_MEASURED = re.compile(
    r"medici|medid|mide|registr|observ|muestran|measur|recorded|shows?\b",  # codespell:ignore
    re.IGNORECASE)
_KEYS = {"id", "predicate", "expect", "es", "en"}
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: Where a generated sentence takes the records' values: ``{value}`` or ``{value|sep}``.
VALUE = re.compile(r"\{value(?:\|(?P<sep>[^}]*))?\}")


@dataclass(frozen=True, kw_only=True)
class Claim:
    """One declared sentence about the records."""

    id: str
    """ASCII kebab-case, unique within the page."""
    page: str
    """The page slug (the folder under ``snippets/``)."""
    predicate: str
    args: dict[str, str] = field(default_factory=dict)
    expect: tuple[str, ...] | None = None
    """What the sentence asserts the predicate reads; None: the sentence is generated."""
    sentences: dict[str, str] = field(default_factory=dict)
    """The sentence in each language (``es``, ``en``)."""
    location: Location


def _claim(raw: object, page: str, where: Location) -> Claim:
    if not isinstance(raw, dict):
        raise HarnessError(f"{where}: a [[claim]] must be a table")
    predicate = raw.get("predicate")
    if not isinstance(predicate, str) or predicate not in PREDICATES:
        raise HarnessError(f"{where}: predicate {predicate!r} is not one the harness "
                           f"evaluates.{suggest(str(predicate), PREDICATES)}")
    wanted = PREDICATES[predicate]
    for key in raw:
        if key not in _KEYS and key not in wanted:
            raise HarnessError(f"{where}: unknown key {key!r} for predicate {predicate!r}."
                               f"{suggest(key, _KEYS | set(wanted))}")
    for key in wanted:
        if not isinstance(raw.get(key), str):
            raise HarnessError(f"{where}: predicate {predicate!r} needs {key} = \"...\" "
                               f"({ARGUMENTS[key]})")
    claim_id = raw.get("id")
    if not isinstance(claim_id, str) or not _ID.match(claim_id):
        raise HarnessError(f"{where}: id must be ASCII kebab-case text, got {claim_id!r}")
    expect = raw.get("expect")
    if expect is not None and (not isinstance(expect, list)
                               or not all(isinstance(v, str) for v in expect)):
        raise HarnessError(f"{where}: expect must be a list of strings, got {expect!r}")
    for lang in ("es", "en"):
        text = raw.get(lang)
        if not isinstance(text, str) or not text.strip():
            raise HarnessError(f"{where}: the claim needs its sentence in {lang!r}")
        if expect is None and not VALUE.search(text):
            raise HarnessError(f"{where}: a claim without expect is generated from the "
                               f"records: its {lang!r} sentence must hold {{value}}")
        if predicate == _CONFIG_ONLY and (said := _MEASURED.search(text)):
            readers = ", ".join(p for p in PREDICATES if p != _CONFIG_ONLY)
            raise HarnessError(f"{where}: predicate {predicate!r} reads the trials' "
                               f"configuration, not a record: its {lang!r} sentence cannot "
                               f"say it was measured ({said[0]!r}); use a predicate that "
                               f"reads the records ({readers})")
    return Claim(id=claim_id, page=page, predicate=predicate,
                 args={k: raw[k] for k in wanted},
                 expect=tuple(expect) if expect is not None else None,
                 sentences={lang: raw[lang].strip() for lang in ("es", "en")}, location=where)


def load_claims(snippets_dir: Path, *, root: Path) -> dict[tuple[str, str], Claim]:
    """Every page's claims, keyed by (page slug, claim id)."""
    found: dict[tuple[str, str], Claim] = {}
    for path in sorted(snippets_dir.glob(f"*/{CLAIMS_FILE}")):
        shown = relative(path, root)
        text = read_text(path, shown)
        data = parse_toml(text, shown)
        if set(data) - {"claim"}:
            raise HarnessError(f"{shown}:1: only [[claim]] tables are allowed here")
        for raw, where in table_entries(text, data, "claim", shown):
            claim = _claim(raw, path.parent.name, where)
            if (claim.page, claim.id) in found:
                raise HarnessError(f"{where}: a second claim with id {claim.id!r}; ids are "
                                   f"unique within a page (first at "
                                   f"{found[(claim.page, claim.id)].location})")
            found[(claim.page, claim.id)] = claim
    return found
