import torch
from torch.utils.benchmark import Timer

SIZE = 64
REPEATS = 20
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
measurement = timer.timeit(REPEATS)
runs_per_sample = measurement.number_per_run
gflops = flops_per_call / measurement.median / 1e9
print(flops_per_call, quality_pass, runs_per_sample, f"{gflops:.1f} GFLOP/s")
