"""Benchmark (not a test): the speedup of `mcastlab reproduce` from 1 to 2 local worker processes,
and on a 2-worker Dask LocalCluster, on a real experiment, measured side by side (interleaved
rounds: 1 worker, 2 workers, Dask, then again), with CPU time beside wall time.

    python3 benches/bench_reproduce.py                       # coll03:fig10 --quick, 3 rounds
    python3 benches/bench_reproduce.py coll03:fig9 quick 5   # experiment, scale, rounds

CPU time is the points' own (each worker's process time while it ran the point, summed) and the
whole process tree's (user + system of this process and its finished children: pool workers,
Dask nannies and workers). The store is off, so every round computes every point. Prints a
Markdown table for docs/performance.md, the load average before and after, and the medians.
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time

from mcastlab.reproduce.api import reproduce


def cpu_tree() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def one(key: str, scale: str, **kw: object) -> tuple:
    c0, w0 = cpu_tree(), time.perf_counter()
    rep = reproduce(key, scale=scale, out=None, store=False, **kw)
    wall = time.perf_counter() - w0
    return wall, rep.cpu_s, cpu_tree() - c0, len(rep.rows)


def main() -> None:
    key = sys.argv[1] if len(sys.argv) > 1 else "coll03:fig10"
    scale = sys.argv[2] if len(sys.argv) > 2 else "quick"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    setups = [("1 local worker", {"workers": 1}), ("2 local workers", {"workers": 2}),
              ("Dask LocalCluster, 2 workers", {"workers": 2, "dask": "local"})]
    print(f"{key} at scale {scale}, {rounds} interleaved rounds, {os.cpu_count()} cores; "
          f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    got = {name: [] for name, _ in setups}
    rows = None
    for r in range(rounds):
        for name, kw in setups:
            wall, cpu_points, cpu_all, n = one(key, scale, **kw)
            assert rows is None or n == rows
            rows = n
            got[name].append((wall, cpu_points, cpu_all))
            print(f"round {r + 1}: {name}: wall {wall:.2f} s, points' CPU {cpu_points:.2f} s, process tree CPU "
                  f"{cpu_all:.2f} s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}; {rows} rows per run\n")
    base = statistics.median(w for w, _, _ in got["1 local worker"])
    print("| setup | wall (median) | speedup | points' CPU (median) | process tree CPU (median) |")
    print("| --- | --- | --- | --- | --- |")
    for name, _ in setups:
        ws = [w for w, _, _ in got[name]]
        cp = [c for _, c, _ in got[name]]
        ca = [c for _, _, c in got[name]]
        print(f"| {name} | {statistics.median(ws):.2f} s | {base / statistics.median(ws):.2f} | "
              f"{statistics.median(cp):.2f} s | {statistics.median(ca):.2f} s |")


if __name__ == "__main__":
    main()
