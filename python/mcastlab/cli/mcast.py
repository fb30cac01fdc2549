"""``mcastlab mfts`` and ``mcastlab capacity``: OpenSM's MFTs for many InfiniBand multicast
groups, and which groups the hardware can hold; plus the ``--mfts DUMP`` readers that ``check``
and ``simulate`` use."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any, Dict, List

from ..api import fabric
from . import options
from .exits import EXIT_CHECK_FAILED, EXIT_OK
from .report import check_output, note_written
from .values import U32_MAX, integer_in

# --mft-cap and --hca-groups: see add_mcast.
group_cap = integer_in(1, U32_MAX)

FORMATS = ("mcfdbs", "ibroute", "ibroute-brief", "json")


def write_atomically(path: str, text: str) -> None:
    """Writes ``text`` to ``path`` through a temporary file in the same directory, so a failure
    leaves no half-written file."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".mcastlab-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _emit(text: str, out: Any) -> None:
    if out in (None, "-"):
        print(text, end="")
    else:
        write_atomically(out, text)
        note_written(out)


def describe_groups(res: Dict[str, Any]) -> List[str]:
    """One line per group: MLID, name, members, root and switches programmed (or why not)."""
    lines = []
    for g in res["groups"]:
        what = f"root {g['root']}, {g['switches']} switches" if g["root"] else g["note"]
        if g["dropped"]:
            what += f", dropped {', '.join(g['dropped'][:4])}"
        lines.append(f"0x{g['mlid']:04X}  {g['name']}  {g['members']} members  {what}")
    return lines


def describe_capacity(c: Dict[str, Any]) -> List[str]:
    lim = c["limits"]
    own = lim["switch_caps"]
    cap = f"{lim['mft_cap']}" + (f", {len(own)} switch(es) with their own (smallest {min(own.values())})" if own else "")
    lines = [
        f"limits        MulticastFDBCap {cap} (MLID ceiling 0x{c['mlid_ceiling']:04X}), "
        f"HCA groups {lim['hca_groups']}, {c['mask_positions']} port-mask position(s) per MLID",
        f"hardware      {c['hardware']} group(s), MFT blocks used {c['mft_blocks_used']} of {c['mft_blocks_available']}",
        f"software      {c['software']} group(s) fall back to a software tree",
        f"none          {c['none']} group(s) with fewer than two members (nothing to program)",
        f"first limit   {c['first_limit'] or 'none hit'}",
    ]
    lines += [f"  0x{a['mlid']:04X} {a['name']}: software ({a['reason']})" for a in c["groups"] if a["mode"] == "software"][:20]
    return lines


def cmd_mfts(args: argparse.Namespace) -> int:
    """MFTs of every group in OpenSM's dump layout (``mcfdbs``), ``ibroute -M`` per switch, or JSON."""
    check_output(args.out, "--out")
    f = fabric(args.fabric)
    res = f.mcast(args.groups, routing=args.routing, brief=args.format == "ibroute-brief")
    if args.format == "json":
        text = json.dumps({k: res[k] for k in ("groups", "mft")}, indent=2) + "\n"
    elif args.format == "mcfdbs":
        text = res["mcfdbs"]
    else:
        text = res["ibroute"]
    _emit(text, args.out)
    return EXIT_OK


def cmd_capacity(args: argparse.Namespace) -> int:
    """Which groups get hardware multicast; exit 1 when some must fall back to software."""
    f = fabric(args.fabric)
    c = f.capacity(args.groups, mft_cap=args.mft_cap, hca_groups=args.hca_groups, routing=args.routing,
                   switchinfo=args.switchinfo)
    print(json.dumps(c, indent=2) if args.json else "\n".join(describe_capacity(c)))
    return EXIT_OK if c["software"] == 0 else EXIT_CHECK_FAILED


def check_dump(args: argparse.Namespace) -> int:
    """``mcastlab check FABRIC --mfts DUMP``: every MLID of the dump flooded from every member."""
    f = fabric(args.plan)
    res = f.check_mfts(args.mfts, groups=args.groups)
    if args.mlid is not None:
        res = [r for r in res if r["mlid"] == args.mlid]
    if not res:
        # Nothing checked is not a pass: an empty dump, or an MLID it has no row for.
        what = f"no MFT row for MLID 0x{args.mlid:04X}" if args.mlid is not None else "no MFT rows"
        print(f"mcastlab: {args.mfts}: {what}: nothing to check", file=sys.stderr)
        if args.json:
            print("[]")
        return EXIT_CHECK_FAILED
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for r in res:
            head = f"0x{r['mlid']:04X}  {r['members']} members: "
            if r["ok"]:
                print(head + "ok (every member reaches every other exactly once, no loop)")
                continue
            print(head + "FAILED")
            if r["members"] == 0:
                print("    no member: its rows forward to no endpoint and no switch's port 0")
            for k in ("unreached", "duplicates", "loops", "strays"):
                for x in r[k]:
                    print(f"    {k[:-1] if k != 'duplicates' else 'duplicate'}: {x}")
    return EXIT_OK if all(r["ok"] for r in res) else EXIT_CHECK_FAILED


def add_groups(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--groups", "-g", required=required, default=None,
                   help="groups file: JSON, the text form or `saquery -m` output (docs/formats.md)")


def add_tree_routing(p: argparse.ArgumentParser) -> None:
    p.add_argument("--routing", "-r", default=None,
                   help="unicast engine whose hop matrix the trees use, as OpenSM's builder does (default: minhop; "
                        "dfsssp, sssp, nue and torus-2QoS have their own builder and are refused)")


def mlid_value(text: str) -> int:
    """An MLID: decimal or 0x hexadecimal."""
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not an MLID (e.g. 0xC001)") from None
    if not 0xC000 <= v <= 0xFFFE:
        raise argparse.ArgumentTypeError(f"MLID 0x{v:X} is outside the multicast range 0xC000..0xFFFE")
    return v


def add_mcast(sub: options.Subcommands) -> None:
    """Registers ``mcastlab mfts`` and ``mcastlab capacity``."""
    m = sub.add_parser("mfts", help="InfiniBand MFTs of many multicast groups, as OpenSM programs them")
    options.add_fabric(m, required=True)
    add_groups(m, required=True)
    m.add_argument("--format", default="mcfdbs", choices=FORMATS,
                   help="opensm.mcfdbs dump (default), ibroute -M per switch (-brief: ibroute -M -n), or JSON")
    m.add_argument("--out", default=None, help="output file (default: stdout)")
    add_tree_routing(m)
    m.set_defaults(func=cmd_mfts)

    c = sub.add_parser("capacity", help="which multicast groups get hardware MFTs and which fall back to software")
    options.add_fabric(c, required=True)
    add_groups(c, required=True)
    # MulticastFDBCap and the groups of a port: 1 or more (0 would mean no multicast at all, which
    # the core refuses) up to the core's u32; the option took 0..2^64-1 and left the rest to it.
    c.add_argument("--mft-cap", type=group_cap, default=None,
                   help="MulticastFDBCap (MLIDs a switch's MFT holds, 1 or more) of every switch the --switchinfo "
                        "file does not name (default 1024, ibsim's)")
    c.add_argument("--switchinfo", default=None, metavar="FILE",
                   help="smpquery switchinfo output of the switches (one '# Switch info: Lid N' block each): "
                        "their own McastFdbCap")
    c.add_argument("--hca-groups", type=group_cap, default=None,
                   help="multicast groups one HCA port can receive, 1 or more (default 131072)")
    add_tree_routing(c)
    options.add_json(c)
    c.set_defaults(func=cmd_capacity)
