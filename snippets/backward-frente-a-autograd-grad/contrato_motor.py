import ast
import inspect
import textwrap

import torch


def passes_accumulate_grad(function, expected):
    """Whether a call in ``function``'s source passes ``accumulate_grad=<expected>``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return any(
        keyword.arg == "accumulate_grad"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is expected
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
    )


grad_passes_false = passes_accumulate_grad(torch.autograd.grad, False)
backward_passes_true = passes_accumulate_grad(torch.autograd.backward, True)
version = torch.__version__
print(version, grad_passes_false, backward_passes_true)
