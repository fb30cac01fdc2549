"""sivaram98's results (§6.4 single multicasts, Figs. 19–25; §6.5 latency versus applied load,
Figs. 26–28) as experiments (see ../experiment.py).

Every figure from 19 to 28 is a result; the paper has no results table. Its figures carry no
printed numbers, so there are no reference points: the claims are the paper's sentences about
each figure, evaluated on mcastlab's data.

The paper compares three schemes (§6): *NI-based* (an optimal k-binomial tree over a POC ordering
whose packets the smart NIs forward first-packet-first-served, §4.3), *path-based* (multi-phase
multicast with multi-drop path worms scheduled Less-Greedy, §5.2.6) and *tree-based* (one
bit-string worm, §5.3). The two switch-based schemes get no NI help: every phase pays the host and
NI overheads at the sender and the receivers (§1, §6.4), hence discipline ``host``. The single
multicast figures also run the variants the paper set aside on the way (FCFS forwarding, §4.2; SSR
worms and the Greedy schedule, §5.2.6) and the conventional software binomial tree (§4.1), so the
claims of §4.1 and §5.2.6 that motivated those choices are evaluated too; the load figures run the
paper's three.

Units: latency in cycles of 5 ns (§6.2), load in flits per cycle per node, as the paper. Random
topologies come from the replicate's seed (``irregular:...,seed=<seed>``, §6.3); within one, the
source and the destination sets of a point come from the seed as well, nested across group sizes
(the first d of one random order), so the curves of one replicate share their multicasts.
"""

from __future__ import annotations

import hashlib
import math
import operator
from functools import partial
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ...api import fabric, packets_for
from ...workloads import run_workload
from ..experiment import DIFFERS, HOLDS, NOT_APPLICABLE, Claim, Experiment, FigureSpec, Point, Row, Stated, Verdict

PAPER = "sivaram98"
CYCLE_NS = 5  # §6.2: a 5 ns cycle; a flit crosses a link in one cycle.
PRESET = "sivaram98"

# -- the schemes -------------------------------------------------------------------------------

NI = "NI-based"
PATH = "path-based"
TREE = "tree-based"
NI_FCFS = "NI-based, FCFS"
PATH_GREEDY = "path-based, Greedy"
SSR_LG = "SSR, Less-Greedy"
SSR_GREEDY = "SSR, Greedy"
HOST_BINOMIAL = "binomial, host"

# label -> (scheme spec, discipline). The paper's three first.
SCHEMES: Dict[str, Tuple[str, str]] = {
    NI: ("kbinomial:order=poc", "fpfs"),
    PATH: ("multidrop:schedule=less_greedy", "host"),
    TREE: ("bitstring", "host"),
    NI_FCFS: ("kbinomial:order=poc", "fcfs"),
    PATH_GREEDY: ("multidrop:schedule=greedy", "host"),
    SSR_LG: ("ssr:schedule=less_greedy", "host"),
    SSR_GREEDY: ("ssr:schedule=greedy", "host"),
    HOST_BINOMIAL: ("binomial:order=poc", "host"),
}
PAPER_SCHEMES = (NI, PATH, TREE)
SINGLE_SCHEMES = tuple(SCHEMES)

# -- the paper's parameters --------------------------------------------------------------------

DEFAULT_TOPOLOGY = {"switches": 8, "ports": 8, "endpoints": 32}
CONNECTIVITY = 80
T_HS = 1000  # cycles
R_VALUES = (0.5, 1.0, 2.0, 5.0)
PACKET_FLITS = 128
# §6.5: at least one million cycles, measured after a cold start of 500,000.
WARMUP_CYCLES = 500_000
BATCH_CYCLES = 100_000
BATCHES = 5


def _stated_common() -> Dict[str, Stated]:
    """The parameters every experiment shares (its own add to or override these)."""
    return {
        "preset": Stated(PRESET, "§6.2 (docs/params.md: 5 ns cycle, 1-byte links and flits, 1-cycle link, crossbar and routing, 640-flit input buffers, 266 MB/s I/O bus)"),
        "cycle": Stated(f"{CYCLE_NS} ns", "§6.2"),
        "t_hs": Stated(f"{T_HS} cycles", "§6.2"),
        "t_hr": Stated("= t_hs", "§6.2"),
        "t_nr": Stated("= t_ns", "§6.2"),
        "R": Stated(1.0, "§6.2: t_ns = t_hs by default"),
        "packet": Stated(f"{PACKET_FLITS} flits", "§6.2"),
        "message": Stated("1 packet", "§6.2"),
        "topology": Stated("irregular: 8 switches of 8 ports, 32 nodes", "§6.2"),
        "connectivity": Stated(f"{CONNECTIVITY}%", "§6.3"),
        "topologies": Stated(10, "§6.3: 10 random topologies (the replicates at full scale)"),
        "routing": Stated("up*/down* (mcastlab's BFS root)", "§2.2"),
        "NI-based": Stated("k-binomial (Theorem 3) over a POC ordering, NI FPFS forwarding", "§4.3, §4.3.4, §6"),
        "path-based": Stated("multi-drop path worms along POCs, Less-Greedy, host forwarding", "§5.2.6, §6.4"),
        "tree-based": Stated("one bit-string worm, host overheads", "§5.3, §6"),
    }


def _stated_single() -> Dict[str, Stated]:
    s = _stated_common()
    s.update({
        "destinations": Stated("1 to N−1", "chosen: the paper does not list its group sizes"),
        "source": Stated("random", "chosen: §6.4.3 says the destinations are random; the source is drawn too"),
        "groups per topology": Stated("10 (full), 3 (quick), 1 (tiny)", "chosen: the paper does not say how many multicasts each point averages"),
        "other schemes": Stated("FCFS, SSR, Greedy, host binomial", "chosen: the variants §4.1, §4.2 and §5.2.6 set aside, to evaluate those sections' claims"),
    })
    return s


def _stated_load() -> Dict[str, Stated]:
    s = _stated_common()
    s.update({
        "degree": Stated("3 and 15 destinations", "§6.5"),
        "load": Stated("effective applied load = degree × per-node load, flits/cycle/node", "§6.2"),
        "loads": Stated("0.01 to 0.14 in steps of 0.01 (quick: to 0.12)", "chosen: up to beyond every scheme's saturation (the hosts' receive overhead bounds 1-packet loads at 128/1000 at R = 1)"),
        "run length": Stated(f"{WARMUP_CYCLES:,} cycles of warm-up, then {BATCHES} batches of {BATCH_CYCLES:,}", "§6.5: at least one million cycles, measured after a cold start of 500,000"),
        "arrivals": Stated("Bernoulli, destinations uniform among the other nodes", "chosen: the paper does not say"),
        "saturation": Stated("mcastlab's rules (latency beyond 10× zero-load, accepted below generated by 5%, queue growth); a load saturates a scheme when more than half the replicates do, and its sustained load is the highest load below that", "chosen: the paper plots until saturation without a rule"),
    })
    return s


# -- running one point -------------------------------------------------------------------------


def _fabric_spec(point: Point) -> str:
    return (
        f"irregular:switches={point['switches']},ports={point['ports']},endpoints={point['endpoints']},"
        f"connectivity={CONNECTIVITY},seed={point['seed']}"
    )


def _params(point: Point) -> Dict[str, str]:
    """The simulator overrides of a point: overheads in cycles (R = t_hs / t_ns) and packet size."""
    t_hs = point["t_hs_cycles"]
    t_ns = t_hs / point["R"]
    return {
        "host.t_hs": f"{t_hs * CYCLE_NS}ns",
        "host.t_hr": f"{t_hs * CYCLE_NS}ns",
        "ni.t_ns": f"{t_ns * CYCLE_NS:g}ns",
        "ni.t_nr": f"{t_ns * CYCLE_NS:g}ns",
        "link.mtu_bytes": f"{point['packet_flits']}B",
    }


