"""``mcastlab plan`` (build a multicast plan with a scheme and check it) and ``mcastlab check``
(check a saved or hand-written plan)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from .._core import PLAN_MAX_DEPTH, PlanError
from ..api import fabric, read_input_file
from ..draw import picture_formats
from . import options
from .mcast import add_groups, check_dump, mlid_value
from .exits import EXIT_CHECK_FAILED, EXIT_OK
from .report import check_output, note_written
from .values import ns_per_op, packet_count, source_and_group


def _ratio(x: Optional[float]) -> str:
    return "n/a (no switch-to-switch channel used)" if x is None else f"{x:.2f}"


def _creation(c: Optional[Dict[str, Any]]) -> str:
    """oral §4.4's tree-creation work, off the multicast's critical path."""
    if c is None:
        return "not modelled for this plan's scheme"
    return (
        f"{c['operations']} operations ({c['ordering_ops']} ordering + {c['partitioning_ops']} partitioning) "
        f"= {c['latency_ns'] / 1000:.3f} us at {c['ns_per_op']:g} ns/op, off the critical path"
    )


def describe_plan(rep: Dict[str, Any]) -> List[str]:
    """A plan's check report as report lines."""
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
        f"({rep['fabric_link_fraction']:.1%} of the fabric's); max {rep['max_step_contention']} sends on one channel in a step"
        + (f", {rep['contended']} contended (step, channel) pairs" if rep["contended"] else ""),
        f"oral links      {rep['oral_link_visits']} message visits over {rep['oral_used_links']} switch channels, "
        f"utilization {_ratio(rep['oral_link_utilization'])}",
        f"concurrency     max {rep['max_concurrency']}, mean {rep['mean_concurrency']:.2f} transfers in flight per step",
        f"tree creation   {_creation(rep['creation'])}",
    ]
    lines += [f"problem         {p}" for p in rep["problems"][:5]]
    if len(rep["problems"]) > 5:
        lines.append(f"problem         ... and {len(rep['problems']) - 5} more")
    lines += [f"note            {n}" for n in rep["notes"]]
    if rep["deadlock"]["status"] == "cycle":
        cyc = rep["deadlock"]["rendered"]
        more = f" -> ... ({len(cyc) - 8} more channels)" if len(cyc) > 8 else ""
        lines.append(f"cycle           {len(cyc)} channels: " + " -> ".join(cyc[:8]) + more)
    return lines


def cmd_plan(args: argparse.Namespace) -> int:
    """Builds a plan with a scheme, optionally saves, dumps and draws it, and prints its check;
    exit 1 when the check fails."""
    check_output(args.output, "-o/--output")
    check_output(args.mft_dump, "--mft-dump")
    if args.svg is not None:
        check_output(args.svg, "--svg", picture_formats())
    f = fabric(args.fabric)
    src, dests = source_and_group(f, args.src, args.dests, args.group, args.seed)
    p = f.plan(args.scheme, src, dests, packets=args.packets, discipline=args.discipline, routing=args.routing)
    if args.mft_dump and not (p.data.get("switch_state") or {}).get("mft"):
        # An empty file reported as written read as "no switch needs a row", which is not what it
        # means: the scheme sends no hardware multicast. Refused before anything is written.
        raise argparse.ArgumentTypeError(
            f"--mft-dump {args.mft_dump}: the plan of scheme `{p.scheme}` has no MFT rows (it sends no InfiniBand "
            "hardware multicast), so there is nothing to dump; a hardware multicast scheme such as ib_opensm has them")
    if args.output:
        p.save(args.output)
        note_written(args.output)
    rep = p.check(args.max_work, args.ns_per_op)
    if args.mft_dump:
        Path(args.mft_dump).write_text(p.mft_dump())
        note_written(args.mft_dump)
    if args.svg:
        p.draw(args.svg)
        note_written(args.svg)
    if args.json:
        print(json.dumps({"plan": p.data, "check": rep}, indent=2))
    else:
        print("\n".join(describe_plan(rep)))
    return EXIT_OK if rep["ok"] else EXIT_CHECK_FAILED


def cmd_check(args: argparse.Namespace) -> int:
    """Checks a saved plan on its fabric (by default the one the plan records), or with --mfts the
    MFTs of a dump on the fabric given in place of the plan; exit 1 when it fails."""
    if args.mfts is not None:
        return check_dump(args)
    if args.groups is not None or args.mlid is not None:
        raise argparse.ArgumentTypeError("--groups and --mlid go with --mfts DUMP")
    text = read_input_file(args.plan, PlanError)
    try:
        recorded = json.loads(text).get("fabric")
    except (ValueError, AttributeError):
        recorded = None  # not a plan: the core's parser says where, below
    except RecursionError:
        # Python's parser gives up near 1,000 levels, past the core's limit for plan files.
        raise PlanError(f"{args.plan}: JSON nested more than {PLAN_MAX_DEPTH} levels deep, the limit of a plan file") from None
    f = fabric(args.fabric if args.fabric else recorded)
    p = f.load_plan(args.plan, routing=args.routing)
    rep = p.check(args.max_work, args.ns_per_op)
    print(json.dumps(rep, indent=2) if args.json else "\n".join(describe_plan(rep)))
    return EXIT_OK if rep["ok"] else EXIT_CHECK_FAILED


def add_ns_per_op(p: argparse.ArgumentParser) -> None:
    """``--ns-per-op``: host time of one tree-creation operation (oral §4.4)."""
    p.add_argument("--ns-per-op", type=ns_per_op, default=None,
                   help="host ns per elementary operation of tree creation (default 2, chosen, not from a paper)")


def add_plan(sub: options.Subcommands) -> None:
    """Registers ``mcastlab plan``."""
    plan = sub.add_parser("plan", help="build a multicast plan with a scheme and check it")
    options.add_fabric(plan)
    options.add_scheme(plan, required=True, help="scheme spec, e.g. kbinomial or kbinomial:k=2 (mcastlab list schemes)")
    options.add_source(plan, required=True)
    options.add_dests(plan)
    options.add_group(plan, help=options.GROUP_HELP + ", e.g. 40%%")
    options.add_seed(plan, help="seed of --group")
    plan.add_argument("--packets", "-m", type=packet_count, default=1, help="packets of the message (default 1)")
    options.add_discipline(plan)
    options.add_routing(plan)
    options.add_max_work(plan)
    add_ns_per_op(plan)
    options.add_output(plan, help="save the plan as JSON")
    options.add_file(plan, "--svg",
                     "draw the plan over the fabric (carriers coloured and labelled by step; SVG/PNG/PDF)")
    options.add_file(plan, "--mft-dump", "write the plan's InfiniBand MFTs in OpenSM's opensm.mcfdbs layout")
    options.add_json(plan)
    plan.set_defaults(func=cmd_plan)


def add_check(sub: options.Subcommands) -> None:
    """Registers ``mcastlab check``."""
    chk = sub.add_parser("check", help="check a saved plan")
    chk.add_argument("plan", help="plan JSON file (with --mfts: the fabric)")
    chk.add_argument("--mfts", default=None, help="an opensm.mcfdbs or ibroute -M dump to verify on the fabric")
    add_groups(chk, required=False)
    chk.add_argument("--mlid", type=mlid_value, default=None, help="with --mfts: check only this MLID")
    chk.add_argument("--fabric", default=None, help="the plan's fabric (default: regenerate it from the plan's recorded spec)")
    options.add_routing(chk)
    options.add_max_work(chk)
    add_ns_per_op(chk)
    options.add_json(chk)
    chk.set_defaults(func=cmd_check)
