"""Every option that more than one command takes, defined once: its flags, type, default and
metavar live here, and commands add it with one call (``add_routing(p)``), so ``--routing`` means
and parses the same everywhere.

Where a command's help text has always said something of its own (``--seed`` is "seed of --group"
for ``plan``), it passes ``help=``; the option itself does not change. Readers next to the
definitions (``params``) turn the parsed text into what the API takes.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import TYPE_CHECKING, Any, Dict, List, NoReturn, Optional

from .._core import DEFAULT_SPEC
from .exits import UsageError
from .report import check_output
from .values import integer_in, key_values, measure_settings, whole_number

if TYPE_CHECKING:
    # What `add_subparsers()` returns: each command module registers its subcommands on it.
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

FABRIC_HELP = f"a spec (e.g. torus:4x4) or a .json / ibnetdiscover file (default: {DEFAULT_SPEC})"
DISCIPLINES = ("host", "fcfs", "fpfs")
DESTS_HELP = "destinations: indices, ranges (3-9) or names, comma separated"
GROUP_HELP = "a random group: N destinations, or N%% of the endpoints other than the source"
MEASURE_HELP = (
    "measurement: warmup, batch (e.g. 10000cycles or 50us), batches, latency_limit, "
    "latency_factor, accepted_margin, drain_limit, ages=message|flit (flit: BookSim's per-flit unstable test), "
    "stop=tick|exact (exact: generation stops when the last measured message finishes); unset, "
    "latency_limit/ages/stop follow the preset (booksim_*: 500 cycles, flit, exact) "
    "(repeatable)"
)


class Parser(argparse.ArgumentParser):
    """The parser of ``mcastlab`` and (through ``add_subparsers``, which reuses the class) of every
    subcommand. Two differences from argparse's:

    - A mistake raises :class:`UsageError` (one error line, exit 2, also in-process) instead of
      printing the usage block and calling ``sys.exit``; the line names the argument and points to
      the command's ``--help``.
    - A value that starts like a negative number (``-5%``, ``-1KiB``, ``-1e3``, ``-inf``) is a
      value, not an unknown option: argparse only knows ``-5`` and ``-0.5``, so ``--group -5%``
      used to fail as "expected one argument" instead of saying that -5% is out of range. No
      mcastlab option looks like a number, so nothing is shadowed.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse consults this (a private attribute, present since Python 3.2) to tell negative
        # numbers from options.
        self._negative_number_matcher = re.compile(r"^-(\.?\d|inf|nan)", re.IGNORECASE)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")

    def _get_values(self, action: argparse.Action, arg_strings: List[str]) -> Any:
        # `--seed=--`: argparse (3.11) drops the `--` as if it ended the options and hands the
        # option an empty list instead of a value, which reached the commands as a list.
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected a value, got `--`")
        return super()._get_values(action, arg_strings)


