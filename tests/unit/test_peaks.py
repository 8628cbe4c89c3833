"""Theoretical peaks from real ``/proc/cpuinfo`` samples: the microarchitecture is
identified by vendor, family and model (not vendor or ISA flags), the clock is the
OS's maximum (cpufreq) or there is no peak, and a view shows a stored fraction only
when its record passes the rule. No torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import ROOT, SAMPLES

from harness.core.peak_rule import peak_gaps
from harness.core.rows import TrialRow
from harness.core.types import Environment, TrialSpec
from harness.records.store import load_all
from harness.run.peaks import (
    MICROARCHITECTURES,
    cpu_id,
    cpu_peak,
    gpu_peak,
    own_cores,
    parse_cpuinfo,
)
from harness.views.measured import compact_cells

CPUINFO = SAMPLES / "cpuinfo"


def cpufreq(root: Path, *, khz: int | None, driver: str = "", boost: str | None = None) -> Path:
    """A ``/sys/devices/system/cpu`` folder with cpu0's cpufreq files as given."""
    folder = root / "cpu0" / "cpufreq"
    folder.mkdir(parents=True)
    if khz is not None:
        (folder / "cpuinfo_max_freq").write_text(f"{khz}\n")
    if driver:
        (folder / "scaling_driver").write_text(f"{driver}\n")
    if boost is not None:
        (root / "cpufreq").mkdir()
        (root / "cpufreq" / "boost").write_text(boost)
    return root


@pytest.mark.parametrize(
    ("sample", "identity", "name", "float32", "bfloat16"),
    [
        ("zen4-epyc-9654.txt", "AuthenticAMD family 25 model 0x11", "zen4", 32, 64),
        ("zen5-epyc-vm.txt", "AuthenticAMD family 26 model 0x02", "zen5", 64, 128),
        ("sapphirerapids-xeon-8488c.txt", "GenuineIntel family 6 model 0x8f", "sapphirerapids",
         64, 1024),
        ("neoverse-n1-graviton2.txt", "ARM implementer 0x41 part 0xd0c", "neoverse_n1", 16, 16),
        ("neoverse-v1-graviton3.txt", "ARM implementer 0x41 part 0xd40", "neoverse_v1", 32,
         None),
    ],
)
def test_each_sample_is_identified_and_its_peak_is_clock_times_its_table(
        tmp_path: Path, sample: str, identity: str, name: str, float32: float,
        bfloat16: float | None) -> None:
    text = (CPUINFO / sample).read_text(encoding="utf-8")
    assert cpu_id(parse_cpuinfo(text)) == identity
    found = cpu_peak(cpuinfo=text, sys_cpu=cpufreq(tmp_path, khz=3_700_000, driver="amd-pstate"))
    assert (found.microarchitecture, found.max_clock_hz) == (name, 3.7e9)
    assert found.peak["float32"] == pytest.approx(3.7e9 * float32)
    assert found.peak["float64"] == pytest.approx(3.7e9 * float32 / 2)
    assert found.peak.get("bfloat16") == (pytest.approx(3.7e9 * bfloat16) if bfloat16 else None)
    assert name in found.source and "3.70 GHz" in found.source


def test_zen5_is_not_zen4_although_both_report_avx512() -> None:
    flags = {f: set(parse_cpuinfo((CPUINFO / f).read_text())["flags"].split())
             for f in ("zen4-epyc-9654.txt", "zen5-epyc-vm.txt")}
    assert all({"avx512f", "avx512_bf16"} <= f for f in flags.values())
    # The same flags, twice the FLOP per cycle: the table is keyed on family and model.
    zen4, zen5 = (next(m for m in MICROARCHITECTURES if m.name == n) for n in ("zen4", "zen5"))
    assert zen5.flop_per_cycle["float32"] == 2 * zen4.flop_per_cycle["float32"]


def test_the_nominal_clock_of_cpuinfo_is_never_a_peak(tmp_path: Path) -> None:
    # The Zen 5 VM shows "cpu MHz: 2600" and has no cpufreq: no peak, and both reasons kept.
    text = (CPUINFO / "zen5-epyc-vm.txt").read_text()
    found = cpu_peak(cpuinfo=text, sys_cpu=tmp_path)
    assert found.peak == {} and found.microarchitecture == "zen5"
    assert found.source == "no theoretical peak: no cpufreq cpuinfo_max_freq"


@pytest.mark.parametrize(
    ("driver", "boost", "trusted"),
    [("intel_pstate", None, True), ("amd-pstate-epp", None, True), ("cppc_cpufreq", None, True),
     ("acpi-cpufreq", "1\n", False), ("acpi-cpufreq", None, False), ("acpi-cpufreq", "0\n", True)],
)
def test_only_a_maximum_that_includes_boost_is_trusted(tmp_path: Path, driver: str,
                                                        boost: str | None, trusted: bool) -> None:
    text = (CPUINFO / "zen4-epyc-9654.txt").read_text()
    found = cpu_peak(cpuinfo=text, sys_cpu=cpufreq(tmp_path, khz=2_400_000, driver=driver,
                                                   boost=boost))
    assert bool(found.peak) is trusted
    assert found.max_clock_source.startswith("cpufreq") is trusted
    if not trusted:
        assert f"cpufreq driver {driver} may hide boost clocks" in found.source


def test_a_core_outside_the_table_has_no_peak_even_with_amx(tmp_path: Path) -> None:
    # This project's own VM: Intel with AMX flags, but a model number (167) the table
    # does not know, so its FLOP per cycle is not guessed from the flags.
    text = (CPUINFO / "intel-family6-model167-vm.txt").read_text()
    assert "amx_bf16" in parse_cpuinfo(text)["flags"]
    found = cpu_peak(cpuinfo=text, sys_cpu=cpufreq(tmp_path, khz=3_000_000,
                                                   driver="intel_pstate"))
    assert found.peak == {} and found.microarchitecture == ""
    assert found.cpu_id == "GenuineIntel family 6 model 0xa7"
    assert "microarchitecture without table (GenuineIntel family 6 model 0xa7)" in found.source


