import inspect

import torch

grad_source = inspect.getsource(torch.autograd.grad)
backward_source = inspect.getsource(torch.autograd.backward)
grad_passes_false = "accumulate_grad=False" in grad_source
backward_passes_true = "accumulate_grad=True" in backward_source
version = torch.__version__
print(version, grad_passes_false, backward_passes_true)