def _rank(seed: int, *key: Any) -> int:
    """A stable pseudo-random number from the seed and a key (SHA-256: the same on every machine
    and Python version)."""
    text = "/".join(str(x) for x in (seed, *key))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def draw_group(seed: int, n: int, draw: int, destinations: int) -> Tuple[int, List[int]]:
    """The source and ``destinations`` destinations of multicast ``draw`` on an ``n``-node system:
    the source is the node of least rank, the destinations the next ``destinations`` in rank
    order, so the groups of one draw are nested across group sizes."""
    order = sorted(range(n), key=lambda e: _rank(seed, "group", draw, e))
    return order[0], sorted(order[1 : destinations + 1])


def phases(transmissions: List[Dict[str, Any]]) -> int:
    """The communication phases of a plan: a transmission triggered by the start is in phase
    1, 2, ... in its sender's order; one triggered by another transmission's arrival is that
    many phases after it. One packet's steps, whatever the number of packets."""
    memo: Dict[int, int] = {}
    rank: Dict[int, int] = {}
    seen: Dict[Tuple[int, Optional[int]], int] = {}
    for i, t in enumerate(transmissions):
        key = (t["sender"], t["trigger"].get("from"))
        seen[key] = seen.get(key, 0) + 1
        rank[i] = seen[key]

    def phase(i: int) -> int:
        if i not in memo:
            trig = transmissions[i]["trigger"]
            memo[i] = rank[i] + (0 if trig["kind"] == "start" else phase(trig["from"]))
        return memo[i]

    return max((phase(i) for i in range(len(transmissions))), default=0)


def run_single(point: Point) -> List[Row]:
    """One grid point of a single-multicast figure: every scheme on the replicate's topology, for
    ``draws`` random groups of ``destinations`` nodes; one row per scheme with the means."""
    f = fabric(_fabric_spec(point))
    params = _params(point)
    nbytes = point["message_flits"]  # 1-byte flits (§6.2)
    packets = packets_for(nbytes, PRESET, params)
    sums: Dict[str, List[float]] = {s: [0.0, 0.0, 0.0] for s in SINGLE_SCHEMES}
    for g in range(point["draws"]):
        src, dests = draw_group(point["seed"], f.num_endpoints, g, point["destinations"])
        for label in SINGLE_SCHEMES:
            spec, discipline = SCHEMES[label]
            plan = f.plan(spec, src, dests, packets=packets, discipline=discipline)
            run = plan.simulate(size=nbytes, preset=PRESET, params=params, seed=point["seed"])
            acc = sums[label]
            acc[0] += run["completion_ps"] / (CYCLE_NS * 1000)
            acc[1] += phases(plan.transmissions)
            acc[2] += len(plan.transmissions)
    n = point["draws"]
    return [
        {"scheme": label, "latency_cycles": a[0] / n, "phases": a[1] / n, "messages": a[2] / n}
        for label, a in sums.items()
    ]


def run_load(point: Point) -> List[Row]:
    """One grid point of a load figure: ``degree``-way multicasts of one scheme at an effective
    applied load on the replicate's topology (§6.5's run length). Latency is NaN where the run
    saturated (the paper plots until saturation). Every column is a number: a text column would
    become an identity column and split a grid point's replicates when aggregated."""
    f = fabric(_fabric_spec(point))
    spec, discipline = SCHEMES[point["scheme"]]
    workload = (
        f"multicast_load:degree={point['degree']},scheme={spec},discipline={discipline},"
        f"bytes={point['message_flits']}"
    )
    measure = {"warmup": f"{WARMUP_CYCLES}cycles", "batch": f"{BATCH_CYCLES}cycles", "batches": BATCHES}
    res = run_workload(f, workload, load=point["load"], preset=PRESET, params=_params(point),
                                seed=point["seed"], measure=measure)
    r = res["run"]
    saturated = bool(r["saturated"])
    lat = r["latency_mean_ps"]
    cycle_ps = CYCLE_NS * 1000
    return [{
        "latency_cycles": math.nan if saturated or lat is None else lat / cycle_ps,
        "latency_any_cycles": math.nan if lat is None else lat / cycle_ps,
        "accepted_load": r["accepted_load"],
        "saturated": 1.0 if saturated else 0.0,
        "flit_hops_per_multicast": r["flit_hops"] / r["messages"] if r["messages"] else math.nan,
        "link_busy_mean": r["link_busy_mean"],
    }]


# -- the grids ---------------------------------------------------------------------------------

# Group sizes on a 32-node system, per scale.
DESTS_32 = {"tiny": (4, 16), "quick": (2, 4, 8, 16, 31), "full": (1, 2, 4, 8, 12, 16, 20, 24, 28, 31)}
DRAWS = {"tiny": 1, "quick": 3, "full": 10}
SINGLE_REPLICATES = {"tiny": 1, "quick": 3, "full": 10}


def _single_point(scale: str, destinations: int, **over: Any) -> Point:
    p: Point = {
        **DEFAULT_TOPOLOGY,
        "R": 1.0,
        "t_hs_cycles": T_HS,
        "message_flits": PACKET_FLITS,
        "packet_flits": PACKET_FLITS,
        "destinations": destinations,
        "draws": DRAWS[scale],
    }
    p.update(over)
    return p


def _dests_for(scale: str, n: int) -> List[int]:
    """Group sizes for an ``n``-node system: the 32-node grid, plus up to N−1 on larger systems."""
    base = [d for d in DESTS_32[scale] if d < n]
    if scale != "tiny":
        d = 63
        while d < n:
            base.append(d)
            d = 2 * d + 1
    return base


def _grid_over(key: str, values: Mapping[str, Sequence[Any]], extra: Callable[[Any], Dict[str, Any]] = lambda v: {}) -> Callable[[str], List[Point]]:
    """The grid of a single-multicast figure: one panel per value of ``key`` × group sizes."""

    def grid(scale: str) -> List[Point]:
        out = []
        for v in values[scale]:
            over = {key: v, **extra(v)}
            n = over.get("endpoints", DEFAULT_TOPOLOGY["endpoints"])
            for d in _dests_for(scale, n):
                out.append(_single_point(scale, d, **over))
        return out

    return grid


LOADS = {
    "tiny": (0.01,),
    "quick": (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10, 0.12),
    "full": tuple(round(0.01 * i, 2) for i in range(1, 15)),
}
DEGREES = {"tiny": (3,), "quick": (3, 15), "full": (3, 15)}
LOAD_REPLICATES = {"tiny": 1, "quick": 2, "full": 10}


def _load_grid(key: str, values: Mapping[str, Sequence[Any]], name: Callable[[Any], str], extra: Callable[[Any], Dict[str, Any]] = lambda v: {}) -> Callable[[str], List[Point]]:
    """The grid of a load figure: one panel per (value of ``key``, degree), × scheme × load."""

    def grid(scale: str) -> List[Point]:
        out = []
        for v in values[scale]:
            for degree in DEGREES[scale]:
                for scheme in PAPER_SCHEMES:
                    for load in LOADS[scale]:
                        p: Point = {
                            **DEFAULT_TOPOLOGY,
                            "R": 1.0,
                            "t_hs_cycles": T_HS,
                            "message_flits": PACKET_FLITS,
                            "packet_flits": PACKET_FLITS,
                            key: v,
                            **extra(v),
                            "degree": degree,
                            "panel": f"{name(v)}, {degree}-way",
                            "scheme": scheme,
                            "load": load,
                        }
                        out.append(p)
        return out

    return grid


# -- claim helpers -----------------------------------------------------------------------------
# Tables are pandas DataFrames: one row per grid point and scheme, the value columns' means.

TIE = 0.005  # two latencies within 0.5% are a tie (the curves coincide)


