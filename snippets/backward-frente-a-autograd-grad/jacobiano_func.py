import torch
from torch.func import jacrev, vmap

POINTS = 3

matrix = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def linear(x):
    return matrix @ x


x = torch.tensor([1.0, -1.0, 2.0])
jacobian = jacrev(linear)(x)

torch.manual_seed(0)
points = torch.randn(POINTS, matrix.shape[1])
outputs = vmap(linear)(points)
matches_rows = torch.allclose(outputs, points @ matrix.T)
jacobians = vmap(jacrev(linear))(points)
jacobians_shape = list(jacobians.shape)
same_jacobian_everywhere = all(torch.equal(j, matrix) for j in jacobians)
print(jacobian, x.requires_grad)
print(jacobians_shape, matches_rows, same_jacobian_everywhere)
