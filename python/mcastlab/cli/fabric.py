"""``mcastlab fabric info|generate|convert|route|draw``: build, inspect, route and draw fabrics."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List

from ..api import FABRIC_FORMATS, Fabric, fabric
from ..draw import picture_formats
from . import options
from .exits import EXIT_CHECK_FAILED, EXIT_OK
from .report import check_output, note_written
from .values import endpoint, whole_number


def _fmt_spread(s: Dict[str, Any]) -> str:
    return f"min {s['min']} / mean {s['mean']:.2f} / max {s['max']}"


def describe_check(c: Dict[str, Any]) -> List[str]:
    """The routing check (reachability and deadlock) as report lines."""
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
    """The fabric's counts and diameter, its routing's facts and (unless --no-check) the routing check;
    exit 1 when the check finds a deadlock or a reachability problem."""
    f = fabric(args.fabric)
    st = f.stats()
    routing = f.routing(args.routing)
    result: Dict[str, Any] = {"fabric": st, "routing": {"spec": routing.spec, "vc_classes": routing.vc_classes, "facts": routing.facts()}}
    if not args.no_check:
        work = routing.check_work()
        if (work > 10**8 or f.num_endpoints > 4096) and not args.json:
            # A long check says what it is doing and what it costs, before it starts.
            print(f"checking routing {routing.spec}: {work:.2e} work units (addresses x states; --max-work "
                  f"below that skips the exploration) ...", file=sys.stderr, flush=True)
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
            lines += ["  " + x for x in describe_check(result["check"])]
        print("\n".join(lines))
    if "check" in result and not result["check"]["ok"]:
        return EXIT_CHECK_FAILED
    return EXIT_OK


def cmd_generate(args: argparse.Namespace) -> int:
    """Builds a fabric from a generator spec; JSON on stdout unless -o names a file."""
    check_output(args.output, "-o/--output", FABRIC_FORMATS)
    f = Fabric.generate(args.spec)
    if args.output in (None, "-"):
        sys.stdout.write(f.to_json())
    else:
        f.save(args.output)
        note_written(args.output, str(f))
    return EXIT_OK


def cmd_convert(args: argparse.Namespace) -> int:
    """Loads a fabric (spec or file) and saves it in the format of -o's extension."""
    check_output(args.output, "-o/--output", FABRIC_FORMATS)
    f = fabric(args.fabric)
    f.save(args.output)
    note_written(args.output, str(f))
    return EXIT_OK


def cmd_route(args: argparse.Namespace) -> int:
    """The deterministic route between two endpoints and the allowed alternatives."""
    f = fabric(args.fabric)
    src, dst = endpoint(f, args.src, "src"), endpoint(f, args.dst, "dst")
    r = f.route(src, dst, routing=args.routing, max_paths=args.max_paths)
    if args.json:
        print(json.dumps(r, indent=2))
        return EXIT_OK
    routing = f.routing(args.routing)
    # InfiniBand routings show the DLID as IB tools and zhou07 write it, not the dense index.
    header = f"DLID {r['dlid']}" if r.get("dlid") is not None else f"address {r['address']}"
    print(f"route {r['src_name']} -> {r['dst_name']} under {routing.spec} ({header})")
    print(f"deterministic ({r['deterministic']['links']} links): {r['deterministic']['text']}")
    total = r["total_paths"]
    print(f"{total} allowed path(s)" + (f", first {len(r['paths'])} shown:" if total > len(r["paths"]) else ":"))
    for p in r["paths"]:
        print(f"  {p['text']}")
    return EXIT_OK


def cmd_draw(args: argparse.Namespace) -> int:
    """A picture of the fabric (format by -o's extension)."""
    check_output(args.output, "-o/--output", picture_formats())
    f = fabric(args.fabric)
    f.draw(args.output, labels=not args.no_labels)
    note_written(args.output)
    return EXIT_OK


def add_fabric_group(sub: options.Subcommands) -> None:
    """Registers ``mcastlab fabric`` and its actions."""
    fab = sub.add_parser("fabric", help="generate, inspect, route and draw fabrics")
    fsub = fab.add_subparsers(dest="action", required=True)

    info = fsub.add_parser("info", help="counts, diameter, degrees, routing and its deadlock check")
    options.add_fabric(info)
    options.add_routing(info, help="routing spec, e.g. updown:root=s3 (default: the fabric's)")
    info.add_argument("--no-check", action="store_true", help="skip the reachability and deadlock check")
    options.add_max_work(info, help="budget of the exhaustive check (addresses x states)")
    options.add_json(info, help="machine-readable output")
    info.set_defaults(func=cmd_info)

    gen = fsub.add_parser("generate", help="build a fabric from a spec and save it")
    gen.add_argument("spec", help="generator spec, e.g. irregular:switches=16,seed=3")
    options.add_output(gen, help="output file (.json, .dot, .topo); JSON to stdout if omitted")
    gen.set_defaults(func=cmd_generate)

    conv = fsub.add_parser("convert", help="load a fabric (spec or file) and save it in another format")
    options.add_fabric(conv, required=True)
    options.add_output(conv, required=True, help="output file (.json, .dot, .topo)")
    conv.set_defaults(func=cmd_convert)

    route = fsub.add_parser("route", help="the path (and adaptive alternatives) between two endpoints")
    options.add_fabric(route, required=True)
    route.add_argument("src", help="source endpoint: index, name, P(...) label, GUID or description")
    route.add_argument("dst", help="destination endpoint")
    options.add_routing(route)
    route.add_argument("--max-paths", type=whole_number, default=16)
    options.add_json(route)
    route.set_defaults(func=cmd_route)

    draw = fsub.add_parser("draw", help="picture of the fabric (SVG/PNG/PDF by extension)")
    options.add_fabric(draw)
    options.add_output(draw, default="fabric.svg")
    draw.add_argument("--no-labels", action="store_true")
    draw.set_defaults(func=cmd_draw)
