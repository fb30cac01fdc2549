"""``mcastlab simulate``: one multicast (a plan file, or a scheme built for a group) with timing and
contention, or with ``--workload`` traffic over time with BookSim's measurement protocol."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Dict, List

from .._core import PlanError
from ..api import fabric, packets_for
from ..workloads import estimate, run_rows, run_workload
from . import options, progress
from .exits import EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK
from .report import microseconds, note_interrupted, write_rows
from .mcast import add_groups, mlid_value
from .values import endpoint, load_text, source_and_group


def describe_protocol(s: Dict[str, Any]) -> List[str]:
    """An NI protocol's counts (LFC or FM/MC, bhoedjang98) as report lines; none for the others."""
    if s.get("credit_requests") is not None:
        return [
            f"FM/MC credits   {s['credit_requests']:,} requests ({s['requests_queued']:,} queued at the manager), "
            f"{s['credits_granted']:,} credits granted, {s['host_waits']:,} packets held back",
            f"FM/MC token     {s['token_rounds']:,} rounds ({s['token_hops']:,} hops); "
            f"{s['swapped_packets']:,} packets swapped to host memory, fullest NI queue {s['max_ni_queue']}",
        ]
    if s.get("blocked_sends") is None:
        return []
    lines = [
        f"LFC credits     {s['blocked_sends']:,} sends blocked (longest queue {s['max_blocked_queue']}), "
        f"{s['credit_updates']:,} credit updates, {s['piggybacked_credits']:,} credits piggybacked"
    ]
    if s["recoveries"]:
        lines.append(
            f"recovery        {s['recoveries']:,} recoveries ({s['recoveries_per_multicast']:.3f} per multicast), "
            f"{s['recovery_packets_per_multicast']:.1f} recovery packets per multicast, "
            f"{s['false_alarms']:,} false alarms, {microseconds(s['recovery_ps'])} in recovery"
        )
    if s["fifo_violations"]:
        lines.append(f"FIFO VIOLATED   {s['fifo_violations']} packets out of order on their tree")
    return lines


def describe_check(c: Any) -> List[str]:
    """The verdict of the check a run made of its plan(s) (exactly-once, conformance, deadlock)."""
    return [] if c is None else [f"checks          {c['verdict']}"]
# A 0-byte message is kept, not refused: bhoedjang98 (Fig. 4) measures the latency of empty
# multicast messages. It is one packet carrying headers only, and the report says so.
NULL_MESSAGE = "0 bytes: a null message, one header-only packet"
SIZE_HELP = ("message size, e.g. 128B, 4KiB, 1MiB; 0 is a null message (one header-only packet, "
             "whose latency bhoedjang98 measures)")


def message_text(nbytes: int, packets: int) -> str:
    """``4096 bytes = 32 packet(s)``, or the null message spelt out."""
    return NULL_MESSAGE if nbytes == 0 else f"{nbytes} bytes = {packets} packet(s)"


