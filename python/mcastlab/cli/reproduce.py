"""``mcastlab reproduce``: the papers' figures and tables, each with its claims evaluated, on a
local process pool or Dask; rows, figures, ``report.html`` and ``summary.md`` in ``--out``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, List, Optional

from ..reproduce.api import DEFAULT_OUT, ReproduceError, check_inputs, listing, reproduce
from ..runner import RunnerError
from . import options, progress
from .exits import EXIT_INTERRUPTED, EXIT_OK
from .report import note_interrupted
from .values import positive_count


def _scale(args: argparse.Namespace) -> str:
    if args.tiny:
        return "tiny"
    return "quick" if args.quick else "full"


def _duration(s: Optional[float]) -> str:
    if s is None:
        return "?"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def print_list(scale: str, names: List[str]) -> None:
    """``--list``: every experiment with what it varies, its points and cost at ``scale``."""
    rows = listing(scale, names or "all")
    print(f"{'experiment':<20} {'label':<10} {'points':>7} {'cost':>9}  {'claims':>6}  varies")
    for r in rows:
        pts = "-" if r["pending"] else f"{r['points']:,}"
        cost = "-" if r["pending"] else _duration(r["cost_s"])
        print(f"{r['key']:<20} {r['label']:<10} {pts:>7} {cost:>9}  {r['claims']:>6}  {r['varies']}")
        if r["pending"]:
            print(f"{'':<20} pending: {r['pending']}")
    total = sum(r["cost_s"] or 0 for r in rows if not r["pending"])
    print(f"{len(rows)} experiments at scale {scale}; cost = estimated CPU time on one core ({_duration(total)} in all)")


def _eta(t0: float, first_done: List[Optional[int]], done: int, total: int) -> str:
    """Time left from the pace of the points computed in this run (reused ones excluded)."""
    if first_done[0] is None:
        first_done[0] = done
        return ""
    ran = done - first_done[0]
    if ran <= 0:
        return ""
    left = (time.perf_counter() - t0) / ran * (total - done)
    return f"eta {_duration(left)}"


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Runs the named experiments and writes their rows, figures, claims and report."""
    scale = _scale(args)
    try:
        if args.list:
            print_list(scale, args.names)
            return EXIT_OK
        chosen = check_inputs(args.names, scale, args.out, args.dask)
        store: Any = False if args.no_store else (args.store if args.store is not None else True)
        runnable = [e for e in chosen if not e.pending]
        cost = sum(e.cost_s.get(scale, 0.0) for e in runnable)
        where = f"Dask ({args.dask})" if args.dask else f"{args.workers or 'one per core'} local worker processes"
        print(f"reproducing {len(chosen)} experiment(s) at scale {scale}, seed {args.seed}: about {_duration(cost)} of CPU "
              f"time on one core, on {where}", file=sys.stderr)
        for e in chosen:
            if e.pending:
                print(f"{e.key}: pending: {e.pending}", file=sys.stderr)
        t0 = time.perf_counter()
        first: List[Optional[int]] = [None]
        with progress.counted("reproducing") as advance:
            def tell(done: int, total: int, label: str) -> None:
                eta = _eta(t0, first, done, total)
                advance(done, total, "; ".join(x for x in (eta, label) if x))

            rep = reproduce(args.names, scale=scale, out=args.out, seed=args.seed, workers=args.workers,
                            dask=args.dask, store=store, progress=tell)
    except (ReproduceError, RunnerError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    _print_claims(rep)
    print(f"\n{rep.computed:,} points computed, {rep.reused:,} reused, in {rep.wall_s:,.1f} s on {rep.where}")
    for what in ("report", "summary", "figures", "rows"):
        if what in rep.paths:
            print(f"{what:<8} {rep.paths[what]}")
    if rep.interrupted:
        print("interrupted: finished points are in the store and the rows; a rerun of the same command resumes",
              file=sys.stderr)
        note_interrupted()
        return EXIT_INTERRUPTED
    return EXIT_OK


def _print_claims(rep: Any) -> None:
    for e in rep.experiments:
        x = e.experiment
        state = "" if e.status == "done" else f"  [{e.status}: {x.pending}]" if e.status == "pending" else f"  [{e.status}]"
        print(f"\n{x.key}  {x.label}: {x.title}{state}")
        for c in e.claims:
            ev = f"  [{c.evidence}]" if c.evidence else ""
            paper = f"  (paper: {c.verdict.paper})" if c.verdict.paper else ""
            print(f"  {c.verdict.status:<15} {c.claim.text}\n  {'':<15} {c.verdict.measured}{paper}{ev}")


def add_reproduce(sub: options.Subcommands) -> None:
    """Registers ``mcastlab reproduce``."""
    r = sub.add_parser(
        "reproduce",
        help="the papers' figures and tables with their claims evaluated (local pool or Dask), and a report",
        description="Runs the papers' experiments (one per figure or table) and writes rows (CSV, Parquet), figures "
        "drawn like the paper's with its stated values overlaid, each claim's verdict (holds / differs / not applicable "
        "/ pending) and report.html + summary.md into --out. Default scale: the paper's own counts; --quick runs fewer "
        "topologies and trials, --tiny (alone or with --quick) a few seconds per experiment.",
    )
    r.add_argument("names", nargs="*", help="experiments: a key (coll03:fig8), a paper (zhou07), a pattern ('zhou07:fig1*') "
                                            "or all")
    r.add_argument("--list", action="store_true", help="list the experiments (with --quick/--tiny: their cost at that scale)")
    r.add_argument("--quick", action="store_true", help="fewer topologies/trials than the paper (minutes per paper)")
    r.add_argument("--tiny", action="store_true", help="seconds per experiment (what CI runs)")
    r.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    options.add_seed(r, help="master seed: every replicate's seed derives from it (default 1)")
    r.add_argument("--workers", type=positive_count, default=None,
                   help="local worker processes, or the size of --dask local (default: one per core)")
    r.add_argument("--dask", default=None, metavar="SCHEDULER",
                   help="run on Dask: a scheduler address (tcp://HOST:PORT), a scheduler file (*.json), or `local`")
    store = r.add_mutually_exclusive_group()
    store.add_argument("--store", default=None, metavar="DIR", help="result store (default OUT/store): finished points are "
                       "reused, a killed run resumes")
    store.add_argument("--no-store", action="store_true", help="no result store: compute every point")
    r.set_defaults(func=cmd_reproduce)
