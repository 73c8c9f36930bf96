PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := js/node_modules/.installed
BUNDLE := src/pausepoint/widget/static/widget.js
JS_SOURCES := $(shell find js/src -type f 2>/dev/null) js/build.mjs js/package.json
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: test lint typecheck unit js js-test bench demo clean

test: lint typecheck js-test unit

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

$(NODE_STAMP): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(BUNDLE): $(NODE_STAMP) $(JS_SOURCES)
	cd js && npm run --silent build

js: $(BUNDLE)

js-test: $(NODE_STAMP)
	cd js && npm run --silent typecheck && npm test

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(BUNDLE)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_loop.py
	$(BIN)/python benchmarks/bench_widget_sync.py

demo: $(STAMP) $(BUNDLE)
	$(BIN)/jupyter lab $(LAB_FLAGS) notebooks/01-quickstart.ipynb

clean:
	rm -rf $(VENV) js/node_modules $(dir $(BUNDLE)) .pytest_cache .mypy_cache .ruff_cache
