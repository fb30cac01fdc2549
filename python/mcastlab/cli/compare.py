"""``mcastlab compare``: the main job. One table of every applicable scheme (steps, messages,
latency per size, delivered MB/s, the checks' verdict), plots, and every row as CSV and Parquet."""

from __future__ import annotations

import argparse
import math
import time
from typing import Any, List

from ..api import fabric
from ..compare import DEFAULT_SIZES, compare
from ..runner.store import make_directory
from . import options, progress
from .plots import plot
from .exits import EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK
from .report import check_output, note_interrupted
from .values import endpoint, given_once, group_size, list_items, parse_dests, parse_loads, positive_count


def _num(x: Any, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, fmt)


def _latency(us: Any) -> str:
    if us is None or (isinstance(us, float) and math.isnan(us)):
        return "-"
    if us >= 1000:
        return f"{us / 1000:,.2f} ms"
    return f"{us:,.2f} us"


def shown_label(label: str, g: Any, sizes: List[str]) -> str:
    """The variant's label with the k its plans used (``kbinomial k=3 (host)``; one k per size,
    ``k=4/2/1``, when the packets change it), so a reader knows which tree was run."""
    if "k" not in g or g["k"].isna().all():
        return label
    by_size = dict(zip(g["size"], g["k"]))
    ks = [str(int(by_size[s])) for s in sizes if s in by_size and by_size[s] == by_size[s]]  # NaN != NaN
    text = ks[0] if len(set(ks)) == 1 else "/".join(ks)
    head, sep, tail = label.partition(" (")
    return f"{head} k={text}{' (' + tail if sep else ''}"


