"""Option text turned into the values the API takes: ``KEY=VALUE`` lists, loads, number lists,
destination lists and groups.

Each parser raises ``argparse.ArgumentTypeError`` (or an ``McastlabError`` from the core) with a
message that names the option, so ``mcastlab.cli.main`` can print it as one error line.
"""

from __future__ import annotations

import argparse
import math
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._core import MAX_NS_PER_OP, FabricError, PlanError, SpecError
from ..api import U32_MAX, U64_MAX, Fabric, percentage, repeated


def key_values(items: List[str], what: str) -> Dict[str, str]:
    """``["a=1", "b = x"]`` as ``{"a": "1", "b": "x"}``; ``what`` names the option in errors."""
    out = {}
    for kv in items:
        if "=" not in kv:
            raise argparse.ArgumentTypeError(f"{what} `{kv}`: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def measure_settings(items: List[str], detail: Optional[str]) -> Dict[str, Any]:
    """``--measure KEY=VALUE`` items (and ``--detail``) as the ``measure`` dict of
    ``mcastlab.run_workload``, counts as int and factors as float; units stay text for the core.
    The numbers are range-checked here: the core reads them from JSON, where a negative count or a
    ``nan`` would surface as a JSON parse position rather than the setting's name."""
    m: Dict[str, Any] = key_values(items, "--measure")
    for k in ("batches",):
        if k in m:
            m[k] = _integer(m[k], 1, U32_MAX, f"--measure {k}")  # the core's u32
    for k in ("latency_factor", "accepted_margin"):
        if k in m:
            # Only a finite number here: its range is the core's, stated once (`--measure
            # latency_factor=-2` was told "0 or more" here, then 0.5 "above 1" by the core).
            m[k] = _number(m[k], -math.inf, None, f"--measure {k}")
    if detail:
        m["detail"] = detail
    return m


# -- numbers ----------------------------------------------------------------------------------
# Every numeric option is parsed by one of the readers below, each with the range the consumer
# accepts: the core takes seeds, budgets and counts as u64 and packet and node counts as u32, so an
# integer outside those ranges must be refused here, naming the option, rather than reach PyO3 as
# an OverflowError traceback. Readers used as argparse ``type=`` raise ArgumentTypeError without the
# option's name (argparse prefixes ``argument --seed:``); the others name it themselves.
# (U32_MAX and U64_MAX are the API's, the core's unsigned types.)
# A --loads range expands to at most this many points: a sweep of more runs for hours, and a typo
# such as a step of 1e-9 would otherwise build a list of a billion loads before anything is said.
MAX_LOAD_POINTS = 10_000


def _range_text(low: Optional[float], high: Optional[float]) -> str:
    if high is None:
        return f"{low:g} or more" if isinstance(low, float) else f"{low} or more"
    return f"from {low:g} to {high:g}" if isinstance(low, float) else f"from {low} to {high}"


def _integer(text: str, low: int, high: Optional[int], option: str = "") -> int:
    """``text`` as an integer in ``low..=high`` (``high`` None: unbounded)."""
    prefix = f"{option}: " if option else ""
    try:
        n = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{prefix}`{text}` is not an integer") from None
    if n < low or (high is not None and n > high):
        raise argparse.ArgumentTypeError(f"{prefix}{n} is out of range: give an integer {_range_text(low, high)}")
    return n


def _number(text: str, low: float, high: Optional[float], option: str = "") -> float:
    """``text`` as a finite number in ``[low, high]``."""
    prefix = f"{option}: " if option else ""
    try:
        x = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{prefix}`{text}` is not a number") from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"{prefix}{text.strip()} is not a finite number")
    if x < low or (high is not None and x > high):
        raise argparse.ArgumentTypeError(f"{prefix}{text.strip()} is out of range: give a finite number {_range_text(low, high)}")
    return x


def integer_in(low: int, high: Optional[int]) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``low..=high``."""
    def read(text: str) -> int:
        return _integer(text, low, high)

    read.__name__ = "integer"
    return read


def list_items(text: str, what: str, option: str = "") -> List[str]:
    """``text`` split at its commas, each item stripped. An empty item (``0.1,,0.2``, a comma at
    an end) is refused, as is a list with none: it was skipped without a word, so a typo such as
    a lost value went unseen. ``option`` names the option in the error (left out for an argparse
    ``type``, which argparse prefixes with ``argument --loads:``)."""
    prefix = f"{option} " if option else ""
    items = [x.strip() for x in text.split(",")]
    if not any(items):
        raise argparse.ArgumentTypeError(f"{prefix}`{text}`: give at least one {what}")
    if not all(items):
        raise argparse.ArgumentTypeError(f"{prefix}`{text}`: empty item in the list; give one {what} between commas")
    return items


def given_once(items: List[str], key: Callable[[str], Any] = lambda x: x, option: str = "") -> None:
    """Refuses a value given twice in an option's list (by ``key``, e.g. the number it reads as):
    it would be run, or printed, twice for identical rows."""
    same = repeated(items, key)
    if same:
        raise argparse.ArgumentTypeError(f"{option + ': ' if option else ''}{same}; give each once")


def _list_of(read_one: Callable[[str], Any], what: str) -> Callable[[str], List[Any]]:
    """An argparse ``type``: a comma-separated list of at least one ``what``, each read by
    ``read_one`` and each given once (see :func:`list_items`)."""
    def read(text: str) -> List[Any]:
        items = list_items(text, what)
        values = [read_one(x) for x in items]
        given_once(items, read_one)
        return values

    read.__name__ = f"{what} list"
    return read


def integers_in(low: int, high: Optional[int]) -> Callable[[str], List[int]]:
    """An argparse ``type``: a comma-separated list of integers, each in ``low..=high``."""
    return _list_of(lambda x: _integer(x, low, high), "integer")


def _fault_percent(text: str) -> float:
    """A percentage of faulty endpoints, above 0 and below 100, as the core's qs-table takes it:
    coll03's trials need a faulty node and working ones (a source and a destination); 0 and 100
    passed the option's 0..100 and were refused by the core under another name."""
    x = _number(text, 0.0, 100.0)
    if not 0 < x < 100:
        raise argparse.ArgumentTypeError(
            f"{text.strip()} is out of range: give a percentage above 0 and below 100 (a trial needs a faulty node "
            "and working ones)")
    return x


def fault_percents(text: str) -> List[float]:
    """An argparse ``type``: qs-table's ``--faulty``, a comma-separated list of percentages, each
    above 0 and below 100."""
    return _list_of(_fault_percent, "percentage")(text)


# Seeds, exhaustive-check budgets and path counts: the core's u64.
whole_number = integer_in(0, U64_MAX)
# Packets of a message: the core's u32, and a message has at least one.
packet_count = integer_in(1, U32_MAX)
# Threads of a pool: at least one (0 would mean "CPU count" to some pools and a hang to others).
positive_count = integer_in(1, None)


def ns_per_op(text: str) -> float:
    """A host cost per operation in ns, from 0 to the core's bound (beyond it the creation latency
    could overflow): the core refuses others, and saying so at parse time names the option."""
    return _number(text, 0.0, MAX_NS_PER_OP)


def percent(text: str, option: str) -> float:
    """``40%`` or ``40`` as 40.0, a finite number from 0 to 100 (:func:`mcastlab.inputs.percentage`,
    which the API's ``group`` goes through too); whether 0 makes sense (it does not for a group)
    is the core's to say."""
    try:
        return percentage(option, text)
    except SpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def group_size(text: str, option: str) -> Dict[str, Any]:
    """``--group``: ``95%`` is a percentage of the endpoints other than the source (rounded half
    away from zero, at least one), ``60`` exactly 60 destinations; as the keyword of
    ``Fabric.random_group`` (``{"percent": 95.0}`` or ``{"count": 60}``)."""
    t = text.strip()
    if t.endswith("%"):
        return {"percent": percent(t, option)}
    try:
        n = int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{option} `{text}`: expected a number of destinations (60) or a percentage of the other endpoints (95%)"
        ) from None
    if not 1 <= n <= U32_MAX:
        raise argparse.ArgumentTypeError(f"{option} `{text}`: a number of destinations is from 1 to {U32_MAX}")
    return {"count": n}


