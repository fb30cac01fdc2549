"""zhou07's figures as experiments (see ../experiment.py): every figure of §4 holds results.

- Figs. 8–16: the time of an X-to-Y % multicast against the message size, zhou07's cyclic
  multicast (`ib_cyclic`) against OpenSM's default tree (`ib_opensm`) and one unicast per
  destination (`ib_unicast`), with X = one node, 40 %, all and Y = 10 %, 40 %, 100 % of the
  nodes; panels (a) small and (b) large messages.
- Fig. 17: the speedup of cyclic over OpenSM against the group size (the senders and the 70 %
  values §4 also names), with the unicast times beside it so that the claims that compare
  figures (all-to-many against 40 %-to-many, speedups growing with senders and group) have
  their data in one experiment.

The traffic is the `many_to_many` workload: the senders and one multicast group are drawn from the
point's seed, every sender sends one message at time 0 to the group (without itself), and the
time is until the last destination has the last message (the run's largest message latency, all
messages starting at 0). Counts are exact: a percentage of all N endpoints, rounded to the
nearest integer (40 % of 128 = 51.2 → 51), handed to the workload as 100·count/N so that the
count does not depend on whether its percentages count the source. Beside the time, each point
gives what its plans do with the links (every sender's plan walked switch by switch): link
visits, distinct directed links used, and the busiest link's number of messages, whose
serialization is a lower bound on the time.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ...api import fabric as build_fabric
from ...workloads import run_workload
from ..experiment import (
    DIFFERS,
    HOLDS,
    NOT_APPLICABLE,
    Claim,
    Experiment,
    FigureSpec,
    Point,
    Reference,
    Row,
    Scale,
    Stated,
    Verdict,
)

PAPER = "zhou07"
FABRIC = "mport_ntree:m=8,n=3"
# tiny: the smallest m-port n-tree with three levels (16 endpoints, 20 switches), seconds per figure.
TINY_FABRIC = "mport_ntree:m=4,n=3"
PRESET = "zhou07"
ROUTING = "mport_lmc"
CYCLIC, OPENSM, UNICAST = "ib_cyclic", "ib_opensm", "ib_unicast"
SCHEMES = (CYCLIC, OPENSM, UNICAST)
MULTICAST = (CYCLIC, OPENSM)

# Message sizes of the (a) small and (b) large panels. §4: "from 32 bytes to 128 Kbytes".
SIZES: Dict[Scale, Tuple[Tuple[int, ...], Tuple[int, ...]]] = {
    "tiny": ((32,), (4096,)),
    "quick": ((32, 512), (4096, 32768)),
    "full": ((32, 64, 128, 256, 512, 1024), tuple(2**k for k in range(11, 18))),
}
SPEEDUP_SIZES: Dict[Scale, Tuple[int, ...]] = {"tiny": (4096,), "quick": (4096,), "full": (256, 4096, 65536)}
# Senders: one node, or a percentage of all nodes (§4: 1 node, 40 %, 70 %, all).
SENDERS: Dict[str, Optional[float]] = {"one": None, "40%": 40.0, "70%": 70.0, "all": 100.0}
GROUPS = (10, 40, 70, 100)
REPLICATES = {"tiny": 1, "quick": 1, "full": 10}

# Claim thresholds, chosen before any run (§4 gives none): "the same" time is within 1 %, the
# size of a tie broken one way or the other by arbitration; "outperforms" is faster by more than
# that; "a little better" is faster by at most 10 %.
SAME = 0.01
LITTLE = 0.10

FIG_VALUES = (
    "time_us", "mean_latency_us", "zero_load_us", "bound_us", "link_visits", "used_links",
    "max_link_load", "descending_bottleneck", "complete", "events",
)
SPEEDUP_VALUES = (
    "speedup", "speedup_unicast", "mean_speedup", "time_cyclic_us", "time_opensm_us", "time_unicast_us",
    "bound_speedup", "bound_speedup_own_groups",
)


# ---------------------------------------------------------------------------------------------
# Counts and points


@functools.lru_cache(maxsize=8)
def _fabric(spec: str) -> Any:
    return build_fabric(spec)


def share(pct: float, n: int) -> int:
    """The endpoints in ``pct`` % of all ``n``: the nearest integer (halves up), at least one."""
    return max(1, int(math.floor(pct * n / 100.0 + 0.5)))


def counts(fabric: str, senders: str, group_pct: float) -> Tuple[int, int]:
    """Exact sender and group counts on ``fabric`` (the group at least two, so that a sender in it
    still has a destination)."""
    n = _fabric(fabric).num_endpoints
    pct = SENDERS[senders]
    return (1 if pct is None else share(pct, n)), max(2, share(group_pct, n))


def _fabric_for(scale: Scale) -> str:
    return TINY_FABRIC if scale == "tiny" else FABRIC


def _case(fabric: str, senders: str, group_pct: int) -> Point:
    s, g = counts(fabric, senders, group_pct)
    return {"fabric": fabric, "senders": senders, "senders_n": s, "group_pct": group_pct, "group_n": g}


# ---------------------------------------------------------------------------------------------
# One run and its plans


def _workload(point: Mapping[str, Any], scheme: str) -> str:
    n = _fabric(point["fabric"]).num_endpoints
    return (
        f"many_to_many:senders_pct={100.0 * point['senders_n'] / n!r},"
        f"group_pct={100.0 * point['group_n'] / n!r},scheme={scheme},bytes={point['bytes']}"
    )


def _who(fabric: Any, result: Mapping[str, Any], point: Mapping[str, Any]) -> Dict[int, List[int]]:
    """Each sender's destinations in a run (from its per-destination rows), after checking that
    the workload drew exactly the point's counts: a change of its percentage rule must not
    silently change the experiment."""
    source = {m["serial"]: fabric.endpoint(m["source"]) for m in result["samples"]}
    dests: Dict[int, List[int]] = {s: [] for s in source.values()}
    for d in result["destinations"]:
        dests[source[d["serial"]]].append(fabric.endpoint(d["destination"]))
    g = point["group_n"]
    group = set().union(*map(set, dests.values())) | {s for s, ds in dests.items() if len(ds) == g - 1}
    if len(dests) != point["senders_n"] or len(group) != g or any(len(ds) not in (g - 1, g) for ds in dests.values()):
        raise RuntimeError(
            f"{_workload(point, 'S')}: drew {len(dests)} senders and a group of {len(group)}, "
            f"not {point['senders_n']} and {g}"
        )
    return {s: sorted(ds) for s, ds in dests.items()}


def link_loads(fabric: Any, scheme: str, sends: Mapping[int, Sequence[int]]) -> Counter:
    """Messages crossing each directed link when every sender of ``sends`` multicasts once to its
    destinations with ``scheme`` (one packet: every packet of a message takes the same links)."""
    load: Counter = Counter()
    for s, ds in sends.items():
        for t in fabric.plan(scheme, s, list(ds), packets=1, routing=ROUTING).trees():
            load.update((link, d) for link, d in t["channels"])
    return load


_SWITCH = re.compile(r"^SW<[^,>]*,(\d+)>")


def descends(link_text: str) -> bool:
    """Whether a link named as the run names its busiest one (``SW<03,2>[1] -> P(030)``) leads
    down the tree: into an endpoint, or to a switch of a higher level number (level 0 is the top)."""
    a, _, b = link_text.partition(" -> ")
    if b.startswith("P("):
        return True
    ma, mb = _SWITCH.match(a), _SWITCH.match(b)
    return bool(ma and mb and int(mb.group(1)) > int(ma.group(1)))


def simulate_scheme(point: Mapping[str, Any], scheme: str) -> Tuple[Row, Dict[int, List[int]]]:
    """One timed run of ``scheme`` at ``point`` and its plans' link use; also returns who sent to
    whom."""
    f = _fabric(point["fabric"])
    res = run_workload(
        f, _workload(point, scheme), preset=PRESET, seed=point["seed"], routing=ROUTING,
        measure={"detail": "destinations"},
    )
    run = res["run"]
    sends = _who(f, res, point)
    load = link_loads(f, scheme, sends)
    complete = run["outcome"]["kind"] == "drained" and run["copies_missing"] == 0 and run["copies_duplicated"] == 0
    msg_us = run["message_flits"] * run["cycle_ps"] / 1e6
    row: Row = {
        "time_us": run["latency_max_ps"] / 1e6 if complete else math.nan,
        "mean_latency_us": run["latency_mean_ps"] / 1e6 if complete else math.nan,
        "zero_load_us": run["zero_load_latency_ps"] / 1e6,
        "bound_us": max(load.values()) * msg_us,
        "link_visits": sum(load.values()),
        "used_links": len(load),
        "max_link_load": max(load.values()),
        "descending_bottleneck": 1.0 if descends(run["link_busy_max_at"] or "") else 0.0,
        "complete": 1.0 if complete else 0.0,
        "events": run["events"],
    }
    return row, sends


def run_figure_point(point: Point) -> List[Row]:
    """Figs. 8–16: one scheme at one message size."""
    row, _ = simulate_scheme(point, point["scheme"])
    return [row]


def own_groups(point: Mapping[str, Any], senders: Iterable[int]) -> Dict[int, List[int]]:
    """Each sender with a group of its own (``group_n`` of all endpoints, drawn from the point's
    seed, the sender left out): the other reading of §4, which `many_to_many` cannot run."""
    n = _fabric(point["fabric"]).num_endpoints
    rng = random.Random(f"{point['seed']}/own-groups")
    return {s: sorted(d for d in rng.sample(range(n), point["group_n"]) if d != s) for s in senders}


def run_speedup_point(point: Point) -> List[Row]:
    """Fig. 17: the three schemes on the same senders and group; speedups of cyclic over OpenSM
    (time and mean message latency) and over unicast; the busiest-link ratio of OpenSM to cyclic
    for this group and, from plans only, for groups of the same size drawn per sender."""
    rows = {}
    for scheme in SCHEMES:
        rows[scheme], sends = simulate_scheme(point, scheme)
    c, o, u = rows[CYCLIC], rows[OPENSM], rows[UNICAST]
    f = _fabric(point["fabric"])
    own = own_groups(point, sends)
    own_ratio = max(link_loads(f, OPENSM, own).values()) / max(link_loads(f, CYCLIC, own).values())
    return [{
        "speedup": o["time_us"] / c["time_us"],
        "speedup_unicast": u["time_us"] / c["time_us"],
        "mean_speedup": o["mean_latency_us"] / c["mean_latency_us"],
        "time_cyclic_us": c["time_us"],
        "time_opensm_us": o["time_us"],
        "time_unicast_us": u["time_us"],
        "bound_speedup": o["max_link_load"] / c["max_link_load"],
        "bound_speedup_own_groups": own_ratio,
    }]


# ---------------------------------------------------------------------------------------------
# Claim evaluation (small helpers; generic ones are to move to claims.py)


def size_text(b: int) -> str:
    """``32 B``, ``4 KiB``, ``128 KiB``."""
    return f"{b // 1024} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def by_size(table: Any, scheme: str, value: str = "time_us") -> Dict[int, float]:
    """``value`` of ``scheme`` per message size (NaN-free)."""
    t = table[table["scheme"] == scheme]
    return {int(b): float(v) for b, v in zip(t["bytes"], t[value]) if not math.isnan(float(v))}


def ratios(table: Any, num: str, den: str, value: str = "time_us") -> Dict[int, float]:
    """``value`` of scheme ``num`` over that of ``den`` at each size both have."""
    a, b = by_size(table, num, value), by_size(table, den, value)
    return {s: a[s] / b[s] for s in sorted(set(a) & set(b)) if b[s] > 0}


def listing(values: Mapping[Any, float], fmt: str = "{:.3f}", key=size_text) -> str:
    """``32 B 1.000, 4 KiB 1.016`` (every entry, in key order)."""
    return ", ".join(f"{key(k)} {fmt.format(v)}" for k, v in sorted(values.items()))


def _missing(what: str) -> Verdict:
    return Verdict(NOT_APPLICABLE, f"no {what} in the table (a scale without it)")


def multicast_beats_unicast(table: Any, rows: Any) -> Verdict:
    """Both multicast schemes take less time than unicast at every message size."""
    parts, losses = [], []
    for s in MULTICAST:
        r = ratios(table, UNICAST, s)
        if not r:
            return _missing(f"{s} and {UNICAST} times")
        parts.append(f"unicast/{s}: {listing(r)}")
        losses += [f"{s} at {size_text(b)}" for b, v in r.items() if v <= 1.0]
    verdict = HOLDS if not losses else DIFFERS
    tail = f"; not faster: {', '.join(losses)}" if losses else ""
    return Verdict(verdict, "; ".join(parts) + tail, "multicast faster than unicast in every case (§4, Remark 1)")


def cyclic_same_as_opensm(table: Any, rows: Any) -> Verdict:
    r = ratios(table, OPENSM, CYCLIC)
    if not r:
        return _missing("cyclic and OpenSM times")
    off = {b: v for b, v in r.items() if abs(v - 1.0) > SAME}
    return Verdict(HOLDS if not off else DIFFERS, f"OpenSM/cyclic time: {listing(r)} (the same: within ±{SAME:.0%})",
                   "the same time (§4 Case 1, Remark 2)")


def _over_zero_load(table: Any) -> Dict[str, Dict[int, float]]:
    return {s: {b: t / by_size(table, s, "zero_load_us")[b] for b, t in by_size(table, s).items()} for s in MULTICAST}


def no_contention_one_source(table: Any, rows: Any) -> Verdict:
    r = _over_zero_load(table)
    if not all(r.values()):
        return _missing("multicast times")
    bad = [f"{s} at {size_text(b)}" for s, d in r.items() for b, v in d.items() if v > 1.0 + SAME]
    return Verdict(HOLDS if not bad else DIFFERS,
                   "time / one message's zero-load time: " + "; ".join(f"{s} {listing(d)}" for s, d in r.items()),
                   "one source: no two packets meet in a buffer (§4 Case 1)")


def contention_occurs(table: Any, rows: Any) -> Verdict:
    r = _over_zero_load(table)
    if not all(r.values()):
        return _missing("multicast times")
    bad = [f"{s} at {size_text(b)}" for s, d in r.items() for b, v in d.items() if v <= 1.0 + SAME]
    return Verdict(HOLDS if not bad else DIFFERS,
                   "time / one message's zero-load time: " + "; ".join(f"{s} {listing(d, '{:.1f}')}" for s, d in r.items()),
                   "several sources: traffic congestion occurs (§4 Case 2)")


def cyclic_outperforms_opensm(table: Any, rows: Any) -> Verdict:
    r = ratios(table, OPENSM, CYCLIC)
    if not r:
        return _missing("cyclic and OpenSM times")
    slow = [size_text(b) for b, v in r.items() if v <= 1.0 + SAME]
    tail = f"; within ±{SAME:.0%} or slower at {', '.join(slow)}" if slow else ""
    return Verdict(HOLDS if not slow else DIFFERS, f"speedup OpenSM/cyclic: {listing(r)}{tail}",
                   "cyclic outperforms OpenSM for small groups, 10% and 40% (§4 Cases 2, 3)")


def cyclic_little_better(table: Any, rows: Any) -> Verdict:
    r = ratios(table, OPENSM, CYCLIC)
    if not r:
        return _missing("cyclic and OpenSM times")
    off = [size_text(b) for b, v in r.items() if not 1.0 < v <= 1.0 + LITTLE]
    tail = f"; outside (1, {1 + LITTLE:.2f}] at {', '.join(off)}" if off else ""
    return Verdict(HOLDS if not off else DIFFERS, f"speedup OpenSM/cyclic: {listing(r)}{tail}",
                   "to 100%: cyclic a little better than OpenSM (§4 Cases 2, 3; Remark 2)")


def descending_congestion(table: Any, rows: Any) -> Verdict:
    d = {s: by_size(table, s, "descending_bottleneck") for s in MULTICAST}
    if not all(d.values()):
        return _missing("multicast runs")
    tb = {s: {b: t / by_size(table, s, "bound_us")[b] for b, t in by_size(table, s).items()} for s in MULTICAST}
    up = [f"{s} at {size_text(b)}" for s, m in d.items() for b, v in m.items() if v < 1.0]
    text = ("busiest link leads down in every run" if not up else f"busiest link not descending: {', '.join(up)}")
    text += "; time / busiest link's serialization bound: " + "; ".join(f"{s} {listing(m)}" for s, m in tb.items())
    return Verdict(HOLDS if not up else DIFFERS, text,
                   "to 100%: serious congestion in the descending phase dominates (§4 Case 2, Fig. 17 text)")


def cyclic_uses_more_links(table: Any, rows: Any) -> Verdict:
    c, o = by_size(table, CYCLIC, "used_links"), by_size(table, OPENSM, "used_links")
    if not c or not o:
        return _missing("link counts")
    cu, ou = sum(c.values()) / len(c), sum(o.values()) / len(o)
    cl, ol = (sum(by_size(table, s, "max_link_load").values()) / len(c) for s in (CYCLIC, OPENSM))
    return Verdict(HOLDS if cu > ou else DIFFERS,
                   f"directed links used: cyclic {cu:.0f}, OpenSM {ou:.0f}; busiest link's messages: "
                   f"cyclic {cl:.1f}, OpenSM {ol:.1f}",
                   "cyclic builds more trees, using more of the fat-tree's bandwidth (§4 Case 2)")


def unicast_speedup_grows_with_size(table: Any, rows: Any) -> Verdict:
    r = ratios(table, UNICAST, CYCLIC)
    if len(r) < 2:
        return _missing("two message sizes")
    lo, hi = min(r), max(r)
    return Verdict(HOLDS if r[hi] > r[lo] else DIFFERS, f"unicast/cyclic time: {listing(r)}",
                   "the larger the message, the larger the speedup of multicast over unicast (§1)")


SENDER_ORDER = tuple(SENDERS)


def cells(table: Any, value: str) -> Dict[Tuple[str, int, int], float]:
    """Fig. 17's ``value`` per (senders, group %, message size), NaN-free."""
    out = {}
    for s, g, b, v in zip(table["senders"], table["group_pct"], table["bytes"], table[value]):
        if not math.isnan(float(v)):
            out[(str(s), int(g), int(b))] = float(v)
    return out


