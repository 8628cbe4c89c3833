import torch

LEARNING_RATE = 0.1

w = torch.tensor([1.0, -2.0], requires_grad=True)
(w * w).sum().backward()
first_grad = w.grad.clone()
with torch.no_grad():
    w -= LEARNING_RATE * w.grad

w.grad.zero_()
(w * w).sum().backward()
second_grad = w.grad.clone()
with torch.no_grad():
    w -= LEARNING_RATE * w.grad
w_after_two_steps = w.detach().clone()

v = torch.tensor([1.0, -2.0], requires_grad=True)
optimizer = torch.optim.SGD([v], lr=LEARNING_RATE)
for _ in range(2):
    optimizer.zero_grad()
    (v * v).sum().backward()
    optimizer.step()
same_as_sgd = torch.allclose(v.detach(), w_after_two_steps)
print(first_grad, second_grad, w_after_two_steps, same_as_sgd)
