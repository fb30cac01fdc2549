"""``mcastlab simulate --workload ...`` and ``mcastlab sweep``: traffic over time from the command
line, with a progress bar, Ctrl-C keeping what was measured, and tidy rows to CSV/Parquet."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import progress as _progress
from .api import fabric
from .workloads import run_rows, run_workload, sweep_results

EXIT_INTERRUPTED = 130


def key_values(items: List[str], what: str) -> Dict[str, str]:
    out = {}
    for kv in items:
        if "=" not in kv:
            raise argparse.ArgumentTypeError(f"{what} `{kv}`: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def measure_options(args: argparse.Namespace) -> Dict[str, Any]:
    m: Dict[str, Any] = key_values(args.measure, "--measure")
    for k in ("batches",):
        if k in m:
            try:
                m[k] = int(m[k])
            except ValueError:
                raise argparse.ArgumentTypeError(f"--measure {k}={m[k]}: not an integer") from None
    for k in ("latency_factor", "accepted_margin"):
        if k in m:
            try:
                m[k] = float(m[k])
            except ValueError:
                raise argparse.ArgumentTypeError(f"--measure {k}={m[k]}: not a number") from None
    if getattr(args, "detail", None):
        m["detail"] = args.detail
    return m


def parse_loads(text: str) -> List[float]:
    """``0.05,0.1,0.2`` or a range ``0.05:0.4:0.05`` (start:stop:step, stop included)."""
    try:
        if ":" in text:
            a, b, c = (float(x) for x in text.split(":"))
            if c <= 0 or b < a:
                raise ValueError
            n = int(round((b - a) / c)) + 1
            return [round(a + i * c, 10) for i in range(n) if a + i * c <= b + 1e-12]
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--loads `{text}`: use 0.05,0.1,0.2 or start:stop:step") from None


def write_rows(df: Any, csv: Optional[str], parquet: Optional[str]) -> List[str]:
    lines = []
    if csv:
        df.to_csv(csv, index=False)
        lines.append(f"rows            {csv} ({len(df)} rows)")
    if parquet:
        df.to_parquet(parquet, index=False)
        lines.append(f"rows            {parquet} ({len(df)} rows)")
    return lines


def _cycles(ps: Optional[float], cycle_ps: int) -> str:
    return "-" if ps is None else f"{ps / cycle_ps:,.1f} cycles"


def _us(ps: Optional[float]) -> str:
    return "-" if ps is None else f"{ps / 1e6:,.3f} us"


def describe_workload_run(run: Dict[str, Any], wall: float) -> List[str]:
    o = run["outcome"]
    c = run["cycle_ps"]
    ci = f" ± {run['latency_ci95_ps'] / 1e6:.3f}" if run.get("latency_ci95_ps") is not None else ""
    lines = [
        f"run             {run['workload']} on {run['fabric']} (routing {run['routing']}), seed {run['seed']}",
        f"message         {run['message_bytes']} bytes = {run['packets']} packet(s) ({run['message_flits']} flits), "
        f"fan-out {run['fanout']:.1f}, {run['senders']} sender(s)",
        f"outcome         {o['kind']}" + (f" — saturated: {run['saturation']}" if run["saturated"] else ""),
        f"messages        {run['messages']} generated, {run['messages_measured']} measured, {run['messages_finished']} finished",
        f"latency         mean {_us(run['latency_mean_ps'])}{ci} ({_cycles(run['latency_mean_ps'], c)}); "
        f"p50 {_us(run['latency_p50_ps'])}, p99 {_us(run['latency_p99_ps'])}, max {_us(run['latency_max_ps'])}",
        f"zero load       {_us(run['zero_load_latency_ps'])} ({_cycles(run['zero_load_latency_ps'], c)})",
    ]
    if run.get("offered_load") is not None:
        lines.append(
            f"load            offered {run['offered_load']:.4f}, generated {run['generated_load']:.4f}, "
            f"accepted {run['accepted_load']:.4f} flits/cycle/endpoint"
        )
    lines += [
        f"busy            links mean {run['link_busy_mean']:.1%}, max {run['link_busy_max']:.1%}"
        + (f" ({run['link_busy_max_at']})" if run.get("link_busy_max_at") else "")
        + f"; host max {run['host_busy_max']:.1%}; NI max {run['ni_busy_max']:.1%}",
        f"buffers         mean {run['buffer_mean_flits']:.1f} flits, max {run['buffer_max_flits']} per VC buffer",
        f"events          {run['events']:,} ({run['flit_hops']:,} flit hops) in {wall:.2f} s wall",
    ]
    if o["kind"] == "deadlock":
        lines.append(f"deadlock        {o['reason']}")
        if o["diagnosis"].get("cycle"):
            lines.append("waiting cycle   " + " -> ".join(o["diagnosis"]["cycle"][:8]))
    elif o["kind"] == "budget":
        lines.append(f"stopped         {o['message']}")
    return lines


def cmd_simulate_workload(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    params = key_values(args.param, "--param")
    measure = measure_options(args)
    t0 = time.perf_counter()
    with _progress.counted("simulating") as advance:

        def show(now_ps: int, end_ps: int, messages: int, finished: int, events: int) -> None:
            advance(min(now_ps, end_ps), end_ps, f"{messages:,} messages, {events:,} events")

        res = run_workload(
            f, args.workload, load=args.load, preset=args.preset, params=params, seed=args.seed,
            measure=measure, routing=args.routing, progress=show,
        )
    wall = time.perf_counter() - t0
    run = res["run"]
    if args.json:
        print(json.dumps(res | {"wall_s": wall}, indent=2))
    else:
        print("\n".join(describe_workload_run(run, wall)))
    if args.csv or args.parquet:
        print("\n".join(write_rows(run_rows([run]), args.csv, args.parquet)), file=sys.stderr)
    if res["interrupted"]:
        print("mcastlab: interrupted; the rows above are what was measured so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0 if run["outcome"]["kind"] in ("drained", "unstable", "drain_limit") else 1


def plot_sweep(df: Any, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
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
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def cmd_sweep(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    params = key_values(args.param, "--param")
    measure = measure_options(args)
    t0 = time.perf_counter()
    with _progress.counted(f"sweep of {len(args.loads)} loads") as advance:
        out = sweep_results(
            f, args.workload, args.loads, preset=args.preset, params=params, seed=args.seed,
            measure=measure, routing=args.routing, progress=lambda ev: advance(0, None, f"{ev:,} events"),
        )
    wall = time.perf_counter() - t0
    df = run_rows([r["run"] for r in out["results"]])
    if args.json:
        print(json.dumps([r["run"] for r in out["results"]], indent=2))
    else:
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
            verdict = r["outcome"] + (f" (saturated: {r['saturation']})" if r["saturated"] else "")
            print(f"{r['offered_load']:>8.4f}  {lat_s:>14}  {ci:>8}  {cyc:>9}  {r['accepted_load']:>8.4f}  {verdict}")
        stable = df[~df["saturated"]]
        if len(stable) and len(stable) < len(df):
            print(f"saturation      between {stable['offered_load'].max():.4f} and "
                  f"{df[df['saturated']]['offered_load'].min():.4f} flits/cycle/endpoint")
        print(f"wall            {wall:.2f} s for {int(df['events'].sum()):,} events")
    lines = write_rows(df, args.csv, args.parquet)
    if args.plot:
        plot_sweep(df, args.plot, f"{args.workload} on {f.name}")
        lines.append(f"plot            {args.plot}")
    if lines:
        print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if out["interrupted"]:
        print("mcastlab: interrupted; the rows above are what was measured so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every simulating command."""
    p.add_argument("--preset", default="sivaram98", help="parameter preset (mcastlab list presets)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter, e.g. link.bandwidth=1Gb/s (repeatable)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--routing", "-r", default=None)