@pytest.mark.parametrize(
    ("sample", "own"),
    [("zen4-epyc-9654.txt", False),             # bare metal, 192 siblings on 96 cores (SMT)
     ("zen5-epyc-vm.txt", False),               # a VM: its vCPUs may share host cores
     ("sapphirerapids-xeon-8488c.txt", False),  # a VM with 4 siblings on 2 cores
     ("neoverse-n1-graviton2.txt", True)],      # Neoverse has no SMT
)
def test_multi_thread_peaks_need_threads_on_cores_of_their_own(sample: str, own: bool) -> None:
    info = parse_cpuinfo((CPUINFO / sample).read_text())
    assert own_cores(info) is own
    no_smt = {**info, "flags": info["flags"].replace(" hypervisor", "")} if "flags" in info else info
    if sample == "zen5-epyc-vm.txt":  # the same cores on bare metal: 2 siblings, 2 cores
        assert own_cores(no_smt) is True


def test_every_table_entry_cites_its_source_and_covers_float32_and_float64() -> None:
    names = [m.name for m in MICROARCHITECTURES]
    assert len(names) == len(set(names))
    for entry in MICROARCHITECTURES:
        assert ("Guide" in entry.source or "Manual" in entry.source), entry.name
        assert {"float32", "float64"} <= set(entry.flop_per_cycle), entry.name
        assert entry.flop_per_cycle["float64"] * 2 == entry.flop_per_cycle["float32"]


def cpu_env(**fields: object) -> Environment:
    return Environment(torch_build="x", device_key="cpu", device_name="c",
                       peak={"float32": 1e11}, **fields)  # type: ignore[arg-type]


def test_the_rule_needs_a_known_microarchitecture_and_an_os_clock() -> None:
    known = {"cpu_id": "AuthenticAMD family 26 model 0x02", "microarchitecture": "zen5",
             "max_clock_hz": 4.2e9, "max_clock_source": "cpufreq cpuinfo_max_freq (amd-pstate)"}
    assert peak_gaps(cpu_env(**known)) == ()
    assert peak_gaps(cpu_env()) == ("unidentified", "no-os-clock")   # a record from before
    assert peak_gaps(cpu_env(**{**known, "microarchitecture": ""})) == ("no-table",)
    assert peak_gaps(cpu_env(**{**known, "max_clock_source": ""})) == ("no-os-clock",)
    assert peak_gaps(cpu_env(**known), threads=2) == ("shared-cores",)
    assert peak_gaps(cpu_env(**known, own_cores=True), threads=2) == ()
    gpu = Environment(torch_build="x", device_key="cuda-nvidia-h200", device_name="NVIDIA H200")
    assert peak_gaps(gpu) == ("no-spec",)
    assert peak_gaps(Environment(torch_build="x", device_key="cuda-nvidia-h200",
                                 device_name="NVIDIA H200", peak={"float32": 6.7e13})) == ()


def test_gpu_datasheets_match_whole_words_variants_first() -> None:
    assert gpu_peak("NVIDIA H200")[0]["bfloat16"] == 989e12
    assert gpu_peak("NVIDIA H200 NVL")[0]["bfloat16"] == 835e12
    assert gpu_peak("NVIDIA H100 PCIe")[0]["bfloat16"] == 756e12
    assert gpu_peak("NVIDIA A100-SXM4-80GB")[0]["float32"] == 19.5e12
    assert gpu_peak("NVIDIA GH100X")[0] == {}


def test_committed_cpu_records_show_peak_unknown_and_the_gpu_keeps_its_fraction() -> None:
    records = load_all(ROOT / "results", root=ROOT)
    spec = TrialSpec(name="m", workload="matmul", task="compute", dtype="float32",
                     shape=(1024, 1024))
    seen = {"cpu": 0, "cuda": 0}
    for record in records.items:
        for row in record.rows:
            if row.throughput_unit != "FLOP/s" or row.error:
                continue
            env = record.environments[row.run_id]
            cell = compact_cells(row, spec, env, "es", stale=False)[2].html
            if record.device_type == "cpu":
                assert cell == "pico desconocido", (record.torch_build, row.trial, cell)
            elif row.peak_fraction is not None:
                assert cell.rstrip().endswith("%"), (row.trial, cell)
            seen[record.device_type] += 1
    assert seen["cpu"] and seen["cuda"]


def test_an_old_record_without_the_new_fields_still_reads(tmp_path: Path) -> None:
    # The H200 set was recorded before these fields existed (and cannot be re-recorded here).
    raw = json.loads((ROOT / "results" / "2.11.0+cu130" / "cuda-nvidia-h200.env.json").read_text())
    assert not {"cpu_id", "microarchitecture", "max_clock_source"} & set(
        next(iter(raw["runs"].values())))
    row = TrialRow(trial="m", torch_build="x", device="cpu", dtype="float32", shape="4x4",
                   batch=1, task="compute", threads=1, tolerance=1e-3, spec_sha256="ab",
                   synchronized=True, run_id="r", latency=1.0, throughput=5e10,
                   throughput_unit="FLOP/s", peak_fraction=0.5, quality_pass=True)
    spec = TrialSpec(name="m", workload="matmul", task="compute", dtype="float32", shape=(4, 4))
    cells = compact_cells(row, spec, cpu_env(), "en", stale=False)
    assert cells[2].html == "peak unknown"
