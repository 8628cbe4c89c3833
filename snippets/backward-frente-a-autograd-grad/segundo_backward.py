import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward()
try:
    y.backward()
    raised = False
    error_message = ""
except RuntimeError as exc:
    raised = True
    error_message = str(exc)
mentions_second_time = "second time" in error_message
print(raised, x.grad, error_message.split(".")[0])