def add_measure_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--measure", action="append", default=[], metavar="KEY=VALUE",
                   help="measurement: warmup, batch (e.g. 10000cycles or 50us), batches, latency_limit, "
                        "latency_factor, accepted_margin, drain_limit (repeatable)")
    p.add_argument("--csv", default=None, metavar="FILE", help="write the rows as CSV")
    p.add_argument("--parquet", default=None, metavar="FILE", help="write the rows as Parquet")


def add_parsers(sub: Any, fabric_help: str) -> None:
    sw = sub.add_parser("sweep", help="latency and accepted throughput versus offered load (runs in parallel)")
    sw.add_argument("fabric", nargs="?", default=None, help=fabric_help)
    sw.add_argument("--workload", "-w", default="uniform",
                    help="workload spec (mcastlab list workloads), e.g. multicast_load:degree=3,scheme=kbinomial")
    sw.add_argument("--loads", type=parse_loads, default=parse_loads("0.05:0.5:0.05"),
                    help="offered loads: 0.05,0.1,0.2 or start:stop:step (default 0.05:0.5:0.05)")
    add_run_options(sw)
    add_measure_options(sw)
    sw.add_argument("--plot", default=None, metavar="FILE", help="latency-versus-load plot (SVG/PNG/PDF)")
    sw.add_argument("--json", action="store_true")
    sw.set_defaults(func=cmd_sweep, detail=None)
