"""What every measurement view shares: the per-render
context (records, specs, language, stale rows seen), and the cells made from
one record row. No torch import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.core.rows import TrialRow
from harness.core.types import TrialSpec
from harness.records.store import DeviceRecord, Records
from harness.sources.trials import spec_sha256
from harness.text.markdown import cell
from harness.text.record_words import memory_method_text
from harness.text.words import word

__all__ = ["Context", "row_environment", "threads_text"]


@dataclass(kw_only=True)
class Context:
    """One marker's render: its inputs, and the stale rows it has shown so far.

    Not frozen on purpose: :meth:`is_stale` is asked of every row a view shows, and the
    context collects the warning of each stale one for the build to report.
    """

    records: Records
    specs: dict[str, TrialSpec]
    lang: str
    sources: dict[str, str]
    """Workload sources (``trials.workload_sources``), read once per render."""
    stale: dict[str, None] = field(default_factory=dict)
    """Stale messages in the order met (a dict keeps order and drops repeats)."""

    def is_stale(self, row: TrialRow) -> bool:
        """Whether ``row`` was recorded for another definition of its trial; a stale row
        shown on the page is remembered with the command that records it again."""
        spec = self.specs[row.trial]
        current = spec_sha256(spec, sources=self.sources)
        if row.spec_sha256 == current:
            return False
        self.stale.setdefault(
            f"{row.location}: row of trial {row.trial!r} was recorded for another definition "
            f"of the trial (spec_sha256 {row.spec_sha256[:12] or '(empty)'}, "
            f"now {current[:12]}; "
            f"see {spec.location} and trials/workloads.py); run `python -m harness record "
            f"--device {row.device.split('-', 1)[0]} --trials {row.trial}`", None)
        return True

    def stale_note(self, row: TrialRow) -> str:
        return f"**{word(self.lang, 'stale')}** · " if self.is_stale(row) else ""

    def stale_messages(self) -> list[str]:
        return list(self.stale)

    def group_rows(self, record: DeviceRecord, group: str) -> list[TrialRow]:
        return [r for r in record.rows if self.specs[r.trial].group == group]


def threads_text(counts: list[int], lang: str) -> str:
    """Thread counts in words: «1 hilo», «1 o 2 hilos», «1, 2 o 4 hilos» (never «1/2»,
    which reads as a fraction)."""
    shown = [str(n) for n in sorted(set(counts))] or ["1"]
    listed = (shown[0] if len(shown) == 1
              else f"{', '.join(shown[:-1])} {word(lang, 'threads_or')} {shown[-1]}")
    return f"{listed} {word(lang, 'thread' if shown == ['1'] else 'threads_word')}"


def row_environment(record: DeviceRecord, rows: list[TrialRow], lang: str, *,
                    html: bool = False) -> str:
    """Short environment: device, threads, torch build, date (and memory method)."""
    env = record.environment_of_runs({r.run_id for r in rows})
    threads = [int(r.threads) for r in rows] or [env.threads if env else 1]
    name = (env.device_name if env else "") or record.device_key
    date = env.date[:10] if env else ""
    methods = sorted({memory_method_text(r.memory_method, lang) for r in rows if r.memory_method})
    parts = [name, threads_text(threads, lang), f"torch {record.torch_build}", date]
    if methods:
        parts.append(f"{word(lang, 'memory_method')}: {'; '.join(methods)}")
    text = " · ".join(p for p in parts if p)
    return text if html else cell(text)