def describe_run(r: Dict[str, Any], wall: float) -> List[str]:
    """One multicast's RunResult as report lines."""
    lat = sorted(d["latency_ps"] for d in r["per_destination"] if d.get("latency_ps") is not None)
    outcome = r["outcome"]
    status = outcome["kind"]
    lines = [
        f"run             {r['scheme']} on {r['fabric']} (routing {r['routing']})",
        f"message         {message_text(r['message_bytes'], r['packets'])}, {r['destinations']} destinations, seed {r['seed']}",
        f"outcome         {status}",
        f"completion      {microseconds(r['completion_ps'])} (last destination)",
    ]
    if lat:
        lines.append(f"per destination min {microseconds(lat[0])}, median {microseconds(lat[len(lat) // 2])}, max {microseconds(lat[-1])}")
    if r.get("root_cpu_ps") is not None:
        lines.append(
            f"oral metrics    root CPU {microseconds(r['root_cpu_ps'])} (busy and polling), "
            f"startup {microseconds(r.get('startup_ps'))}, transfers in flight max {r['concurrency_max']}, "
            f"mean {r['concurrency_mean']:.2f}"
        )
    if r.get("acked_ps") is not None:
        lines.append(f"acknowledged    {microseconds(r['acked_ps'])} (last sender holds its combined acknowledgement)")
    lines += [
        f"network         {r['link_visits']} link visits over {r['used_links']} links, {r['flit_hops']} flit hops, "
        f"max buffer {r['max_buffer_flits']} flits" + (f" at {r['max_buffer_at']}" if r.get("max_buffer_at") else ""),
        f"events          {r['events']} ({'packet trains' if r['granularity'] == 'packet' else 'flit by flit'}) "
        f"in {wall:.2f} s wall",
    ]
    lines += describe_check(r.get("check"))
    lines += describe_protocol(r.get("lfc") or r.get("fmmc") or {})
    if status == "undelivered":
        lines.append(f"missing         {', '.join(outcome['missing'][:10])}")
    elif status == "deadlock":
        lines.append(f"deadlock        at {microseconds(outcome['at_ps'])}: {outcome['reason']}")
        cyc = outcome["diagnosis"]["cycle"]
        if cyc:
            lines.append("waiting cycle   " + " -> ".join(cyc[:8]))
    elif status == "budget":
        lines.append(f"stopped         {outcome['message']}")
    return lines


def _cycles(ps: Any, cycle_ps: int) -> str:
    return "-" if ps is None else f"{ps / cycle_ps:,.1f} cycles"


def describe_workload_run(run: Dict[str, Any], wall: float) -> List[str]:
    """A workload run's row as report lines."""
    o = run["outcome"]
    c = run["cycle_ps"]

    def us(ps: Any) -> str:
        return microseconds(ps, grouped=True)

    ci = f" ± {run['latency_ci95_ps'] / 1e6:.3f}" if run.get("latency_ci95_ps") is not None else ""
    lines = [
        f"run             {run['workload']} on {run['fabric']} (routing {run['routing']}), seed {run['seed']}",
        f"message         {message_text(run['message_bytes'], run['packets'])} ({run['message_flits']} flits), "
        f"fan-out {run['fanout']:.1f}, {run['senders']} sender(s)",
        f"outcome         {o['kind']}" + (f" — saturated: {run['saturation']}" if run["saturated"] else ""),
        f"messages        {run['messages']} generated, {run['messages_measured']} measured, {run['messages_finished']} finished",
        f"latency         mean {us(run['latency_mean_ps'])}{ci} ({_cycles(run['latency_mean_ps'], c)}); "
        f"p50 {us(run['latency_p50_ps'])}, p99 {us(run['latency_p99_ps'])}, max {us(run['latency_max_ps'])}",
        f"zero load       {us(run['zero_load_latency_ps'])} ({_cycles(run['zero_load_latency_ps'], c)}; estimated: "
        "the run's first 16 messages, or 4 of a one-shot run, each alone on the empty network)",
    ]
    if run.get("offered_load") is not None:
        lines.append(
            f"load            offered {load_text(run['offered_load'])}, generated {run['generated_load']:.4f}, "
            f"accepted {run['accepted_load']:.4f} flits/cycle/endpoint"
        )
    lines += [
        f"busy            links mean {run['link_busy_mean']:.1%}, max {run['link_busy_max']:.1%}"
        + (f" ({run['link_busy_max_at']})" if run.get("link_busy_max_at") else "")
        + f"; host max {run['host_busy_max']:.1%}; NI max {run['ni_busy_max']:.1%}",
        f"buffers         mean {run['buffer_mean_flits']:.1f} flits in all switch buffers together, fullest VC buffer "
        f"{run['buffer_max_flits']}",
        f"events          {run['events']:,} ({run['flit_hops']:,} flit hops) in {wall:.2f} s wall",
    ]
    lines += describe_protocol(run)
    if o["kind"] == "deadlock":
        lines.append(f"deadlock        {o['reason']}")
        if o["diagnosis"].get("cycle"):
            lines.append("waiting cycle   " + " -> ".join(o["diagnosis"]["cycle"][:8]))
    elif o["kind"] == "budget":
        lines.append(f"stopped         {o['message']}")
    elif o["kind"] == "no_message":
        lines.append(f"not measured    {o['message']}")
    return lines


