"""``mcastlab list KIND``: what the registries hold (generators, routing engines, multicast schemes,
simulator presets, workloads), with their options.

To list a new kind, write a ``_print_<kind>()`` and add it to ``KINDS``: the choices of
``mcastlab list`` and its dispatch both come from that table.
"""

from __future__ import annotations

import argparse
from typing import Callable, Dict

from ..api import generators, routings, schemes, sim_presets
from ..workloads import workloads
from . import options
from .exits import EXIT_OK


def _print_generators() -> None:
    for g in generators():
        print(f"{g['name']:<12} {g['summary']}")
        print(f"{'':<12}   params: {g['params']}; default routing: {g['default_routing']}")
        print(f"{'':<12}   endpoints: {g['endpoint_order']}")


def _print_routings() -> None:
    for r in routings():
        print(f"{r['name']:<10} {r['summary']}")
        print(f"{'':<10}   options: {r['params'] or '(none)'}; applies to: {r['applies_to']}")


def _print_schemes() -> None:
    for s in schemes():
        print(f"{s['name']:<10} {s['summary']}")
        print(f"{'':<10}   options: {s['params'] or '(none)'}; applies to: {s['applies_to']}")


def _print_presets() -> None:
    for pr in sim_presets():
        print(f"{pr['name']:<12} {pr['summary']}")


def _print_workloads() -> None:
    for w in workloads():
        print(f"{w['name']:<15} {w['summary']}")
        print(f"{'':<15}   options: {w['params'] or '(none)'}; all: scheme=S discipline=host|fcfs|fpfs "
              "bytes=N process=bernoulli|poisson count=N")


# The kinds `mcastlab list` knows, in the order its help shows them.
KINDS: Dict[str, Callable[[], None]] = {
    "generators": _print_generators,
    "routings": _print_routings,
    "schemes": _print_schemes,
    "presets": _print_presets,
    "workloads": _print_workloads,
}


def cmd_list(args: argparse.Namespace) -> int:
    """Prints one registry (``KINDS``)."""
    KINDS[args.what]()
    return EXIT_OK


def add_list(sub: options.Subcommands) -> None:
    """Registers ``mcastlab list``."""
    lst = sub.add_parser("list", help="list generators, routing engines or multicast schemes")
    lst.add_argument("what", choices=list(KINDS))
    lst.set_defaults(func=cmd_list)
