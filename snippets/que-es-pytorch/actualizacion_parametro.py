import torch

LEARNING_RATE = 0.1

w = torch.tensor([1.0, -2.0], requires_grad=True)
w_before = w.detach().clone()

loss = (w * w).sum()
loss.backward()
unchanged_by_backward = torch.equal(w.detach(), w_before)

with torch.no_grad():
    w -= LEARNING_RATE * w.grad
w_after_step = w.detach().clone()
print(w.grad, unchanged_by_backward, w_after_step)