def _lines(table: Any) -> Tuple[List[str], List[int], List[int]]:
    """The senders (in §4's order), groups and sizes present in Fig. 17's table."""
    present = set(table["senders"])
    return ([s for s in SENDER_ORDER if s in present], sorted({int(g) for g in table["group_pct"]}),
            sorted({int(b) for b in table["bytes"]}))


def small_groups_higher_speedup(table: Any, rows: Any) -> Verdict:
    senders, groups, sizes = _lines(table)
    many = [s for s in senders if s != "one"]
    if not many or len(groups) < 2:
        return _missing("several senders at two group sizes")
    sp, own = cells(table, "speedup"), cells(table, "bound_speedup_own_groups")
    lo, hi = groups[0], groups[-1]
    parts, fails = [], []
    for s in many:
        for b in sizes:
            if (s, lo, b) in sp and (s, hi, b) in sp:
                a, z = sp[(s, lo, b)], sp[(s, hi, b)]
                parts.append(f"{s} {size_text(b)}: {lo}% {a:.3f} → {hi}% {z:.3f}")
                if not a > z + SAME:
                    fails.append(f"{s} {size_text(b)}")
    if not parts:
        return _missing("speedups at both ends of the group sizes")
    ctx = "; busiest-link ratio OpenSM/cyclic with a group per sender (plans, not simulated): " + ", ".join(
        f"{s} {lo}% {own[(s, lo, sizes[0])]:.2f} → {hi}% {own[(s, hi, sizes[0])]:.2f}"
        for s in many if (s, lo, sizes[0]) in own and (s, hi, sizes[0]) in own)
    return Verdict(HOLDS if not fails else DIFFERS, "speedup OpenSM/cyclic " + "; ".join(parts) + ctx,
                   "higher speedup when the group is small (§4, Fig. 17)")


