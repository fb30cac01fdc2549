"""``mcastlab sweep``: latency and accepted throughput versus offered load (one run per load, in
parallel), as a table, tidy rows (CSV/Parquet) and a plot."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, List

from ..api import fabric
from ..workloads import estimate, run_rows, sweep_results
from . import options, progress
from .exits import EXIT_INTERRUPTED, EXIT_OK
from ..draw import picture_formats, save_figure
from .plots import wrap_title
from .report import check_output, note_interrupted, write_rows
from .values import load_text, parse_loads, positive_count


def plot_sweep(df: Any, path: str, title: str) -> None:
    """Mean latency versus offered load, saturated points marked, 95% intervals as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    df = df[df["complete"]]  # a point Ctrl-C cut short has partial numbers: not drawn
    ok = df[~df["saturated"]]
    bad = df[df["saturated"]]
    ax.plot(ok["offered_load"], ok["latency_mean_us"], "o-", label="stable")
    if len(bad):
        ax.plot(bad["offered_load"], bad["latency_mean_us"], "x", color="tab:red", label="saturated")
    if "latency_ci95_us" in ok:
        ax.errorbar(ok["offered_load"], ok["latency_mean_us"], yerr=ok["latency_ci95_us"].fillna(0), fmt="none",
                    ecolor="gray", capsize=2)
    ax.set_xlabel("offered load (flits/cycle/endpoint)")
    ax.set_ylabel("mean message latency (us)")
    ax.set_title(wrap_title(title), fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)


def _print_table(out: Any, df: Any, wall: float) -> None:
    first = out["results"][0]["run"] if out["results"] else None
    if first:
        print(f"sweep           {first['kind']} ({first['scheme'] or 'unicast'}) on {first['fabric']}, "
              f"routing {first['routing']}, seed {first['seed']}, {first['message_flits']} flits per message")
    print(f"{'load':>8}  {'latency (us)':>14}  {'± ci95':>8}  {'cycles':>9}  {'accepted':>8}  outcome")
    for _, r in df.iterrows():
        ci = "-" if r["latency_ci95_us"] is None or r["latency_ci95_us"] != r["latency_ci95_us"] else f"{r['latency_ci95_us']:.3f}"
        lat = r["latency_mean_us"]
        lat_s = "-" if lat is None or lat != lat else f"{lat:.3f}"
        cyc = "-" if lat is None or lat != lat else f"{r['latency_mean_ps'] / r['cycle_ps']:.1f}"
        if not r["complete"]:
            verdict = "interrupted (partial, not in the conclusions)"
        else:
            verdict = r["outcome"] + (f" (saturated: {r['saturation']})" if r["saturated"] else "")
        print(f"{load_text(r['offered_load']):>8}  {lat_s:>14}  {ci:>8}  {cyc:>9}  {r['accepted_load']:>8.4f}  {verdict}")
    for line in conclusions(df):
        print(line)
    if out.get("check"):
        print(f"checks          {out['check']['verdict']}")
    print(f"wall            {wall:.2f} s for {int(df['events'].sum()):,} events")


def conclusions(df: Any) -> List[str]:
    """What the sweep shows, from its complete points only: a point Ctrl-C stopped has partial
    numbers (its latency and saturation flag mean nothing), so it never enters the saturation
    bracket, nor does a point that measured no message; the lines say which points are missing.
    The bracket is given only when the stable points all lie below the saturated ones."""
    done = df[df["complete"]]
    lines = []
    if len(done) < len(df):
        missing = ", ".join(load_text(x) for x in df[~df["complete"]]["offered_load"])
        lines.append(f"conclusions     from the {len(done)} complete of {len(df)} points (not finished: {missing})")
    if "outcome" in done:
        # A point whose window created no message measured nothing: neither stable nor saturated.
        empty = done[done["outcome"] == "no_message"]
        if len(empty):
            loads = ", ".join(load_text(x) for x in empty["offered_load"])
            lines.append(f"no message      measured at {loads}: left out (lengthen the window, --measure batch=...)")
        done = done[done["outcome"] != "no_message"]
    stable = done[~done["saturated"]]
    saturated = done[done["saturated"]]
    if len(stable) and len(saturated):
        low, high = stable["offered_load"].max(), saturated["offered_load"].min()
        if low < high:
            lines.append(f"saturation      between {load_text(low)} and {load_text(high)} flits/cycle/endpoint")
        else:
            lines.append(f"saturation      not bracketed: stable up to {load_text(low)} but saturated from {load_text(high)}")
    elif len(saturated) and len(done) == len(df):
        lines.append(f"saturation      at or below {load_text(saturated['offered_load'].min())} flits/cycle/endpoint")
    return lines


