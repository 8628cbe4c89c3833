import warnings

import torch

x = torch.tensor(3.0, requires_grad=True)
h = x * x
(2 * h).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    h_grad = h.grad
warned = any("not a leaf" in str(w.message) for w in caught)
print(h.is_leaf, h_grad, warned)

x.grad = None
h = x * x
h.retain_grad()
(2 * h).backward()
print(h.grad, x.grad)
