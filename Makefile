# The commands people type. `make run` and `make test` do every set-up step themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NPM ?= npm
FRONTEND_SRC := $(shell find frontend/src frontend/index.html frontend/vite.config.ts -type f 2>/dev/null)

.PHONY: install serve-deps run test test-py test-frontend test-e2e lint bench demo openapi lock clean system-deps simulations

# `make install` (and test, lint): everything. `make run` and `make demo` install only what serving
# needs ($(VENV)/.installed-run); the test and lint tools come with the first `make test` or `make lint`.
install: $(VENV)/.installed frontend/node_modules/.installed frontend/dist/index.html

serve-deps: $(VENV)/.installed-run frontend/dist/index.html

$(VENV)/.installed-run: backend/requirements.lock backend/pyproject.toml agents/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check --require-hashes -r backend/requirements.lock
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -e backend -e agents
	@touch $@

$(VENV)/.installed: $(VENV)/.installed-run backend/requirements-dev.lock
	$(BIN)/pip install -q --disable-pip-version-check --require-hashes -r backend/requirements.lock -r backend/requirements-dev.lock
	@touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(FRONTEND_SRC)
	cd frontend && $(NPM) run -s build

run: serve-deps
	$(BIN)/perflab serve

system-deps:
	@scripts/system-deps.sh

# Every suite: pytest (backend, parsers, profiles, agent, end-to-end with real processes), vitest, Playwright.
test: install system-deps
	$(BIN)/pytest -q
	cd frontend && $(NPM) run -s test
	cd frontend && $(NPM) run -s test:e2e

test-py: $(VENV)/.installed
	$(BIN)/pytest -q

lint: install
	$(BIN)/ruff check backend tests agents bench
	$(BIN)/mypy --strict backend/perflab
	$(BIN)/vermin --target=3.6- --no-tips --violations agents/perflab_agent
	cd frontend && $(NPM) run -s lint && $(NPM) run -s typecheck && $(NPM) run -s check:api-drift

# Rewrites docs/simulations/changepoints.md (the README quotes it) from fresh draws; `make test` only prints
# the figures and writes bench/results/changepoints.md, leaving the checkout clean.
simulations: $(VENV)/.installed
	PERFLAB_WRITE_SIMULATIONS=1 $(BIN)/pytest -q tests/trends/test_changepoint_simulation.py

openapi: $(VENV)/.installed
	$(BIN)/perflab openapi > frontend/openapi.json
	cd frontend && $(NPM) run -s gen:api

bench: install
	@scripts/system-deps.sh bench
	$(BIN)/python bench/run_all.py

# The demo talks to the server `make run` started: PERFLAB_HOST / PERFLAB_PORT as for `perflab serve`.
demo: serve-deps system-deps
	$(BIN)/perflab demo

# Re-pin Python dependencies (needs network to the package index).
lock:
	$(PYTHON) -m venv $(VENV)-piptools && $(VENV)-piptools/bin/pip install -q pip-tools
	cd backend && ../$(VENV)-piptools/bin/pip-compile -q --generate-hashes --strip-extras -o requirements.lock requirements.in
	cd backend && ../$(VENV)-piptools/bin/pip-compile -q --generate-hashes --strip-extras -o requirements-dev.lock requirements-dev.in

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist
