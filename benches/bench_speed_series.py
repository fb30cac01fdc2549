"""Benchmark (not a test): issue 12's speed measurement in one command. Runs `bench_booksim speed
FABRIC LOAD` for each case, and beside it on the mesh the minimal router `bench_lean_router LOAD`
and the same router stepped bit-sliced across routers, `bench_sliced_router LOAD` (the two
reference steps of docs/performance.md), interleaved (every program once per round, for RUNS
rounds), and prints the median and fastest CPU
time of each with traversals per CPU second, as docs/performance.md reports them. Interleaving
matters on a shared machine, whose speed drifts by several per cent within minutes: programs
compared within one round meet the same drift.

    python3 benches/bench_speed_series.py                        # the three cases, 11 rounds
    python3 benches/bench_speed_series.py --runs 21 --case "mesh:8x8 0.1"
    python3 benches/bench_speed_series.py --compare /tmp/old/bench_booksim   # against another build

`--compare PATH` adds another build of `bench_booksim` (copied from another checkout) to every
round, so that a change is measured against its base in the same rounds. `--instructions` runs
every program once more under valgrind's cachegrind (`--cache-sim=no`) and adds the exact count
of instructions it executes and their number per traversal: unlike the times, they do not drift
with the machine, so they tell a change of a few per cent on a noisy machine (a run takes about a
minute under valgrind; it needs the Debian package `valgrind`). The programs are built with cargo
first (`--profile release`, the default; `dev` for a quick check of the script).

    python3 benches/bench_speed_series.py --runs 5 --instructions
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CASES = ["mesh:8x8 0.1", "torus:8x8 0.1", "mesh:8x8 0.3"]
# BookSim's flit-router traversals per CPU second on the reference run (../shared/reference/booksim.md).
BOOKSIM_RATE = 0.85e6
# The reference router steps, 8×8 mesh only, each run as `NAME LOAD`.
REFERENCE_ROUTERS = ["bench_lean_router", "bench_sliced_router"]


def fail(msg: str) -> None:
    print(f"bench_speed_series: {msg}", file=sys.stderr)
    sys.exit(2)


def case(text: str) -> tuple[str, float]:
    parts = text.split()
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"`{text}`: give a fabric and a load, e.g. \"mesh:8x8 0.1\"")
    try:
        load = float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}`: load `{parts[1]}` is not a number") from None
    if not 0 < load < 1:
        raise argparse.ArgumentTypeError(f"`{text}`: load {load} is not between 0 and 1")
    return parts[0], load


def build(profile: str) -> Path:
    """Builds the three examples and returns the folder of their binaries (cargo's target folder,
    wherever CARGO_TARGET_DIR puts it)."""
    cmd = ["cargo", "build", "-q", "-p", "mcastlab-core", "--profile", profile]
    cmd += ["--example", "bench_booksim"] + [f"--example={r}" for r in REFERENCE_ROUTERS]
    if subprocess.run(cmd, cwd=REPO).returncode != 0:
        fail(f"`{' '.join(cmd)}` failed")
    meta = subprocess.run(
        ["cargo", "metadata", "-q", "--format-version", "1", "--no-deps"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    folder = "debug" if profile == "dev" else profile
    return Path(json.loads(meta.stdout)["target_directory"]) / folder / "examples"


def run(cmd: list[str]) -> dict:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"`{' '.join(cmd)}` ended with status {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def instructions(cmd: list[str]) -> int:
    """Instructions `cmd` executes, counted by cachegrind (exact, the same on every run)."""
    vg = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    r = subprocess.run(vg + cmd, capture_output=True, text=True)
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    if r.returncode != 0 or m is None:
        fail(f"`{' '.join(vg + cmd)}` ended with status {r.returncode} without a count: {r.stderr.strip()[-300:]}")
    return int(m[1].replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="rounds (default 11)")
    ap.add_argument("--case", type=case, action="append", help='"FABRIC LOAD" (repeatable; default the three)')
    ap.add_argument("--compare", type=Path, action="append", default=[], help="another build of bench_booksim")
    ap.add_argument("--profile", default="release", choices=["release", "dev"], help="cargo profile (default release)")
    ap.add_argument("--no-lean", action="store_true", help="leave out the reference routers (lean and sliced)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count each program's instructions once under valgrind (exact; about a minute a run)")
    a = ap.parse_args()
    if a.runs < 1:
        fail(f"--runs {a.runs}: give at least 1")
    if a.instructions and shutil.which("valgrind") is None:
        fail("--instructions needs valgrind (Debian package `valgrind`), which is not on PATH")
    for p in a.compare:
        if not p.is_file():
            fail(f"--compare {p}: no such file")
    bins = build(a.profile)
    programs = [("bench_booksim", str(bins / "bench_booksim"))] + [(f"{p}", str(p)) for p in a.compare]
    counted = " instructions | per traversal |" if a.instructions else ""
    print(f"| case | program | median CPU s | fastest | traversals / CPU s | vs {BOOKSIM_RATE / 1e6} M/s |{counted}")
    print("|---|---|---|---|---|---|" + "---|---|" * a.instructions)
    for fabric, load in a.case or [case(c) for c in CASES]:
        cmds = [(name, [path, "speed", fabric, str(load)]) for name, path in programs]
        if not a.no_lean and fabric == "mesh:8x8":
            cmds += [(r, [str(bins / r), str(load)]) for r in REFERENCE_ROUTERS]
        cpu: dict[str, list[float]] = {name: [] for name, _ in cmds}
        traversals: dict[str, int] = {}
        for _ in range(a.runs):
            for name, cmd in cmds:
                out = run(cmd)
                cpu[name].append(out["cpu_s"])
                traversals[name] = out["flit_router_traversals"]
        for name, _ in cmds:
            med = statistics.median(cpu[name])
            rate = traversals[name] / med
            row = (
                f"| {fabric} {load} | {name} | {med:.3f} | {min(cpu[name]):.3f} | {rate / 1e6:.1f} M "
                f"| {rate / BOOKSIM_RATE:.1f}× |"
            )
            if a.instructions:
                n = instructions(dict(cmds)[name])
                row += f" {n:,} | {n / traversals[name]:.0f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
