# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TF_EXTRA ?= cpu
STAMP := $(VENV)/.installed
DOTNET_BIN := dotnet/bin

.PHONY: install mono r build test test-python lint demo bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(TF_EXTRA),test]"
	touch $(STAMP)

install: $(STAMP) mono r

# Mono (mcs, mono) and NUnit 2.6 from Debian, when missing.
mono:
	@if ! command -v mcs >/dev/null || ! command -v mono >/dev/null || ! command -v nunit-console >/dev/null; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq mono-devel nunit-console >/dev/null; \
	fi

# R and reticulate from Debian, when missing (interop_examples/r drive the engine from R).
r:
	@if ! command -v Rscript >/dev/null || \
	    ! Rscript -e 'quit(status = !requireNamespace("reticulate", quietly = TRUE))' >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq r-base-core r-cran-reticulate >/dev/null; \
	fi

build: install
	PYTHON=$(abspath $(PY)) bash dotnet/build.sh

test: build
	$(PY) -m ruff check src tests benchmarks interop_examples
	$(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks interop_examples

demo: build
	$(PY) -m tfnet_train.demo

bench: build
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(DOTNET_BIN) reports
