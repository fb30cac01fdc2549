"""``mcastlab qs-table``: coll03's Table 1 / Fig. 7 experiment from the command line."""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List

from . import progress
from .experiments import qs_table


def _floats(text: str) -> List[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text!r}") from None


def _ints(text: str) -> List[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def _row_text(r: Dict[str, Any]) -> str:
    agree = 100.0 * r["greedy_optimal"] / r["trials"]
    greedy = " ".join(f"{d}/{n / r['trials']:.3f}" for d, n in r["greedy"])
    extra = f"  ({r['unproven']} unproven)" if r["unproven"] else ""
    return (
        f"{r['size']:>5}  {r['fault_percent']:>6.2f}%  {r['faulty']:>6}  {r['notation']:<22}"
        f"  {greedy:<22}  {agree:>6.1f}%{extra}"
    )


def cmd_qs_table(args: argparse.Namespace) -> int:
    kw: Dict[str, Any] = {
        "sizes": args.sizes,
        "fault_percents": args.faulty,
        "trials": args.trials,
        "seed": args.seed,
        "budget": args.budget,
    }
    with progress.counted("qs-table") as advance:
        rows = qs_table(args.preset, progress=lambda d, t: advance(d, t), **kw)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    trials = rows[0]["trials"] if rows else 0
    seed = args.seed if args.seed is not None else 1
    print(f"coll03 {'Table 1' if args.preset == 'table1' else 'Fig. 7'} experiment: {trials} trials per row, seed {seed}")
    print(f"{'nodes':>5}  {'faulty':>7}  {'count':>6}  {'optimal x/y':<22}  {'greedy x/y':<22}  greedy=optimal")
    for r in rows:
        print(_row_text(r))
    total = sum(r["trials"] for r in rows)
    same = sum(r["greedy_optimal"] for r in rows)
    if total:
        print(f"greedy as shallow as optimal in {same} of {total} trials ({100.0 * same / total:.2f}%)")
    return 0


def add_parsers(sub: Any) -> None:
    qs = sub.add_parser(
        "qs-table",
        help="coll03 Table 1 / Fig. 7: greedy vs optimal Quadrics hardware multicast tree depth over random faults",
    )
    qs.add_argument("--preset", choices=["table1", "fig7"], default="table1",
                    help="table1: 1024-4096 nodes, 0.2-1%% faulty; fig7: 16-4096 nodes, 0.1-10%%")
    qs.add_argument("--sizes", type=_ints, default=None, help="network sizes in nodes, comma separated (default: the preset's)")
    qs.add_argument("--faulty", type=_floats, default=None, help="faulty endpoints in percent, comma separated")
    qs.add_argument("--trials", type=int, default=None, help="random fault sets per configuration (default 1000)")
    qs.add_argument("--seed", type=int, default=None, help="seed of the fault sets and sources (default 1)")
    qs.add_argument("--budget", type=int, default=None, help="node budget of each optimal search")
    qs.add_argument("--json", action="store_true")
    qs.set_defaults(func=cmd_qs_table)