def speedup_tends_to_one(table: Any, rows: Any) -> Verdict:
    senders, groups, sizes = _lines(table)
    many = [s for s in senders if s != "one"]
    if not many or 100 not in groups:
        return _missing("several senders to the whole group")
    sp = cells(table, "speedup")
    at = {(s, b): sp[(s, 100, b)] for s in many for b in sizes if (s, 100, b) in sp}
    off = [f"{s} {size_text(b)}" for (s, b), v in at.items() if not 1.0 - SAME <= v <= 1.0 + LITTLE]
    text = "speedup OpenSM/cyclic at 100%: " + ", ".join(f"{s} {size_text(b)} {v:.3f}" for (s, b), v in at.items())
    if off:
        text += f"; outside [{1 - SAME:.2f}, {1 + LITTLE:.2f}] at {', '.join(off)}"
    return Verdict(HOLDS if not off else DIFFERS, text,
                   "as the group nears 100% the speedup nears 1, cyclic a little better (§4, Fig. 17; Remark 2)")


def all_to_many_slower(table: Any, rows: Any) -> Verdict:
    senders, groups, sizes = _lines(table)
    if "40%" not in senders or "all" not in senders:
        return _missing("40% and all senders")
    parts, fails = [], []
    for scheme, col in ((CYCLIC, "time_cyclic_us"), (OPENSM, "time_opensm_us"), (UNICAST, "time_unicast_us")):
        t = cells(table, col)
        pairs = {(g, b): t[("all", g, b)] / t[("40%", g, b)] for g in groups for b in sizes
                 if ("all", g, b) in t and ("40%", g, b) in t}
        fails += [f"{scheme} {g}% {size_text(b)}" for (g, b), v in pairs.items() if v <= 1.0]
        parts.append(f"{scheme} " + ", ".join(f"{g}% {size_text(b)} {v:.2f}" for (g, b), v in pairs.items()))
    tail = f"; not slower: {', '.join(fails)}" if fails else ""
    return Verdict(HOLDS if not fails else DIFFERS, "time all-to-Y / 40%-to-Y: " + "; ".join(parts) + tail,
                   "all-to-many takes more time than many-to-many (§4 Case 3)")


