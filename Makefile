# The README's two quick-start commands live here so that CI and people run the same thing.
PYTHON ?= python3

.PHONY: run test test-rust test-python install-test bench

# Install mcastlab and run the main job on the built-in default fabric.
run:
	$(PYTHON) -m pip install .
	mcastlab compare

# Install what the tests need and run every Rust and Python test.
test: install-test test-rust test-python

install-test:
	$(PYTHON) -m pip install -e '.[test]'

# Property tests use a fixed seed here so that CI is reproducible: a failure on CI fails the
# same way on every machine. Run `cargo test` / `pytest` directly to explore fresh random cases;
# proptest saves what it finds in the *.proptest-regressions files (commit them).
PROPTEST_SEED ?= 20261121

test-rust:
	PROPTEST_RNG_SEED=$(PROPTEST_SEED) cargo test --workspace

# lint-imports checks the import layers declared in pyproject.toml (no circles, no upward imports).
test-python:
	lint-imports --no-cache
	HYPOTHESIS_PROFILE=ci $(PYTHON) -m pytest -q

# Benchmarks (not tests): see docs/performance.md.
bench:
	cargo build --release -p mcastlab-core --example bench_route
	$(PYTHON) benches/bench_fabric.py
