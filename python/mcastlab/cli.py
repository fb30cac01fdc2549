"""The ``mcastlab`` command line.

Every user mistake (bad spec, unknown endpoint, unreadable file) prints one line
``mcastlab: error: ...`` on stderr and exits with status 2; a routing check that finds a problem
exits with status 1. No tracebacks for user errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import _core, cli_compare, cli_experiments, cli_sim
from .api import Fabric, fabric, generators, kbinomial_optimal, routings, schemes, sim_presets, size_bytes
from .workloads import workloads

EXIT_USAGE = 2
EXIT_CHECK_FAILED = 1


def _fmt_spread(s: Dict[str, Any]) -> str:
    return f"min {s['min']} / mean {s['mean']:.2f} / max {s['max']}"


def _describe_check(c: Dict[str, Any]) -> List[str]:
    r, d = c["reachability"], c["deadlock"]
    lines = []
    if r["status"] == "verified":
        lines.append(
            f"reachability  verified: every source reaches every destination along every allowed choice "
            f"({r['addresses']} addresses, {r['states']} states, longest route crosses {r['longest_route']} switches)"
        )
    elif r["status"] == "failed":
        lines.append("reachability  FAILED:")
        lines += [f"    {p}" for p in r["problems"]]
    else:
        lines.append(f"reachability  skipped: {r['reason']}")
    if d["status"] == "free":
        lines.append(
            f"deadlock      free: the channel dependency graph is acyclic "
            f"({d['channels']} channels with dependencies, {d['dependencies']} dependencies; turns from {c['turns_from']})"
        )
    elif d["status"] == "cycle":
        lines.append(f"deadlock      POSSIBLE: cycle of {len(d['rendered'])} channel dependencies:")
        lines += [f"    {x}" for x in d["rendered"]]
    else:
        lines.append(f"deadlock      skipped: {d['reason']}")
    return lines


def cmd_info(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    st = f.stats()
    routing = f.routing(args.routing)
    result: Dict[str, Any] = {"fabric": st, "routing": {"spec": routing.spec, "vc_classes": routing.vc_classes, "facts": routing.facts()}}
    if not args.no_check:
        if f.num_endpoints > 4096 and not args.json:
            print(f"checking routing {routing.spec} ...", file=sys.stderr, flush=True)
        result["check"] = routing.check(args.max_work)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        diam = st["switch_diameter"]
        lines = [
            f"fabric      {st['name']}",
            f"topology    {st['topology']}",
            f"switches    {st['switches']} ({st['ports']} ports, {st['ports_used']} used)",
            f"endpoints   {st['endpoints']} (per switch {_fmt_spread(st['endpoints_per_switch'])})",
            f"links       {st['links']} ({st['switch_links']} switch-switch, {st['endpoint_links']} endpoint"
            + (f", {st['directed_links']} directed" if st["directed_links"] else "")
            + (f", {st['self_loops']} self-loop cables" if st["self_loops"] else "")
            + ")",
            f"degree      switch-switch links per switch: {_fmt_spread(st['switch_degree'])}",
            "diameter    "
            + (f"{diam} switch hops; {st['endpoint_diameter']} links endpoint to endpoint" if diam is not None else "skipped (fabric too large)"),
            f"routing     {routing.spec}" + (" (default)" if args.routing is None else "") + f", {routing.vc_classes} VC class(es)",
        ]
        facts = routing.facts()
        width = max([12] + [len(k) + 2 for k in facts])
        lines += [f"  {k:<{width}}{v}" for k, v in facts.items()]
        if "check" in result:
            lines.append("check")
            lines += ["  " + x for x in _describe_check(result["check"])]
        print("\n".join(lines))
    if "check" in result and not result["check"]["ok"]:
        return EXIT_CHECK_FAILED
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    f = Fabric.generate(args.spec)
    if args.output in (None, "-"):
        sys.stdout.write(f.to_json())
    else:
        f.save(args.output)
        print(f"wrote {args.output}: {f}", file=sys.stderr)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    f.save(args.output)
    print(f"wrote {args.output}: {f}", file=sys.stderr)
    return 0


def cmd_route(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    r = f.route(args.src, args.dst, routing=args.routing, max_paths=args.max_paths)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    routing = f.routing(args.routing)
    print(f"route {r['src_name']} -> {r['dst_name']} under {routing.spec} (address {r['address']})")
    print(f"deterministic ({r['deterministic']['links']} links): {r['deterministic']['text']}")
    total = r["total_paths"]
    print(f"{total} allowed path(s)" + (f", first {len(r['paths'])} shown:" if total > len(r["paths"]) else ":"))
    for p in r["paths"]:
        print(f"  {p['text']}")
    return 0


def cmd_draw(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    f.draw(args.output, labels=not args.no_labels)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _parse_dests(f: Fabric, text: str) -> List[int]:
    out: List[int] = []
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        if "-" in part and all(x.strip().isdigit() for x in part.split("-", 1)):
            a, b = (int(x) for x in part.split("-", 1))
            out.extend(range(a, b + 1))
        else:
            out.append(f.endpoint(part))
    return out


def _describe_plan(rep: Dict[str, Any]) -> List[str]:
    once = "yes" if rep["exactly_once"] else "NO"
    lines = [
        f"scheme          {rep['scheme']} (routing {rep['routing']})",
        f"group           {rep['source']} -> {rep['destinations']} destinations, {rep['packets']} packet(s), {rep['discipline']}",
        f"exactly once    {once}"
        + (f"; duplicates {rep['duplicates']}" if rep["duplicates"] else "")
        + (f"; missing {rep['missing']}" if rep["missing"] else "")
        + (f"; extra {rep['extra']}" if rep["extra"] else ""),
        f"conforms        {'yes' if rep['conforms'] else 'NO: ' + '; '.join(rep['nonconforming'][:3])}",
        f"deadlock        {rep['deadlock']['status']}",
        f"steps           {rep['steps']} (source fan-out {rep['root_fanout']})",
        f"messages        {rep['messages']} ({rep['unicasts']} unicasts, {rep['worms']} worms, "
        f"{rep['hardware_multicasts']} hardware multicasts), {rep['packets_sent']} packet sends",
        f"NI buffer       {rep['ni_buffer_packets']} packet(s) at the busiest forwarding NI",
        f"links           {rep['link_visits']} visits over {rep['used_links']} links "
        f"(utilization {rep['link_utilization']:.1%}); max {rep['max_step_contention']} sends on one channel in a step"
        + (f", {rep['contended']} contended (step, channel) pairs" if rep["contended"] else ""),
    ]
    lines += [f"problem         {p}" for p in rep["problems"][:5]]
    if len(rep["problems"]) > 5:
        lines.append(f"problem         ... and {len(rep['problems']) - 5} more")
    lines += [f"note            {n}" for n in rep["notes"]]
    if rep["deadlock"]["status"] == "cycle":
        lines.append("cycle           " + " -> ".join(rep["deadlock"]["rendered"][:8]))
    return lines


def _group(f: Fabric, args: argparse.Namespace):
    """The source and destinations of --src with --dests or --group/--seed."""
    src = f.endpoint(args.src)
    if (args.dests is None) == (args.group is None):
        raise _core.PlanError("give exactly one of --dests LIST or --group PERCENT")
    if args.dests is not None:
        return src, _parse_dests(f, args.dests)
    return src, f.random_group(src, float(args.group.rstrip("%")), args.seed)


def cmd_plan(args: argparse.Namespace) -> int:
    f = fabric(args.fabric)
    src, dests = _group(f, args)
    p = f.plan(args.scheme, src, dests, packets=args.packets, discipline=args.discipline, routing=args.routing)
    if args.output:
        p.save(args.output)
        print(f"wrote {args.output}", file=sys.stderr)
    rep = p.check(args.max_work)
    if args.mft_dump:
        Path(args.mft_dump).write_text(p.mft_dump())
        print(f"wrote {args.mft_dump}", file=sys.stderr)
    if args.svg:
        p.draw(args.svg)
        print(f"wrote {args.svg}", file=sys.stderr)
    if args.json:
        print(json.dumps({"plan": p.data, "check": rep}, indent=2))
    else:
        print("\n".join(_describe_plan(rep)))
    return 0 if rep["ok"] else EXIT_CHECK_FAILED


def cmd_check(args: argparse.Namespace) -> int:
    text = open(args.plan, encoding="utf-8").read()
    try:
        recorded = json.loads(text).get("fabric")
    except (ValueError, AttributeError):
        recorded = None
    f = fabric(args.fabric if args.fabric else recorded)
    p = f.load_plan(args.plan, routing=args.routing)
    rep = p.check(args.max_work)
    print(json.dumps(rep, indent=2) if args.json else "\n".join(_describe_plan(rep)))
    return 0 if rep["ok"] else EXIT_CHECK_FAILED


def _us(ps: Optional[int]) -> str:
    return "-" if ps is None else f"{ps / 1e6:.3f} us"


def _describe_run(r: Dict[str, Any], wall: float) -> List[str]:
    lat = sorted(d["latency_ps"] for d in r["per_destination"] if d.get("latency_ps") is not None)
    outcome = r["outcome"]
    status = outcome["kind"]
    lines = [
        f"run             {r['scheme']} on {r['fabric']} (routing {r['routing']})",
        f"message         {r['message_bytes']} bytes = {r['packets']} packet(s), {r['destinations']} destinations, seed {r['seed']}",
        f"outcome         {status}",
        f"completion      {_us(r['completion_ps'])} (last destination)",
    ]
    if lat:
        lines.append(f"per destination min {_us(lat[0])}, median {_us(lat[len(lat) // 2])}, max {_us(lat[-1])}")
    if r.get("acked_ps") is not None:
        lines.append(f"acknowledged    {_us(r['acked_ps'])} (last sender holds its combined acknowledgement)")
    lines += [
        f"network         {r['link_visits']} link visits over {r['used_links']} links, {r['flit_hops']} flit hops, "
        f"max buffer {r['max_buffer_flits']} flits" + (f" at {r['max_buffer_at']}" if r.get("max_buffer_at") else ""),
        f"events          {r['events']} ({'packet trains' if r['granularity'] == 'packet' else 'flit by flit'}) "
        f"in {wall:.2f} s wall",
    ]
    if status == "undelivered":
        lines.append(f"missing         {', '.join(outcome['missing'][:10])}")
    elif status == "deadlock":
        lines.append(f"deadlock        at {_us(outcome['at_ps'])}: {outcome['reason']}")
        cyc = outcome["diagnosis"]["cycle"]
        if cyc:
            lines.append("waiting cycle   " + " -> ".join(cyc[:8]))
    elif status == "budget":
        lines.append(f"stopped         {outcome['message']}")
    return lines


def _progress_bar():
    """A rich progress display on an interactive terminal, else nothing."""
    if not sys.stderr.isatty():
        return None, None
    try:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    except ImportError:  # pragma: no cover - rich is a dependency
        return None, None
    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True)
    task = prog.add_task("simulating", total=None)

    def update(events: int, now_ps: int, done: bool) -> None:
        prog.update(task, description=f"simulating: {events:,} events, t = {now_ps / 1e6:,.3f} us")

    return prog, update


def cmd_simulate(args: argparse.Namespace) -> int:
    import time

    from .api import Plan as _Plan

    if args.workload:
        return cli_sim.cmd_simulate_workload(args)
    if args.load is not None:
        raise argparse.ArgumentTypeError("--load goes with --workload")
    f = fabric(args.fabric)
    params = cli_sim.key_values(args.param, "--param")
    if args.plan:
        p = f.load_plan(args.plan, routing=args.routing)
    elif args.scheme:
        src, dests = _group(f, args)
        packets = _core.Plan.packets_for(args.preset, [f"{k}={v}" for k, v in params.items()], size_bytes(args.size))
        p = f.plan(args.scheme, src, dests, packets=packets, discipline=args.discipline, routing=args.routing)
    else:
        raise _core.PlanError("give --plan FILE or --scheme NAME with --src and --dests/--group")
    assert isinstance(p, _Plan)
    prog, update = _progress_bar()
    t0 = time.perf_counter()
    if prog is not None:
        with prog:
            r = p.simulate(size=args.size, preset=args.preset, params=params, seed=args.seed, progress=update)
    else:
        r = p.simulate(size=args.size, preset=args.preset, params=params, seed=args.seed)
    wall = time.perf_counter() - t0
    if args.json:
        print(json.dumps(r | {"wall_s": wall}, indent=2))
    else:
        print("\n".join(_describe_run(r, wall)))
    return 0 if r["outcome"]["kind"] == "delivered" else EXIT_CHECK_FAILED


def cmd_kbinomial_table(args: argparse.Namespace) -> int:
    ns = [int(x) for x in args.n.split(",")]
    ms = [int(x) for x in args.m.split(",")]
    print("n (with source)  m  optimal k  L1  L1+(m-1)k  binomial")
    for n in ns:
        for m in ms:
            o = kbinomial_optimal(n, m)
            lg = max(1, (n - 1).bit_length())
            print(f"{n:>15}  {m:>1}  {o['k']:>9}  {o['L1']:>2}  {o['steps']:>9}  {lg + (m - 1) * lg:>8}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    if args.what == "schemes":
        for s in schemes():
            print(f"{s['name']:<10} {s['summary']}")
            print(f"{'':<10}   options: {s['params'] or '(none)'}; applies to: {s['applies_to']}")
        return 0
    if args.what == "workloads":
        for w in workloads():
            print(f"{w['name']:<15} {w['summary']}")
            print(f"{'':<15}   options: {w['params'] or '(none)'}; all: scheme=S discipline=host|fcfs|fpfs "
                  "bytes=N process=bernoulli|poisson count=N")
        return 0
    if args.what == "presets":
        for pr in sim_presets():
            print(f"{pr['name']:<12} {pr['summary']}")
        return 0
    if args.what == "generators":
        for g in generators():
            print(f"{g['name']:<12} {g['summary']}")
            print(f"{'':<12}   params: {g['params']}; default routing: {g['default_routing']}")
            print(f"{'':<12}   endpoints: {g['endpoint_order']}")
    else:
        for r in routings():
            print(f"{r['name']:<10} {r['summary']}")
            print(f"{'':<10}   options: {r['params'] or '(none)'}; applies to: {r['applies_to']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mcastlab", description="Design, verify and simulate multicast on HPC interconnects.")
    p.add_argument("--version", action="version", version=f"mcastlab {_core.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    fab = sub.add_parser("fabric", help="generate, inspect, route and draw fabrics")
    fsub = fab.add_subparsers(dest="action", required=True)
    src_help = f"a spec (e.g. torus:4x4) or a .json / ibnetdiscover file (default: {_core.DEFAULT_SPEC})"

    info = fsub.add_parser("info", help="counts, diameter, degrees, routing and its deadlock check")
    info.add_argument("fabric", nargs="?", default=None, help=src_help)
    info.add_argument("--routing", "-r", default=None, help="routing spec, e.g. updown:root=s3 (default: the fabric's)")
    info.add_argument("--no-check", action="store_true", help="skip the reachability and deadlock check")
    info.add_argument("--max-work", type=int, default=None, help="budget of the exhaustive check (addresses x states)")
    info.add_argument("--json", action="store_true", help="machine-readable output")
    info.set_defaults(func=cmd_info)

    gen = fsub.add_parser("generate", help="build a fabric from a spec and save it")
    gen.add_argument("spec", help="generator spec, e.g. irregular:switches=16,seed=3")
    gen.add_argument("-o", "--output", default=None, help="output file (.json, .dot, .topo); JSON to stdout if omitted")
    gen.set_defaults(func=cmd_generate)

    conv = fsub.add_parser("convert", help="load a fabric (spec or file) and save it in another format")
    conv.add_argument("fabric", help=src_help)
    conv.add_argument("-o", "--output", required=True, help="output file (.json, .dot, .topo)")
    conv.set_defaults(func=cmd_convert)

    route = fsub.add_parser("route", help="the path (and adaptive alternatives) between two endpoints")
    route.add_argument("fabric", help=src_help)
    route.add_argument("src", help="source endpoint: index, name, P(...) label, GUID or description")
    route.add_argument("dst", help="destination endpoint")
    route.add_argument("--routing", "-r", default=None)
    route.add_argument("--max-paths", type=int, default=16)
    route.add_argument("--json", action="store_true")
    route.set_defaults(func=cmd_route)

    draw = fsub.add_parser("draw", help="picture of the fabric (SVG/PNG/PDF by extension)")
    draw.add_argument("fabric", nargs="?", default=None, help=src_help)
    draw.add_argument("-o", "--output", default="fabric.svg")
    draw.add_argument("--no-labels", action="store_true")
    draw.set_defaults(func=cmd_draw)

    plan = sub.add_parser("plan", help="build a multicast plan with a scheme and check it")
    plan.add_argument("fabric", nargs="?", default=None, help=src_help)
    plan.add_argument("--scheme", "-s", required=True, help="scheme spec, e.g. kbinomial or kbinomial:k=2 (mcastlab list schemes)")
    plan.add_argument("--src", required=True, help="source endpoint")
    plan.add_argument("--dests", default=None, help="destinations: indices, ranges (3-9) or names, comma separated")
    plan.add_argument("--group", default=None, help="a random group: percentage of the other endpoints, e.g. 40%%")
    plan.add_argument("--seed", type=int, default=1, help="seed of --group")
    plan.add_argument("--packets", "-m", type=int, default=1)
    plan.add_argument("--discipline", default="fpfs", choices=["host", "fcfs", "fpfs"])
    plan.add_argument("--routing", "-r", default=None)
    plan.add_argument("--max-work", type=int, default=None)
    plan.add_argument("-o", "--output", default=None, help="save the plan as JSON")
    plan.add_argument("--svg", default=None, metavar="FILE",
                      help="draw the plan over the fabric (carriers coloured and labelled by step; SVG/PNG/PDF)")
    plan.add_argument("--mft-dump", default=None, metavar="FILE",
                      help="write the plan's InfiniBand MFTs in OpenSM's opensm.mcfdbs layout")
    plan.add_argument("--json", action="store_true")
    plan.set_defaults(func=cmd_plan)

    chk = sub.add_parser("check", help="check a saved plan")
    chk.add_argument("plan", help="plan JSON file")
    chk.add_argument("--fabric", default=None, help="the plan's fabric (default: regenerate it from the plan's recorded spec)")
    chk.add_argument("--routing", "-r", default=None)
    chk.add_argument("--max-work", type=int, default=None)
    chk.add_argument("--json", action="store_true")
    chk.set_defaults(func=cmd_check)

    simp = sub.add_parser("simulate", help="simulate one multicast (a plan file or a scheme) with timing and contention")
    simp.add_argument("fabric", nargs="?", default=None, help=src_help)
    simp.add_argument("--plan", default=None, help="a plan JSON file (built for the same number of packets)")
    simp.add_argument("--scheme", "-s", default=None, help="scheme spec (mcastlab list schemes)")
    simp.add_argument("--src", default=None, help="source endpoint")
    simp.add_argument("--dests", default=None, help="destinations: indices, ranges or names, comma separated")
    simp.add_argument("--group", default=None, help="a random group: percentage of the other endpoints")
    simp.add_argument("--size", default="4KiB", help="message size, e.g. 128B, 4KiB, 1MiB")
    simp.add_argument("--preset", default="sivaram98", help="parameter preset (mcastlab list presets)")
    simp.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                      help="override a parameter, e.g. link.bandwidth=1Gb/s (repeatable)")
    simp.add_argument("--seed", type=int, default=1)
    simp.add_argument("--discipline", default="fpfs", choices=["host", "fcfs", "fpfs"])
    simp.add_argument("--routing", "-r", default=None)
    simp.add_argument("--workload", "-w", default=None,
                      help="traffic over time instead of one multicast: uniform, multicast_load, many_to_many, "
                           "all_to_all, blast, with options, e.g. multicast_load:degree=3,scheme=kbinomial "
                           "(mcastlab list workloads)")
    simp.add_argument("--load", default=None, help="offered load of --workload: flits/cycle/endpoint or a rate (40MB/s)")
    simp.add_argument("--detail", default=None, choices=["none", "messages", "destinations"],
                      help="rows kept with --workload: one per message, or per message and destination")
    cli_sim.add_measure_options(simp)
    simp.add_argument("--json", action="store_true")
    simp.set_defaults(func=cmd_simulate)

    kt = sub.add_parser("kbinomial-table", help="optimal k of sivaram98 Theorem 3 for n nodes and m packets")
    kt.add_argument("--n", required=True, help="group sizes with the source, comma separated")
    kt.add_argument("--m", required=True, help="packet counts, comma separated")
    kt.set_defaults(func=cmd_kbinomial_table)

    cli_experiments.add_parsers(sub)
    cli_sim.add_parsers(sub, src_help)
    cli_compare.add_parsers(sub, src_help)

    lst = sub.add_parser("list", help="list generators, routing engines or multicast schemes")
    lst.add_argument("what", choices=["generators", "routings", "schemes", "presets", "workloads"])
    lst.set_defaults(func=cmd_list)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except _core.McastlabError as e:
        print(f"mcastlab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`mcastlab ... | head`): not an error of ours; stay quiet.
        sys.stderr.close()
        return 0
    except OSError as e:
        print(f"mcastlab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except argparse.ArgumentTypeError as e:
        print(f"mcastlab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as e:
        print(f"mcastlab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("mcastlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