def _by(table: Any, keys: Sequence[str], value: str) -> Any:
    """``value`` with one column per scheme, indexed by ``keys``."""
    return table.pivot_table(index=list(keys), columns="scheme", values=value, aggfunc="mean")


def _fmt(x: float, digits: int = 0) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def _verdict(ok: bool, measured: str, paper: str) -> Verdict:
    return Verdict(HOLDS if ok else DIFFERS, measured, paper)


def _missing(table: Any, schemes: Iterable[str]) -> Optional[Verdict]:
    absent = [s for s in schemes if s not in set(table["scheme"])]
    if absent:
        return Verdict(NOT_APPLICABLE, f"no rows for {', '.join(absent)}")
    return None


def best_everywhere(table: Any, rows: Any, best: str, others: Sequence[str], keys: Sequence[str], paper: str) -> Verdict:
    """``best`` has the lowest latency (or ties within TIE) at every point of ``keys``."""
    miss = _missing(table, (best, *others))
    if miss:
        return miss
    t = _by(table, keys, "latency_cycles")
    worst = t[best] / t[list(others)].min(axis=1)
    bad = worst[worst > 1 + TIE]
    n = len(worst)
    m = f"{best} lowest (or tied) at {n - len(bad)} of {n} points; its worst ratio to the best other {worst.max():.3f}"
    if len(bad):
        m += f" (at {', '.join(map(str, list(bad.index)[:3]))})"
    return _verdict(len(bad) == 0, m, paper)


def never_worse(table: Any, rows: Any, a: str, b: str, keys: Sequence[str], paper: str) -> Verdict:
    """``a``'s latency is at most ``b``'s (within TIE) at every point."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    t = _by(table, keys, "latency_cycles")
    r = t[a] / t[b]
    bad = r[r > 1 + TIE]
    return _verdict(
        len(bad) == 0,
        f"{a} / {b} latency: max {r.max():.3f}, mean {r.mean():.3f}; {a} worse at {len(bad)} of {len(r)} points",
        paper,
    )


def better_on_average(table: Any, rows: Any, a: str, b: str, keys: Sequence[str], paper: str) -> Verdict:
    """The mean over points of ``a``'s latency is below ``b``'s."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    t = _by(table, keys, "latency_cycles")
    ma, mb = t[a].mean(), t[b].mean()
    wins = int((t[a] < t[b] * (1 - TIE)).sum())
    losses = int((t[a] > t[b] * (1 + TIE)).sum())
    return _verdict(
        ma < mb * (1 - TIE) or (wins > losses and ma <= mb),
        f"mean latency {a} {_fmt(ma)} vs {b} {_fmt(mb)} cycles; {a} lower at {wins}, higher at {losses} of {len(t)} points",
        paper,
    )


def _multi(table: Any) -> Any:
    """The rows with at least 2 destinations (with one, every scheme sends one message)."""
    return table[table["destinations"] >= 2]


def _ratio_by(table: Any, panel: str, a: str, b: str, value: str = "latency_cycles") -> Dict[Any, Tuple[float, int, int]]:
    """Per value of ``panel``: the mean ratio a/b over the points with ≥ 2 destinations, how many
    of them ``a`` is lower at, and how many there are."""
    t = _by(_multi(table), [panel, "destinations"], value)
    out = {}
    for v, part in t.groupby(level=0):
        r = part[a] / part[b]
        out[v] = (float(r.mean()), int((r < 1).sum()), len(r))
    return out


def _ratio_text(ratios: Mapping[Any, Tuple[float, int, int]], name: str, a: str, b: str) -> str:
    return "; ".join(f"{name} {v:g}: {a}/{b} {r:.2f} ({w}/{n} lower)" for v, (r, w, n) in ratios.items())


def crossover(table: Any, rows: Any, panel: str, name: str, paper: str, low_path: bool = True) -> Verdict:
    """NI-based vs path-based across ``panel``: path better at the first value, NI better at the
    last, and the NI/path ratio falling from one to the next (``low_path``); with ``low_path``
    False, the reverse (NI better first, path better last)."""
    miss = _missing(table, (NI, PATH))
    if miss:
        return miss
    ratios = _ratio_by(table, panel, NI, PATH)
    if len(ratios) < 2:
        return Verdict(NOT_APPLICABLE, f"one value of {name} only: {_ratio_text(ratios, name, NI, PATH)}", paper)
    vals = [ratios[k][0] for k in sorted(ratios)]
    if low_path:
        ok = vals[0] > 1 and vals[-1] < 1 and all(x >= y - 0.01 for x, y in zip(vals, vals[1:]))
    else:
        ok = vals[0] < 1 and vals[-1] > 1 and all(x <= y + 0.01 for x, y in zip(vals, vals[1:]))
    return _verdict(ok, _ratio_text(ratios, name, NI, PATH), paper)


def ratio_trend(table: Any, rows: Any, panel: str, name: str, paper: str, increasing: bool = True,
                only: Optional[Tuple[str, Any]] = None) -> Verdict:
    """The NI/path latency ratio (mean over group sizes with ≥ 2 destinations) moves one way
    with ``panel``: strictly increasing (or decreasing) from each value to the next. ``only``
    (column, value) keeps the rows where that column has that value."""
    miss = _missing(table, (NI, PATH))
    if miss:
        return miss
    if only is not None:
        table = table[table[only[0]] == only[1]]
    ratios = _ratio_by(table, panel, NI, PATH)
    if len(ratios) < 2:
        return Verdict(NOT_APPLICABLE, f"one value of {name} only: {_ratio_text(ratios, name, NI, PATH)}", paper)
    vals = [ratios[k][0] for k in sorted(ratios)]
    ok = all((b > a) if increasing else (b < a) for a, b in zip(vals, vals[1:]))
    return _verdict(ok, _ratio_text(ratios, name, NI, PATH), paper)


def spread(table: Any, rows: Any, scheme: str, panel: str, paper: str, limit: float, value: str = "latency_cycles") -> Verdict:
    """``scheme``'s ``value`` hardly changes with ``panel``: at every group size present for all
    panel values, max/min − 1 is at most ``limit``."""
    miss = _missing(table, (scheme,))
    if miss:
        return miss
    t = _by(table[table["scheme"] == scheme], ["destinations", panel], value)[scheme].unstack(panel).dropna()
    if t.empty or t.shape[1] < 2:
        return Verdict(NOT_APPLICABLE, f"no group size common to two values of {panel}", paper)
    s = (t.max(axis=1) / t.min(axis=1) - 1)
    return _verdict(
        float(s.max()) <= limit,
        f"{scheme}: largest change across {panel} at one group size {100 * s.max():.1f}% (at {s.idxmax()} destinations; limit {100 * limit:.0f}%, chosen)",
        paper,
    )


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys against xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def grows(table: Any, rows: Any, scheme: str, panel: str, value: str, paper: str, falling: bool = False) -> Verdict:
    """``scheme``'s ``value`` grows (or with ``falling``, falls) with ``panel``: over the group
    sizes with ≥ 2 destinations common to every panel value, the mean at the largest value is
    above (below) the mean at the smallest and the least-squares slope is positive (negative).
    A trend, as the paper states it; whether every step goes the same way is reported."""
    miss = _missing(table, (scheme,))
    if miss:
        return miss
    t = _by(_multi(table[table["scheme"] == scheme]), ["destinations", panel], value)[scheme].unstack(panel).dropna()
    if t.empty or t.shape[1] < 2:
        return Verdict(NOT_APPLICABLE, f"no group size common to two values of {panel}", paper)
    means = t.mean(axis=0)
    xs = sorted(float(c) for c in means.index)
    ys = [float(means[c]) for c in sorted(means.index)]
    sign = -1 if falling else 1
    ok = sign * (ys[-1] - ys[0]) > 0 and sign * _slope(xs, ys) > 0
    monotone = all(sign * (b - a) > 0 for a, b in zip(ys, ys[1:]))
    text = ", ".join(f"{x:g}: {y:,.1f}" for x, y in zip(xs, ys))
    return _verdict(ok, f"{scheme} mean {value} over {len(t)} common group sizes by {panel}: {text}"
                    + ("" if monotone else " (not every step in that direction)"), paper)


