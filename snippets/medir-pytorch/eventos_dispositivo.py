import time

import torch

SIZE = 256
CALLS = 10

torch.manual_seed(0)
if hasattr(torch, "accelerator") and torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
a = torch.randn(SIZE, SIZE, device=device)

if device.type == "cpu":
    # On a CPU each call has finished when it returns: the host clock is the right one.
    start_s = time.perf_counter()
    for _ in range(CALLS):
        a @ a
    elapsed_ms = (time.perf_counter() - start_s) * 1e3
    clock = "time.perf_counter"
else:
    # On an accelerator the calls are queued; events are recorded in the same queue and
    # timed on the device, so the time between them is the work's, not the host's.
    start = torch.Event(device=device, enable_timing=True)
    end = torch.Event(device=device, enable_timing=True)
    start.record()
    for _ in range(CALLS):
        a @ a
    end.record()
    end.synchronize()
    elapsed_ms = start.elapsed_time(end)
    clock = "torch.Event"

measured = elapsed_ms > 0
right_clock = (clock == "torch.Event") == (device.type != "cpu")
print(device, clock, f"{elapsed_ms:.3f} ms for {CALLS} calls")
