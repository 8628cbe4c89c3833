"""Examples a reader copies are safe to copy.

* Every ``torch.load`` passes ``weights_only=True`` (a pickle from elsewhere must not
  run code), and no snippet imports a network module or calls ``torch.hub``. The check
  reads the syntax tree (``ast``), not the text, so an alias (``import torch as t``,
  ``from torch import load``) does not slip through and a comment does not count.

That every snippet runs to its end with the network closed is the page runner's job
(``pytest docs``, harness/run/runner.py): the examples run once, there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import ROOT

SNIPPETS = ROOT / "snippets"

# Top-level modules that open connections. A snippet is copied into a reader's
# machine: it must run with torch alone and offline.
NETWORK_MODULES = frozenset(
    {
        "urllib",
        "urllib3",
        "requests",
        "httpx",
        "aiohttp",
        "socket",
        "ssl",
        "http",
        "ftplib",
        "smtplib",
        "telnetlib",
        "xmlrpc",
        "webbrowser",
    }
)


def _dotted(node: ast.AST) -> str | None:
    """``torch.hub.load`` for the expression ``torch.hub.load``; None for anything
    that is not a plain chain of names."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def unsafe_uses(source: str, filename: str = "<source>") -> list[str]:
    """Every unsafe use in ``source``, as ``filename:line: what``."""
    tree = ast.parse(source, filename=filename)
    # Local name -> the torch object it stands for ("torch", "torch.load", "torch.hub").
    aliases: dict[str, str] = {"torch": "torch"}
    found: list[tuple[int, str]] = []

    def network(module: str, line: int) -> None:
        if module.split(".")[0] in NETWORK_MODULES:
            found.append((line, f"imports {module!r}: examples must not reach the network"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for name in node.names:
                network(name.name, node.lineno)
                if name.name == "torch" or name.name.startswith("torch."):
                    if name.asname:
                        aliases[name.asname] = name.name
                if name.name == "torch.hub" or name.name.startswith("torch.hub."):
                    found.append((node.lineno, "imports torch.hub: examples must not download"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            network(node.module, node.lineno)
            if node.module == "torch.hub" or node.module.startswith("torch.hub."):
                found.append((node.lineno, "imports from torch.hub: examples must not download"))
            if node.module == "torch":
                for name in node.names:
                    aliases[name.asname or name.name] = f"torch.{name.name}"
                    if name.name == "hub":
                        found.append((node.lineno, "imports torch.hub: examples must not download"))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in {"__import__"} and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    network(first.value, node.lineno)
            if _dotted(func) == "importlib.import_module" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    network(first.value, node.lineno)

    def resolve(expression: ast.expr) -> str | None:
        """``t.load`` → ``torch.load`` through the module's import aliases."""
        dotted = _dotted(expression)
        head, _, rest = (dotted or "").partition(".")
        if head not in aliases:
            return None
        return aliases[head] + (f".{rest}" if rest else "")

    for node in ast.walk(tree):
        resolved = resolve(node) if isinstance(node, ast.Attribute | ast.Name) else None
        if resolved is None:
            continue
        if resolved == "torch.hub" or resolved.startswith("torch.hub."):
            found.append((node.lineno, f"uses {resolved}: examples must not download"))

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if resolve(node.func) not in {"torch.load", "torch.serialization.load"}:
            continue
        weights_only = next((k.value for k in node.keywords if k.arg == "weights_only"), None)
        if not (isinstance(weights_only, ast.Constant) and weights_only.value is True):
            found.append((node.lineno, f"{resolve(node.func)}(...) without weights_only=True"))

    return [f"{filename}:{line}: {what}" for line, what in sorted(set(found))]


def _snippet_files() -> list[Path]:
    files = sorted(SNIPPETS.rglob("*.py"))
    assert files, f"no snippet found under {SNIPPETS}"
    return files


@pytest.mark.parametrize(
    "source",
    [
        'import torch\ntorch.load("m.pt")\n',
        'import torch\ntorch.load("m.pt", weights_only=False)\n',
        'import torch\nflag = True\ntorch.load("m.pt", weights_only=flag)\n',
        'import torch as t\nt.load("m.pt")\n',
        'from torch import load\nload("m.pt")\n',
        'from torch import load as restore\nrestore("m.pt")\n',
        'import torch.serialization\ntorch.serialization.load("m.pt")\n',
        "import urllib.request\n",
        "from urllib.request import urlopen\n",
        "from http import client\n",
        "import requests\n",
        "import socket\n",
        '__import__("socket")\n',
        'import importlib\nimportlib.import_module("http.client")\n',
        'import torch\ntorch.hub.load("pytorch/vision", "resnet18")\n',
        'import torch\nmodel = torch.hub.load_state_dict_from_url("https://x/y.pt")\n',
        "from torch import hub\n",
        "from torch.hub import load\n",
        "import torch.hub\n",
    ],
)
def test_checker_flags_an_unsafe_sample(source: str) -> None:
    assert unsafe_uses(source, "sample.py"), f"not flagged:\n{source}"


@pytest.mark.parametrize(
    "source",
    [
        'import torch\ntorch.load("m.pt", weights_only=True)\n',
        'import torch\ntorch.save({}, "m.pt")\n',
        'import json\nwith open("x") as f:\n    json.load(f)\n',
        "import torch\nimport torch.nn as nn\nfrom torch.utils.benchmark import Timer\n",
        "# torch.load(path) and import socket in a comment do not count\nimport torch\n",
        'import torch\ntext = "torch.hub.load is not called here"\n',
    ],
)
def test_checker_accepts_a_safe_sample(source: str) -> None:
    assert unsafe_uses(source, "sample.py") == []


def test_every_snippet_is_safe_to_copy() -> None:
    problems = [
        problem
        for path in _snippet_files()
        for problem in unsafe_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not problems, "unsafe example code:\n" + "\n".join(problems)

