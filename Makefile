# Two entry points a reader or CI needs; each does all of its own set-up.
#   make serve   build and serve the site on http://127.0.0.1:8000 (no torch needed)
#   make test    run every test: page examples, unit/integration, mkdocs build --strict, browser
#   make check PAGE=<slug>   what CI would reject for one page, each with what to do
# Plain `make` only prints this list (`make help`): every other target installs something.
.DEFAULT_GOAL := help
PYTHON ?= python3
# The published CPU records were made with these builds; any torch >= 2.6 runs the examples.
TORCH ?= torch==2.13.0
# e.g. https://download.pytorch.org/whl/cpu for the CPU-only wheels (CI sets it).
TORCH_INDEX ?=
export NO_MKDOCS_2_WARNING := 1

# One environment per torch spec, so `TORCH=torch==2.14.1 make test` really tests that
# torch: .venv for the default, .venv-<spec> for any other. The docs need no torch.
TORCH_TAG := $(shell printf '%s' '$(TORCH)' | tr -c 'A-Za-z0-9.' '_')
VENV ?= $(if $(filter torch==2.13.0,$(TORCH)),.venv,.venv-$(TORCH_TAG))
DOCS_VENV ?= .venv-docs
BIN := $(VENV)/bin
DOCS_BIN := $(DOCS_VENV)/bin
INDEX := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))

.PHONY: help serve build test browser record check clean

help:
	@echo "make serve               build and serve the site on http://127.0.0.1:8000 (no torch)"
	@echo "make build               the static site in site/ (mkdocs build --strict, no torch)"
	@echo "make test                every test (its first run installs $(TORCH) in $(VENV))"
	@echo "make check PAGE=<slug>   what CI would reject for docs/<slug>.md, with what to do"
	@echo "make record              record the CPU trials and examples into results/"
	@echo "make browser             install Debian's Chromium for the browser tests (root, apt)"
	@echo "make clean               remove build output and caches (keeps the environments)"

# Build output and caches only: the environments (.venv*) take minutes to rebuild.
clean:
	rm -rf site/ build/ dist/ .cache/ test-artifacts/ *.egg-info/
	find . -name __pycache__ -type d -not -path './.venv*' -prune -exec rm -rf {} +

$(VENV)/.installed-$(TORCH_TAG): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(INDEX) "$(TORCH)" numpy -e ".[test]"
	touch $@

$(DOCS_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_BIN)/pip install --quiet --upgrade pip
	$(DOCS_BIN)/pip install --quiet -e ".[docs]"
	touch $@

serve: $(DOCS_VENV)/.installed
	$(DOCS_BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(DOCS_VENV)/.installed
	$(DOCS_BIN)/mkdocs build --strict

# Debian's Chromium for the browser tests (Playwright's own download does not work
# everywhere). Without root or apt the browser tests skip locally and fail in CI.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "chromium not installed: browser tests will skip (they fail when CI=true)"; }

test: $(VENV)/.installed-$(TORCH_TAG) browser
	$(BIN)/python -m pytest -n 2 --dist loadfile

# What CI would reject for one page, fastest first; every step runs and says what to do.
# `make serve` is the preview (not strict); this and CI are strict.
check: $(VENV)/.installed-$(TORCH_TAG)
	@test -n "$(PAGE)" || { echo "usage: make check PAGE=<slug>   (docs/<slug>.md)"; exit 2; }
	@test -f docs/$(PAGE).md || { echo "no page docs/$(PAGE).md"; exit 2; }
	@failed=""; \
	echo "== spelling (codespell; Spanish words it flags go in .codespell-words.txt)"; \
	$(BIN)/codespell docs/$(PAGE).md $$(ls docs/$(PAGE).en.md snippets/$(PAGE) 2>/dev/null) \
	  || { failed="$$failed spelling"; echo "-> fix the typo, or add a correct Spanish word (lowercase) to .codespell-words.txt"; }; \
	echo "== twin parity and page checks (harness.sources.checks.check_project)"; \
	$(BIN)/python -c 'import sys; from pathlib import Path; from harness.sources.checks import check_project; from harness.sources.project import Project; found = [p.message for p in check_project(Project.load(Path.cwd())) if sys.argv[1] in p.message]; found and print("\n".join(found)); sys.exit(1 if found else 0)' "$(PAGE)" \
	  || { failed="$$failed twin"; echo "-> docs/$(PAGE).en.md must carry the same fences and markers, byte for byte, as docs/$(PAGE).md (CONTRIBUTING, step 5)"; }; \
	echo "== examples (pytest docs/$(PAGE).md)"; \
	$(BIN)/python -m pytest -q -p no:randomly docs/$(PAGE).md \
	  || { failed="$$failed examples"; echo "-> each failure names the page line, the snippet line, the analytic value and the observed one"; }; \
	echo "== notebooks (python -m harness notebooks --check)"; \
	$(BIN)/python -m harness notebooks --check \
	  || { failed="$$failed notebooks"; echo "-> write the English twin first, then: python -m harness notebooks --write"; }; \
	echo "== stale records and the strict build (mkdocs build --strict)"; \
	$(BIN)/python -m mkdocs build --strict -d "$${TMPDIR:-/tmp}/check-$(PAGE)-site" >"$${TMPDIR:-/tmp}/check-$(PAGE).log" 2>&1 \
	  || { failed="$$failed build"; grep -E "WARNING|ERROR|Error|Aborted" "$${TMPDIR:-/tmp}/check-$(PAGE).log"; \
	       echo "-> a stale record: python -m harness record --only examples, under each torch build the site shows (CONTRIBUTING, Recording)"; }; \
	if [ -n "$$failed" ]; then echo "make check PAGE=$(PAGE): FAILED:$$failed"; exit 1; fi; \
	echo "make check PAGE=$(PAGE): everything CI checks for this page passes"

record: $(VENV)/.installed-$(TORCH_TAG)
	OMP_NUM_THREADS=1 $(BIN)/python -m harness record --device cpu
