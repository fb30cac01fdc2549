"""The benchmark harnesses named in docs/performance.md stop on bad input with a message naming it
and exit status 2, not a panic and its backtrace (`bench_booksim speed mesh:16x16 0.3`, a run past
saturation, once hit an assertion). They run from the debug build `cargo test` has made of the
examples, so this costs no extra compilation after the Rust tests."""

import shutil
import subprocess

import pytest

from conftest import REPO


def bench(example: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["cargo", "run", "-q", "-p", "mcastlab-core", "--example", example, "--", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to run the Rust benchmark")
@pytest.mark.parametrize(
    "args, says",
    [
        (["speed", "blob:1", "0.1"], "fabric `blob:1`: unknown generator"),
        (["speed", "mesh:8x8", "fast"], "load `fast`: not a number"),
        (["speed", "mesh:8x8", "-1"], "parameter `load`: -1"),
        (["speed", "mesh:4x4", "0.9"], "the run did not drain"),
        (["table", "eight"], "packet flits `eight`: not a whole number"),
        (["point", "8", "0.1x"], "load `0.1x`: not a number"),
    ],
)
def test_bench_booksim_rejects_bad_input_by_name(args, says):
    r = bench("bench_booksim", *args)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr, r.stderr
    assert "panicked" not in r.stderr and "backtrace" not in r.stderr, r.stderr


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to run the Rust benchmark")
@pytest.mark.parametrize(
    "args, says",
    [
        (["fast"], "load `fast`"),
        (["1.5"], "load `1.5`"),
        (["-0.1"], "load `-0.1`"),
        (["0.1", "heap"], "`heap`: the only option after the load is `events`"),
    ],
)
@pytest.mark.parametrize("example", ["bench_lean_router", "bench_sliced_router"])
def test_bench_lean_and_sliced_router_reject_bad_input_by_name(example, args, says):
    r = bench(example, *args)
    assert r.returncode == 2, r.stderr
    assert f"{example}: " in r.stderr and says in r.stderr, r.stderr
    assert "panicked" not in r.stderr and "backtrace" not in r.stderr, r.stderr
