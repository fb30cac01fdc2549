"""`bench_sliced_router` is `bench_lean_router`'s model stepped bit-sliced across routers (one
64-bit word per state bit, one bit per router), the measurement behind docs/performance.md's
"A router step sliced across routers". Its speed means something only if it does the same work:
the two must agree on every output but time, below and past saturation, with and without the
timed endpoint events. Their VA and SA are the real model's one-iteration iSLIP (over input VCs
x output VCs, and over input ports x output ports), written once per router and once on words:
changing one pointer update (VA's grant or accept, SA's accept or per-input VC pointer, in
either program) makes every case below fail, so this comparison can fail.

Both also carry what the real model must besides the allocators, and the rows compare it: packet
lengths read from the packet records (`mixed` draws them from 1-16 flits, so the sliced
program's flits-left planes meet one-flit packets and packets longer than a buffer), the real
model's statistics (per channel flits and heads as a checksum and totals, flit hops, the last
move, the occupancy peak and its first buffer; the sliced program's come from bit-sliced counters
flushed every 2^15 cycles) and channel latencies read per port (`slow-links`). Checked: the
sliced tail test taking the flit before the last (one plane left out; the run then panics), the
last flush of the per-channel counters skipped, their carry cut after the second plane, a word
waiting for its pair left out of the flush, or the pair's full adder losing a carry, each fails
the cases (the last two checked on the carry-save counters)."""

import json
import shutil

import pytest

from test_bench_args import bench

TIMING = ("case", "cpu_s", "traversals_per_cpu_s")


def outputs(example: str, *args: str) -> dict:
    r = bench(example, *args)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)
    return {k: v for k, v in row.items() if k not in TIMING}


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to run the Rust benchmark")
@pytest.mark.parametrize(
    "args",
    [
        ["0.02"],
        ["0.05", "events"],
        ["0.1"],
        ["0.3"],
        ["0.5"],
        ["0.1", "mixed"],
        ["0.4", "mixed", "events"],
        ["0.2", "slow-links"],
        ["0.3", "slow-links", "mixed", "events"],
    ],
)
def test_sliced_router_does_the_lean_routers_work_exactly(args):
    lean = outputs("bench_lean_router", *args)
    sliced = outputs("bench_sliced_router", *args)
    assert lean["flit_router_traversals"] > 0 and lean["latency_total_cycles"] > 0
    assert lean["channel_flits"] == lean["flit_router_traversals"] and lean["peak_buffer_flits"] > 0
    assert sliced == lean
