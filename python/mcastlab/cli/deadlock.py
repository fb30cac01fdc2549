"""``mcastlab deadlock`` (one deadlock proof for unicast and multicast together) and ``mcastlab
lfts`` (unicast LFTs in OpenSM's dump format)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import List

from .._core import RoutingError
from ..api import SL_MAX, fabric, require_mft_tree
from . import options
from .exits import EXIT_CHECK_FAILED, EXIT_OK
from .report import check_output, note_written
from .values import integer_in


def cmd_deadlock(args: argparse.Namespace) -> int:
    """Unicast routing (or loaded LFTs) united with the MFT trees of the plans and of an MFT dump;
    exit 1 on a cycle."""
    if args.lfts and args.routing:
        raise RoutingError("give either --routing or --lfts, not both")
    f = fabric(args.fabric)
    r = f.load_lfts(args.lfts) if args.lfts else f.routing(args.routing)
    plans = [f.load_plan(p) for p in args.plan]
    for path, p in zip(args.plan, plans):
        require_mft_tree(p, f"--plan {path}")
    sls: List[int] = args.plan_sl if args.plan_sl else [0] * len(plans)
    rep = r.joint_deadlock(plans, unicast_sl=args.unicast_sl, plan_sls=sls, sl2vl=args.sl2vl,
                           mfts=args.mfts, mfts_sl=args.mfts_sl)
    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        d = rep["deadlock"]
        print(f"unicast {rep['routing']} + {rep['trees']} multicast tree(s), VL(s) {', '.join(map(str, rep['vls']))}")
        if d["status"] == "free":
            print(f"deadlock-free: {d['channels']} channels, {d['dependencies']} dependencies, no cycle")
        else:
            print(f"DEADLOCK POSSIBLE: a cycle of {len(d['rendered'])} channels")
            for c in d["rendered"]:
                print(f"  {c}")
    return EXIT_OK if rep["ok"] else EXIT_CHECK_FAILED


def cmd_lfts(args: argparse.Namespace) -> int:
    """Writes a routing's LFTs as OpenSM's opensm-lfts.dump."""
    check_output(args.output, "-o/--output")  # before the routing is built
    text = fabric(args.fabric).routing(args.routing).lfts_dump()
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise argparse.ArgumentTypeError(f"-o/--output {args.output}: {e.strerror or e}") from None
        note_written(args.output)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def add_deadlock(sub: options.Subcommands) -> None:
    """Registers ``mcastlab deadlock`` and ``mcastlab lfts``."""
    d = sub.add_parser("deadlock", help="one deadlock check for a unicast routing and multicast trees together")
    options.add_fabric(d, required=True)
    options.add_routing(d, help="unicast routing spec (default: the fabric's default engine)")
    d.add_argument("--lfts", default=None, help="unicast LFTs from an opensm-lfts.dump file instead of --routing")
    d.add_argument("--plan", action="append", default=[], help="a saved plan whose MFT tree joins the check (repeat)")
    d.add_argument("--plan-sl", action="append", type=integer_in(0, SL_MAX), default=[], help="SL of each --plan, in order (default 0)")
    d.add_argument("--mfts", default=None,
                   help="an MFT dump (opensm.mcfdbs or ibroute -M) whose every MLID's tree joins the check")
    d.add_argument("--mfts-sl", type=integer_in(0, SL_MAX), default=0, help="SL of the --mfts trees (default 0)")
    d.add_argument("--unicast-sl", type=integer_in(0, SL_MAX), default=0, help="SL of unicast traffic (default 0)")
    d.add_argument("--sl2vl", default=None, help="SL->VL file, lines `SL VL` (default: everything on VL 0)")
    options.add_json(d)
    d.set_defaults(func=cmd_deadlock)
    lf = sub.add_parser("lfts", help="a routing's unicast LFTs in OpenSM's opensm-lfts.dump format")
    options.add_fabric(lf, required=True)
    options.add_routing(lf)
    lf.add_argument("--output", "-o", default=None, help="file to write (default: stdout)")
    lf.set_defaults(func=cmd_lfts)