def faster_growth(table: Any, rows: Any, a: str, b: str, panel: str, paper: str) -> Verdict:
    """``a``'s latency grows by a larger factor than ``b``'s from the first to the last value of
    ``panel`` (mean over the group sizes common to both, ≥ 2 destinations)."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    t = _by(_multi(table), ["destinations", panel], "latency_cycles")
    lo, hi = min(table[panel]), max(table[panel])
    growth = {}
    for s in (a, b):
        u = t[s].unstack(panel)[[lo, hi]].dropna()
        if u.empty:
            return Verdict(NOT_APPLICABLE, f"no group size common to {panel} {lo:g} and {hi:g}", paper)
        growth[s] = float((u[hi] / u[lo]).mean())
    return _verdict(
        growth[a] > growth[b],
        f"latency growth from {panel} {lo:g} to {hi:g}: {a} ×{growth[a]:.2f}, {b} ×{growth[b]:.2f}",
        paper,
    )


def more_value(table: Any, rows: Any, a: str, b: str, value: str, paper: str) -> Verdict:
    """``a``'s ``value`` (phases, messages) is never below ``b``'s and above it at most points
    (more than half), over the points with ≥ 2 destinations. Ties are counted and reported: with
    2 destinations both schemes may need 2 phases."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    keys = [c for c in ("R", "t_hs_cycles", "endpoints", "switches", "ports", "message_flits", "packet_flits", "destinations") if c in table.columns]
    t = _by(_multi(table), keys, value)
    more, fewer = int((t[a] > t[b]).sum()), int((t[a] < t[b]).sum())
    return _verdict(
        fewer == 0 and more > len(t) / 2,
        f"{a} more {value} than {b} at {more}, as many at {len(t) - more - fewer}, fewer at {fewer} of {len(t)} points "
        f"(means {t[a].mean():.1f} vs {t[b].mean():.1f})",
        paper,
    )


def same_ranking(table: Any, rows: Any, panel: str, paper: str) -> Verdict:
    """The order of the paper's three schemes at each group size (≥ 2 destinations) is the same
    for every value of ``panel``."""
    miss = _missing(table, PAPER_SCHEMES)
    if miss:
        return miss
    t = _by(_multi(table), ["destinations", panel], "latency_cycles")[list(PAPER_SCHEMES)]
    changed = []
    ratios = []
    for d, part in t.groupby(level=0):
        orders = {tuple(row.sort_values().index) for _, row in part.iterrows()}
        if len(orders) > 1:
            changed.append(d)
        r = part[NI] / part[PATH]
        ratios.append(float(r.max() / r.min()))
    return _verdict(
        not changed,
        f"order changes with {panel} at {len(changed)} of {len(ratios)} group sizes"
        + (f" ({', '.join(map(str, changed[:4]))})" if changed else "")
        + f"; NI/path ratio varies by at most ×{max(ratios):.2f} across {panel}",
        paper,
    )


def equal_at(table: Any, rows: Any, a: str, b: str, panel: str, at: Any, paper: str) -> Verdict:
    """``a`` and ``b`` tie (within TIE) at every group size of ``panel`` = ``at``, and ``a`` uses
    one message there."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    part = table[table[panel] == at]
    if part.empty:
        return Verdict(NOT_APPLICABLE, f"no rows at {panel} = {at}", paper)
    t = _by(part, ["destinations"], "latency_cycles")
    m = _by(part, ["destinations"], "messages")
    r = (t[a] / t[b] - 1).abs()
    return _verdict(
        bool((r <= TIE).all() and (m[a] == 1).all()),
        f"at {panel} = {at}: {a}/{b} latency differs by at most {100 * r.max():.2f}%; {a} messages per multicast {m[a].min():g}–{m[a].max():g}",
        paper,
    )


def similar_ratio(table: Any, rows: Any, target: Tuple[Any, Any], near: Tuple[Any, Any], far: Tuple[Any, Any], paper: str) -> Verdict:
    """The NI/path ratio at (message, packet) ``target`` is closer to that at ``near`` than to
    that at ``far`` (mean over common group sizes with ≥ 2 destinations)."""
    miss = _missing(table, (NI, PATH))
    if miss:
        return miss
    t = _by(_multi(table), ["message_flits", "packet_flits", "destinations"], "latency_cycles")
    r = (t[NI] / t[PATH]).unstack("destinations")
    rows = {}
    for cfg in (target, near, far):
        if cfg not in r.index:
            return Verdict(NOT_APPLICABLE, f"no rows for message/packet {cfg}", paper)
        rows[cfg] = r.loc[cfg]
    common = rows[target].dropna().index.intersection(rows[near].dropna().index).intersection(rows[far].dropna().index)
    if len(common) == 0:
        return Verdict(NOT_APPLICABLE, "no common group sizes", paper)
    mean = {cfg: float(rows[cfg][common].mean()) for cfg in rows}
    d_near, d_far = abs(mean[target] - mean[near]), abs(mean[target] - mean[far])
    return _verdict(
        d_near < d_far,
        "NI/path latency ratio (message/packet flits): "
        + ", ".join(f"{m}/{p}: {mean[(m, p)]:.2f}" for (m, p) in rows),
        paper,
    )


# -- load-figure helpers -----------------------------------------------------------------------
# A scheme's saturation is judged by the highest load it *sustains*: the highest load offered
# at which most replicates did not saturate (0 if it saturates at the first). Its resolution is
# the load grid's. The highest accepted load is no substitute: a run stopped early as unstable
# reports the accepted load of its short window, which keeps rising with the offered load.


def saturation_loads(table: Any) -> Dict[Tuple[str, str], float]:
    """Per (panel, scheme): the lowest load at which most replicates (more than half) saturated
    (inf if none)."""
    out = {}
    for (panel, scheme), part in table.groupby(["panel", "scheme"]):
        sat = part[part["saturated"] > 0.5]["load"]
        out[(panel, scheme)] = float(sat.min()) if len(sat) else math.inf
    return out


def sustained(table: Any) -> Dict[Tuple[str, str], float]:
    """Per (panel, scheme): the highest load below its saturation load (0 if none)."""
    sat = saturation_loads(table)
    out = {}
    for (panel, scheme), part in table.groupby(["panel", "scheme"]):
        ok = part[part["load"] < sat[(panel, scheme)]]["load"]
        out[(panel, scheme)] = float(ok.max()) if len(ok) else 0.0
    return out


def saturation_anomalies(rows: Any) -> List[str]:
    """Replicates flagged saturated at one load but not at a higher one (the saturation test is
    unreliable there: a known issue of the measurement, being fixed), as "panel, scheme,
    replicate r: saturated at x, not at y"."""
    out = []
    if rows is None or "saturated" not in getattr(rows, "columns", ()):
        return out
    for (panel, scheme, rep), part in rows.groupby(["panel", "scheme", "replicate"]):
        part = part.sort_values("load")
        sat = [float(x) for x in part[part["saturated"] > 0.5]["load"]]
        if sat:
            later = [float(x) for x in part[(part["saturated"] <= 0.5) & (part["load"] > sat[0])]["load"]]
            if later:
                out.append(f"{panel}, {scheme}, replicate {rep}: saturated at {sat[0]:g}, not at {later[-1]:g}")
    return out


