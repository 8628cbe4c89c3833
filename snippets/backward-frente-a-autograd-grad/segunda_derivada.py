import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3
(first,) = torch.autograd.grad(y, x, create_graph=True)
(second,) = torch.autograd.grad(first, x)
first_is_differentiable = first.requires_grad
print(first, second, x.grad)
