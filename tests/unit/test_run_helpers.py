"""Pure helpers with no torch: theoretical peaks and the peak fraction's bound."""

from __future__ import annotations

import pytest

from harness.core.types import Environment
from harness.run.peaks import bounded_fraction, gpu_peak, peak_for

# FLOP per cycle by microarchitecture is tested in tests/unit/test_peaks.py.


def test_gpu_peaks_come_from_the_datasheet_table_and_name_the_gap() -> None:
    peak, source = gpu_peak("NVIDIA H200")
    assert peak["bfloat16"] == 989e12 and "H200" in source
    assert gpu_peak("NVIDIA H100 PCIe")[0]["bfloat16"] == 756e12   # PCIe before SXM
    assert gpu_peak("Mystery GPU") == ({}, "no specification known for 'Mystery GPU'; add it "
                                           "to GPU_SPECS in harness/run/peaks.py")


def test_a_cpu_peak_is_per_core_and_scales_with_the_rows_threads() -> None:
    cpu = Environment(torch_build="x", device_key="cpu", device_name="c", peak={"float32": 1e11},
                      own_cores=True)
    gpu = Environment(torch_build="x", device_key="cuda-h200", device_name="g",
                      peak={"float32": 6.7e13})
    assert peak_for(cpu, "float32", 1) == 1e11 and peak_for(cpu, "float32", 2) == 2e11
    assert peak_for(gpu, "float32", 4) == 6.7e13
    assert peak_for(cpu, "float16", 1) is None
    # Threads that may share a core (SMT, a VM's vCPUs) have no peak of threads × a core's.
    shared = Environment(torch_build="x", device_key="cpu", device_name="c",
                         peak={"float32": 1e11})
    assert peak_for(shared, "float32", 1) == 1e11 and peak_for(shared, "float32", 2) is None


@pytest.mark.parametrize(
    ("throughput", "peak", "expected"),
    [(5e10, 1e11, 0.5), (1e11, 1e11, 1.0), (1.07e11, 1e11, None), (5e10, None, None),
     (5e10, 0.0, None)],
)
def test_a_fraction_of_peak_never_exceeds_one(throughput: float, peak: float | None,
                                               expected: float | None) -> None:
    assert bounded_fraction(throughput, peak) == expected