def noted(table: Any, rows: Any, evaluate: Callable[[Any, Any], Verdict]) -> Verdict:
    """``evaluate``'s verdict with the saturation anomalies of ``rows`` named after its numbers."""
    v = evaluate(table, rows)
    bad = saturation_anomalies(rows)
    if not bad:
        return v
    note = f" [non-monotone saturation flags ({len(bad)}): {'; '.join(bad[:3])}{' ...' if len(bad) > 3 else ''}]"
    return Verdict(v.status, v.measured + note, v.paper)


def _load_claim(fn: Callable[..., Verdict], **kw: Any) -> Callable[[Any, Any], Verdict]:
    """A load figure's claim evaluator: ``fn`` with its settings, noting saturation anomalies."""
    return partial(noted, evaluate=partial(fn, **kw))


def common_latency(table: Any, panel: str) -> Dict[str, float]:
    """Mean latency of each scheme in ``panel`` over the loads at which all three have one."""
    part = table[table["panel"] == panel]
    t = part.pivot_table(index="load", columns="scheme", values="latency_cycles", aggfunc="mean")
    t = t[[s for s in PAPER_SCHEMES if s in t.columns]].dropna()
    if t.empty or t.shape[1] < 3:
        return {}
    return {s: float(t[s].mean()) for s in t.columns}


def _sat_text(table: Any, panel: str) -> str:
    sus, sat = sustained(table), saturation_loads(table)
    return "sustained load " + ", ".join(
        f"{s} {sus.get((panel, s), math.nan):g}" + ("" if math.isinf(sat.get((panel, s), math.inf)) else f" (saturated at {sat[(panel, s)]:g})")
        for s in PAPER_SCHEMES
    )


def _lat_text(lat: Mapping[str, float], order: Sequence[str] = PAPER_SCHEMES) -> str:
    return "latency " + (", ".join(f"{s} {_fmt(lat[s])}" for s in order) if lat else "no load all three sustain")


def _panels(table: Any, key: str, cond: Callable[[Any], bool]) -> List[str]:
    ps = table[[key, "degree", "panel"]].drop_duplicates()
    ps = ps[ps[key].map(cond)].sort_values([key, "degree"])
    return list(ps["panel"])


def _saturates(table: Any, panel: str) -> bool:
    """Whether any scheme of ``panel`` saturated within the loads run (else the sustained loads
    are all the highest load offered and decide nothing)."""
    return any(not math.isinf(v) for (p, _), v in saturation_loads(table).items() if p == panel)


def load_order(table: Any, rows: Any, key: str, cond: Callable[[Any], bool], order: Sequence[str], paper: str) -> Verdict:
    """In the panels whose ``key`` satisfies ``cond``, schemes rank as ``order`` (best first):
    sustained load non-increasing along ``order`` and, at the loads all three
    sustain, mean latency increasing along it."""
    miss = _missing(table, order)
    if miss:
        return miss
    panels = _panels(table, key, cond)
    if not panels:
        return Verdict(NOT_APPLICABLE, f"no panel with such {key}", paper)
    thr = sustained(table)
    bad, parts = [], []
    for p in panels:
        lat = common_latency(table, p)
        t_ok = all(thr[(p, a)] >= thr[(p, b)] for a, b in zip(order, order[1:]))
        l_ok = bool(lat) and all(lat[a] < lat[b] for a, b in zip(order, order[1:]))
        if not (t_ok and l_ok):
            bad.append(p)
        parts.append(f"{p}: {_lat_text(lat, order)}; {_sat_text(table, p)}")
    return _verdict(not bad, f"{len(panels) - len(bad)} of {len(panels)} panels in order. " + " | ".join(parts), paper)


def ni_near_tree(table: Any, rows: Any, key: str, cond: Callable[[Any], bool], paper: str) -> Verdict:
    """In the panels whose ``key`` satisfies ``cond``: NI-based is below path-based and closer to
    tree-based than to path-based (mean latency at the loads all three sustain), and its
    throughput is at least path-based's."""
    miss = _missing(table, PAPER_SCHEMES)
    if miss:
        return miss
    panels = _panels(table, key, cond)
    if not panels:
        return Verdict(NOT_APPLICABLE, f"no panel with such {key}", paper)
    thr = sustained(table)
    bad, parts = [], []
    for p in panels:
        lat = common_latency(table, p)
        ok = (bool(lat) and lat[NI] < lat[PATH] and abs(lat[NI] - lat[TREE]) < abs(lat[PATH] - lat[NI])
              and thr[(p, NI)] >= thr[(p, PATH)])
        if not ok:
            bad.append(p)
        parts.append(f"{p}: {_lat_text(lat)}; {_sat_text(table, p)}")
    return _verdict(not bad, f"{len(panels) - len(bad)} of {len(panels)} panels. " + " | ".join(parts), paper)


def tree_saturates_last(table: Any, rows: Any, paper: str) -> Verdict:
    """Tree-based sustains a higher load than both others in every panel where some scheme
    saturates within the loads run (the others decide nothing)."""
    miss = _missing(table, PAPER_SCHEMES)
    if miss:
        return miss
    thr = sustained(table)
    panels = sorted({p for p, _ in thr})
    decided = [p for p in panels if _saturates(table, p)]
    text = " | ".join(f"{p}: {_sat_text(table, p)}" for p in panels)
    if not decided:
        return Verdict(NOT_APPLICABLE, f"no scheme saturates within the loads run. {text}", paper)
    bad = [p for p in decided if not thr[(p, TREE)] > max(thr[(p, NI)], thr[(p, PATH)])]
    return _verdict(not bad, f"tree-based saturates last in {len(decided) - len(bad)} of {len(decided)} panels that saturate. {text}", paper)


def _by_key(table: Any, key: str, degree: Any) -> Tuple[List[Any], Dict[Any, str]]:
    """The values of ``key`` for one degree, sorted, and the panel of each."""
    dp = table[table["degree"] == degree]
    vals = sorted(dp[key].unique())
    return vals, {v: dp[dp[key] == v]["panel"].iloc[0] for v in vals}


def path_trend(table: Any, rows: Any, key: str, paper: str) -> Verdict:
    """Path-based gets worse as ``key`` grows, for each degree: the load it sustains does not rise
    from one value to the next, and its mean latency at the loads it sustains at every value rises
    from each value to the next."""
    miss = _missing(table, (PATH,))
    if miss:
        return miss
    thr = sustained(table)
    part = table[table["scheme"] == PATH]
    bad, parts = [], []
    for degree in sorted(part["degree"].unique()):
        vals, panel_of = _by_key(part, key, degree)
        if len(vals) < 2:
            return Verdict(NOT_APPLICABLE, f"one value of {key} only", paper)
        dp = part[part["degree"] == degree]
        t = dp.pivot_table(index="load", columns=key, values="latency_cycles", aggfunc="mean").dropna()
        th = [thr[(panel_of[v], PATH)] for v in vals]
        lat = [float(t[v].mean()) for v in vals] if not t.empty else []
        ok = (all(b <= a for a, b in zip(th, th[1:])) and len(lat) == len(vals)
              and all(b > a for a, b in zip(lat, lat[1:])))
        if not ok:
            bad.append(degree)
        parts.append(f"{degree}-way: sustained load " + ", ".join(f"{v:g}: {x:g}" for v, x in zip(vals, th))
                     + "; latency at common loads " + (", ".join(f"{v:g}: {_fmt(x)}" for v, x in zip(vals, lat)) if lat else "none"))
    return _verdict(not bad, " | ".join(parts), paper)


