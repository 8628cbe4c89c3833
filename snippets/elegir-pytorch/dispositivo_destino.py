import torch

DTYPES = (torch.float32, torch.float64)

has_accelerator_api = hasattr(torch, "accelerator")
device = torch.device("cpu")
if has_accelerator_api and torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()

supported = {}
for dtype in DTYPES:
    try:
        torch.zeros(1, dtype=dtype, device=device)
        supported[dtype] = True
    except (RuntimeError, TypeError):
        supported[dtype] = False
float32_supported = supported[torch.float32]
float64_as_expected = supported[torch.float64] == (device.type != "mps")
print(device, {str(dtype): ok for dtype, ok in supported.items()})
print(has_accelerator_api, float32_supported, float64_as_expected)
