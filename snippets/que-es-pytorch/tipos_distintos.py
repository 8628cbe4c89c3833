import torch

SIZE = 2

single = torch.ones(SIZE, SIZE)
double = torch.ones(SIZE, SIZE, dtype=torch.float64)
error = None
try:
    product = single @ double
except RuntimeError as exc:
    error = exc
print(type(error).__name__, error)

product = single.to(double.dtype) @ double
print(product.dtype, product)
