import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward(retain_graph=True)
after_first_backward = x.grad.clone()
y.backward()
after_second_backward = x.grad.clone()

t = torch.tensor(3.0, requires_grad=True)
u = t * t
(first_grad,) = torch.autograd.grad(u, t, retain_graph=True)
(second_grad,) = torch.autograd.grad(u, t)
print(after_first_backward, after_second_backward, first_grad, second_grad, t.grad)
