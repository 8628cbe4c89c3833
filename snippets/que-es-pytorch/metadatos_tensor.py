import torch

ROWS = 2
COLUMNS = 3

torch.manual_seed(0)
values = torch.randn(ROWS, COLUMNS)
shape = list(values.shape)
elements = values.numel()
dtype = values.dtype
device = values.device
requires_grad = values.requires_grad
integer_dtype = torch.tensor([1, 2]).dtype
print(shape, elements, dtype, device, requires_grad, integer_dtype)
