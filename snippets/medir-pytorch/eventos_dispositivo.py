import time

import torch

SIZE = 256
CALLS = 10

torch.manual_seed(0)
accelerated = hasattr(torch, "accelerator") and torch.accelerator.is_available()
device = torch.accelerator.current_accelerator() if accelerated else torch.device("cpu")
a = torch.randn(SIZE, SIZE, device=device)
# Calentamiento: la primera llamada carga bibliotecas y elige kernels; ese
# trabajo no se repite, así que queda fuera de las diez llamadas cronometradas.
a @ a
if accelerated:  # trabajo encolado: eventos en la misma cola, medidos en el dispositivo
    torch.accelerator.synchronize()  # que el calentamiento no entre en la medida
    start, end = (torch.Event(device=device, enable_timing=True) for _ in range(2))
    start.record()
    for _ in range(CALLS):
        a @ a
    end.record()
    end.synchronize()
    elapsed_ms, clock = start.elapsed_time(end), "torch.Event"
else:  # en la CPU cada llamada ha terminado al volver: basta el reloj del host
    start_s = time.perf_counter()
    for _ in range(CALLS):
        a @ a
    elapsed_ms, clock = (time.perf_counter() - start_s) * 1e3, "time.perf_counter"
measured = elapsed_ms > 0
right_clock = (clock == "torch.Event") == accelerated
print(device, clock, f"{elapsed_ms:.3f} ms for {CALLS} calls")
