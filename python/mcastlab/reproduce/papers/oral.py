"""oral's case study (§4) as experiments: Figs. 2–5 on the 4×4 unidirectional SCI torus.

Oral and George measured five multicast algorithms on 16 SCI nodes — separate addressing (with
network pipelining), U-torus, and the SCI re-send versions of S-torus, Md-torus and Mu-torus
(r = 4) — for group sizes 4 to 16 (the group counts the root, §3) and messages of 2 B and 512 KB
(§4.1). Each figure has two panels, kept here as the ``panel`` column of long-format rows:

- Fig. 2: completion latency, (a) 2 B, (b) 512 KB;
- Fig. 3: the root's CPU load, (a) 2 B, (b) 512 KB;
- Fig. 4: (a) startup latency, (b) tree-creation latency;
- Fig. 5: (a) link utilization, (b) concurrency.

The paper gives its results only as curves: no value is stated in its text, so the figures carry
no reference points and every claim is qualitative. Its 100 executions of 50 repetitions each
measure timing noise on one group; the simulator has none, so a replicate here is a different
random group of the same size (rooted at node 0: every node of a torus looks alike).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple

from ... import api
from ...simulation import simulate
from ..experiment import (
    DIFFERS,
    HOLDS,
    NOT_APPLICABLE,
    Claim,
    Experiment,
    FigureSpec,
    Point,
    Row,
    Scale,
    Stated,
    Verdict,
)

FABRIC = "torus:4x4,unidirectional=true"
ROOT = 0
GROUPS = (4, 6, 8, 10, 12, 14, 16)
TINY_GROUPS = (4, 10, 16)
MESSAGES = {"2 B": 2, "512 KB": 512 * 1024}

SEPARATE, UTORUS, STORUS, MDTORUS, MUTORUS = "separate addressing", "U-torus", "S-torus", "Md-torus", "Mu-torus"
# Series name -> (scheme spec, forwarding discipline). The path schemes run as SCI re-sends at the
# host (§4.1: each node on a path saves the message and sends a new one); separate addressing is
# the network-pipelining version (§4.1), whose NI streams every copy from one host send.
SCHEMES: Dict[str, Tuple[str, str]] = {
    SEPARATE: ("separate:pipelined=true", "fpfs"),
    UTORUS: ("utorus", "host"),
    STORUS: ("storus:variant=sci", "host"),
    MDTORUS: ("mdtorus:variant=sci", "host"),
    MUTORUS: ("mutorus:r=4,variant=sci", "host"),
}
TREES = (UTORUS, STORUS, MDTORUS, MUTORUS)  # Fig. 4(b): the algorithms that build a tree

STATED = {
    "fabric": Stated(FABRIC, "§4.1: 16 nodes as a 4×4 unidirectional SCI torus"),
    "routing": Stated("dor:datelines=true", "§4.1: SCA_ROUTE_MAXCY behaves as dimension-order routing when fault-free"),
    "preset": Stated("oral", "§1, §4.1: 5.3 Gb/s links, cut-through, PCI 64/66 NICs (528 MB/s); the rest of the preset is chosen (docs/params.md)"),
    "host and NI overheads": Stated(
        "t_hs = t_hr = 400 ns, t_ns = t_nr = 300 ns",
        "preset oral: set so a one-hop 64 B message takes about 1.9 µs, under the '< 2 µs one-way' §1 quotes for Wulfskit SCI",
        calibrated=True,
    ),
    "group sizes": Stated(GROUPS, "§4.1: 4, 6, ..., 16, the root included (§3)"),
    "message sizes": Stated("2 B and 512 KB (524,288 bytes)", "§4.1 (KB read as 1,024 bytes: chosen)"),
    "Mu-torus partition length": Stated(4, "§4.1: r = 4, matching Md-torus's partitions"),
    "path algorithms": Stated("SCI re-sends at the host", "§4.1: the testbed has no multi-destination worms"),
    "separate addressing": Stated("pipelined copies from one host send", "§4.1: network pipelining"),
    "notification": Stated("polling (host busy while it waits)", "§4.1"),
    "tree creation cost": Stated("2 ns per elementary operation", "chosen: the paper gives no host speed model; only the ordering of schemes is compared"),
    "root": Stated(ROOT, "chosen: every node of a torus is alike"),
    "groups": Stated("random, seeded per replicate", "chosen: the paper does not say which nodes; its repetitions time one group"),
}


def _grid(groups: Sequence[int], messages: Sequence[str], schemes: Sequence[str]) -> List[Point]:
    return [{"scheme": s, "group": g, "message": m} for m in messages for s in schemes for g in groups]


def _groups(scale: Scale) -> Sequence[int]:
    return TINY_GROUPS if scale == "tiny" else GROUPS


REPLICATES = {"tiny": 1, "quick": 3, "full": 10}


def _fabric() -> api.Fabric:
    return api.fabric(FABRIC)


def _destinations(f: api.Fabric, group: int, seed: int) -> List[int]:
    """``group - 1`` destinations other than the root, drawn from the seed."""
    if group == f.num_endpoints:
        return [e for e in range(f.num_endpoints) if e != ROOT]
    others = f.num_endpoints - 1
    dests = f.random_group(ROOT, 100.0 * (group - 1) / others, seed=seed)
    if len(dests) != group - 1:
        raise AssertionError(f"random_group gave {len(dests)} destinations for a group of {group}")
    return dests


def _run(point: Point, message: str) -> Dict[str, Any]:
    f = _fabric()
    scheme, discipline = SCHEMES[point["scheme"]]
    dests = _destinations(f, point["group"], point["seed"])
    return simulate(f, scheme, ROOT, dests, size=MESSAGES[message], preset="oral", discipline=discipline)


def run_latency(point: Point) -> List[Row]:
    """Fig. 2: completion latency (the last destination has the message), µs."""
    r = _run(point, point["message"])
    return [{"latency_us": r["completion_ps"] / 1e6}]


def run_cpu(point: Point) -> List[Row]:
    """Fig. 3: the root's CPU time (host work and polling until its part is done), µs, and the
    share of the completion time it is (the paper's `sar` reports a utilization)."""
    r = _run(point, point["message"])
    return [{"root_cpu_us": r["root_cpu_ps"] / 1e6, "root_cpu_share": r["root_cpu_ps"] / r["completion_ps"]}]


STARTUP, CREATION = "(a) startup", "(b) tree creation"
UTILIZATION, CONCURRENCY = "(a) link utilization", "(b) concurrency"


def run_startup(point: Point) -> List[Row]:
    """Fig. 4: (a) startup — until the root has sent the first packet of each of its transfers,
    2 B messages; (b) tree creation — the plan's structure-building operations × 2 ns (the four
    tree algorithms only)."""
    f = _fabric()
    scheme, discipline = SCHEMES[point["scheme"]]
    dests = _destinations(f, point["group"], point["seed"])
    r = simulate(f, scheme, ROOT, dests, size=MESSAGES["2 B"], preset="oral", discipline=discipline)
    rows = [{"panel": STARTUP, "value_us": r["startup_ps"] / 1e6}]
    if point["scheme"] in TREES:
        creation = f.plan(scheme, ROOT, dests, discipline=discipline).check()["creation"]
        rows.append({"panel": CREATION, "value_us": creation["latency_ns"] / 1e3})
    return rows


def run_links(point: Point) -> List[Row]:
    """Fig. 5: (a) oral's link utilization (link visits / used links of the plan's paths), (b)
    concurrency: transfers in flight at once, the most over a 512 KB multicast (timed: network
    pipelining overlaps transfers only in time)."""
    f = _fabric()
    scheme, discipline = SCHEMES[point["scheme"]]
    dests = _destinations(f, point["group"], point["seed"])
    check = f.plan(scheme, ROOT, dests, discipline=discipline).check()
    r = simulate(f, scheme, ROOT, dests, size=MESSAGES["512 KB"], preset="oral", discipline=discipline)
    return [
        {"panel": UTILIZATION, "value": float(check["oral_link_utilization"])},
        {"panel": CONCURRENCY, "value": float(r["concurrency_max"])},
    ]


# ----- claim evaluators: small, named, each deciding on numbers it reports -----

Table = Any  # pandas.DataFrame


def _curve(t: Table, series: str, y: str, **where: Any) -> List[Tuple[int, float]]:
    sel = t[t["scheme"] == series]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    return sorted((int(g), float(v)) for g, v in zip(sel["group"], sel[y]))


def _fmt(curve: Sequence[Tuple[int, float]], unit: str = "") -> str:
    return ", ".join(f"{g}: {v:.3g}{unit}" for g, v in curve)


def _linear_fit(curve: Sequence[Tuple[int, float]]) -> Tuple[float, float]:
    """Least-squares slope and R² of ``curve``."""
    xs = [float(g) for g, _ in curve]
    ys = [v for _, v in curve]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    slope = sxy / sxx if sxx else 0.0
    r2 = (sxy * sxy) / (sxx * syy) if sxx and syy else 1.0
    return slope, r2


LINEAR_R2 = 0.95  # "linear" = a least-squares line explains at least 95% of the variation
FLAT_RATIO = 1.10  # "constant" = largest / smallest over the group sizes at most 1.10
NEARLY_FLAT_RATIO = 1.5  # "nearly flat" / "nearly constant" = at most 1.5
SAME_REL = 0.10  # "identical" / "nearly identical" = within 10% at every group size


def _enough(curve: Sequence[Any], need: int = 2) -> bool:
    return len(curve) >= need


def linear_growth(series: str, y: str, **where: Any) -> Callable[[Table, Table], Verdict]:
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        if not _enough(c, 3):
            return Verdict(NOT_APPLICABLE, f"{len(c)} group size(s): a line needs three")
        slope, r2 = _linear_fit(c)
        ok = slope > 0 and r2 >= LINEAR_R2
        return Verdict(HOLDS if ok else DIFFERS, f"slope {slope:.4g} per node, R² {r2:.3f} ({_fmt(c)})",
                       f"grows linearly (here: slope > 0 and R² ≥ {LINEAR_R2})")
    return ev


def flat(series: str, y: str, ratio: float, **where: Any) -> Callable[[Table, Table], Verdict]:
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        if not _enough(c):
            return Verdict(NOT_APPLICABLE, "one group size")
        lo, hi = min(v for _, v in c), max(v for _, v in c)
        got = hi / lo if lo > 0 else float("inf")
        return Verdict(HOLDS if got <= ratio else DIFFERS, f"max/min {got:.3f} ({_fmt(c)})",
                       f"constant (here: max/min ≤ {ratio})")
    return ev


def extreme_everywhere(series: str, y: str, highest: bool, among: Sequence[str] = tuple(SCHEMES), **where: Any) -> Callable[[Table, Table], Verdict]:
    """``series`` has the highest (or lowest) ``y`` of ``among`` at every group size."""
    def ev(t: Table, _rows: Table) -> Verdict:
        curves = {s: dict(_curve(t, s, y, **where)) for s in among}
        groups = sorted(set(curves[series]))
        if not groups:
            return Verdict(NOT_APPLICABLE, "no data")
        misses = []
        for g in groups:
            vals = {s: c[g] for s, c in curves.items() if g in c}
            best = max(vals, key=vals.get) if highest else min(vals, key=vals.get)
            if vals[best] != vals[series]:
                misses.append(f"{g}: {best} {vals[best]:.3g} vs {vals[series]:.3g}")
        word = "highest" if highest else "lowest"
        if misses:
            return Verdict(DIFFERS, f"not the {word} at {len(misses)} of {len(groups)} group sizes ({'; '.join(misses)})",
                           f"{word} at every group size")
        return Verdict(HOLDS, f"the {word} at all {len(groups)} group sizes ({_fmt(sorted(curves[series].items()))})",
                       f"{word} at every group size")
    return ev


def same_curves(a: str, b: str, y: str, rel: float, skip: Sequence[int] = (), **where: Any) -> Callable[[Table, Table], Verdict]:
    def ev(t: Table, _rows: Table) -> Verdict:
        ca, cb = dict(_curve(t, a, y, **where)), dict(_curve(t, b, y, **where))
        groups = [g for g in sorted(set(ca) & set(cb)) if g not in skip]
        if not groups:
            return Verdict(NOT_APPLICABLE, "no common group size")
        worst = max(groups, key=lambda g: abs(ca[g] - cb[g]) / max(abs(ca[g]), abs(cb[g]), 1e-300))
        d = abs(ca[worst] - cb[worst]) / max(abs(ca[worst]), abs(cb[worst]), 1e-300)
        return Verdict(HOLDS if d <= rel else DIFFERS,
                       f"largest difference {100 * d:.1f}% at {worst} ({a} {ca[worst]:.3g}, {b} {cb[worst]:.3g})",
                       f"identical (here: within {100 * rel:.0f}%)")
    return ev


def slower_at(a: str, b: str, y: str, groups: Sequence[int], **where: Any) -> Callable[[Table, Table], Verdict]:
    """``a`` is above ``b`` at each of ``groups``."""
    def ev(t: Table, _rows: Table) -> Verdict:
        ca, cb = dict(_curve(t, a, y, **where)), dict(_curve(t, b, y, **where))
        at = [g for g in groups if g in ca and g in cb]
        if not at:
            return Verdict(NOT_APPLICABLE, f"group sizes {list(groups)} not run")
        text = "; ".join(f"{g}: {a} {ca[g]:.4g} vs {b} {cb[g]:.4g}" for g in at)
        return Verdict(HOLDS if all(ca[g] > cb[g] for g in at) else DIFFERS, text, f"{a} above {b} at {list(groups)}")
    return ev


def bumps_at(series: str, y: str, groups: Sequence[int], **where: Any) -> Callable[[Table, Table], Verdict]:
    """``series`` is above the mean of its two neighbours at each of ``groups`` (a local bump)."""
    def ev(t: Table, _rows: Table) -> Verdict:
        c = dict(_curve(t, series, y, **where))
        xs = sorted(c)
        parts, ok = [], True
        for g in groups:
            if g not in c or xs.index(g) in (0, len(xs) - 1):
                return Verdict(NOT_APPLICABLE, f"group size {g} has no neighbours on both sides here")
            i = xs.index(g)
            nb = (c[xs[i - 1]] + c[xs[i + 1]]) / 2
            ok &= c[g] > nb
            parts.append(f"{g}: {c[g]:.4g} vs neighbours' mean {nb:.4g}")
        return Verdict(HOLDS if ok else DIFFERS, "; ".join(parts), f"higher at {list(groups)} (unbalanced partitions)")
    return ev


def _ceil_log2(n: int) -> int:
    return max(1, (n - 1).bit_length())


def steps_with_log2(series: str, y: str, **where: Any) -> Callable[[Table, Table], Verdict]:
    """``y`` rises where U-torus's step count ⌈log2 group⌉ rises and stays level in between."""
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        by: Dict[int, List[float]] = {}
        for g, v in c:
            by.setdefault(_ceil_log2(g), []).append(v)
        if len(by) < 2:
            return Verdict(NOT_APPLICABLE, "a single step count among the group sizes run")
        level = all(max(v) <= min(v) * FLAT_RATIO for v in by.values())
        means = [sum(by[k]) / len(by[k]) for k in sorted(by)]
        rises = all(b > a for a, b in zip(means, means[1:]))
        text = "; ".join(f"{k} steps: {', '.join(f'{v:.3g}' for v in by[k])}" for k in sorted(by))
        return Verdict(HOLDS if level and rises else DIFFERS, text,
                       f"steps up with ⌈log2 d⌉ (here: level within {FLAT_RATIO}× per step count, rising between)")
    return ev


def decreasing(series: str, y: str, **where: Any) -> Callable[[Table, Table], Verdict]:
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        if not _enough(c):
            return Verdict(NOT_APPLICABLE, "one group size")
        slope, _ = _linear_fit(c)
        ok = slope < 0 and c[-1][1] < c[0][1]
        return Verdict(HOLDS if ok else DIFFERS, f"slope {slope:.4g} per node ({_fmt(c)})", "falls with group size, toward 1")
    return ev


def bounded_and_reached(series: str, y: str, bound: float, beyond: int, **where: Any) -> Callable[[Table, Table], Verdict]:
    """``y`` never exceeds ``bound`` and reaches it at every group size above ``beyond``."""
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        if not c:
            return Verdict(NOT_APPLICABLE, "no data")
        over = [g for g, v in c if v > bound]
        above = [(g, v) for g, v in c if g > beyond]
        ok = not over and bool(above) and all(v >= bound for _, v in above)
        return Verdict(HOLDS if ok else DIFFERS, _fmt(c), f"at most k = {bound:g}, reached beyond {beyond} nodes")
    return ev


def increasing(series: str, y: str, **where: Any) -> Callable[[Table, Table], Verdict]:
    def ev(t: Table, _rows: Table) -> Verdict:
        c = _curve(t, series, y, **where)
        if not _enough(c):
            return Verdict(NOT_APPLICABLE, "one group size")
        slope, _ = _linear_fit(c)
        ok = slope > 0 and c[-1][1] > c[0][1]
        return Verdict(HOLDS if ok else DIFFERS, f"slope {slope:.4g} per node ({_fmt(c)})", "grows with group size")
    return ev


def both(a: Callable[[Table, Table], Verdict], b: Callable[[Table, Table], Verdict]) -> Callable[[Table, Table], Verdict]:
    """Holds when both hold; not applicable when either cannot decide."""
    def ev(t: Table, rows: Table) -> Verdict:
        va, vb = a(t, rows), b(t, rows)
        if NOT_APPLICABLE in (va.status, vb.status):
            return Verdict(NOT_APPLICABLE, f"{va.measured} | {vb.measured}", f"{va.paper}; {vb.paper}")
        status = HOLDS if va.status == vb.status == HOLDS else DIFFERS
        return Verdict(status, f"{va.measured} | {vb.measured}", f"{va.paper}; {vb.paper}")
    return ev


SMALL, LARGE = {"message": "2 B"}, {"message": "512 KB"}


def _panel(p: str) -> Dict[str, str]:
    return {"panel": p}


FIG2_CLAIMS = (
    Claim("storus-worst", "S-torus has the worst completion latency for both small and large messages", "§4.2",
          both(extreme_everywhere(STORUS, "latency_us", True, **SMALL), extreme_everywhere(STORUS, "latency_us", True, **LARGE))),
    Claim("storus-linear", "S-torus's completion latency grows linearly with the group size (no parallelism)", "§4.2",
          both(linear_growth(STORUS, "latency_us", **SMALL), linear_growth(STORUS, "latency_us", **LARGE))),
    Claim("separate-best-small", "Separate addressing has the lowest completion latency for small messages", "§4.2, §5",
          extreme_everywhere(SEPARATE, "latency_us", False, **SMALL)),
    Claim("separate-linear-large", "Separate addressing's latency grows linearly with group size for large messages", "§4.2, §5",
          linear_growth(SEPARATE, "latency_us", **LARGE)),
    Claim("md-mu-alike-small", "Md-torus and Mu-torus perform nearly identically for small messages", "§4.2",
          same_curves(MDTORUS, MUTORUS, "latency_us", SAME_REL, **SMALL)),
    Claim("md-mu-alike-large", "Md-torus and Mu-torus perform nearly identically for large messages, apart from 10 and 14 nodes", "§4.2",
          same_curves(MDTORUS, MUTORUS, "latency_us", SAME_REL, skip=(10, 14), **LARGE)),
    Claim("mu-slower-10-14", "For large messages Mu-torus (r = 4) is slower than Md-torus at 10 and 14 nodes, where its partitions are unbalanced", "§4.2, §5",
          slower_at(MUTORUS, MDTORUS, "latency_us", (10, 14), **LARGE)),
    Claim("md-best-large", "For large messages Md-torus has the lowest completion latency", "§4.2, §5",
          extreme_everywhere(MDTORUS, "latency_us", False, **LARGE)),
    Claim("utorus-flat-small", "U-torus's latency is nearly flat for small messages", "§4.2",
          flat(UTORUS, "latency_us", NEARLY_FLAT_RATIO, **SMALL)),
    Claim("utorus-bumps-large", "For large messages U-torus, like Mu-torus, is slowed at 10 and 14 nodes", "§4.2",
          bumps_at(UTORUS, "latency_us", (10, 14), **LARGE)),
)

FIG3_CLAIMS = (
    Claim("storus-cpu-constant-small", "S-torus's root CPU load is constant for small messages", "§4.3",
          flat(STORUS, "root_cpu_us", FLAT_RATIO, **SMALL)),
    Claim("storus-cpu-grows-large", "S-torus's root CPU load grows with group size for large messages (longer polling)", "§4.3, §5",
          increasing(STORUS, "root_cpu_us", **LARGE)),
    Claim("separate-cpu-linear", "Separate addressing's root CPU load grows nearly linearly with group size", "§4.3, §5",
          linear_growth(SEPARATE, "root_cpu_us", **LARGE)),
    Claim("md-cpu-constant-small", "Md-torus's root CPU load is nearly constant for small messages", "§4.3",
          flat(MDTORUS, "root_cpu_us", NEARLY_FLAT_RATIO, **SMALL)),
    Claim("mu-like-md-small", "Mu-torus's root CPU load is identical to Md-torus's for small messages", "§4.3",
          same_curves(MUTORUS, MDTORUS, "root_cpu_us", SAME_REL, **SMALL)),
    Claim("mu-cpu-constant-large", "Mu-torus's root CPU load is nearly constant for large messages", "§4.3, §5",
          flat(MUTORUS, "root_cpu_us", NEARLY_FLAT_RATIO, **LARGE)),
    Claim("utorus-cpu-steps", "U-torus's root CPU load steps up where its number of steps (⌈log2 d⌉) does", "§4.3",
          both(steps_with_log2(UTORUS, "root_cpu_us", **SMALL), steps_with_log2(UTORUS, "root_cpu_us", **LARGE))),
)

FIG4_CLAIMS = (
    Claim("startup-separate-equals-utorus", "U-torus and separate addressing have identical startup latencies", "§4.4",
          same_curves(UTORUS, SEPARATE, "value_us", SAME_REL, **_panel(STARTUP))),
    Claim("startup-linear", "U-torus's and separate addressing's startup latencies grow linearly with group size", "§4.4",
          both(linear_growth(UTORUS, "value_us", **_panel(STARTUP)), linear_growth(SEPARATE, "value_us", **_panel(STARTUP)))),
    Claim("startup-constant", "S-torus and Md-torus have constant startup latencies (fixed fan-out)", "§4.4",
          both(flat(STORUS, "value_us", FLAT_RATIO, **_panel(STARTUP)), flat(MDTORUS, "value_us", FLAT_RATIO, **_panel(STARTUP)))),
    Claim("creation-m-highest", "Md-torus and Mu-torus have the highest tree-creation latencies", "§4.4",
          lambda t, r: _two_highest(t, (MDTORUS, MUTORUS), "value_us", **_panel(CREATION))),
    Claim("creation-storus-lowest", "S-torus has the lowest tree-creation latency, growing slowly and linearly", "§4.4",
          both(extreme_everywhere(STORUS, "value_us", False, among=TREES, **_panel(CREATION)),
               linear_growth(STORUS, "value_us", **_panel(CREATION)))),
)

FIG5_CLAIMS = (
    Claim("storus-lowest-constant", "S-torus has the lowest, constant link utilization and concurrency", "§4.5",
          both(both(extreme_everywhere(STORUS, "value", False, **_panel(UTILIZATION)), flat(STORUS, "value", FLAT_RATIO, **_panel(UTILIZATION))),
               both(extreme_everywhere(STORUS, "value", False, **_panel(CONCURRENCY)), flat(STORUS, "value", FLAT_RATIO, **_panel(CONCURRENCY))))),
    Claim("utorus-highest-concurrency", "U-torus has the highest concurrency", "§4.5, §5",
          extreme_everywhere(UTORUS, "value", True, **_panel(CONCURRENCY))),
    Claim("separate-concurrency-like-utorus", "Separate addressing's concurrency is identical to U-torus's (network pipelining)", "§4.5",
          same_curves(SEPARATE, UTORUS, "value", SAME_REL, **_panel(CONCURRENCY))),
    Claim("separate-high-utilization", "Separate addressing has a high link utilization (its link visits grow faster than its used links)", "§4.5",
          both(extreme_everywhere(SEPARATE, "value", True, **_panel(UTILIZATION)), increasing(SEPARATE, "value", **_panel(UTILIZATION)))),
    Claim("md-utilization-falls", "Md-torus's link utilization falls with group size, toward 1", "§4.5",
          decreasing(MDTORUS, "value", **_panel(UTILIZATION))),
    Claim("md-concurrency-k", "Md-torus's concurrency is bounded by k = 4 and reaches it beyond 8 nodes", "§4.5",
          bounded_and_reached(MDTORUS, "value", 4.0, 8, **_panel(CONCURRENCY))),
    Claim("mu-low-utilization", "Mu-torus has a low link utilization at every group size (below separate addressing and U-torus)", "§4.5",
          lambda t, r: _below_all(t, MUTORUS, (SEPARATE, UTORUS), "value", **_panel(UTILIZATION))),
    Claim("mu-concurrency-grows", "Mu-torus's concurrency grows with group size", "§4.5",
          increasing(MUTORUS, "value", **_panel(CONCURRENCY))),
)


def _two_highest(t: Table, pair: Sequence[str], y: str, **where: Any) -> Verdict:
    """Both of ``pair`` above every other tree algorithm at every group size."""
    curves = {s: dict(_curve(t, s, y, **where)) for s in TREES}
    groups = sorted(set.intersection(*(set(c) for c in curves.values())))
    if not groups:
        return Verdict(NOT_APPLICABLE, "no data")
    misses = []
    for g in groups:
        low_pair = min(curves[s][g] for s in pair)
        high_rest = max(curves[s][g] for s in TREES if s not in pair)
        if low_pair <= high_rest:
            misses.append(f"{g}: {' / '.join(f'{s} {curves[s][g]:.3g}' for s in TREES)}")
    text = "; ".join(misses) if misses else "; ".join(f"{g}: {' / '.join(f'{s} {curves[s][g]:.3g}' for s in TREES)}" for g in groups[-1:])
    return Verdict(DIFFERS if misses else HOLDS, text, f"{' and '.join(pair)} highest at every group size")


def _below_all(t: Table, series: str, others: Sequence[str], y: str, **where: Any) -> Verdict:
    c = dict(_curve(t, series, y, **where))
    oc = {o: dict(_curve(t, o, y, **where)) for o in others}
    groups = [g for g in sorted(c) if all(g in v for v in oc.values())]
    if not groups:
        return Verdict(NOT_APPLICABLE, "no data")
    misses = [f"{g}: {series} {c[g]:.3g} vs " + ", ".join(f"{o} {oc[o][g]:.3g}" for o in others)
              for g in groups if not all(c[g] < oc[o][g] for o in others)]
    return Verdict(DIFFERS if misses else HOLDS, "; ".join(misses) or _fmt(sorted(c.items())), f"below {', '.join(others)} at every group size")


# Measured CPU seconds (2026-11-26, 2 shared cores): tiny 5-6 s, quick 42 s; full by proportion.
COST_S = {"tiny": 6.0, "quick": 42.0, "full": 140.0}

EXPERIMENTS: List[Experiment] = [
    Experiment(
        key="oral:fig2", paper="oral", label="Fig. 2", title="Completion latency vs. group size",
        section="§4.2", varies="group size 4–16 × 5 algorithms × message 2 B / 512 KB",
        metric="completion latency (µs)", stated=STATED,
        grid=lambda scale: _grid(_groups(scale), tuple(MESSAGES), tuple(SCHEMES)), replicates=REPLICATES,
        run=run_latency, values=("latency_us",),
        figure=FigureSpec(x="group", y="latency_us", series="scheme", panel="message", xlabel="group size (nodes)",
                          ylabel="completion latency (µs)"),
        claims=FIG2_CLAIMS, cost_s=COST_S,
    ),
    Experiment(
        key="oral:fig3", paper="oral", label="Fig. 3", title="Root CPU load vs. group size",
        section="§4.3", varies="group size 4–16 × 5 algorithms × message 2 B / 512 KB",
        metric="root CPU time (µs; host work and polling)", stated=STATED,
        grid=lambda scale: _grid(_groups(scale), tuple(MESSAGES), tuple(SCHEMES)), replicates=REPLICATES,
        run=run_cpu, values=("root_cpu_us", "root_cpu_share"),
        figure=FigureSpec(x="group", y="root_cpu_us", series="scheme", panel="message", xlabel="group size (nodes)",
                          ylabel="root CPU time (µs)"),
        claims=FIG3_CLAIMS, cost_s=COST_S,
    ),
    Experiment(
        key="oral:fig4", paper="oral", label="Fig. 4", title="Startup and tree-creation latency vs. group size",
        section="§4.4", varies="group size 4–16 × 5 algorithms (tree creation: the 4 tree algorithms)",
        metric="latency (µs)", stated=STATED,
        grid=lambda scale: _grid(_groups(scale), ("2 B",), tuple(SCHEMES)), replicates=REPLICATES,
        run=run_startup, values=("value_us",),
        figure=FigureSpec(x="group", y="value_us", series="scheme", panel="panel", xlabel="group size (nodes)",
                          ylabel="latency (µs)"),
        claims=FIG4_CLAIMS, cost_s={"tiny": 0.1, "quick": 0.2, "full": 0.7},
    ),
    Experiment(
        key="oral:fig5", paper="oral", label="Fig. 5", title="Link utilization and concurrency vs. group size",
        section="§4.5", varies="group size 4–16 × 5 algorithms",
        metric="link visits / used links; transfers in flight", stated=STATED,
        grid=lambda scale: _grid(_groups(scale), ("512 KB",), tuple(SCHEMES)), replicates=REPLICATES,
        run=run_links, values=("value",),
        figure=FigureSpec(x="group", y="value", series="scheme", panel="panel", xlabel="group size (nodes)",
                          ylabel="ratio / transfers"),
        claims=FIG5_CLAIMS, cost_s=COST_S,
    ),
]