def unicast_speedup_grows(table: Any, rows: Any) -> Verdict:
    senders, groups, sizes = _lines(table)
    if len(senders) < 2 or len(groups) < 2:
        return _missing("two sender counts and two group sizes")
    su = cells(table, "speedup_unicast")
    # (what grows, its two ends, the fixed one) for each line of the grid
    lines = [(f"senders {senders[0]}→{senders[-1]} ({g}%", (senders[0], g), (senders[-1], g)) for g in groups]
    lines += [(f"group {groups[0]}→{groups[-1]}% ({s}", (s, groups[0]), (s, groups[-1])) for s in senders]
    parts, fails = [], []
    for b in sizes:
        for name, lo, hi in lines:
            if (*lo, b) in su and (*hi, b) in su:
                a, z = su[(*lo, b)], su[(*hi, b)]
                parts.append(f"{name}, {size_text(b)}) {a:.2f}→{z:.2f}")
                if not z > a:
                    fails.append(f"{name}, {size_text(b)})")
    if not parts:
        return _missing("unicast speedups")
    tail = f"; does not grow: {', '.join(fails)}" if fails else ""
    return Verdict(HOLDS if not fails else DIFFERS, "speedup unicast/cyclic " + "; ".join(parts) + tail,
                   "the more sources and the larger the group, the larger the speedup over unicast (§1)")


