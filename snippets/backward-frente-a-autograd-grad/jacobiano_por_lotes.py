import torch

OUTPUTS = 2

matrix = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
y = matrix @ x
basis = torch.eye(OUTPUTS)
(jacobian,) = torch.autograd.grad(y, x, grad_outputs=basis, is_grads_batched=True)
print(y, jacobian, x.grad)
