import torch

IN_FEATURES, OUT_FEATURES = 3, 1
BATCH = 2

device = torch.device("cpu")
if hasattr(torch, "accelerator") and torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
has_accelerator = device.type != "cpu"

torch.manual_seed(0)
model = torch.nn.Linear(IN_FEATURES, OUT_FEATURES).to(device)
batch = torch.randn(BATCH, IN_FEATURES)
error = None
try:
    model(batch)
except RuntimeError as exc:
    error = exc
raised_only_with_accelerator = (error is not None) == has_accelerator
print(device, batch.device, repr(error))

output = model(batch.to(device))
output_on_model_device = output.device == model.weight.device
print(output.device, raised_only_with_accelerator, output_on_model_device)
