#!/usr/bin/env python3
"""A candidate doc stack's configuration, derived from mkdocs.yml (never kept by hand):

    python .github/scripts/derive-config.py zensical|materialx > FILE   (in the repository root)

* zensical: Zensical reads mkdocs.yml but not MkDocs' YAML tags (``!relative``,
  ``!ENV``, ``!!python/name``) nor a theme's ``custom_dir`` written for Material's
  templates (it stops at overrides/main.html): the tags become their values, the
  overrides are left out. What it then renders is judged by check-site-content.sh.
* materialx: mkdocs-materialx (a Material fork, theme ``materialx``) with ProperDocs;
  its search plugin has none of Material's search options.

Everything else is mkdocs.yml as it is, so a difference in the built site is the
stack's, not the configuration's. Run from the repository root: ``$config_dir`` and
``!ENV`` defaults resolve as MkDocs would resolve them there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import yaml


class Tagged:
    """A value under a YAML tag MkDocs resolves, kept as written (for materialx)."""

    def __init__(self, tag: str, node: yaml.Node) -> None:
        self.tag, self.node = tag, node


def _load(resolve: bool) -> dict[str, Any]:
    class Loader(yaml.SafeLoader):
        pass

    def env(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        if not resolve:
            return Tagged("!ENV", node)
        names = (loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode)
                 else [loader.construct_scalar(node)])  # type: ignore[arg-type]
        *keys, default = names if len(names) > 1 else [*names, None]
        return next((os.environ[k] for k in keys if k in os.environ), default)

    def relative(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        if not resolve:
            return Tagged("!relative", node)
        return str(Path.cwd() / str(loader.construct_scalar(node)).replace("$config_dir/", ""))

    def python_name(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        return f"!!python/name:{suffix}" if resolve else Tagged(
            "tag:yaml.org,2002:python/name:" + suffix, node)

    Loader.add_constructor("!ENV", env)
    Loader.add_constructor("!relative", relative)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", python_name)
    with open("mkdocs.yml", encoding="utf-8") as stream:
        return yaml.load(stream, Loader=Loader)  # noqa: S506 - the loader is safe


def _dump(config: dict[str, Any]) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    def tagged(dumper: yaml.SafeDumper, value: Tagged) -> yaml.Node:
        # The items keep their own tags, so `!ENV [X, false]` stays a boolean default.
        if isinstance(value.node, yaml.SequenceNode):
            items = [dumper.represent_scalar(n.tag, n.value) for n in value.node.value]
            return yaml.SequenceNode(value.tag, items, flow_style=True)
        return dumper.represent_scalar(value.tag, value.node.value)

    Dumper.add_representer(Tagged, tagged)
    return yaml.dump(config, Dumper=Dumper, allow_unicode=True, sort_keys=False)


def derive(target: str) -> str:
    config = _load(resolve=target == "zensical")
    if target == "zensical":
        config["theme"].pop("custom_dir", None)
        # The emoji functions are Material's Python: Zensical has its own.
        for extension in config.get("markdown_extensions", []):
            if isinstance(extension, dict) and "pymdownx.emoji" in extension:
                extension["pymdownx.emoji"] = {}
    elif target == "materialx":
        config["theme"]["name"] = "materialx"
        config["plugins"] = ["search" if isinstance(p, dict) and "search" in p else p
                             for p in config["plugins"]]
    else:
        raise SystemExit(f"derive-config.py: unknown target {target!r}; "
                         "expected zensical or materialx")
    return (f"# Derived from mkdocs.yml by .github/scripts/derive-config.py {target}.\n"
            + _dump(config))


if __name__ == "__main__":
    sys.stdout.write(derive(sys.argv[1] if len(sys.argv) > 1 else ""))