def gap_closes(table: Any, rows: Any, key: str, a: str, b: str, paper: str) -> Verdict:
    """For every degree, the load ``a`` sustains ends closer to ``b``'s at the largest ``key``
    than at the smallest."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    thr = sustained(table)
    bad, parts, undecided = [], [], 0
    for degree in sorted(table["degree"].unique()):
        vals, panel_of = _by_key(table, key, degree)
        if len(vals) < 2:
            return Verdict(NOT_APPLICABLE, f"one value of {key} only", paper)
        # Rounded: loads differ by grid steps, and 0.07 − 0.06 must equal 0.06 − 0.05.
        gaps = [round(thr[(panel_of[v], a)] - thr[(panel_of[v], b)], 9) for v in vals]
        parts.append(f"{degree}-way: sustained load {a} − {b}: " + ", ".join(f"{v:g}: {g:+.2f}" for v, g in zip(vals, gaps)))
        if not (_saturates(table, panel_of[vals[0]]) and _saturates(table, panel_of[vals[-1]])):
            undecided += 1
        elif not abs(gaps[-1]) < abs(gaps[0]):
            bad.append(degree)
    if undecided == len(parts):
        return Verdict(NOT_APPLICABLE, "the loads run saturate no scheme. " + " | ".join(parts), paper)
    return _verdict(not bad, " | ".join(parts), paper)


def more_traffic(table: Any, rows: Any, a: str, b: str, paper: str) -> Verdict:
    """``a`` moves more flit hops per multicast than ``b`` in every panel (mean over loads)."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    t = table.pivot_table(index="panel", columns="scheme", values="flit_hops_per_multicast", aggfunc="mean")
    ok = int((t[a] > t[b]).sum())
    return _verdict(
        ok == len(t),
        f"flit hops per multicast higher for {a} in {ok} of {len(t)} panels; mean ratio {float((t[a] / t[b]).mean()):.2f}",
        paper,
    )


def worse_at(table: Any, rows: Any, key: str, at: Any, a: str, b: str, paper: str) -> Verdict:
    """At ``key`` = ``at``, for every degree, ``a`` sustains no higher load than ``b`` and its
    mean latency at the loads both sustain is higher; and "more so" for the larger degree: the
    latency ratio a/b is higher at the largest degree than at the smallest."""
    miss = _missing(table, (a, b))
    if miss:
        return miss
    part = table[table[key] == at]
    if part.empty:
        return Verdict(NOT_APPLICABLE, f"no panel at {key} = {at}", paper)
    thr = sustained(table)
    parts, bad, ratios = [], [], []
    for degree in sorted(part["degree"].unique()):
        dp = part[part["degree"] == degree]
        p = dp["panel"].iloc[0]
        t = dp.pivot_table(index="load", columns="scheme", values="latency_cycles", aggfunc="mean")
        t = t[[s for s in (a, b) if s in t.columns]].dropna()
        ratio = float(t[a].mean() / t[b].mean()) if t.shape[1] == 2 and not t.empty else math.nan
        ratios.append(ratio)
        if not (thr[(p, a)] <= thr[(p, b)] and ratio > 1):
            bad.append(degree)
        parts.append(f"{p}: sustained load {a} {thr[(p, a)]:g}, {b} {thr[(p, b)]:g}; latency ratio {a}/{b} {ratio:.2f}")
    more_so = len(ratios) < 2 or ratios[-1] > ratios[0]
    return _verdict(not bad and more_so, " | ".join(parts) + ("" if more_so else "; the gap is not wider for the larger degree"), paper)


def ni_path_converge(table: Any, rows: Any, key: str, paper: str) -> Verdict:
    """NI-based and path-based come closer as ``key`` (message length) grows: |log(NI/path)| of
    the mean latency at the lowest load is smaller at the largest value than at the smallest."""
    miss = _missing(table, (NI, PATH))
    if miss:
        return miss
    lo = table["load"].min()
    bad, parts = [], []
    for degree, dp in table[table["load"] == lo].groupby("degree"):
        t = dp.pivot_table(index=key, columns="scheme", values="latency_any_cycles", aggfunc="mean")
        r = (t[NI] / t[PATH]).dropna()
        if len(r) < 2:
            continue
        d = [abs(math.log(x)) for x in r]
        if not d[-1] < d[0]:
            bad.append(degree)
        parts.append(f"{degree}-way at load {lo:g}: NI/path " + ", ".join(f"{k:g}: {x:.2f}" for k, x in r.items()))
    if not parts:
        return Verdict(NOT_APPLICABLE, "fewer than two message lengths with both schemes", paper)
    return _verdict(not bad, " | ".join(parts), paper)


# -- the experiments ---------------------------------------------------------------------------

SINGLE_VALUES = ("latency_cycles", "phases", "messages")
LOAD_VALUES = ("latency_cycles", "latency_any_cycles", "accepted_load", "saturated", "flit_hops_per_multicast", "link_busy_mean")
SINGLE_METRIC = "multicast latency (cycles), last destination"
LOAD_METRIC = "mean multicast latency (cycles) until saturation"


# Costs are CPU seconds (tiny, quick, full) on one core: tiny and quick measured (one core of
# the shared 2-core machine, docs/reproduction/sivaram98.md), full estimated from quick by the
# ratio of runs (single multicasts: 10 topologies × 10 groups; loads: 10 topologies, 14 loads).
def _experiment(fig: int, title: str, section: str, varies: str, stated: Dict[str, Stated],
                grid: Callable[[str], List[Point]], claims: Sequence[Claim], cost: Tuple[float, float, float],
                figure: FigureSpec, load: bool) -> Experiment:
    return Experiment(
        key=f"{PAPER}:fig{fig}", paper=PAPER, label=f"Fig. {fig}", title=title, section=section, varies=varies,
        metric=LOAD_METRIC if load else SINGLE_METRIC,
        stated={**(_stated_load() if load else _stated_single()), **stated}, grid=grid,
        replicates=LOAD_REPLICATES if load else SINGLE_REPLICATES, run=run_load if load else run_single,
        values=LOAD_VALUES if load else SINGLE_VALUES, claims=tuple(claims), figure=figure,
        cost_s=dict(zip(("tiny", "quick", "full"), cost)),
        # Load figures, revision 2: the saturation rules allow for the backlog's noise (issue 10),
        # so stored results of the rules before are not reused.
        revision=2 if load else 1,
    )


def _single(fig: int, title: str, section: str, varies: str, stated: Dict[str, Stated], grid: Callable[[str], List[Point]],
            panel: str, claims: Sequence[Claim], cost: Tuple[float, float, float]) -> Experiment:
    """A single-multicast figure (§6.4): latency against group size, one panel per ``panel``."""
    figure = FigureSpec(x="destinations", y="latency_cycles", series="scheme", panel=panel,
                        xlabel="Number of destinations", ylabel="Multicast latency (cycles)")
    return _experiment(fig, title, section, varies, stated, grid, claims, cost, figure, load=False)


def _load(fig: int, title: str, section: str, varies: str, stated: Dict[str, Stated], grid: Callable[[str], List[Point]],
          claims: Sequence[Claim], cost: Tuple[float, float, float]) -> Experiment:
    """A load figure (§6.5): latency against effective applied load, one panel per setting and
    degree."""
    figure = FigureSpec(x="load", y="latency_cycles", series="scheme", panel="panel",
                        xlabel="Effective applied load (flits/cycle/node)", ylabel="Multicast latency (cycles)")
    return _experiment(fig, title, section, varies, stated, grid, claims, cost, figure, load=True)


def _tree_best(keys: Sequence[str], section: str) -> Claim:
    return Claim(
        "tree-best",
        "The tree-based scheme (one worm, one phase) has the lowest single-multicast latency in every configuration.",
        section,
        partial(best_everywhere, best=TREE, others=(NI, PATH), keys=keys, paper="tree-based best in all single-multicast experiments"),
    )


def _flat(scheme: str, panel: str, section: str, what: str) -> Claim:
    """``scheme`` is (almost) unaffected by ``panel``: within 5% at every group size."""
    return Claim(f"{scheme.split('-')[0].lower()}-unaffected", f"The {scheme} scheme is (almost) unaffected by the {what}.", section,
                 partial(spread, scheme=scheme, panel=panel, limit=0.05, paper=f"{scheme} unaffected by the {what}"))


