# The README's two quick-start commands live here so that CI and people run the same thing.
PYTHON ?= python3

.PHONY: run test test-rust test-python install-test bench

# Install mcastlab and run the main job on the built-in default fabric.
run:
	$(PYTHON) -m pip install .
	mcastlab fabric info

# Install what the tests need and run every Rust and Python test.
test: install-test test-rust test-python

install-test:
	$(PYTHON) -m pip install -e '.[test]'

test-rust:
	cargo test --workspace

test-python:
	$(PYTHON) -m pytest -q

# Benchmarks (not tests): see docs/performance.md.
bench:
	cargo build --release -p mcastlab-core --example bench_route
	$(PYTHON) benches/bench_fabric.py
