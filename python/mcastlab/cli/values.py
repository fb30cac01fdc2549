"""Option text turned into the values the API takes: ``KEY=VALUE`` lists, loads, number lists,
destination lists and groups.

Each parser raises ``argparse.ArgumentTypeError`` (or an ``McastlabError`` from the core) with a
message that names the option, so ``mcastlab.cli.main`` can print it as one error line.
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, Optional, Tuple

from .._core import PlanError
from ..api import Fabric


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
    ``mcastlab.run_workload``, counts as int and factors as float; units stay text for the core."""
    m: Dict[str, Any] = key_values(items, "--measure")
    for k in ("batches",):
        if k in m:
            try:
                m[k] = int(m[k])
            except ValueError:
                raise argparse.ArgumentTypeError(f"--measure {k}={m[k]}: not an integer") from None
    for k in ("latency_factor", "accepted_margin"):
        if k in m:
            try:
                m[k] = float(m[k])
            except ValueError:
                raise argparse.ArgumentTypeError(f"--measure {k}={m[k]}: not a number") from None
    if detail:
        m["detail"] = detail
    return m


def parse_loads(text: str) -> List[float]:
    """``0.05,0.1,0.2`` or a range ``0.05:0.4:0.05`` (start:stop:step, stop included)."""
    try:
        if ":" in text:
            a, b, c = (float(x) for x in text.split(":"))
            if c <= 0 or b < a:
                raise ValueError
            n = int(round((b - a) / c)) + 1
            return [round(a + i * c, 10) for i in range(n) if a + i * c <= b + 1e-12]
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--loads `{text}`: use 0.05,0.1,0.2 or start:stop:step") from None


def float_list(text: str) -> List[float]:
    """``1,2.5`` as ``[1.0, 2.5]`` (empty items skipped)."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text!r}") from None


def int_list(text: str) -> List[int]:
    """``64,256`` as ``[64, 256]`` (empty items skipped)."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def whole_number(text: str) -> int:
    """An integer of 0 or more (seeds, counts, budgets): the core takes them unsigned, and a
    negative one would otherwise surface as an OverflowError traceback."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is negative; give 0 or more")
    return n


def non_negative_float(text: str) -> float:
    """A finite number of 0 or more (a cost per operation): the core refuses others, and saying so
    at parse time names the option."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not (x >= 0 and x != float("inf")):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number of 0 or more")
    return x


def percent(text: str, option: str) -> float:
    """``40%`` or ``40`` as 40.0; the range is the core's to check."""
    try:
        return float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{option} `{text}`: expected a percentage, e.g. 40%") from None


def parse_dests(f: Fabric, text: str) -> List[int]:
    """``--dests``: endpoint indices, inclusive ranges (``3-9``) and names, comma separated."""
    out: List[int] = []
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        if "-" in part and all(x.strip().isdigit() for x in part.split("-", 1)):
            a, b = (int(x) for x in part.split("-", 1))
            out.extend(range(a, b + 1))
        else:
            out.append(f.endpoint(part))
    return out


def source_and_group(f: Fabric, src: str, dests: Optional[str], group: Optional[str], seed: int) -> Tuple[int, List[int]]:
    """The source and destinations of ``--src`` with either ``--dests`` or ``--group``/``--seed``
    (a random percentage of the other endpoints)."""
    source = f.endpoint(src)
    if dests is not None and group is None:
        return source, parse_dests(f, dests)
    if group is not None and dests is None:
        return source, f.random_group(source, percent(group, "--group"), seed)
    raise PlanError("give exactly one of --dests LIST or --group PERCENT")
