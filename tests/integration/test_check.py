"""`python -m harness check PAGE` (what `make check PAGE=<slug>` runs) on broken copies of
the project: each mistake `make test` catches fails it, with that mistake's own next step
and no traceback; and under pytest, one broken marker is one failure, not dozens."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from support import COPIED, ROOT, copy_project, inject, run

#: What `check` reads besides the copied site: the seeds and the spelling configuration.
CHECKED = (*COPIED, "seeds", "pyproject.toml", ".codespell-words.txt")
#: The generic hints the old Makefile target printed after every failure of a step.
GENERIC = ("must carry the same fences and markers", "a stale record: python -m harness record",
           "each failure names the page line")


def _check(root: Path, page: str) -> tuple[int, str]:
    done = run([sys.executable, "-m", "harness", "check", page], cwd=root,
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def _bad_rtol(root: Path) -> str:
    toml = root / "snippets/que-es-pytorch/expectations.toml"
    line = inject(toml, 'name = "x.grad"\nvalue = 6.0\n',
                  'name = "x.grad"\nvalue = 6.0\nrtol = "1e-3"\n') + 2
    return (rf"snippets/que-es-pytorch/expectations\.toml:{line}: 'rtol' must be a non-negative "
            r"number, not '1e-3' \(write rtol = 1e-3, without quotes\)")


def _unknown_marker_id(root: Path) -> str:
    old = '<!-- harness:observed snippet="que-es-pytorch/derivada_cuadrado" -->'
    new = old.replace("cuadrado", "cuadrao")
    line = inject(root / "docs/que-es-pytorch.md", old, new)
    inject(root / "docs/que-es-pytorch.en.md", old, new)
    return (rf"docs/que-es-pytorch\.md:{line}: unknown snippet 'que-es-pytorch/derivada_cuadrao' "
            r"for harness:observed\. Did you mean 'que-es-pytorch/derivada_cuadrado'\?")


def _spanish_id_typo(root: Path) -> str:
    # The typo is on the Spanish page, so the advice must point there, not at the twin.
    old = '<!-- harness:observed snippet="que-es-pytorch/derivada_cuadrado" -->'
    line = inject(root / "docs/que-es-pytorch.md", old, old.replace("cuadrado", "cuadrao"))
    return (rf"docs/que-es-pytorch\.md:{line}: has .*derivada_cuadrao.* in its place; "
            r"docs/que-es-pytorch\.md names a snippet that does not exist: copy the line of "
            r"docs/que-es-pytorch\.en\.md there")


def _stale_record(root: Path) -> str:
    snippet = root / "snippets/que-es-pytorch/segundo_paso.py"
    snippet.write_text(snippet.read_text(encoding="utf-8") + "print(first_grad)\n",
                       encoding="utf-8")
    # Every build that observed it is stale: one message names them all, with each command.
    return (r"results/[^/]+/cpu\.examples\.jsonl:\d+: observation of 'que-es-pytorch/segundo_paso'"
            r" was recorded from other code in [2-9] record set\(s\) \(torch .*; torch .*\); "
            r"run `python -m harness record --only examples` with each of those builds: "
            r"`TORCH=torch==[\d.]+ make record-examples` `TORCH=torch==")


def _twin_missing_marker(root: Path) -> str:
    marker = '<!-- harness:observed snippet="que-es-pytorch/metadatos_tensor" -->'
    line = next(n for n, text in enumerate(
        (root / "docs/que-es-pytorch.md").read_text(encoding="utf-8").splitlines(), 1)
        if text.strip() == marker)
    inject(root / "docs/que-es-pytorch.en.md", marker, "")
    return (rf"docs/que-es-pytorch\.md:{line}: marker harness:observed "
            r'snippet="que-es-pytorch/metadatos_tensor" is not in the English twin; put the '
            r"same line in docs/que-es-pytorch\.en\.md after docs/que-es-pytorch\.en\.md:\d+ "
            r"\(its include que-es-pytorch/metadatos_tensor\.py\)")


def _unmarked_prose(root: Path) -> str:
    line = inject(root / "docs/que-es-pytorch.md", "\n## ", "\nUna frase nueva sin marca.\n\n## ")
    return (rf"docs/que-es-pytorch\.md:{line + 1}: not in seeds/que-es-pytorch\.txt and not "
            r"inside «Ampliación»: 'Una frase nueva sin marca\.'; put it under !!! info")


def _wrong_value(root: Path) -> str:
    inject(root / "snippets/que-es-pytorch/expectations.toml",
           'name = "x.grad"\nvalue = 6.0\n', 'name = "x.grad"\nvalue = 7.0\n')
    # Reported by the records that contradict it; the example step does not repeat it.
    return (r"recorded 'x\.grad' = 6 contradicts the analytic expectation at "
            r"snippets/que-es-pytorch/expectations\.toml:\d+(?s:.*)"
            r"not run: a recorded value contradicts an expectation")


def _other_snippets_name(root: Path) -> str:
    line = inject(root / "snippets/que-es-pytorch/expectations.toml",
                  'snippet = "metadatos_tensor"\nname = "shape"\n',
                  'snippet = "metadatos_tensor"\nname = "first_grad"\n')
    return (rf"snippets/que-es-pytorch/expectations\.toml:{line - 1}: expectation names "
            r"'first_grad', which snippets/que-es-pytorch/metadatos_tensor\.py does not define")


def _no_expectation(root: Path) -> str:
    (root / "snippets/que-es-pytorch/nuevo_ejemplo.py").write_text("y = 2 * 3\n", encoding="utf-8")
    marker = '<!-- harness:observed snippet="que-es-pytorch/derivada_cuadrado" -->\n'
    block = marker + '\n```python\n--8<-- "que-es-pytorch/nuevo_ejemplo.py"\n```\n'
    line = inject(root / "docs/que-es-pytorch.md", marker, block) + 2
    inject(root / "docs/que-es-pytorch.en.md", marker, block)
    return (rf"docs/que-es-pytorch\.md:{line}: snippet 'que-es-pytorch/nuevo_ejemplo' has no "
            r"analytic expectation; add \[\[expect\]\] to snippets/que-es-pytorch/expectations\.toml")


def _quoted_include(root: Path) -> str:
    fence = ('```python title="snippets/que-es-pytorch/derivada_cuadrado.py"\n'
             '--8<-- "que-es-pytorch/derivada_cuadrado.py"\n```\n')
    quoted = "".join(f"> {line}\n" for line in fence.splitlines())
    line = inject(root / "docs/que-es-pytorch.md", fence, quoted)
    inject(root / "docs/que-es-pytorch.en.md", fence, quoted)
    return (rf"docs/que-es-pytorch\.md:{line + 1}: snippet include the harness would not run "
            r"\(inside a block quote, where Sybil does not collect it\)")


def _imports_harness(root: Path) -> str:
    """Promise 4: the shown part of a snippet uses the harness, which a reader lacks
    (the editable install would make it run here)."""
    snippet = root / "snippets/que-es-pytorch/metadatos_tensor.py"
    line = inject(snippet, "import torch\n", "import torch\nfrom harness.core import compare\n") + 1
    return (rf"snippets/que-es-pytorch/metadatos_tensor\.py:{line}: imports 'harness'; an "
            r"example imports only ")


#: mistake → (inject it, returning the pattern its message must match; the failed step).
MISTAKES = {
    "bad-rtol": (_bad_rtol, "sources"),
    "unknown-marker-id": (_unknown_marker_id, "markers"),
    "spanish-id-typo": (_spanish_id_typo, "sources"),
    "stale-record": (_stale_record, "markers"),
    "twin-missing-marker": (_twin_missing_marker, "sources"),
    "unmarked-prose": (_unmarked_prose, "seeds"),
    "wrong-value": (_wrong_value, "markers"),
    "other-snippets-name": (_other_snippets_name, "sources"),
    "no-expectation": (_no_expectation, "sources"),
    "quoted-include": (_quoted_include, "sources"),
    "imports-harness": (_imports_harness, "sources"),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_each_mistake_fails_check_with_its_own_hint(tmp_path: Path, mistake: str) -> None:
    root = copy_project(tmp_path / "project", CHECKED)
    inject_mistake, step = MISTAKES[mistake]
    pattern = inject_mistake(root)
    code, out = _check(root, "que-es-pytorch")
    assert code == 1, out
    assert re.search(pattern, out), out
    assert re.search(rf"FAILED: .*\b{step}\b", out), out
    assert "Traceback" not in out, out
    assert not [hint for hint in GENERIC if hint in out], out


def test_a_clean_page_passes_every_step(tmp_path: Path) -> None:
    code, out = _check(copy_project(tmp_path / "project", CHECKED), "elegir-pytorch")
    steps = re.findall(r"^== (.*)$", out, re.M)
    assert steps[0].startswith("spelling") and steps[-1].startswith("browser"), out
    # The copy has no tests/: the browser step says so, and every other step ran.
    assert len(steps) == 8 and out.count("not run") == 1, out
    assert "not run: this checkout has no tests/browser" in out, out
    assert code == 0 and "every check `make test` runs for this page passes" in out, out


def test_an_unknown_page_names_the_pages(tmp_path: Path) -> None:
    code, out = _check(ROOT, "que-es")
    assert code == 2 and "no page docs/que-es.md; pages: " in out and "Traceback" not in out, out


def test_one_broken_marker_is_one_failure_under_pytest(tmp_path: Path) -> None:
    """Every test that needs the built site is skipped naming the page line; only the
    build's own test fails."""
    root = copy_project(tmp_path / "project", (*CHECKED, "tests"))
    pattern = _unknown_marker_id(root)
    done = run(
        [sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:randomly",
         "tests/integration/test_site_build.py", "tests/integration/test_links.py"],
        cwd=root, capture_output=True, text=True)
    out = done.stdout + done.stderr
    summary = out[out.rindex("short test summary"):]
    assert re.search(r"^1 failed, \d+ passed, \d+ skipped in", out.splitlines()[-1]), out
    failed = re.findall(r"^FAILED (\S+)", summary, re.M)
    assert failed == ["tests/integration/test_site_build.py::test_the_site_builds_strict"], out
    named = pattern[:pattern.index(" for harness")]  # the page line and the mistake
    assert re.search(r"^SKIPPED \[\d+\] .*not run: mkdocs build --strict failed \(" + named,
                     summary, re.M), summary
    assert "error" not in out.splitlines()[-1], out
    assert len(out.splitlines()) < 40, out
