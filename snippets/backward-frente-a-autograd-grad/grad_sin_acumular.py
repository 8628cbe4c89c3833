import torch

x = torch.tensor(3.0, requires_grad=True)
(g,) = torch.autograd.grad(x*x, x)
print(g, x.grad)
