"""benches/bench_speed_series.py, the one command behind docs/performance.md's speed table: it
prints a row per program and case, with the numbers the table reports, and stops on bad input
with a message and status 2. Run on cargo's dev profile (which `cargo test` has built) and small
cases, so that it costs seconds; its real use is `--profile release` on the 8×8 cases."""

import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "benches" / "bench_speed_series.py"
ROW = re.compile(r"^\| (\S+) ([0-9.]+) \| (\S+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) M \| ([0-9.]+)× \|$")


def series(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=REPO, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to build the Rust benchmarks")
def test_series_prints_a_row_per_program_and_case():
    r = series("--runs", "3", "--profile", "dev", "--case", "mesh:4x4 0.1", "--case", "mesh:8x8 0.02")
    assert r.returncode == 0, r.stderr
    rows = [ROW.match(line) for line in r.stdout.splitlines()[2:]]
    assert all(rows), r.stdout
    got = [(m[1], float(m[2]), m[3]) for m in rows]
    # The reference routers are an 8×8 mesh only.
    assert got == [
        ("mesh:4x4", 0.1, "bench_booksim"),
        ("mesh:8x8", 0.02, "bench_booksim"),
        ("mesh:8x8", 0.02, "bench_lean_router"),
        ("mesh:8x8", 0.02, "bench_sliced_router"),
    ], r.stdout
    for m in rows:
        median, fastest, rate, ratio = float(m[4]), float(m[5]), float(m[6]), float(m[7])
        assert 0 < fastest <= median, m[0]
        assert rate > 0 and abs(ratio - rate / 0.85) <= 0.1 + 0.01 * ratio, m[0]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to build the Rust benchmarks")
def test_series_counts_instructions_with_valgrind_or_says_it_needs_it():
    """`--instructions` adds each program's exact instruction count and its count per traversal
    (the measure that does not drift with the machine); without valgrind it stops naming it."""
    r = series("--runs", "1", "--profile", "dev", "--case", "mesh:4x4 0.1", "--no-lean", "--instructions")
    if shutil.which("valgrind") is None:
        assert r.returncode == 2 and "--instructions needs valgrind" in r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("| instructions | per traversal |"), r.stdout
    m = re.match(r"^(\| mesh:4x4 0\.1 \| bench_booksim \|.*\|) ([0-9,]+) \| ([0-9]+) \|$", lines[2])
    assert m and ROW.match(m[1]), r.stdout
    count, per = int(m[2].replace(",", "")), int(m[3])
    # The count is the run's and the rate's traversals are the same run's: count / per traversal
    # gives back a traversal count, which a 4×4 mesh at 0.1 for 80,000 cycles puts near
    # 16 × 0.1 / 8 × 80,000 packets × 8 flits × about 3.7 hops (its routers crossed).
    traversals = count / per
    assert 2e5 < traversals < 8e5, (count, per)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to build the Rust benchmarks")
@pytest.mark.parametrize(
    "args, says",
    [
        (["--case", "mesh:8x8"], "`mesh:8x8`: give a fabric and a load"),
        (["--case", "mesh:8x8 fast"], "load `fast` is not a number"),
        (["--case", "mesh:8x8 1.5"], "load 1.5 is not between 0 and 1"),
        (["--runs", "0"], "--runs 0: give at least 1"),
        (["--compare", "/nonexistent/bench_booksim"], "--compare /nonexistent/bench_booksim: no such file"),
        (["--profile", "dev", "--runs", "1", "--case", "blob:1 0.1"], "fabric `blob:1`: unknown generator"),
    ],
)
def test_series_rejects_bad_input_by_name(args, says):
    r = series(*args)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