def cmd_sweep(args: argparse.Namespace) -> int:
    """One workload run per offered load (in parallel), as a table, rows and a plot; 130 on Ctrl-C."""
    options.apply_jobs(args)
    options.check_row_files(args)
    if args.plot is not None:
        check_output(args.plot, "--plot", picture_formats())
    f = fabric(args.fabric)
    params = options.params(args)
    measure = options.measure(args)
    est = estimate(f, args.workload, args.loads, preset=args.preset, params=params, seed=args.seed,
                   measure=measure, routing=args.routing)
    progress.announce(est, "sweep")
    expected = sum(e["events"] for e in est)
    t0 = time.perf_counter()
    with progress.counted(f"sweep of {len(args.loads)} loads") as advance:
        out = sweep_results(
            f, args.workload, args.loads, preset=args.preset, params=params, seed=args.seed,
            measure=measure, routing=args.routing,
            points=lambda done, total: advance(done, total, f"points (about {expected:,} events in all)"),
            allow_unchecked=args.allow_unchecked, workers=args.workers, dask=args.dask, store=args.store,
        )
    wall = time.perf_counter() - t0
    df = run_rows([r["run"] for r in out["results"]])
    if args.json:
        print(json.dumps([r["run"] for r in out["results"]], indent=2))
    else:
        _print_table(out, df, wall)
    lines = write_rows(df, args.csv, args.parquet)
    if args.plot:
        plot_sweep(df, args.plot, f"{args.workload} on {f.name}")
        lines.append(f"plot            {args.plot}")
    if lines:
        print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if out["interrupted"]:
        print(f"interrupted after {int(df['complete'].sum())} of {len(df)} points: the rows written say which are "
              "complete (column complete)", file=sys.stderr)
        note_interrupted()
        return EXIT_INTERRUPTED
    return EXIT_OK


def add_sweep(sub: options.Subcommands) -> None:
    """Registers ``mcastlab sweep``."""
    sw = sub.add_parser("sweep", help="latency and accepted throughput versus offered load (runs in parallel)",
                        epilog=options.CYCLE_HELP)
    options.add_fabric(sw)
    options.add_workload(sw, default="uniform",
                         help="workload spec (mcastlab list workloads), e.g. multicast_load:degree=3,scheme=kbinomial")
    sw.add_argument("--loads", type=parse_loads, default=parse_loads("0.05:0.5:0.05"),
                    help="offered loads: 0.05,0.1,0.2 or start:stop:step (default 0.05:0.5:0.05)")
    options.add_run_options(sw)
    options.add_measure_options(sw)
    options.add_allow_unchecked(sw)
    sw.add_argument("--workers", type=positive_count, default=None,
                    help="points run at once (default: one per core); rows do not depend on it")
    options.add_jobs(sw)
    options.add_dask(sw)
    options.add_store(sw, "result store directory: points already in it are reused, new ones added as they finish")
    options.add_file(sw, "--plot", "latency-versus-load plot (SVG/PNG/PDF)")
    options.add_json(sw)
    sw.set_defaults(func=cmd_sweep)
