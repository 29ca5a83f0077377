# The two commands of shoe-audit (see README.md):
#   make nightly   set up, then audit sample_logs/ into a report
#   make test      set up, then lint + types + the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
NIGHTLY_DB ?= audit-nightly.duckdb
NIGHTLY_OUT ?= audit-reports

.PHONY: setup nightly test lint types unit test-slow test-browser bench clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

setup: $(VENV)/.installed

nightly: setup
	rm -f $(NIGHTLY_DB)
	$(BIN)/shoe-audit nightly sample_logs/2026-11-28 --db $(NIGHTLY_DB) --out $(NIGHTLY_OUT)

lint: setup
	$(BIN)/ruff check audit tests benchmarks
	$(BIN)/ruff format --check audit tests benchmarks

types: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest -n 2 -q

test: lint types unit

test-slow: setup
	$(BIN)/pytest -n 2 -q -m slow

# Headless Chromium (Debian's /usr/bin/chromium) through Playwright;
# screenshots in test-artifacts/screenshots/.
test-browser: setup
	$(BIN)/pytest -n 2 -q -m browser

clean:
	rm -rf $(VENV) $(NIGHTLY_OUT) $(NIGHTLY_DB) .mypy_cache .ruff_cache .pytest_cache test-artifacts