LOAD_TEXT_MAX = 16
"""The longest load written out in digits (0.00000000000001 has 16 characters)."""


def load_text(x: float) -> str:
    """A load as the tables print it: four decimals, or every digit it has where four would
    round it (0.00005 printed as 0.0001 named a load nobody asked for); a load whose digits
    would fill a line (1e-300 is 300 of them) in the shortest form that reads back as it."""
    fixed = f"{x:.4f}"
    if float(fixed) == x:
        return fixed
    digits = format(Decimal(repr(float(x))), "f")
    return digits if len(digits) <= LOAD_TEXT_MAX else repr(float(x))


def parse_loads(text: str) -> List[float]:
    """``0.05,0.1,0.2`` or a range ``0.05:0.4:0.05`` (start:stop:step, stop included). Every load
    is a finite number above 0, and a range is counted before it is expanded."""
    usage = "use 0.05,0.1,0.2 or start:stop:step"
    try:
        if ":" in text:
            a, b, c = (float(x) for x in text.split(":"))
            if not all(math.isfinite(x) for x in (a, b, c)) or c <= 0 or b < a or a <= 0:
                raise ValueError
            steps = (b - a) / c  # may overflow to inf (1e-300:1e300:1e-300): count in floats
            if not steps + 1 <= MAX_LOAD_POINTS:
                raise argparse.ArgumentTypeError(
                    f"`{text}` has {steps + 1:,.0f} points, more than {MAX_LOAD_POINTS:,}: use a larger step")
            n = int(round(steps)) + 1
            return [round(a + i * c, 10) for i in range(n) if a + i * c <= b + 1e-12]
        items = list_items(text, "load")
        loads = [float(x) for x in items]
        given_once(items, float)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}`: {usage}, loads above 0") from None
    if not loads or not all(math.isfinite(x) and x > 0 for x in loads):
        raise argparse.ArgumentTypeError(f"`{text}`: {usage}, loads above 0")
    if len(loads) > MAX_LOAD_POINTS:
        raise argparse.ArgumentTypeError(f"{len(loads):,} points, more than {MAX_LOAD_POINTS:,}")
    return loads


def split_top_level(text: str) -> List[str]:
    """``text`` split at the commas outside parentheses: a mesh's or torus's endpoint name,
    ``n(1,2)``, has a comma of its own."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth <= 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_dests(f: Fabric, text: str) -> List[int]:
    """``--dests``: endpoint indices, inclusive ranges (``3-9``) and names (``n(1,2)``), comma
    separated (a name's own commas, inside its parentheses, do not separate). A range
    is checked against the fabric's endpoints before it is expanded: ``1-99999999999`` would
    otherwise build a list of 10^11 integers (and exhaust memory) before any index is checked."""
    out: List[int] = []
    n = f.num_endpoints
    parts = [p.strip() for p in split_top_level(text)]
    if any(parts) and not all(parts):
        raise PlanError(f"--dests `{text}`: empty item in the list; give one endpoint or range between commas")
    for part in [p for p in parts if p]:
        if "-" in part and all(x.strip().isdigit() for x in part.split("-", 1)):
            a, b = (int(x) for x in part.split("-", 1))
            if a > b:
                raise PlanError(f"--dests `{part}`: the range is empty (give low-high)")
            if b >= n:
                raise PlanError(f"--dests `{part}`: endpoint {b} is not in the fabric ({n} endpoints, 0-{n - 1})")
            out.extend(range(a, b + 1))
        else:
            out.append(endpoint(f, part, "--dests"))
    if not out:
        raise PlanError(f"--dests `{text}`: no destination given")
    return out


def endpoint(f: Fabric, ref: Optional[str], option: str) -> int:
    """The endpoint ``ref`` names, or an error that names ``option`` as well as the reference; a
    missing one (an option without a default left out) says so instead of looking up ``None``."""
    if ref is None:
        raise FabricError(f"{option} is missing: give an endpoint (an index 0..{f.num_endpoints - 1}, a name or a label)")
    try:
        return f.endpoint(ref)
    except FabricError as e:
        raise FabricError(f"{option}: {e}") from None


def source_and_group(f: Fabric, src: Optional[str], dests: Optional[str], group: Optional[str], seed: int) -> Tuple[int, List[int]]:
    """The source and destinations of ``--src`` with either ``--dests`` or ``--group``/``--seed``
    (a random group of the other endpoints: a count, or a percentage with ``%``)."""
    source = endpoint(f, src, "--src")
    if dests is not None and group is None:
        return source, parse_dests(f, dests)
    if group is not None and dests is None:
        return source, f.random_group(source, seed=seed, **group_size(group, "--group"))
    raise PlanError("give exactly one of --dests LIST or --group N|PERCENT%")
