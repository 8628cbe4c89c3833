import torch

x = torch.tensor(3.0, requires_grad=True)
y = x + 1
node = y.grad_fn.name()
y.backward()
y.backward()
print(node, x.grad)