# -- the fabric and its routing ---------------------------------------------------------------
def add_fabric(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    """The positional fabric: a spec or a file; optional (the default fabric) unless ``required``."""
    if required:
        p.add_argument("fabric", help=FABRIC_HELP)
    else:
        p.add_argument("fabric", nargs="?", default=None, help=FABRIC_HELP)


ROUTING_HELP = ("routing spec (mcastlab list routings); default: the fabric's engine. Per-packet rules "
                "(dor:tie=random, nca:up=random|adaptive) are applied by the simulator as each packet's head is "
                "routed at a switch: random draws from a ChaCha8 stream keyed by --seed, the message's serial "
                "number, the packet and the switch (the same run whatever the thread count); adaptive takes the "
                "up port with the most free credits, ties to the deterministic (dmodk) port, then the lowest")


def add_routing(p: argparse.ArgumentParser, help: Optional[str] = None) -> None:
    """``--routing/-r``: a routing spec; None means the fabric's default engine."""
    p.add_argument("--routing", "-r", default=None, help=help or ROUTING_HELP)


def add_max_work(p: argparse.ArgumentParser, help: Optional[str] = None) -> None:
    """``--max-work``: the budget of the exhaustive checks (None: the core's default)."""
    p.add_argument("--max-work", type=whole_number, default=None, help=help)


# -- who sends to whom ------------------------------------------------------------------------
def add_scheme(p: argparse.ArgumentParser, *, required: bool, help: str) -> None:
    """``--scheme/-s``: a multicast scheme spec."""
    p.add_argument("--scheme", "-s", required=required, default=None, help=help)


def add_source(p: argparse.ArgumentParser, *, required: bool = False, default: Optional[str] = None,
               help: str = "source endpoint") -> None:
    """``--src``: the source endpoint (index or name)."""
    p.add_argument("--src", required=required, default=default, help=help)


def add_dests(p: argparse.ArgumentParser, help: str = DESTS_HELP) -> None:
    """``--dests``: an explicit destination list (see ``values.parse_dests``)."""
    p.add_argument("--dests", default=None, help=help)


def add_group(p: argparse.ArgumentParser, help: str = GROUP_HELP) -> None:
    """``--group``: a random destination group, a percentage of the other endpoints."""
    p.add_argument("--group", default=None, help=help)


def add_seed(p: argparse.ArgumentParser, *, default: Optional[int] = 1, help: Optional[str] = None) -> None:
    """``--seed``: the seed of whatever the command draws at random (groups, traffic, faults)."""
    p.add_argument("--seed", type=whole_number, default=default, help=help)


def add_discipline(p: argparse.ArgumentParser, default: Optional[str] = "fpfs") -> None:
    """``--discipline``: who forwards a unicast tree (host, or the NI first-come / first-packet);
    ``default`` None lets a command tell whether it was given (``fpfs`` when it was not)."""
    p.add_argument("--discipline", default=default, choices=list(DISCIPLINES),
                   help=None if default else "who forwards a unicast tree (default: fpfs)")


# -- the simulator ----------------------------------------------------------------------------
def add_preset(p: argparse.ArgumentParser) -> None:
    """``--preset``: the simulator parameter preset."""
    p.add_argument("--preset", default="sivaram98", help="parameter preset (mcastlab list presets)")


def add_param(p: argparse.ArgumentParser) -> None:
    """``--param KEY=VALUE`` (repeatable): overrides of preset values; read with :func:`params`."""
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter, e.g. link.bandwidth=1Gb/s (repeatable)")


def params(args: argparse.Namespace) -> Dict[str, str]:
    """The ``--param`` overrides as the ``params`` dict of the API."""
    return key_values(args.param, "--param")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The options of every command that simulates traffic: preset, overrides, seed, routing."""
    add_preset(p)
    add_param(p)
    add_seed(p)
    add_routing(p)


def add_allow_unchecked(p: argparse.ArgumentParser) -> None:
    """``--allow-unchecked``: run a plan (or a workload's plans) that fails the deadlock check."""
    p.add_argument("--allow-unchecked", action="store_true",
                   help="simulate even a plan whose deadlock check finds a cycle of channel dependencies "
                        "(the check's verdict is still printed)")


def add_workload(p: argparse.ArgumentParser, *, default: Optional[str], help: str) -> None:
    """``--workload/-w``: a workload spec (traffic over time)."""
    p.add_argument("--workload", "-w", default=default, help=help)


def add_measure(p: argparse.ArgumentParser, help: str = MEASURE_HELP) -> None:
    """``--measure KEY=VALUE`` (repeatable): the measurement protocol; read with :func:`measure`."""
    p.add_argument("--measure", action="append", default=[], metavar="KEY=VALUE", help=help)


def measure(args: argparse.Namespace, detail: Optional[str] = None) -> Dict[str, Any]:
    """The ``--measure`` settings (and ``--detail``) as the ``measure`` dict of the API."""
    return measure_settings(args.measure, detail)


def add_measure_options(p: argparse.ArgumentParser) -> None:
    """``--measure`` and the row files of a workload run or sweep."""
    add_measure(p)
    add_row_files(p)


# -- where the runs run ------------------------------------------------------------------------
CYCLE_HELP = ("Time unit: a cycle is the time one flit takes to cross a link, the preset's flit size over its link "
              "bandwidth (link.flit_bytes / link.bandwidth): 1 ns under the booksim presets. Loads are "
              "flits per cycle per endpoint; --measure durations take cycles (10000cycles) or times (50us).")
JOBS_HELP = ("threads the simulator core uses for its parallel parts (the deadlock check, the points of a sweep run "
             "in this process); default: one per core (RAYON_NUM_THREADS, which this sets); results do not depend "
             "on it")


# More threads than this buy nothing, and each costs its start: 100,000 kept a 10 ms run busy
# for over a minute.
MAX_JOBS = max(64, 4 * (os.cpu_count() or 1))


def add_jobs(p: argparse.ArgumentParser) -> None:
    """``--jobs N``: the core's thread count (1 to :data:`MAX_JOBS`); apply it with
    :func:`apply_jobs` before any run."""
    p.add_argument("--jobs", type=integer_in(1, MAX_JOBS), default=None, metavar="N", help=JOBS_HELP + f" (at most {MAX_JOBS})")


def apply_jobs(args: argparse.Namespace) -> None:
    """Sets the core's thread count from ``--jobs``. Rayon reads it when its pool first starts, which in
    a command-line run is after this (each command is its own process)."""
    if args.jobs is not None:
        os.environ["RAYON_NUM_THREADS"] = str(args.jobs)


DASK_HELP = ("run on Dask: a scheduler address (tcp://HOST:PORT, e.g. a dask-jobqueue cluster's), a scheduler file "
             "(*.json), or `local` for a LocalCluster of --workers processes")


def add_dask(p: argparse.ArgumentParser) -> None:
    """``--dask SCHEDULER``: run the command's jobs on Dask (see ``mcastlab.runner``)."""
    p.add_argument("--dask", default=None, metavar="SCHEDULER", help=DASK_HELP)


def add_store(p: argparse.ArgumentParser, help: str) -> None:
    """``--store DIR``: the result store (finished runs reused, a killed run resumes)."""
    p.add_argument("--store", default=None, metavar="DIR", help=help)


# -- output -----------------------------------------------------------------------------------
def add_json(p: argparse.ArgumentParser, help: Optional[str] = None) -> None:
    """``--json``: machine-readable output on stdout instead of the text report."""
    p.add_argument("--json", action="store_true", help=help)


def add_output(p: argparse.ArgumentParser, *, default: Optional[str] = None, required: bool = False,
               help: Optional[str] = None) -> None:
    """``-o/--output``: the file a command writes its main result to."""
    p.add_argument("-o", "--output", default=default, required=required, help=help)


def add_file(p: argparse.ArgumentParser, flag: str, help: str) -> None:
    """An optional extra output file (``--svg``, ``--plot``, ``--csv``, ...): nothing if omitted."""
    p.add_argument(flag, default=None, metavar="FILE", help=help)


def add_row_files(p: argparse.ArgumentParser) -> None:
    """``--csv`` and ``--parquet``: the result rows as files."""
    add_file(p, "--csv", "write the rows as CSV")
    add_file(p, "--parquet", "write the rows as Parquet")


def check_row_files(args: argparse.Namespace) -> None:
    """Refuses unwritable ``--csv``/``--parquet`` paths before the run (see ``report.check_output``),
    and two outputs (these and ``--plot``) naming one file: the last written would replace the
    others, and the rows written first would be lost without a word."""
    check_output(args.csv, "--csv")
    check_output(args.parquet, "--parquet")
    seen: Dict[str, str] = {}
    for option in ("--csv", "--parquet", "--plot"):
        path = getattr(args, option[2:], None)
        if not path or path == "-":
            continue
        real = os.path.realpath(path)
        if real in seen:
            raise argparse.ArgumentTypeError(f"{seen[real]} and {option} both name {path}: give each its own file")
        seen[real] = option
