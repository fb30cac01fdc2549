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
    # The minimal router is an 8×8 mesh only.
    assert got == [
        ("mesh:4x4", 0.1, "bench_booksim"),
        ("mesh:8x8", 0.02, "bench_booksim"),
        ("mesh:8x8", 0.02, "bench_lean_router"),
    ], r.stdout
    for m in rows:
        median, fastest, rate, ratio = float(m[4]), float(m[5]), float(m[6]), float(m[7])
        assert 0 < fastest <= median, m[0]
        assert rate > 0 and abs(ratio - rate / 0.85) <= 0.1 + 0.01 * ratio, m[0]


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
