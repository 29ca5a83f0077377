# The two commands of shoe-audit (see README.md):
#   make nightly   set up, then audit sample_logs/ into a report
#   make test      set up, then lint + types + the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
NIGHTLY_DB ?= audit-nightly.duckdb
NIGHTLY_OUT ?= audit-reports

.PHONY: setup engine nightly test lint types unit test-slow test-browser conformance bench clean

# The install compiles the engine in place with mypyc (setup.py), so an edit of
# an engine source makes the next target rebuild it; tests/conftest.py stops a
# test run whose compiled engine no longer matches its sources.
ENGINE_SRC := $(wildcard audit/engine/*.py)

$(VENV)/.installed: pyproject.toml setup.py $(ENGINE_SRC)
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

setup: $(VENV)/.installed

# Rebuild the engine in place now; SHOE_AUDIT_PURE=1 make engine: the
# pure-Python reference, uncompiled (for debugging; make engine compiles it again).
engine: setup
	$(PY) -m pip install -q --no-deps -e .

# The demo database is rebuilt from scratch each time, with everything that lives
# beside it (its ledger and retired ledgers, the review trail, the intent file):
# removing the database alone left its ledger, which the next run retired.
NIGHTLY_FILES = $(NIGHTLY_DB) $(NIGHTLY_DB).wal $(NIGHTLY_DB).writing $(NIGHTLY_DB).ledger \
	$(NIGHTLY_DB).ledger.retired-* $(NIGHTLY_DB).retired-* \
	$(basename $(NIGHTLY_DB)).reviews.sqlite* $(basename $(NIGHTLY_DB)).reviews.ledger*

nightly: setup
	rm -f $(NIGHTLY_FILES)
	$(BIN)/shoe-audit nightly sample_logs --db $(NIGHTLY_DB) --out $(NIGHTLY_OUT)

lint: setup
	$(BIN)/ruff check audit tests benchmarks .ci/conformance.py
	$(BIN)/ruff format --check audit tests benchmarks .ci/conformance.py

types: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest -n 2 -q

test: lint types unit

test-slow: setup
	$(BIN)/pytest -n 2 -q -m slow

# The independent conformance nights (../shared/conformance), as .ci/run checks them.
conformance: setup
	$(PY) .ci/conformance.py $(BIN)/shoe-audit

# Headless Chromium (Debian's /usr/bin/chromium) through Playwright;
# screenshots in test-artifacts/screenshots/.
test-browser: setup
	$(BIN)/pytest -n 2 -q -m browser

# clean removes what these targets made (the nightly database with its ledger, review
# trail and intent file; the report; audit-export/), never the ledger of a database it
# keeps: a ledger gone from beside its database reads as tampering.
clean:
	rm -rf $(VENV) $(NIGHTLY_OUT) $(NIGHTLY_FILES) .mypy_cache .ruff_cache .pytest_cache test-artifacts
	rm -rf audit-export
	rm -rf build audit/engine/*.so audit/engine/mypyc-sources.sha256 *__mypyc*.so