def _simulate_workload(args: argparse.Namespace) -> int:
    """``simulate --workload``: one run over time; exit 1 on a deadlock, a budget stop or a window
    in which no message was measured, 130 on Ctrl-C."""
    options.check_row_files(args)
    f = fabric(args.fabric)
    params = options.params(args)
    measure = options.measure(args, args.detail)
    progress.announce(
        estimate(f, args.workload, load=args.load, preset=args.preset, params=params, seed=args.seed,
                 measure=measure, routing=args.routing),
        "simulate",
    )
    t0 = time.perf_counter()
    with progress.counted("simulating") as advance:

        def show(now_ps: int, end_ps: int, messages: int, finished: int, events: int) -> None:
            advance(min(now_ps, end_ps), end_ps, f"{messages:,} messages, {events:,} events")

        res = run_workload(
            f, args.workload, load=args.load, preset=args.preset, params=params, seed=args.seed,
            measure=measure, routing=args.routing, progress=show, allow_unchecked=args.allow_unchecked,
        )
    wall = time.perf_counter() - t0
    run = res["run"]
    if args.json:
        print(json.dumps(res | {"wall_s": wall}, indent=2))
    else:
        print("\n".join(describe_workload_run(run, wall) + describe_check(res["check"])))
    if args.csv or args.parquet:
        print("\n".join(write_rows(run_rows([run]), args.csv, args.parquet)), file=sys.stderr)
    if res["interrupted"]:
        note_interrupted()
        return EXIT_INTERRUPTED
    return EXIT_OK if run["outcome"]["kind"] in ("drained", "unstable", "drain_limit") else EXIT_CHECK_FAILED


def _given(args: argparse.Namespace, *names: str) -> List[str]:
    """The options among ``names`` (``--src``, ...) the command line gave."""
    return [n for n in names if getattr(args, n[2:].replace("-", "_")) not in (None, [])]


def _refuse_unused(args: argparse.Namespace) -> None:
    """Options the run would not read are refused, naming them: each used to be ignored without a
    word (a missing --plan file with --workload, --measure on a single run)."""
    def refuse(names: List[str], why: str) -> None:
        if names:
            raise argparse.ArgumentTypeError(f"{', '.join(names)}: {why}")

    if args.workload:
        refuse(_given(args, "--plan", "--scheme", "--mfts", "--mlid", "--groups", "--src", "--dests", "--group",
                      "--size", "--discipline"),
               "a single multicast's options, not --workload's: a workload takes its scheme, discipline and message "
               "size as options of its spec (e.g. multicast_load:degree=3,scheme=kbinomial,bytes=4KiB; "
               "mcastlab list workloads)")
        return
    alone = _given(args, "--load", "--detail", "--measure")
    if alone:
        verb = "goes" if len(alone) == 1 else "go"
        raise argparse.ArgumentTypeError(f"{', '.join(alone)} {verb} with --workload (a single multicast is timed whole)")
    if args.csv or args.parquet:
        # Rows are a workload's; they used to be ignored here without a word.
        raise argparse.ArgumentTypeError("--csv and --parquet go with --workload (a single run's result: --json)")
    if args.plan or args.mfts:
        refuse(_given(args, "--scheme", "--dests", "--group", "--discipline"),
               f"{'--plan' if args.plan else '--mfts'} gives the multicast (its scheme, destinations and discipline)")
    if args.plan:
        refuse(_given(args, "--src"), "--plan gives the multicast's source")
    if not args.mfts:
        refuse(_given(args, "--mlid", "--groups"), "only with --mfts (the MFT dump they address)")


