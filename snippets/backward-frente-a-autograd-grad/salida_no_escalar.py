import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
error = None
try:
    y.backward()
except RuntimeError as exc:
    error = exc
print(type(error).__name__, error)

y.backward(gradient=torch.ones_like(y))
print(x.grad)
