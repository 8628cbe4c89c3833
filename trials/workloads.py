"""The work this site's trials measure (content of the site, beside trials.toml; the
harness loads it by path). torch is imported inside each function.

A workload is a public module-level function taking exactly the keyword-only
arguments ``spec`` and ``device`` (``harness.sources.trials`` finds them by that
signature, in this file's text). It builds its inputs (the "load" the timer
keeps apart) and returns a :class:`~harness.core.types.Work`: the callable the
steady-state timer repeats, a quality check against a reference computed in
``spec.reference_dtype``, and the FLOP or items one call completes.

Editing any function here changes the hash of the trials that reach it, and
their old rows become stale: keep unrelated edits out of workload bodies.
"""

from __future__ import annotations

import copy
from typing import Any

from harness.core.types import TrialSpec, Work

__all__ = [
    "autograd_backward",
    "autograd_grad",
    "matmul",
    "mlp_inference",
    "mlp_training",
]


def _dtype(name: str) -> Any:
    import torch

    return getattr(torch, name)


def _reference_device(device: Any) -> Any:
    import torch

    # MPS has no float64: its references are computed on the CPU.
    return torch.device("cpu") if device.type == "mps" else device


def _relative_error(result: Any, reference: Any) -> float:
    """‖result − reference‖ / ‖reference‖ (Frobenius), computed in the reference's dtype."""
    result = result.detach().to(device=reference.device, dtype=reference.dtype)
    scale = float(reference.norm().item())
    difference = float((result - reference).norm().item())
    return difference / scale if scale else difference


def _matmul_inputs(spec: TrialSpec) -> tuple[Any, Any]:
    """A (m×k) and B (k×m), drawn in float32 from the trial's seed."""
    import torch

    m, k = spec.shape
    generator = torch.Generator().manual_seed(int(spec.params.get("seed", 0)))
    return torch.randn(m, k, generator=generator), torch.randn(k, m, generator=generator)


def matmul(*, spec: TrialSpec, device: Any) -> Work:
    """``A @ B`` with A of ``spec.shape`` (m×k) and B of k×m; 2·m·k·m FLOP per call."""
    import torch

    m, k = spec.shape
    # Drawn in float32 and then cast, so every dtype multiplies the same matrices;
    # the reference redraws them (not kept: they would count in the trial's memory)
    # and sees them before any rounding to spec.dtype.
    a32, b32 = _matmul_inputs(spec)
    a = a32.to(device=device, dtype=_dtype(spec.dtype))
    b = b32.to(device=device, dtype=_dtype(spec.dtype))
    del a32, b32
    # A preallocated output keeps the allocator out of the steady state.
    out = torch.empty(m, m, device=device, dtype=a.dtype)

    def step() -> object:
        return torch.matmul(a, b, out=out)

    def error() -> float:
        where, dtype = _reference_device(device), _dtype(spec.reference_dtype)
        a_ref, b_ref = (t.to(where, dtype) for t in _matmul_inputs(spec))
        return _relative_error(torch.matmul(a, b), a_ref @ b_ref)

    return Work(step=step, error=error, flops=2.0 * m * k * m)


def _mlp(spec: TrialSpec, dtype: Any, device: Any) -> tuple[Any, Any, Any]:
    """The MLP of widths ``spec.shape``, its input batch and its targets, seeded."""
    import torch

    torch.manual_seed(int(spec.params.get("seed", 0)))
    widths = spec.shape
    layers: list[Any] = []
    for inner, outer in zip(widths[:-1], widths[1:], strict=True):
        layers += [torch.nn.Linear(inner, outer), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1]).to(device=device, dtype=dtype)
    inputs = torch.randn(spec.batch, widths[0]).to(device=device, dtype=dtype)
    targets = torch.randint(0, widths[-1], (spec.batch,)).to(device)
    return model, inputs, targets


def mlp_inference(*, spec: TrialSpec, device: Any) -> Work:
    """One forward pass without autograd; ``spec.batch`` samples per call."""
    import torch

    model, inputs, _ = _mlp(spec, _dtype(spec.dtype), device)
    model.eval()

    def step() -> object:
        with torch.inference_mode():
            return model(inputs)

    def error() -> float:
        where, dtype = _reference_device(device), _dtype(spec.reference_dtype)
        reference = copy.deepcopy(model).to(where, dtype)
        with torch.inference_mode():
            return _relative_error(model(inputs), reference(inputs.to(where, dtype)))

    return Work(step=step, error=error, items=spec.batch)


def _gradients(model: Any, inputs: Any, targets: Any) -> Any:
    import torch

    model.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(model(inputs), targets).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def mlp_training(*, spec: TrialSpec, device: Any) -> Work:
    """A full training step: forward, cross-entropy, backward and an SGD update."""
    import torch

    model, inputs, targets = _mlp(spec, _dtype(spec.dtype), device)
    # The check starts from an untouched copy: timing updates the weights many times.
    initial = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(spec.params.get("lr", 0.01)))

    def step() -> object:
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    def error() -> float:
        # Quality of a step is the quality of the gradients it applies.
        where, dtype = _reference_device(device), _dtype(spec.reference_dtype)
        reference = copy.deepcopy(initial).to(where, dtype)
        wanted = _gradients(reference, inputs.to(where, dtype), targets.to(where))
        return _relative_error(_gradients(copy.deepcopy(initial), inputs, targets), wanted)

    return Work(step=step, error=error, items=spec.batch)


def _autograd_input(spec: TrialSpec, dtype: Any, device: Any) -> Any:
    """x = ``params.x`` as a scalar, or evenly spaced in [−x, x] for a vector shape."""
    import torch

    x = float(spec.params.get("x", 3.0))
    if not spec.shape:
        return torch.tensor(x, dtype=dtype, device=device)
    return torch.linspace(-x, x, spec.shape[0], dtype=dtype, device=device)


def _gradient_error(gradient: Any, x: Any, reference_dtype: str) -> float:
    # The analytic derivative of sum(x·x) is 2x, evaluated in the reference dtype.
    exact = 2 * x.detach().to(_reference_device(x.device), _dtype(reference_dtype))
    return _relative_error(gradient, exact)


def autograd_grad(*, spec: TrialSpec, device: Any) -> Work:
    """``torch.autograd.grad`` of y = sum(x·x): returns dy/dx, leaves ``x.grad`` None."""
    import torch

    x = _autograd_input(spec, _dtype(spec.dtype), device).requires_grad_()

    def step() -> object:
        return torch.autograd.grad((x * x).sum(), x)[0]

    def error() -> float:
        gradient = torch.autograd.grad((x * x).sum(), x)[0]
        return _gradient_error(gradient, x, spec.reference_dtype)

    return Work(step=step, error=error, items=1, items_unit="calls/s")


def autograd_backward(*, spec: TrialSpec, device: Any) -> Work:
    """``backward()`` on y = sum(x·x): stores dy/dx in ``x.grad`` (cleared every call)."""
    x = _autograd_input(spec, _dtype(spec.dtype), device).requires_grad_()

    def step() -> object:
        # Clearing keeps each call one gradient, not an ever-growing accumulation.
        x.grad = None
        (x * x).sum().backward()
        return x.grad

    def error() -> float:
        x.grad = None
        (x * x).sum().backward()
        return _gradient_error(x.grad, x, spec.reference_dtype)

    return Work(step=step, error=error, items=1, items_unit="calls/s")
