# The README's two quick-start commands live here so that CI and people run the same thing.
PYTHON ?= python3

.PHONY: run test test-rust test-python install-test install-browser install-valgrind check-msrv check-docs bench fuzz

# Install mcastlab and run the main job on the built-in default fabric.
run:
	$(PYTHON) -m pip install .
	mcastlab compare

# Install what the tests need and run every Rust and Python test, check that the API docs build
# without warnings, then that the crates build with the oldest toolchain Cargo.toml claims
# (rust-version).
test: install-test test-rust check-docs test-python check-msrv

# The report's browser test (tests/test_report_browser.py) drives Debian's headless Chromium through
# Debian's chromedriver (selenium, from the test extra). Installed here when missing, as root with
# apt (elsewhere: say what to install; the test then fails with the same command, never skips).
BROWSER_PKGS = chromium chromium-driver

install-test: install-browser install-valgrind
	$(PYTHON) -m pip install -e '.[test]'

install-browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BROWSER_PKGS) >/dev/null 2>&1 || \
	   (apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BROWSER_PKGS) >/dev/null)) \
	  && echo "install-browser: installed $(BROWSER_PKGS)"; \
	else echo "install-browser: chromium and chromedriver are missing; install them (Debian: apt-get install $(BROWSER_PKGS))"; fi

# valgrind counts the speed benchmark's instructions (`benches/bench_speed_series.py
# --instructions`; tests/test_bench_speed_series.py runs it once). Optional: installed here when
# missing and apt can, apart from the browser so that a failure here costs only this; without it
# the script says it needs valgrind, and the test checks that message instead.
install-valgrind:
	@if command -v valgrind >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind >/dev/null 2>&1 || \
	   (apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind >/dev/null 2>&1)) \
	  && echo "install-valgrind: installed valgrind" || echo "install-valgrind: could not install valgrind (optional)"; \
	else echo "install-valgrind: valgrind is missing (optional; Debian: apt-get install valgrind)"; fi

# Property tests use a fixed seed here so that CI is reproducible: a failure on CI fails the
# same way on every machine. Run `cargo test` / `pytest` directly to explore fresh random cases;
# proptest saves what it finds in the *.proptest-regressions files (commit them).
PROPTEST_SEED ?= 20261121

test-rust:
	PROPTEST_RNG_SEED=$(PROPTEST_SEED) cargo test --workspace

# The API docs build without warnings (a link to a private or missing item is one).
check-docs:
	RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps

# lint-imports checks the import layers declared in pyproject.toml (no circles, no upward imports).
test-python:
	lint-imports --no-cache
	HYPOTHESIS_PROFILE=ci $(PYTHON) -m pytest -q

# The parsers' long fuzzing run: 100,000 executions for each of the 11 parsers (about 80 s in
# release); `cargo test` runs 3,000 each. See docs/reliability.md, "Fuzzing".
fuzz:
	nice -n 10 cargo test --release -p mcastlab-core --test fuzz_parsers -- --ignored long_fuzz --nocapture --test-threads=1

# Benchmarks (not tests): the quick ones of docs/performance.md, which lists every benchmark with
# its rerun command and what its numbers mean. Minutes; run on a quiet machine.
bench:
	cargo run --release -p mcastlab-core --example bench_route
	cargo run --release -p mcastlab-core --example bench_sim
	cargo run --release -p mcastlab-core --example bench_booksim -- speed
	$(PYTHON) benches/bench_reproduce.py

# rust-version = 1.85 (Cargo.toml): the oldest toolchain that builds the crates, set by the locked
# dependencies (indexmap and hashbrown need 1.85). Checked with Debian's rustc-web 1.85, installed
# here when missing (root and apt needed; elsewhere the check says it was skipped and why). The
# tests need 1.88: proptest 1.12 asks for it.
MSRV_DEB = 1.85.0+dfsg3-1~deb12u3
check-msrv:
	@if ! /usr/bin/rustc --version 2>/dev/null | grep -q '^rustc 1\.85\.'; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && apt-get install -y -q \
	     rustc-web=$(MSRV_DEB) cargo-web=$(MSRV_DEB) libstd-rust-web-dev=$(MSRV_DEB) \
	     libstd-rust-web-1.85=$(MSRV_DEB) > /dev/null; then :; \
	  else echo "check-msrv: SKIPPED: Debian's rustc-web $(MSRV_DEB) is not installed and could not be"; exit 0; fi; \
	fi; \
	RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/msrv /usr/bin/cargo check --workspace --lib --bins
