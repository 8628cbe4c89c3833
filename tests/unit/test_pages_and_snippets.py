from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.errors import HarnessError
from harness.sources.pages import find_includes, find_markers
from harness.sources.snippets import find_snippets, load_expectations

PAGE = """# Título

```python title="snippets/a/uno.py"
--8<-- "a/uno.py"
```

<!-- harness:observed snippet="a/uno" -->

    ```python
    --8<-- "a/dos.py:shown"
    ```

```python
print("inline code is not an include")
```
"""


def test_includes_in_page_order_with_lines() -> None:
    found = find_includes(PAGE, Path("docs/a.md"))
    assert [(i.snippet_id, i.location.line, i.target) for i in found] == [
        ("a/uno", 3, "a/uno.py"),
        ("a/dos", 9, "a/dos.py:shown"),
    ]
    assert PAGE[found[0].start : found[0].end].startswith("```python title=")


def test_markers_parse_arguments_and_reject_garbage() -> None:
    (marker,) = find_markers(PAGE, Path("docs/a.md"))
    assert (marker.kind, marker.args, marker.location.line) == ("observed", {"snippet": "a/uno"}, 7)
    with pytest.raises(HarnessError, match=r"docs/a.md:1: cannot read marker arguments at 'snippet=x'"):
        find_markers("<!-- harness:observed snippet=x -->", Path("docs/a.md"))


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_expectations_are_validated_against_snippets(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "snippets/a/uno.py": "v = 1\n",
        "snippets/a/expectations.toml": '[[expect]]\nsnippet = "uno"\nname = "v"\nvalue = 1\n'
        'derivation = "d"\n\n[[expect]]\nsnippet = "unos"\nname = "v"\nvalue = 1\nderivation = "d"\n',
    })
    snippets = find_snippets(root / "snippets")
    with pytest.raises(HarnessError, match=r"expectations.toml:7: unknown snippet 'a/unos'. Did you mean 'a/uno'\?"):
        load_expectations(root / "snippets", snippets)


def test_snippet_ids_must_be_unique_across_suffixes(tmp_path: Path) -> None:
    root = write(tmp_path, {"snippets/a/uno.py": "", "snippets/a/uno.yaml": ""})
    with pytest.raises(HarnessError, match="two snippets share the id 'a/uno'"):
        find_snippets(root / "snippets")


MINI = Path(__file__).parents[1] / "samples" / "mini" / "snippets"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("value = 6.0\n", "value = = 6.0\n",
         "expectations.toml:4: malformed TOML: Invalid value (at line 4"),
        ('name = "doubled"', 'nmae = "doubled"',
         "expectations.toml:13: unknown key 'nmae' in [[expect]]. Did you mean 'name'?"),
        ("none = true", "none = true\nvalue = 1.0",
         "expectations.toml:7: [[expect]] for 'x.grad' needs exactly one of"),
        ('name = "g"', 'name = "g-1"', "expectations.toml:1: name 'g-1' is not a Python name"),
        ("value = 6.0\n", "value = 6.0\nrtol = -1\n", "'rtol' must be a non-negative number"),
    ],
)
def test_malformed_expectations_name_file_and_line(tmp_path: Path, old, new, message) -> None:
    import shutil

    shutil.copytree(MINI, tmp_path / "snippets")
    toml = tmp_path / "snippets/pagina/expectations.toml"
    toml.write_text(toml.read_text().replace(old, new, 1))
    snippets = find_snippets(tmp_path / "snippets")
    with pytest.raises(HarnessError) as caught:
        load_expectations(tmp_path / "snippets", snippets)
    assert message in str(caught.value)
