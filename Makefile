# Two entry points a reader or CI needs; each does all of its own set-up.
#   make serve   build and serve the site on http://127.0.0.1:8000 (no torch needed)
#   make test    run every test: page examples, unit/integration, mkdocs build --strict, browser
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

.PHONY: serve build test browser record check

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

record: $(VENV)/.installed-$(TORCH_TAG)
	OMP_NUM_THREADS=1 $(BIN)/python -m harness record --device cpu
