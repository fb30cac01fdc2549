"""The ``mcastlab`` command line.

Every user mistake (bad spec, unknown endpoint, unreadable file) prints one line
``mcastlab: error: ...`` on stderr and exits with status 2; a check that finds a problem exits
with status 1. No tracebacks for user errors.

One module per command group registers its subcommands (``fabric``, ``plan``, ``simulate``,
``sweep``, ``compare``, ``experiments``, ``reproduce``, ``listing``, ``mcast``); options that several commands share are
defined once in ``options``. This module only assembles the parser and keeps the error contract.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from .._core import McastlabError, __version__
from ..reproduce.api import ReproduceError
from ..runner import RunnerError, StoreError
from .compare import add_compare
from .exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError
from .experiments import add_kbinomial_table, add_qs_table
from .fabric import add_fabric_group
from .interrupts import first_stops
from .listing import add_list
from .mcast import add_mcast
from .options import Parser
from .deadlock import add_deadlock
from .plan import add_check, add_plan
from .reproduce import add_reproduce
from .simulate import add_simulate
from .sweep import add_sweep

if TYPE_CHECKING:
    from .options import Subcommands

__all__ = ["build_parser", "main"]

# The subcommands in the order `mcastlab --help` lists them.
COMMANDS: Tuple[Callable[[Subcommands], None], ...] = (
    add_fabric_group,
    add_plan,
    add_check,
    add_deadlock,
    add_simulate,
    add_mcast,
    add_kbinomial_table,
    add_qs_table,
    add_sweep,
    add_compare,
    add_reproduce,
    add_list,
)


def build_parser() -> argparse.ArgumentParser:
    """The whole ``mcastlab`` parser; each subcommand's ``func`` runs it and returns the exit status."""
    p = Parser(prog="mcastlab", description="Design, verify and simulate multicast on HPC interconnects.")
    p.add_argument("--version", action="version", version=f"mcastlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    return p


def _one_line(text: str) -> str:
    """``text`` with every character that would break the line (newlines, carriage returns, the
    other separators ``str.splitlines`` knows, control characters) escaped as in a Python literal:
    messages quote what the user typed, and the error must stay one line whatever that was."""
    return "".join(
        c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c
        for c in text
    )


def _error(message: object) -> int:
    print(f"mcastlab: error: {_one_line(str(message))}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one command and returns its exit status (the ``mcastlab`` entry point)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as e:
        return _error(e)
    try:
        with first_stops():
            return args.func(args)
    except (McastlabError, RunnerError, StoreError, ReproduceError) as e:
        return _error(e)
    except BrokenPipeError:
        # The reader went away (`mcastlab ... | head`): not an error of ours; stay quiet.
        sys.stderr.close()
        return EXIT_OK
    except OSError as e:
        return _error(e)
    except argparse.ArgumentTypeError as e:
        # Option values checked after parsing (--param KEY=VALUE, --load without --workload, ...).
        return _error(e)
    except ImportError as e:
        # An optional dependency of one command (matplotlib for drawings) is missing.
        return _error(e)
    except KeyboardInterrupt:
        print("mcastlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
