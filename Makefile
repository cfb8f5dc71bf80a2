# The two commands: `make demo` (install into .venv, then run the quickstart on the
# embedded default store) and `make test` (lint, type check, tests, the docs build).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: install demo test pytest test-slow lint docs bench clean services services-stop

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# CPU torch first, or pip pulls a multi-GB CUDA build (see README for other machines).
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[dev]"
	# HydraDB's v2 SDK beside the v1 one (both are the package hydra_db): its own folder.
	$(PY) -m pip install --quiet --no-deps --target $(VENV)/hydradb-sdk-v2 "hydradb-sdk==2.1.7"
	# Export the packaged model to ONNX once now, so no recall ever waits for it.
	$(PY) -m recall_engine.embedding.onnx
	touch $@

install: $(VENV)/.installed

demo: install
	$(PY) examples/quickstart.py

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

# The suite on every core, at most 4 workers (each loads its own models and servers);
# TEST_WORKERS=0 runs it in this process. The static checks and the docs build run
# beside it (they fill the time its workers wait on servers and subprocesses);
# `make test` fails when any of the three does.
TEST_WORKERS ?= auto
test: install
	@$(MAKE) --no-print-directory -j 3 --output-sync=line lint docs pytest

pytest: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile

# The slow set, kept out of `make test`: long property runs, repeated kill -9s, the
# examples with the packaged model; each has a faster default test for its behaviour.
# Spread test by test: one file holds its two longest runs (~9 and ~3 minutes).
test-slow: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist load -m slow

# The docs site, offline; --strict fails on a broken link or a docstring it cannot read.
docs: install
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

bench: install
	$(PY) -m bench.locomo
	$(PY) -m bench.throughput

# The distributed profile's servers: reuses the machine's Postgres and Redis, starts
# FalkorDB (built once into ~/.cache/recall-engine) and a moto S3 server; prints KEY=VALUE.
services: install
	@$(PY) .ci/services.py start

services-stop:
	@$(PY) .ci/services.py stop

clean:
	rm -rf .recall_engine .pytest_cache .ruff_cache .mypy_cache dist build site