# ---------------------------------------------------------------------------------------------
# Declarations


def _stated(senders: str, group: str) -> Dict[str, Stated]:
    return {
        "fabric": Stated(FABRIC, "§4: an 8-port 3-tree, 80 switches and 128 processing nodes"),
        "fabric (tiny scale)": Stated(TINY_FABRIC, "chosen: the smallest 3-level m-port n-tree (16 nodes), a seconds-long smoke test"),
        "routing": Stated(ROUTING, "§3.1–§3.3.1: LMC = log2((m/2)^(n-1)) LIDs per node, cyclic LID selection"),
        "preset": Stated(PRESET, "§4, see docs/params.md; its choices where §4 is silent are marked there"),
        "link.propagation": Stated("20ns", "§4: flying time between devices"),
        "switch.routing_delay": Stated("100ns", "§4: lookup, replication, arbitration and start-up per switch"),
        "link.bandwidth": Stated("2Gb/s", "§4: one byte per 4 ns (1X link, 2.5 Gb/s signalling)"),
        "switch.switching": Stated("cut_through", "§4: a packet waits in its input buffer until the output buffer has room"),
        "link.mtu_bytes": Stated("4KiB", "chosen by the preset: the largest InfiniBand MTU (§4 gives none)"),
        "switch.buffer_flits": Stated("128 flits of 64 B", "chosen by the preset: two MTU packets (§4 gives none)"),
        "host and NI overheads": Stated("0", "§4: start-up is inside the switch's 100 ns; the simulator models the fabric only"),
        "senders": Stated(senders, "§4: 1 node, 40%, 70% or all of the nodes"),
        "group": Stated(group, "§4: 10%, 40%, 70% or 100% of all nodes"),
        "counts": Stated(
            "nearest integer of pct x N (128: 10% 12.8→13, 40% 51.2→51, 70% 89.6→90, 100% 128); "
            "the group is drawn from all nodes and a sender in it skips itself",
            "chosen: §4 gives percentages 'of all processing nodes' and no counts; passed to the workload as "
            "100·count/N so either percentage rule gives these counts (the run checks them)"),
        "group sharing": Stated(
            "one group shared by every sender (many_to_many)",
            "chosen: §4 'OpenSM builds one multicast tree'; a group per sender is the other reading, not runnable here"),
        "traffic": Stated("every sender sends one message at time 0", "chosen: §4 gives no timing"),
        "metric": Stated("time until the last destination has the last message", "chosen: §4 plots 'time', undefined"),
        "message sizes": Stated(
            "powers of two, 32 B–1 KiB (a) and 2 KiB–128 KiB (b)",
            "§4: 'from 32 bytes to 128 Kbytes'; powers of two and the panel split chosen (Figs. 9–16 (a)/(b))"),
        "replicates": Stated(REPLICATES["full"], "chosen: §4 does not say how many sender/group draws it ran"),
    }


