"""When a fraction of peak may be published: the one rule, applied to a record's
environment. Standard library only.

A fraction of peak means something only if the peak is right for the machine. On a CPU
the record must carry its microarchitecture (vendor, family and model, found in the
FLOP-per-cycle table of ``harness/run/peaks.py``) and the maximum clock the operating
system reports (cpufreq): ``/proc/cpuinfo``'s nominal clock is not enough (a Zen 5 core
shown at 2.60 GHz runs at about 4.2). An accelerator's peak comes from its datasheet.
The rule reads only the record: records made before these fields read «pico
desconocido», whatever peak they stored.
"""

from __future__ import annotations

from typing import Literal

from harness.core.types import Environment

__all__ = ["PeakGap", "peak_gaps", "trusted_clock"]

#: Why no fraction is published. ``unidentified``: the record does not say which CPU
#: it ran on (made before the rule); ``no-table``: the microarchitecture has no entry
#: in the FLOP-per-cycle table; ``no-os-clock``: the operating system reported no
#: maximum clock the harness trusts; ``no-spec``: no datasheet for the accelerator;
#: ``shared-cores``: a row's threads may share a core (SMT, or a VM's vCPUs), so
#: threads × a core's peak is not what they could reach together.
PeakGap = Literal["unidentified", "no-table", "no-os-clock", "no-spec", "shared-cores"]

#: cpufreq drivers whose ``cpuinfo_max_freq`` includes boost (turbo) clocks. Others,
#: acpi-cpufreq above all, report the highest nominal P-state while boost runs above
#: it, so their maximum bounds nothing unless boost is off.
_BOOST_AWARE = frozenset({"intel_pstate", "intel_cpufreq", "amd-pstate", "amd-pstate-epp",
                          "amd-pstate-passive", "amd-pstate-guided", "cppc_cpufreq"})


def trusted_clock(*, driver: str, boost: str | None) -> bool:
    """Whether a cpufreq maximum bounds the clock: a boost-aware ``driver``, or any
    driver with boost switched off (``boost`` is the content of cpufreq's ``boost``
    file, ``None`` when there is none)."""
    return driver in _BOOST_AWARE or (boost is not None and boost.strip() == "0")


def peak_gaps(env: Environment, *, threads: int = 1) -> tuple[PeakGap, ...]:
    """Why ``env``'s fractions of peak cannot be published for a row with ``threads``
    threads; empty when they can."""
    if env.device_key.split("-", 1)[0] != "cpu":
        return () if env.peak else ("no-spec",)
    gaps: list[PeakGap] = []
    if not env.cpu_id:
        gaps.append("unidentified")
    elif not env.microarchitecture:
        gaps.append("no-table")
    if not (env.max_clock_hz > 0 and env.max_clock_source.startswith("cpufreq")):
        gaps.append("no-os-clock")
    if not gaps and not env.peak:
        gaps.append("no-table")
    if threads > 1 and not env.own_cores:
        gaps.append("shared-cores")
    return tuple(gaps)
