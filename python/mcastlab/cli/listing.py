"""``mcastlab list KIND``: what the registries hold (generators, routing engines, multicast schemes,
simulator presets, simulator parameters, NI protocols, workloads), with their options.

To list a new kind, write a ``_print_<kind>()`` and add it to ``KINDS``: the choices of
``mcastlab list`` and its dispatch both come from that table.
"""

from __future__ import annotations

import argparse
from typing import Callable, Dict, Optional

from .._core import SimError
from ..api import generators, ni_protocols, routings, schemes, sim_presets
from ..params import param_rows
from ..workloads import workloads
from . import options
from .exits import EXIT_OK


def _print_generators(args: argparse.Namespace) -> None:
    for g in generators():
        print(f"{g['name']:<12} {g['summary']}")
        print(f"{'':<12}   params: {g['params']}; default routing: {g['default_routing']}")
        print(f"{'':<12}   endpoints: {g['endpoint_order']}")


def _print_routings(args: argparse.Namespace) -> None:
    for r in routings():
        print(f"{r['name']:<10} {r['summary']}")
        print(f"{'':<10}   options: {r['params'] or '(none)'}; applies to: {r['applies_to']}")


def _print_schemes(args: argparse.Namespace) -> None:
    for s in schemes():
        print(f"{s['name']:<10} {s['summary']}")
        print(f"{'':<10}   options: {s['params'] or '(none)'}; applies to: {s['applies_to']}")


def _print_presets(args: argparse.Namespace) -> None:
    for pr in sim_presets():
        print(f"{pr['name']:<12} {pr['summary']}")


def _print_protocols(args: argparse.Namespace) -> None:
    for p in ni_protocols():
        print(f"{p['name']:<10} {p['summary']} (ni.send={p['name']})")


def _print_params(args: argparse.Namespace) -> None:
    """Every key of the core's parameter table: its kind and doc, and each preset's value (one
    preset's with ``--preset``). Values are written with their units and parse back as overrides
    (``--param KEY=VALUE``)."""
    rows = param_rows()
    preset: Optional[str] = args.preset
    if preset is not None and rows and preset not in rows[0]["presets"]:
        raise SimError(f"unknown preset `{preset}`; known: {', '.join(rows[0]['presets'])}")
    width = max(len(r["key"]) for r in rows)
    for r in rows:
        if preset is not None:
            print(f"{r['key']:<{width}}  {r['presets'][preset]:<12} {r['type']:<8} {r['doc']}")
            continue
        print(f"{r['key']:<{width}}  {r['type']:<8} {r['doc']}")
        values = " · ".join(f"{name} {value}" for name, value in r["presets"].items())
        print(f"{'':<{width}}    {values}")


def _print_workloads(args: argparse.Namespace) -> None:
    for w in workloads():
        print(f"{w['name']:<15} {w['summary']}")
        print(f"{'':<15}   options: {w['params'] or '(none)'}; all: scheme=S discipline=host|fcfs|fpfs "
              "bytes=N process=bernoulli|poisson count=N")


# The kinds `mcastlab list` knows, in the order its help shows them.
KINDS: Dict[str, Callable[[argparse.Namespace], None]] = {
    "generators": _print_generators,
    "routings": _print_routings,
    "schemes": _print_schemes,
    "presets": _print_presets,
    "params": _print_params,
    "protocols": _print_protocols,
    "workloads": _print_workloads,
}


def cmd_list(args: argparse.Namespace) -> int:
    """Prints one registry (``KINDS``)."""
    KINDS[args.what](args)
    return EXIT_OK


def add_list(sub: options.Subcommands) -> None:
    """Registers ``mcastlab list``."""
    lst = sub.add_parser(
        "list", help="list generators, routing engines, multicast schemes, presets, parameters or workloads"
    )
    lst.add_argument("what", choices=list(KINDS))
    lst.add_argument(
        "--preset", default=None, help="with `params`: show only this preset's values (mcastlab list presets)"
    )
    lst.set_defaults(func=cmd_list)