def _path_grows(panel: str, value: str, section: str, text: str, falling: bool = False) -> Claim:
    return Claim(f"path-{value.split('_')[0]}-{'falls' if falling else 'grows'}", text, section,
                 partial(grows, scheme=PATH, panel=panel, value=value, falling=falling,
                         paper=f"path-based {value} {'fall' if falling else 'grow'} with {panel}"))


_K19 = ("R", "destinations")
FIG19 = _single(
    19, "Effect of R (t_hs / t_ns) on single multicast latency", "§6.4.1",
    "R ∈ {0.5, 1, 2, 5} (t_ns = 2000, 1000, 500, 200 cycles) × number of destinations",
    {"R": Stated(list(R_VALUES), "§6.4.1: t_ns = 2000, 1000, 500, 200 cycles with t_hs = 1000")},
    _grid_over("R", {"tiny": (0.5, 5.0), "quick": R_VALUES, "full": R_VALUES}), "R",
    (
        _tree_best(_K19, "§6.4.1"),
        Claim("ni-overtakes-path",
              "As R grows (the NI's overhead shrinks against the host's), the NI-based scheme overtakes the path-based one: path-based is faster for R below 1, NI-based for R above 1.",
              "§6.4.1, §7",
              partial(crossover, panel="R", name="R", paper="path-based better for R < 1; NI-based better as R grows (R = 2, 5)")),
        Claim("smart-ni-beats-host-tree",
              "Forwarding at the smart NI lowers multicast latency well below the conventional tree whose hosts forward.",
              "§4.1",
              partial(never_worse, a=NI, b=HOST_BINOMIAL, keys=_K19, paper="t_hs + ⌈log2 n⌉ t_step + t_hr vs ⌈log2 n⌉ (t_hs + t_step + t_hr)")),
        Claim("multidrop-beats-ssr",
              "Path-based (multi-drop) worms never need more worms or time than single-switch (SSR) worms, under the same schedule.",
              "§5.2.6",
              partial(never_worse, a=PATH, b=SSR_LG, keys=_K19, paper="multi-drop performs as well as or better than MPM-SSR")),
        Claim("less-greedy-beats-greedy",
              "The Less-Greedy schedule beats the Greedy one on average, by starting fewer worms from one switch.",
              "§5.2.6 (from [19])",
              partial(better_on_average, a=PATH, b=PATH_GREEDY, keys=_K19, paper="LG better than G on average")),
    ),
    (0.15, 2.7, 60.0),
)

_T_HS_VALUES = (250, 500, 1000, 2000)
FIG20 = _single(
    20, "Effect of the host software overhead t_hs (R = 1) on single multicast latency", "§6.4.2",
    "t_hs = t_ns ∈ {250, 500, 1000, 2000} cycles × number of destinations",
    {"t_hs": Stated(list(_T_HS_VALUES), "chosen: §6.4.2 varies t_hs at R = 1 without listing the values; factors of 2 around the default 1000")},
    _grid_over("t_hs_cycles", {"tiny": (500, 2000), "quick": _T_HS_VALUES, "full": _T_HS_VALUES}), "t_hs_cycles",
    (
        _tree_best(("t_hs_cycles", "destinations"), "§6.4.2"),
        Claim("ranking-unchanged",
              "With R fixed, changing the host overhead leaves the relative performance of the three schemes unchanged: the phases do not change and t_ns scales with t_hs.",
              "§6.4.2",
              partial(same_ranking, panel="t_hs_cycles", paper="relative performance largely unaltered by t_hs")),
    ),
    (0.1, 2.9, 60.0),
)

