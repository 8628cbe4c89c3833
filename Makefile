# Two entry points a reader or CI needs; each does all of its own set-up.
#   make serve   build and serve the site on http://127.0.0.1:8000 (no torch needed)
#   make test    run every test: page examples, unit/integration, mkdocs build --strict, browser
#   make check PAGE=<slug>   every check make test runs for one page, each with what to do
# Plain `make` only prints this list (`make help`): every other target installs something.
.DEFAULT_GOAL := help
PYTHON ?= python3
# The published CPU records were made with these builds; any torch >= 2.6 runs the examples.
TORCH ?= torch==2.13.0
# e.g. https://download.pytorch.org/whl/cpu for the CPU-only wheels (CI sets it).
TORCH_INDEX ?=

# One environment per torch spec, so `TORCH=torch==2.14.1 make test` really tests that
# torch: .venv for the default, .venv-<spec> for any other. The docs need no torch.
TORCH_TAG := $(shell printf '%s' '$(TORCH)' | tr -c 'A-Za-z0-9.' '_')
VENV ?= $(if $(filter torch==2.13.0,$(TORCH)),.venv,.venv-$(TORCH_TAG))
DOCS_VENV ?= .venv-docs
BIN := $(VENV)/bin
DOCS_BIN := $(DOCS_VENV)/bin
INDEX := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))

.PHONY: help serve build test browser record record-examples check examples notebooks clean

help:
	@echo "make serve               build and serve the site on http://127.0.0.1:8000 (no torch)"
	@echo "make build               the static site in site/ (mkdocs build --strict, no torch)"
	@echo "make test                every test (its first run installs $(TORCH) in $(VENV))"
	@echo "make check PAGE=<slug>   every check make test runs for docs/<slug>.md, with what to do"
	@echo "make examples PAGE=<slug> run that page's examples against their expectations"
	@echo "make notebooks           regenerate docs/cuadernos/*.ipynb from pages and records"
	@echo "make record              record the CPU trials and examples into results/"
	@echo "make record-examples     record only the examples' observed outputs (minutes less)"
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
# everywhere), and axe-core from npm (package.json) into node_modules/ for the
# accessibility tests. Without root or apt, or without npm, those tests skip locally
# and fail in CI. `npm ls` checks the installed version offline.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "chromium not installed: browser tests will skip (they fail when CI=true)"; }
	@npm ls --silent >/dev/null 2>&1 || { command -v npm >/dev/null 2>&1 \
	  && npm install --no-fund --no-audit --silent \
	  || echo "axe-core not installed (no npm): accessibility tests will skip (they fail when CI=true)"; }

test: $(VENV)/.installed-$(TORCH_TAG) browser
	$(BIN)/python -m mypy --strict harness
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder \
	  --screenshot=only-on-failure --output=test-artifacts/playwright

# Every check `make test` runs for one page, static checks first; each problem comes
# with its own next step (harness/commands/check.py). `make serve` is the preview (not
# strict); this and CI are strict.
check: $(VENV)/.installed-$(TORCH_TAG)
	@test -n "$(PAGE)" || { echo "usage: make check PAGE=<slug>   (docs/<slug>.md)"; exit 2; }
	$(BIN)/python -m harness check "$(PAGE)"

# One page's examples, as CONTRIBUTING's step 4 runs them (no English twin needed yet).
examples: $(VENV)/.installed-$(TORCH_TAG)
	@test -n "$(PAGE)" || { echo "usage: make examples PAGE=<slug>   (docs/<slug>.md)"; exit 2; }
	$(BIN)/python -m pytest -q -p no:randomly docs/$(PAGE).md

# Recorded here, by hand: the set is then listed in results/unsigned.sha256 (vouched for
# as «registrado a mano, sin firma»; the diff shows it in review).
VOUCH = $(BIN)/python -m harness publish add "$$($(BIN)/python -c 'import torch; print(torch.__version__)')" cpu

# The observed outputs of every example under this environment's torch (TORCH=...).
record-examples: $(VENV)/.installed-$(TORCH_TAG)
	OMP_NUM_THREADS=1 $(BIN)/python -m harness record --device cpu --only examples
	$(VOUCH)

# Regenerate docs/cuadernos/*.ipynb from the pages, their twins, snippets and records.
notebooks: $(VENV)/.installed-$(TORCH_TAG)
	$(BIN)/python -m harness notebooks --write

record: $(VENV)/.installed-$(TORCH_TAG)
	OMP_NUM_THREADS=1 $(BIN)/python -m harness record --device cpu
	$(VOUCH)