def _figure_grid(senders: str, group_pct: int, scale: Scale) -> List[Point]:
    case = _case(_fabric_for(scale), senders, group_pct)
    return [
        {**case, "scheme": s, "size_range": panel, "bytes": b}
        for panel, sizes in zip(("small", "large"), SIZES[scale]) for b in sizes for s in SCHEMES
    ]


def _speedup_grid(scale: Scale) -> List[Point]:
    f = _fabric_for(scale)
    senders = ("one", "all") if scale == "tiny" else SENDER_ORDER
    groups = (10, 100) if scale == "tiny" else GROUPS
    return [{**_case(f, s, g), "bytes": b} for b in SPEEDUP_SIZES[scale] for s in senders for g in groups]


BEATS_UNICAST = ("multicast_beats_unicast", "Both hardware multicast schemes finish before unicast.")
SIZE_GROWTH = ("speedup_grows_with_size", "Multicast's speedup over unicast grows with the message size.")


def _claims(senders: str, group_pct: int, case: str) -> Tuple[Claim, ...]:
    out = [Claim(BEATS_UNICAST[0], BEATS_UNICAST[1], f"§4 {case}; §5 Remark 1", multicast_beats_unicast)]
    if senders == "one":
        out += [
            Claim("cyclic_same_as_opensm", "With one source, cyclic and OpenSM take the same time.",
                   "§4 Case 1; §5 Remark 2", cyclic_same_as_opensm),
            Claim("no_contention", "With one source no two packets compete for a buffer: a multicast takes "
                   "the time of one message alone.", "§4 Case 1", no_contention_one_source),
        ]
    else:
        out.append(Claim("contention", "With several sources packets contend: a multicast takes longer than "
                          "one message alone.", f"§4 {case}", contention_occurs))
        out.append(Claim("cyclic_uses_more_links", "Cyclic builds a tree per source and so spreads the traffic "
                          "over more of the fat-tree's links than OpenSM's one tree.", f"§4 {case}",
                          cyclic_uses_more_links))
        if group_pct < 100:
            out.append(Claim("cyclic_outperforms_opensm", "For small groups (10%, 40%) cyclic is faster than OpenSM.",
                              f"§4 {case}", cyclic_outperforms_opensm))
        else:
            out.append(Claim("cyclic_little_better", "For the whole group cyclic is only a little faster than OpenSM.",
                              f"§4 {case}; §5 Remark 2", cyclic_little_better))
            out.append(Claim("descending_congestion", "For the whole group, congestion on the way down the tree "
                              "dominates.", f"§4 {case}", descending_congestion))
    out.append(Claim(SIZE_GROWTH[0], SIZE_GROWTH[1], "§1", unicast_speedup_grows_with_size))
    return tuple(out)


