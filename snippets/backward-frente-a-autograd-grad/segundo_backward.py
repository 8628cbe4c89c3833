import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
node = y.grad_fn.name()
y.backward()
error = None
try:
    y.backward()
except RuntimeError as exc:
    error = exc
print(node, x.grad)
print(type(error).__name__, error)
