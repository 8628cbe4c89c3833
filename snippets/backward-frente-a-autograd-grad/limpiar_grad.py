import torch

x = torch.tensor(3.0, requires_grad=True)
(x * x).backward()
first = x.grad.clone()

x.grad.zero_()
(x * x).backward()
after_zero = x.grad.clone()

x.grad = None
(x * x).backward()
after_none = x.grad.clone()
print(first, after_zero, after_none)
