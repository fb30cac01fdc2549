"""The papers' tables that are not one plan or one run: ``mcastlab kbinomial-table`` (sivaram98
Theorem 3) and ``mcastlab qs-table`` (coll03 Table 1 / Fig. 7)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict

from ..api import kbinomial_optimal
from ..experiments import qs_table
from . import options, progress
from .exits import EXIT_INTERRUPTED, EXIT_OK
from .report import note_interrupted
from .values import U32_MAX, U64_MAX, fault_percents, integer_in, integers_in


def cmd_kbinomial_table(args: argparse.Namespace) -> int:
    """sivaram98 Theorem 3's optimal k for every n and m, next to the binomial tree's step count."""
    print("n (with source)  m  optimal k  L1  L1+(m-1)k  binomial")
    for n in args.n:
        for m in args.m:
            o = kbinomial_optimal(n, m)
            lg = max(1, (n - 1).bit_length())
            print(f"{n:>15}  {m:>1}  {o['k']:>9}  {o['L1']:>2}  {o['steps']:>9}  {lg + (m - 1) * lg:>8}")
    return EXIT_OK


def _percent_text(x: float) -> str:
    """A percentage to two decimals, or to two significant digits below 0.01 % (one faulty node in
    a million was printed as 0.00 %, as if none were)."""
    return f"{x:.2f}" if x == 0 or abs(x) >= 0.01 else f"{x:.2g}"


def _qs_row_text(r: Dict[str, Any]) -> str:
    agree = 100.0 * r["greedy_optimal"] / r["trials"]
    greedy = " ".join(f"{d}/{n / r['trials']:.3f}" for d, n in r["greedy"])
    extra = f"  ({r['unproven']} unproven)" if r["unproven"] else ""
    return (
        f"{r['size']:>5}  {_percent_text(r['fault_percent']):>6}%  {r['faulty']:>6}  {r['notation']:<22}"
        f"  {greedy:<22}  {agree:>6.1f}%{extra}"
    )


def cmd_qs_table(args: argparse.Namespace) -> int:
    """coll03's greedy-versus-optimal tree depth experiment as its table (or rows as JSON)."""
    kw: Dict[str, Any] = {
        "sizes": args.sizes,
        "fault_percents": args.faulty,
        "trials": args.trials,
        "seed": args.seed,
        "budget": args.budget,
    }
    with progress.counted("qs-table") as advance:
        rows = qs_table(args.preset, progress=lambda d, t: advance(d, t), **kw)
    status = EXIT_INTERRUPTED if rows.interrupted else EXIT_OK
    if rows.interrupted:
        # The rows printed are the finished configurations'; say so where the reader looks.
        print(f"qs-table: interrupted after {len(rows)} configuration(s); printing those", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        if rows.interrupted:
            note_interrupted()
        return status
    trials = rows[0]["trials"] if rows else 0
    seed = args.seed if args.seed is not None else 1
    print(f"coll03 {'Table 1' if args.preset == 'table1' else 'Fig. 7'} experiment: {trials} trials per row, seed {seed}")
    print(f"{'nodes':>5}  {'faulty':>7}  {'count':>6}  {'optimal x/y':<22}  {'greedy x/y':<22}  greedy=optimal")
    for r in rows:
        print(_qs_row_text(r))
    total = sum(r["trials"] for r in rows)
    same = sum(r["greedy_optimal"] for r in rows)
    if total:
        print(f"greedy as shallow as optimal in {same} of {total} trials ({100.0 * same / total:.2f}%)"
              + (" (finished configurations only)" if rows.interrupted else ""))
    if rows.interrupted:
        note_interrupted()
    return status


def add_kbinomial_table(sub: options.Subcommands) -> None:
    """Registers ``mcastlab kbinomial-table``."""
    kt = sub.add_parser("kbinomial-table", help="optimal k of sivaram98 Theorem 3 for n nodes and m packets")
    # A group has the source and at least one destination; a message at least one packet (the
    # core's u64 and u32).
    kt.add_argument("--n", type=integers_in(2, U64_MAX), required=True, help="group sizes with the source (2 or more), comma separated")
    kt.add_argument("--m", type=integers_in(1, U32_MAX), required=True, help="packet counts (1 or more), comma separated")
    kt.set_defaults(func=cmd_kbinomial_table)


def add_qs_table(sub: options.Subcommands) -> None:
    """Registers ``mcastlab qs-table``."""
    qs = sub.add_parser(
        "qs-table",
        help="coll03 Table 1 / Fig. 7: greedy vs optimal Quadrics hardware multicast tree depth over random faults",
    )
    # Not the simulator's --preset: this one picks the paper's experiment (its sizes and fault rates).
    qs.add_argument("--preset", choices=["table1", "fig7"], default="table1",
                    help="table1: 1024-4096 nodes, 0.2-1%% faulty; fig7: 16-4096 nodes, 0.1-10%%")
    qs.add_argument("--sizes", type=integers_in(1, U32_MAX), default=None,
                    help="network sizes in nodes, comma separated (default: the preset's): 3 or more (one faulty node, "
                         "a source, a destination) up to the largest kary_ntree; a size that is not a power of 4 is "
                         "the left part of the next full quaternary tree, as 2048 nodes in Table 1")
    qs.add_argument("--faulty", type=fault_percents, default=None,
                    help="faulty endpoints in percent, each above 0 and below 100 (a trial needs a faulty node and "
                         "working ones), comma separated (default: the preset's)")
    qs.add_argument("--trials", type=integer_in(1, U32_MAX), default=None, help="random fault sets per configuration (default 1000)")
    options.add_seed(qs, default=None, help="seed of the fault sets and sources (default 1)")
    qs.add_argument("--budget", type=integer_in(1, U64_MAX), default=None, help="node budget of each optimal search")
    options.add_json(qs)
    qs.set_defaults(func=cmd_qs_table)
