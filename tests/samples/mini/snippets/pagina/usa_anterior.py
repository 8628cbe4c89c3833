import torch

doubled = torch.tensor(2.0) * 3
print(doubled)