# System size: the switches grow with the nodes (80% connectivity, 4 nodes per switch).
_SIZES = (32, 64, 128, 256)
FIG21 = _single(
    21, "Effect of system size on single multicast latency", "§6.4.3",
    "32, 64, 128, 256 nodes on 8, 16, 32, 64 switches of 8 ports × number of destinations",
    {"system sizes": Stated(list(_SIZES), "§6.4.3"),
     "switches": Stated("nodes / 4, 8 ports each", "§6.4.3: the port count grows with the nodes, 80% connectivity kept"),
     "destinations": Stated("the 32-node group sizes, then 63, 127, 255 where they fit", "chosen: §6.4.3 compares the same group sizes across systems")},
    _grid_over("endpoints", {"tiny": (32, 128), "quick": _SIZES, "full": _SIZES}, extra=lambda n: {"switches": n // 4}), "endpoints",
    (
        _tree_best(("endpoints", "destinations"), "§6.4.3"),
        _flat(TREE, "endpoints", "§6.4.3", "system size"),
        _path_grows("endpoints", "phases", "§6.4.3", "For the same number of destinations, the path-based scheme needs more phases on a larger system (fewer destinations per switch)."),
        _path_grows("endpoints", "latency_cycles", "§6.4.3", "The path-based scheme's latency grows with the system size."),
        Claim("path-worsens-faster", "The path-based scheme worsens faster with system size than the NI-based one.", "§6.4.3",
              partial(faster_growth, a=PATH, b=NI, panel="endpoints", paper="path-based worsens more rapidly than NI-based")),
        Claim("ni-more-phases", "The NI-based scheme needs more communication phases than the path-based one.", "§6.4.3",
              partial(more_value, a=NI, b=PATH, value="phases", paper="NI-based requires more phases")),
    ),
    (0.25, 19.4, 430.0),
)

# Switch size at 32 nodes, total ports constant.
_PORTS = (8, 16, 32)
FIG22 = _single(
    22, "Effect of switch size on single multicast latency", "§6.4.4",
    "8, 16, 32-port switches (8, 4, 2 switches; 32 nodes) × number of destinations",
    {"switch sizes": Stated("8, 16, 32 ports on 8, 4, 2 switches", "§6.4.4")},
    _grid_over("ports", {"tiny": (8, 32), "quick": _PORTS, "full": _PORTS}, extra=lambda k: {"switches": 64 // k}), "ports",
    (
        _tree_best(("ports", "destinations"), "§6.4.4"),
        _path_grows("ports", "latency_cycles", "§6.4.4", "Larger switches favour the path-based scheme: fewer worms and phases, lower latency.", falling=True),
        Claim("path-equals-tree-at-32", "With 32-port switches, path-based and tree-based perform identically: one worm, one phase.", "§6.4.4",
              partial(equal_at, a=PATH, b=TREE, panel="ports", at=32, paper="identical with 32-port switches")),
        _flat(NI, "ports", "§6.4.4", "switch size"),
        _flat(TREE, "ports", "§6.4.4", "switch size"),
    ),
    (0.15, 1.8, 40.0),
)

# Number of 8-port switches at 32 nodes.
_SWITCHES = (8, 16, 24, 32)
FIG23 = _single(
    23, "Effect of the number of switches on single multicast latency", "§6.4.5",
    "8, 16, 24, 32 switches of 8 ports (32 nodes) × number of destinations",
    {"switches": Stated(list(_SWITCHES), "chosen: §6.4.5 grows the number of 8-port switches at 32 nodes without listing it")},
    _grid_over("switches", {"tiny": (8, 32), "quick": _SWITCHES, "full": _SWITCHES}), "switches",
    (
        _tree_best(("switches", "destinations"), "§6.4.5"),
        _path_grows("switches", "messages", "§6.4.5", "With more switches (fewer destinations per switch) the path-based scheme needs more worms."),
        _path_grows("switches", "phases", "§6.4.5", "... and more phases."),
        _path_grows("switches", "latency_cycles", "§6.4.5", "... and its latency grows."),
        _flat(NI, "switches", "§6.4.5", "number of switches (longer paths cost little under cut-through)"),
        _flat(TREE, "switches", "§6.4.5", "number of switches"),
    ),
    (0.15, 2.6, 60.0),
)

# Message length, 128-flit packets.
_LENGTHS = (128, 256, 512, 1024, 2048)
FIG24 = _single(
    24, "Effect of message length on single multicast latency", "§6.4.6",
    "message length 128 to 2048 flits (1 to 16 packets of 128) × number of destinations",
    {"message lengths": Stated(list(_LENGTHS), "chosen: §6.4.6 names 512 and 1024 flits; powers of 2 from one packet, one beyond 1024 to see the trend")},
    _grid_over("message_flits", {"tiny": (128, 1024), "quick": (128, 512, 1024, 2048), "full": _LENGTHS}), "message_flits",
    (
        _tree_best(("message_flits", "destinations"), "§6.4.6"),
        Claim("ni-beats-path-long", "Beyond 512 flits (more than 4 packets) the NI-based scheme beats the path-based one: FPFS forwards each packet as it arrives, while a path-based phase waits for the whole message.", "§6.4.6",
              partial(crossover, panel="message_flits", name="flits", paper="path-based worse than NI-based beyond 512 flits")),
        Claim("path-phases-constant", "The path-based scheme's number of phases does not change with the message length.", "§6.4.6",
              partial(spread, scheme=PATH, panel="message_flits", limit=0.0, value="phases", paper="number of phases unchanged")),
    ),
    (0.15, 5.4, 150.0),
)

# Packet size, 128-flit messages; plus Fig. 24's 512-flit message for the comparison §6.4.7
# makes between them (its own panel).
_PACKETS = (32, 64, 128)


def _grid25(scale: str) -> List[Point]:
    out = []
    sizes = (32, 128) if scale == "tiny" else _PACKETS
    configs = [(PACKET_FLITS, pk) for pk in sizes] + [(512, PACKET_FLITS)]
    for msg, pk in configs:
        for d in _dests_for(scale, 32):
            out.append(_single_point(scale, d, message_flits=msg, packet_flits=pk,
                                     panel=f"{msg}-flit message, {pk}-flit packets"))
    return out


FIG25 = _single(
    25, "Effect of packet size on single multicast latency (128-flit messages)", "§6.4.7",
    "packet size 32, 64, 128 flits for a 128-flit message (and a 512-flit message of 128-flit packets) × number of destinations",
    {"message": Stated("128 flits", "§6.4.7"),
     "packet sizes": Stated(list(_PACKETS), "§6.4.7: 32 to 128 flits (64 chosen between)"),
     "comparison panel": Stated("512-flit message, 128-flit packets", "§6.4.7 compares 4 packets of 32 flits with Fig. 24's 512-flit message")},
    _grid25, "panel",
    (
        _tree_best(("message_flits", "packet_flits", "destinations"), "§6.4.7"),
        Claim("more-packets-help-ni", "As the number of packets grows (smaller packets), the NI-based scheme comes to perform comparably to the path-based one.", "§6.4.7",
              partial(ratio_trend, panel="packet_flits", name="packet flits", only=("message_flits", PACKET_FLITS),
                      paper="NI-based closes on path-based with more packets (the NI/path ratio falls as packets shrink)")),
        Claim("packets-not-length", "It is the number of packets, not the message length, that sets NI-based against path-based: 4 packets of 32 flits look like a 512-flit message of 4 packets.", "§6.4.7",
              partial(similar_ratio, target=(128, 32), near=(512, 128), far=(128, 128), paper="128/32 and 512/128 almost identical in relative terms")),
    ),
    (0.2, 2.8, 60.0),
)

FIG26 = _load(
    26, "Effect of R on multicast latency under increasing multicast load (3-way and 15-way)", "§6.5.1",
    "R × degree (3, 15) × scheme × effective applied load",
    {"R": Stated(list(R_VALUES), "chosen: §6.5.1 contrasts R ≤ 1 with R > 1 without listing values; Fig. 19's (§6.4.1)")},
    _load_grid("R", {"tiny": (1.0,), "quick": (0.5, 1.0, 2.0), "full": R_VALUES}, name=lambda r: f"R = {r:g}"),
    (
        Claim("low-r-order", "For R ≤ 1, the tree-based scheme is best, path-based second and NI-based worst.", "§6.5.1",
              _load_claim(load_order, key="R", cond=partial(operator.ge, 1.0), order=(TREE, PATH, NI), paper="R ≤ 1: tree < path < NI")),
        Claim("high-r-ni-near-tree", "For R > 1, the NI-based scheme performs comparably to tree-based and much better than path-based (it spreads the receptions in time).", "§6.5.1",
              _load_claim(ni_near_tree, key="R", cond=partial(operator.lt, 1.0), paper="R > 1: NI ≈ tree ≪ path")),
    ),
    (0.55, 148.0, 1300.0),
)

FIG27 = _load(
    27, "Effect of the number of switches on multicast latency under increasing multicast load (3-way and 15-way)", "§6.5.2",
    "number of 8-port switches (32 nodes) × degree (3, 15) × scheme × effective applied load",
    {"switches": Stated(list(_SWITCHES), "chosen: as Fig. 23 (§6.5.2 does not list them)")},
    _load_grid("switches", {"tiny": (8,), "quick": (8, 32), "full": _SWITCHES}, name=lambda s: f"{s} switches"),
    (
        Claim("path-worsens", "The path-based scheme does worse as the number of switches grows.", "§6.5.2",
              _load_claim(path_trend, key="switches", paper="path-based worsens with more switches")),
        Claim("path-approaches-ni", "As switches are added, the path-based scheme's saturation load approaches the NI-based one's.", "§6.5.2",
              _load_claim(gap_closes, key="switches", a=PATH, b=NI, paper="path saturation approaches NI's")),
        Claim("ni-more-traffic", "The NI-based scheme puts more traffic on the network than the path-based one.", "§6.5.2",
              _load_claim(more_traffic, a=NI, b=PATH, paper="NI-based generates more traffic and contention")),
        Claim("tree-saturates-last", "The tree-based scheme saturates much later than the other two, whatever the number of switches.", "§6.5.2",
              _load_claim(tree_saturates_last, paper="tree-based saturates much later")),
    ),
    (0.55, 139.0, 1800.0),
)

FIG28 = _load(
    28, "Effect of message length on multicast latency under increasing multicast load (3-way and 15-way)", "§6.5.3",
    "message length (flits; 128-flit packets) × degree (3, 15) × scheme × effective applied load",
    {"message lengths": Stated([128, 512, 1024], "chosen: §6.5.3 names 1024 flits; 512 as in §6.4.6")},
    _load_grid("message_flits", {"tiny": (128,), "quick": (128, 1024), "full": (128, 512, 1024)}, name=lambda m: f"{m} flits"),
    (
        Claim("tree-best", "The tree-based scheme is best at every message length (it saturates last).", "§6.5.3",
              _load_claim(tree_saturates_last, paper="tree-based best for all message lengths")),
        Claim("ni-path-converge", "As messages get longer, the NI-based and path-based schemes come closer.", "§6.5.3",
              _load_claim(ni_path_converge, key="message_flits", paper="NI and path comparable as length grows")),
        Claim("ni-worse-1024-load", "At 1024 flits under load, the NI-based scheme is worse than path-based (earlier saturation, higher latency), more so for 15-way multicasts, though it wins a single multicast.", "§6.5.3",
              _load_claim(worse_at, key="message_flits", at=1024, a=NI, b=PATH, paper="NI worse than path at 1024 flits under load, especially 15-way")),
        Claim("ni-more-traffic", "The NI-based scheme generates more traffic than the path-based one.", "§6.5.3",
              _load_claim(more_traffic, a=NI, b=PATH, paper="NI-based results in more traffic")),
    ),
    (0.5, 128.0, 1400.0),
)

EXPERIMENTS: List[Experiment] = [FIG19, FIG20, FIG21, FIG22, FIG23, FIG24, FIG25, FIG26, FIG27, FIG28]
