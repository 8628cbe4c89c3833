"""Typed-figure faults for the strict-build catalogue (``FAULTS`` in test_faults_build.py),
issue 27: a measured-looking figure that no marker brought from a record fails the build
wherever the reader would see it — in a claim's sentence, in inline code, as «N veces» or
«N %» in prose — naming the page and its line. Each injects into a copy and returns the
pattern the build's log must show."""

from __future__ import annotations

from pathlib import Path

from support import inject

__all__ = ["FIGURE_FAULTS"]

_TYPED = "measured-looking figure '{figure}' typed into the page"


def _prose(text: str, figure: str) -> object:
    """``text`` typed into a paragraph of the Spanish «Elegir PyTorch» page."""

    def fault(project: Path) -> str:
        line = inject(project / "docs/elegir-pytorch.md", "## Fuentes\n",
                      f"{text}\n\n## Fuentes\n")
        return rf"docs/elegir-pytorch\.md:{line}: " + _TYPED.format(figure=figure)

    return fault


def _claim_sentence(project: Path) -> str:
    """A figure typed into a claim's sentence (claims.toml), around the recorded values."""
    claims = project / "snippets/medir-pytorch/claims.toml"
    old = 'es = "más rápidos que cumplen su tolerancia: {value}"'
    inject(claims, old, 'es = "más rápidos que cumplen su tolerancia: {value}, en 0,9 ms, '
                        '15× más rápido"')
    page = (project / "docs/medir-pytorch.md").read_text().splitlines()
    line = next(n for n, text in enumerate(page, 1)
                if 'harness:claim id="cpu-mas-rapidos-validos"' in text)
    return (rf"docs/medir-pytorch\.md:{line}: " + _TYPED.format(figure="0,9 ms")
            + r" \(claim 'cpu-mas-rapidos-validos', snippets/medir-pytorch/claims\.toml:\d+\)")


FIGURE_FAULTS = {
    "figure-in-claim": _claim_sentence,
    "figure-in-inline-code": _prose("En mi máquina tarda `0,9 ms` por llamada.", "0,9 ms"),
    "figure-as-times": _prose("La versión nueva gasta 15 veces menos memoria.", "15 veces"),
    "figure-as-percent": _prose("La GPU alcanza el 93 % de su pico.", "93 %"),
}
