import torch

ROWS = 2
COLUMNS = 3

torch.manual_seed(0)
values = torch.randn(ROWS, COLUMNS)
shape = list(values.shape)
elements = values.numel()
dtype = values.dtype
device = values.device
is_leaf = values.is_leaf
requires_grad = values.requires_grad
integer_dtype = torch.tensor([1, 2]).dtype
print(shape, elements, dtype, device, is_leaf, requires_grad, integer_dtype)
