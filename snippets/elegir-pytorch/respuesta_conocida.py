import torch

TOLERANCE = 1e-5
KNOWN_SOLUTION = [0.8, 1.4]

matrix = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
rhs = torch.tensor([3.0, 5.0])
solution = torch.linalg.solve(matrix, rhs)
residual = (matrix @ solution - rhs).abs().max().item()
distance = (solution - torch.tensor(KNOWN_SOLUTION)).abs().max().item()
residual_ok = residual <= TOLERANCE
matches_known = distance <= TOLERANCE
accepted = residual_ok and matches_known
print(solution, residual_ok, matches_known, accepted)
