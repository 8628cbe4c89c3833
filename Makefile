# Two entry points a reader or CI needs; each does all of its own set-up.
#   make serve   build and serve the site on http://127.0.0.1:8000
#   make test    run every test: page examples, unit/integration, mkdocs build --strict, browser
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The records in results/ were made with these builds; any torch >= 2.6 runs the examples.
TORCH ?= torch==2.13.0
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test browser record

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "$(TORCH)" -e ".[test]"
	touch $@

serve: $(VENV)/.installed
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(VENV)/.installed
	$(BIN)/mkdocs build --strict

# Debian's Chromium for the browser tests (Playwright's own download does not work
# everywhere). Without root or apt the browser tests skip locally and fail in CI.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "chromium not installed: browser tests will skip (they fail when CI=true)"; }

test: $(VENV)/.installed browser
	$(BIN)/python -m pytest -n 2 --dist loadfile

record: $(VENV)/.installed
	$(BIN)/python -m harness record --device cpu
