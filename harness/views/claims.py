"""A claim's sentence as the page shows it, or the build error that it no longer holds.

The sentence is the contributor's Markdown; what the records fill into ``{value}`` is
escaped like every other record text. ``{value}`` is a list in the page's language
(«`float64` y `float16`»); ``{value|→}`` joins the values with the text after ``|``
(«256→512→512→10»). A power of ten reads ``10⁻³``. No torch import.
"""

from __future__ import annotations

import math

from harness.core.errors import HarnessError, Location
from harness.core.types import TrialSpec
from harness.records.claims import Undecided, evaluate
from harness.records.store import Records
from harness.sources.claims import VALUE, Claim
from harness.text.markdown import cell, code, recorded
from harness.text.numbers import decimal
from harness.text.words import listed, word

__all__ = ["render_claim"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _number(text: str, lang: str) -> str:
    """A setting as prose reads it: ``10⁻³`` for 0.001, ``0,5`` for 0.5, ``512`` for 512."""
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    exponent = math.log10(abs(value)) if value else 0.0
    if value > 0 and exponent.is_integer():
        return "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    return decimal(value, lang)


def _listed(values: tuple[str, ...], lang: str, sep: str | None) -> str:
    numbers = [_number(v, lang) for v in values]
    if sep is not None:
        return cell(sep).join(cell(n) for n in numbers)
    # A speed claim's value names its sizes: «`bfloat16` (256×256, 512×512)».
    shown = [cell(n) if n[:1].isdigit() else
             code(n.partition(" (")[0]) + (f" ({cell(n.partition(' (')[2])}" if " (" in n else "")
             for n in numbers]
    return listed(shown, lang) if shown else word(lang, "claim_none")


def _unread(claim: Claim, lang: str, why: str) -> str:
    """The sentence with ``why`` in place of its values; a sentence without values
    asserts what the records do not show, so ``why`` alone stands in its place."""
    sentence = claim.sentences[lang]
    if VALUE.search(sentence):
        return VALUE.sub(lambda _: f"*{recorded(why)}*", sentence)
    return f"*{recorded(why[:1].upper() + why[1:])}.*"


def render_claim(claim: Claim, records: Records, specs: dict[str, TrialSpec], lang: str,
                 where: Location) -> str:
    """The sentence for ``lang``; raises naming ``where`` (the marker's page line) when
    the records contradict it."""
    try:
        values = evaluate(claim, records, specs)
    except Undecided:
        return _unread(claim, lang, word(lang, "claim_undecided"))
    if values is None:
        return _unread(claim, lang, word(lang, "missing"))
    # A claim without ``expect`` is generated from the records: it always holds.
    if claim.expect is not None and set(values) != set(claim.expect):
        raise HarnessError(
            f"{where}: claim {claim.id!r} ({claim.location}) no longer holds: its sentence "
            f"asserts {claim.predicate} = [{', '.join(claim.expect)}], the records show "
            f"[{', '.join(values)}]. Rewrite the sentence and its expect in "
            f"{claim.location.path}, or fix the records.")
    # The values are marked as recorded; the sentence around them is checked for
    # typed figures like the rest of the page.
    return VALUE.sub(lambda m: recorded(_listed(values, lang, m.group("sep"))),
                     claim.sentences[lang])