def cmd_simulate(args: argparse.Namespace) -> int:
    """One timed multicast (a plan file, or a scheme built for as many packets as --size needs);
    with --workload, traffic over time instead. Exit 1 when not every destination got the message."""
    options.apply_jobs(args)
    _refuse_unused(args)
    if args.workload:
        return _simulate_workload(args)
    args.size = args.size or "4KiB"
    args.discipline = args.discipline or "fpfs"
    f = fabric(args.fabric)
    params = options.params(args)
    if args.mfts:
        if args.mlid is None or args.src is None:
            raise PlanError("--mfts DUMP needs --mlid and --src (the sender; lid:N, a name or a GUID)")
        packets = packets_for(args.size, args.preset, params)
        p = f.plan_from_mfts(args.mfts, args.mlid, endpoint(f, args.src, "--src"), groups=args.groups,
                             routing=args.routing, packets=packets)
    elif args.plan:
        p = f.load_plan(args.plan, routing=args.routing)
    elif args.scheme:
        src, dests = source_and_group(f, args.src, args.dests, args.group, args.seed)
        packets = packets_for(args.size, args.preset, params)
        p = f.plan(args.scheme, src, dests, packets=packets, discipline=args.discipline, routing=args.routing)
    else:
        raise PlanError("give --plan FILE or --scheme NAME with --src and --dests/--group")
    p.verdict_check()  # before the clock starts: the wall time below is the run's (the check is cached)
    t0 = time.perf_counter()
    with progress.single_run() as update:
        r = p.simulate(size=args.size, preset=args.preset, params=params, seed=args.seed, progress=update,
                       allow_unchecked=args.allow_unchecked, keep_partial=True)
    wall = time.perf_counter() - t0
    if args.json:
        print(json.dumps(r | {"wall_s": wall}, indent=2))
    else:
        print("\n".join(describe_run(r, wall)))
    if r["interrupted"]:
        note_interrupted()
        return EXIT_INTERRUPTED
    return EXIT_OK if r["outcome"]["kind"] == "delivered" else EXIT_CHECK_FAILED


def add_simulate(sub: options.Subcommands) -> None:
    """Registers ``mcastlab simulate``."""
    simp = sub.add_parser("simulate", help="simulate one multicast (a plan file or a scheme) with timing and contention",
                          epilog=options.CYCLE_HELP)
    options.add_fabric(simp)
    simp.add_argument("--plan", default=None, help="a plan JSON file (built for the same number of packets)")
    options.add_scheme(simp, required=False, help="scheme spec (mcastlab list schemes)")
    simp.add_argument("--mfts", default=None, help="time a multicast over the MFTs of an opensm.mcfdbs / ibroute -M dump")
    simp.add_argument("--mlid", type=mlid_value, default=None, help="with --mfts: the MLID to send to")
    add_groups(simp, required=False)
    options.add_source(simp)
    options.add_dests(simp, help="destinations: indices, ranges or names, comma separated")
    options.add_group(simp)
    simp.add_argument("--size", default=None, help=SIZE_HELP + " (default 4KiB)")
    options.add_preset(simp)
    options.add_param(simp)
    options.add_seed(simp)
    options.add_discipline(simp, default=None)
    options.add_routing(simp)
    options.add_workload(simp, default=None,
                         help="traffic over time instead of one multicast: uniform, permutation, multicast_load, "
                              "many_to_many, all_to_all, blast, with options, e.g. multicast_load:degree=3,scheme=kbinomial "
                              "(mcastlab list workloads)")
    simp.add_argument("--load", default=None, help="offered load of --workload: flits/cycle/endpoint or a rate (40MB/s)")
    simp.add_argument("--detail", default=None, choices=["none", "messages", "destinations"],
                      help="rows kept with --workload: one per message, or per message and destination")
    options.add_measure_options(simp)
    options.add_allow_unchecked(simp)
    options.add_jobs(simp)
    options.add_json(simp)
    simp.set_defaults(func=cmd_simulate)
