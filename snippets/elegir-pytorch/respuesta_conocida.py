import torch

TOLERANCE = 1e-5

matrix = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
rhs = torch.tensor([3.0, 5.0])
solution = torch.linalg.solve(matrix, rhs)
residual = (matrix @ solution - rhs).abs().max().item()
accepted = residual <= TOLERANCE
print(solution, accepted)