# (figure, senders, group %, title, §4 case)
FIGURES = (
    (8, "one", 10, "One-to-10% multicast", "Case 1"),
    (9, "one", 40, "One-to-40% multicast", "Case 1"),
    (10, "one", 100, "One-to-all multicast", "Case 1"),
    (11, "40%", 10, "40%-to-10% multicast", "Case 2"),
    (12, "40%", 40, "40%-to-40% multicast", "Case 2"),
    (13, "40%", 100, "40%-to-all multicast", "Case 2"),
    (14, "all", 10, "All-to-10% multicast", "Case 3"),
    (15, "all", 40, "All-to-40% multicast", "Case 3"),
    (16, "all", 100, "All-to-all multicast", "Case 3"),
)

# CPU seconds per experiment: tiny and quick measured (2026-11-26, the 2-core CI-class machine, one
# process); full estimated from mcastlab.estimate's event counts at the CPU per event and fixed
# cost per run measured here (docs/reproduction/zhou07.md, "Cost").
_QUICK = {8: 10.6, 9: 10.4, 10: 5.0, 11: 11.0, 12: 14.4, 13: 11.6, 14: 13.4, 15: 21.5, 16: 26.1, 17: 53.8}
_FULL = {8: 333, 9: 336, 10: 343, 11: 401, 12: 571, 13: 896, 14: 499, 15: 929, 16: 1748, 17: 3025}
COST_S: Dict[int, Dict[Scale, float]] = {f: {"tiny": 0.15, "quick": _QUICK[f], "full": _FULL[f]} for f in _QUICK}