def print_table(df: Any, sizes: List[str], title: str) -> None:
    """The comparison as one rich table, a row per variant (wide enough for logs and pipes)."""
    from rich.console import Console
    from rich.table import Table

    single = df[(df["experiment"] == "single") & df["complete"]]
    # The rate is the multicast's, not a link's: say so under the table, where it is read.
    caption = ("delivered MB/s (all destinations) = size x destinations / latency: the bytes all destinations "
               "together receive per second; it exceeds one link's rate when copies travel in parallel")
    t = Table(title=title, title_justify="left", header_style="bold", caption=caption, caption_justify="left")
    for col in ["scheme", "family", "steps", "messages", *[f"latency {s}" for s in sizes], f"delivered MB/s\n{sizes[-1]}", "checks"]:
        left = col in ("scheme", "family", "checks")
        t.add_column(col, justify="left" if left else "right", no_wrap=col != "checks")
    for label, g in single.groupby("label", sort=False):
        first = g.iloc[0]
        if "size" not in g or g["size"].isna().all():
            t.add_row(label, "-", "-", "-", *["-"] * len(sizes), "-", str(first["verdict"]))
            continue
        by_size = {r["size"]: r for _, r in g.iterrows()}
        base = by_size.get(sizes[0], first)
        last = by_size.get(sizes[-1])
        t.add_row(
            shown_label(label, g, sizes),
            str(first["family"]),
            _num(base["steps"], ".0f"),
            _num(base["messages"], ".0f"),
            *[_latency(by_size[s]["latency_us"]) if s in by_size else "-" for s in sizes],
            _num(None if last is None else last["delivered_MBps"], ",.1f"),
            str(first["verdict"]) + ("" if first["outcome"] == "delivered" else f"; run {first['outcome']}"),
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and pipes: one line per scheme
    console.print(t)


def print_loads(df: Any) -> None:
    """Mean latency under multicast load, a row per variant and a column per load (if --load)."""
    loaded = df[(df["experiment"] == "load") & df["complete"]]
    if loaded.empty:
        return
    loads = sorted(loaded["load"].unique())
    print()
    print("latency under multicast load (us; * = saturated)")
    print(f"{'scheme':<24}" + "".join(f"{x:>12.3f}" for x in loads))
    for label, g in loaded.groupby("label", sort=False):
        cells = {r["load"]: _num(r["latency_us"], ",.2f") + ("*" if r["saturated"] else " ") for _, r in g.iterrows()}
        print(f"{label:<24}" + "".join(f"{cells.get(x, '-'):>12}" for x in loads))


def cmd_compare(args: argparse.Namespace) -> int:
    """Every applicable scheme planned, checked and simulated; one table, rows and plots in --out.
    Exit 1 when some scheme's run did not deliver."""
    f = fabric(args.fabric)
    sizes = list_items(args.sizes, "message size", "--sizes")
    given_once(sizes, option="--sizes")
    if args.dests is not None and args.group is not None:
        raise argparse.ArgumentTypeError("give --dests or --group, not both")
    dests = parse_dests(f, args.dests) if args.dests is not None else None
    size = group_size(args.group, "--group") if args.group is not None else {}
    schemes = None
    if args.schemes is not None:
        schemes = list_items(args.schemes, "scheme", "--schemes")
        given_once(schemes, option="--schemes")
    params = options.params(args)
    measure = options.measure(args) or None
    # The output directory exists (or a bad --out is refused) before the runs, not after them.
    out = make_directory(args.out, "--out", argparse.ArgumentTypeError)
    for name in ("rows.csv", "rows.parquet"):
        check_output(str(out / name), "--out")
    t0 = time.perf_counter()
    with progress.counted("comparing") as advance:
        df = compare(
            f, source=endpoint(f, args.src, "--src"), destinations=dests, group=size.get("percent"),
            group_count=size.get("count"), sizes=sizes, preset=args.preset, params=params,
            loads=args.load, schemes=schemes, seed=args.seed, routing=args.routing, measure=measure,
            workers=args.workers, progress=lambda d, n, label: advance(d, n, label), dask=args.dask, store=args.store,
        )
    wall = time.perf_counter() - t0
    first = df.iloc[0]
    n_dest = int(first["destinations"])
    title = (f"{f.name}: {first['source']} -> {n_dest} destinations, routing {first['routing']}, "
             f"preset {args.preset}, seed {args.seed}")
    print_table(df, sizes, title)
    print_loads(df)
    written = [out / "rows.csv", out / "rows.parquet"]
    df.to_csv(written[0], index=False)
    df.to_parquet(written[1], index=False)
    if not args.no_plots and "latency_us" in df:
        written += plot(df, out, title)
    print(f"\n{len(df)} rows in {wall:.1f} s; wrote " + ", ".join(str(p) for p in written))
    if df.attrs.get("interrupted"):
        print(f"interrupted after {df.attrs['finished']} of {df.attrs['runs']} runs: the files hold the finished rows "
              "(complete = true) and a row per unfinished run (complete = false, no results)")
        note_interrupted()
        return EXIT_INTERRUPTED
    done = df[df["complete"]]
    failed = done[(done["experiment"] == "single") & done["outcome"].notna() & (done["outcome"] != "delivered")]
    return EXIT_OK if failed.empty else EXIT_CHECK_FAILED


def add_compare(sub: options.Subcommands) -> None:
    """Registers ``mcastlab compare``."""
    c = sub.add_parser(
        "compare",
        help="every applicable multicast scheme, checked and simulated side by side (the main job)",
        description="Plans every multicast scheme that applies to the fabric, checks each plan (exactly-once, "
        "routing conformance, deadlock freedom) and simulates it for each message size (and, with --load, under "
        "multicast load). Prints one table, writes rows.csv, rows.parquet and plots into --out. Columns: steps and "
        "messages of the plan; latency = completion of the last destination; delivered MB/s (all destinations) = "
        "size x destinations / latency of the largest size, the bytes delivered to all destinations together per "
        "second (above one link's rate when copies travel in parallel; column delivered_MBps in the rows); checks = "
        "exactly-once, conformance and deadlock verdict.",
    )
    options.add_fabric(c)
    options.add_source(c, default="0", help="source endpoint (default 0)")
    options.add_group(c, help=options.GROUP_HELP + " (default 40%%)")
    options.add_dests(c)
    c.add_argument("--sizes", default=",".join(DEFAULT_SIZES), help=f"message sizes (default {','.join(DEFAULT_SIZES)})")
    c.add_argument("--schemes", default=None, help="only these schemes, comma separated (default: every applicable one)")
    c.add_argument("--load", type=parse_loads, default=None,
                   help="also run each scheme under multicast load at these effective applied loads (0.01,0.02 or a:b:step)")
    options.add_measure(c, help="measurement of the --load runs (see mcastlab sweep)")
    options.add_run_options(c)
    c.add_argument("--workers", type=positive_count, default=None, help="parallel runs (default: CPU count); rows do not depend on it")
    options.add_dask(c)
    options.add_store(c, "result store directory: runs already in it are reused, new ones added as they finish")
    c.add_argument("--out", default="mcastlab-compare", help="directory for rows.csv, rows.parquet and plots")
    c.add_argument("--no-plots", action="store_true")
    c.set_defaults(func=cmd_compare)
