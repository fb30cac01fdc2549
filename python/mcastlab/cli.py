"""The ``mcastlab`` command line.

Every user mistake (bad spec, unknown endpoint, unreadable file) prints one line
``mcastlab: error: ...`` on stderr and exits with status 2; a routing check that finds a problem
exits with status 1. No tracebacks for user errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional

from . import _core
from .api import Fabric, fabric, generators, routings

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


def cmd_list(args: argparse.Namespace) -> int:
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

    lst = sub.add_parser("list", help="list generators or routing engines")
    lst.add_argument("what", choices=["generators", "routings"])
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
    except OSError as e:
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