def _figure(fig: int, senders: str, group_pct: int, title: str, case: str) -> Experiment:
    group = "all nodes" if group_pct == 100 else f"{group_pct}% of the nodes"
    who = "one node" if senders == "one" else ("all nodes" if senders == "all" else f"{senders} of the nodes")
    return Experiment(
        key=f"{PAPER}:fig{fig}",
        paper=PAPER,
        label=f"Fig. {fig}",
        title=title,
        section=f"§4 {case}",
        varies="message size (32 B–128 KiB) x scheme (cyclic, OpenSM, unicast)",
        metric="time until every destination has every message (µs)",
        stated=_stated(who, group),
        grid=functools.partial(_figure_grid, senders, group_pct),
        replicates=REPLICATES,
        run=run_figure_point,
        figure=FigureSpec(x="bytes", y="time_us", series="scheme", panel="size_range",
                          xlabel="message size (bytes)", ylabel="time (µs)", xscale="log", yscale="linear"),
        values=FIG_VALUES,
        claims=_claims(senders, group_pct, case),
        cost_s=COST_S.get(fig, {}),
    )


FIG17 = Experiment(
    key=f"{PAPER}:fig17",
    paper=PAPER,
    label="Fig. 17",
    title="Speedup of the cyclic multicast over OpenSM's",
    section="§4",
    varies="group size (10–100%) x senders (one, 40%, 70%, all) x message size",
    metric="speedup: OpenSM's time / cyclic's time",
    stated={**_stated("one node, 40%, 70% or all nodes", "10%, 40%, 70% or 100% of the nodes"),
            "message sizes": Stated("256 B, 4 KiB, 64 KiB (quick: 4 KiB)",
                                    "chosen: §4 does not say at which sizes Fig. 17's speedups were taken")},
    grid=_speedup_grid,
    replicates=REPLICATES,
    run=run_speedup_point,
    figure=FigureSpec(x="group_pct", y="speedup", series="senders", panel="bytes",
                      xlabel="multicast group size (% of the nodes)", ylabel="speedup (OpenSM time / cyclic time)"),
    values=SPEEDUP_VALUES,
    references=tuple(Reference(s, 100, 1.0, "§4: near 100% 'the speedup will close to 1' (Fig. 17 text)")
                     for s in ("40%", "all")),
    claims=(
        Claim("small_groups_higher_speedup", "The smaller the group, the higher cyclic's speedup over OpenSM.",
               "§4 (Fig. 17)", small_groups_higher_speedup),
        Claim("speedup_tends_to_one", "As the group nears 100% of the nodes the speedup nears 1, cyclic a little "
               "better.", "§4 (Fig. 17); §5 Remark 2", speedup_tends_to_one),
        Claim("all_to_many_slower", "All-to-many multicast takes more time than 40%-to-many (more packets, more "
               "congestion).", "§4 Case 3 (Figs. 14–16 against 11–13)", all_to_many_slower),
        Claim("unicast_speedup_grows", "The more sources and the larger the group, the more multicast gains over "
               "unicast.", "§1", unicast_speedup_grows),
    ),
    cost_s=COST_S.get(17, {}),
)

EXPERIMENTS: List[Experiment] = [*(_figure(*f) for f in FIGURES), FIG17]
