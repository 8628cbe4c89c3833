"""Reading what a snippet produced, by name, as plain JSON-able data. torch is never
imported here: values are recognised by duck typing, so this module also serves the
YAML examples, which run without torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["observe_name", "resolve"]


def resolve(namespace: dict[str, Any], dotted: str) -> Any:
    """Value of ``x`` or ``x.grad`` in ``namespace``; LookupError if absent."""
    head, *attributes = dotted.split(".")
    if head not in namespace:
        raise LookupError(f"{head!r} is not defined")
    value = namespace[head]
    for attribute in attributes:
        if not hasattr(value, attribute):
            raise LookupError(f"{type(value).__name__} has no attribute {attribute!r}")
        value = getattr(value, attribute)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def observe_name(namespace: dict[str, Any], name: str) -> dict[str, Any]:
    """``{"name", "kind", "value", ...}`` for ``name``; ``kind`` is an ObservationKind.

    An unsupported type is observed as kind ``error`` naming the type, so the
    comparison fails with a message instead of the runner crashing.
    """
    value = resolve(namespace, name)
    common: dict[str, Any] = {"name": name}
    type_name = type(value).__name__
    if value is None:
        return {**common, "kind": "none", "value": None}
    if isinstance(value, bool):
        return {**common, "kind": "bool", "value": value}
    if isinstance(value, (int, float)):
        return {**common, "kind": "number", "value": value}
    if isinstance(value, BaseException):
        return {**common, "kind": "exception", "value": {
            "type": type_name,
            "types": [cls.__name__ for cls in type(value).__mro__],
            "message": str(value),
        }}
    if type_name == "Tensor":
        plain = value.detach().cpu().tolist()
        return {**common, "kind": "bool" if isinstance(plain, bool) else "tensor",
                "value": plain, "dtype": str(value.dtype), "device": str(value.device),
                "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):  # torch.Size is a tuple
        return {**common, "kind": "sequence", "value": _plain(value)}
    if isinstance(value, str) or type_name in ("dtype", "device"):
        return {**common, "kind": "text", "value": str(value)}
    return {**common, "kind": "error", "value": (
        f"{name!r} is a {type_name}; expected a tensor, number, bool, None, exception, "
        "list/tuple/torch.Size, str, torch.dtype or torch.device")}
