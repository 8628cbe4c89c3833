import torch
from torch.utils.benchmark import Timer

SIZE = 64
MIN_RUN_TIME_S = 0.2
TOLERANCE = 1e-4

torch.manual_seed(0)
a = torch.randn(SIZE, SIZE)
b = torch.randn(SIZE, SIZE)
flops_per_call = 2 * SIZE**3

product = a @ b
reference = a.double() @ b.double()
relative_error = ((product.double() - reference).norm() / reference.norm()).item()
quality_pass = relative_error <= TOLERANCE

timer = Timer("a @ b", globals={"a": a, "b": b}, num_threads=1)
measurement = timer.blocked_autorange(min_run_time=MIN_RUN_TIME_S)
calls_per_block = measurement.number_per_run
block_means_s = measurement.times
covers_min_run_time = sum(measurement.raw_times) >= MIN_RUN_TIME_S
gflops = flops_per_call / measurement.median / 1e9
print(flops_per_call, quality_pass, covers_min_run_time)
print(len(block_means_s), "blocks of", calls_per_block, "calls;", f"{gflops:.1f} GFLOP/s")
