"""Generic evaluators for the papers' qualitative claims, on an aggregated table (one row per grid
point: the identity columns, ``<value>`` the mean over replicates, ``<value>_ci`` its 95%
half-width, ``<value>_n`` the replicates counted; see :mod:`.aggregate`).

Each returns a :class:`~.experiment.Verdict`: **holds** or **differs** with the deciding numbers
in ``measured`` (and the paper's in ``paper``), or **not applicable** when the table has nothing to
decide on (no point, no value). A paper module writes a claim as::

    Claim("tree-lowest", "tree-based has the lowest latency in every configuration", "§6.2",
          lambda t, r: claims.lowest(t, "scheme", "latency_us", "tree", paper="lowest everywhere"))

Decisions compare means; where a claim is about equality ("insensitive", "about 4 µs") the
tolerance is an argument the module states beside the claim (the paper's own words decide it:
"approximately" is not "exactly"), never tuned after seeing the data.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .experiment import DIFFERS, HOLDS, NOT_APPLICABLE, Verdict


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def fmt(x: Any, digits: int = 3) -> str:
    """A number for a verdict: ``digits`` significant digits, ``-`` for none."""
    if not _finite(x):
        return "-"
    x = float(x)
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-3):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def _usable(table: Any, value: str) -> Any:
    if table is None or len(table) == 0 or value not in table:
        return None
    t = table[[_finite(v) for v in table[value]]]
    return t if len(t) else None


def not_applicable(why: str, paper: str = "") -> Verdict:
    return Verdict(NOT_APPLICABLE, why, paper)


def _groups(table: Any, by: Sequence[str]) -> List[Tuple[Dict[str, Any], Any]]:
    """The table split by the columns ``by`` (one group when ``by`` is empty), in table order."""
    if not by:
        return [({}, table)]
    out = []
    for key, part in table.groupby(list(by), sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        out.append((dict(zip(by, key)), part))
    return out


def _where(key: Dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in key.items()) or "the only point"


def lowest(table: Any, series: str, value: str, expect: Any, *, by: Optional[Sequence[str]] = None,
           paper: str = "") -> Verdict:
    """``expect`` (a value of the ``series`` column) has the lowest ``value`` at every point of
    the other columns ``by`` (default: every identity column but ``series``)."""
    t = _usable(table, value)
    if t is None:
        return not_applicable(f"no {value} measured", paper)
    by = list(by) if by is not None else _identity(t, value, exclude=(series,))
    checked, misses = 0, []
    for key, part in _groups(t, by):
        if expect not in set(part[series]):
            continue
        checked += 1
        best = part.loc[part[value].astype(float).idxmin()]
        mine = float(part[part[series] == expect][value].iloc[0])
        if best[series] != expect and float(best[value]) < mine:
            misses.append(f"{_where(key)}: {best[series]} {fmt(best[value])} < {expect} {fmt(mine)}")
    if checked == 0:
        return not_applicable(f"{expect} was not run", paper)
    if not misses:
        return Verdict(HOLDS, f"{expect} lowest at all {checked} points", paper)
    return Verdict(DIFFERS, f"{expect} not lowest at {len(misses)} of {checked} points; e.g. {misses[0]}", paper)


def ordered(table: Any, series: str, value: str, order: Sequence[Any], *, by: Optional[Sequence[str]] = None,
            rel_tol: float = 0.0, paper: str = "") -> Verdict:
    """At every point of ``by``, ``value`` increases along ``order`` (``order[0]`` the lowest):
    ``v(order[i]) <= v(order[i+1]) * (1 + rel_tol)``. Series missing at a point are skipped."""
    t = _usable(table, value)
    if t is None:
        return not_applicable(f"no {value} measured", paper)
    by = list(by) if by is not None else _identity(t, value, exclude=(series,))
    checked, misses = 0, []
    for key, part in _groups(t, by):
        vals = {s: float(part[part[series] == s][value].iloc[0]) for s in order if s in set(part[series])}
        present = [s for s in order if s in vals]
        if len(present) < 2:
            continue
        checked += 1
        for a, b in zip(present, present[1:]):
            if vals[a] > vals[b] * (1 + rel_tol):
                misses.append(f"{_where(key)}: {a} {fmt(vals[a])} > {b} {fmt(vals[b])}")
                break
    if checked == 0:
        return not_applicable("fewer than two of the series were run at any point", paper)
    names = " < ".join(str(s) for s in order)
    if not misses:
        return Verdict(HOLDS, f"{names} at all {checked} points", paper)
    return Verdict(DIFFERS, f"{names} fails at {len(misses)} of {checked} points; e.g. {misses[0]}", paper)


def monotone(table: Any, x: str, value: str, *, increasing: bool = True, by: Optional[Sequence[str]] = None,
             strict: bool = False, rel_tol: float = 0.0, paper: str = "") -> Verdict:
    """Along ``x`` (sorted), ``value`` never decreases (``increasing``) or never increases, for
    every curve of ``by`` (default: the identity columns but ``x``). ``rel_tol`` forgives steps
    back smaller than that fraction (noise); ``strict`` asks every step to move."""
    t = _usable(table, value)
    if t is None:
        return not_applicable(f"no {value} measured", paper)
    by = list(by) if by is not None else _identity(t, value, exclude=(x,))
    word = "increases" if increasing else "decreases"
    curves, misses = 0, []
    for key, part in _groups(t, by):
        part = part.sort_values(x)
        xs, vs = list(part[x]), [float(v) for v in part[value]]
        if len(vs) < 2:
            continue
        curves += 1
        for (x0, a), (x1, b) in zip(zip(xs, vs), zip(xs[1:], vs[1:])):
            step = (b - a) if increasing else (a - b)
            back = -step > rel_tol * max(abs(a), abs(b))
            if back or (strict and step <= 0):
                misses.append(f"{_where(key)}: {fmt(a)} at {x}={x0} -> {fmt(b)} at {x}={x1}")
                break
    if curves == 0:
        return not_applicable(f"fewer than two values of {x}", paper)
    if not misses:
        return Verdict(HOLDS, f"{value} {word} with {x} on all {curves} curves", paper)
    return Verdict(DIFFERS, f"{value} does not always {word[:-1]} with {x} ({len(misses)} of {curves} curves); "
                            f"e.g. {misses[0]}", paper)


def constant(table: Any, x: str, value: str, *, rel_tol: float, by: Optional[Sequence[str]] = None,
             paper: str = "") -> Verdict:
    """``value`` does not depend on ``x`` (the paper's "insensitive to"): on every curve of
    ``by``, every mean lies within ``rel_tol`` of the curve's mean."""
    t = _usable(table, value)
    if t is None:
        return not_applicable(f"no {value} measured", paper)
    by = list(by) if by is not None else _identity(t, value, exclude=(x,))
    curves, worst = 0, (0.0, "")
    for key, part in _groups(t, by):
        vs = [float(v) for v in part[value]]
        if len(vs) < 2:
            continue
        curves += 1
        mean = sum(vs) / len(vs)
        spread = (max(vs) - min(vs)) / 2 / abs(mean) if mean else math.inf
        if spread > worst[0] or not worst[1]:
            worst = (spread, f"{_where(key)}: {fmt(min(vs))} to {fmt(max(vs))}")
    if curves == 0:
        return not_applicable(f"fewer than two values of {x}", paper)
    verdict = HOLDS if worst[0] <= rel_tol else DIFFERS
    return Verdict(verdict, f"widest spread ±{100 * worst[0]:.1f}% (allowed ±{100 * rel_tol:.0f}%) at {worst[1]}", paper)


def within(measured: Any, paper_value: float, *, rel_tol: float, ci: Any = None, what: str = "",
           paper: str = "") -> Verdict:
    """A measured mean agrees with the paper's number: within ``rel_tol`` of it, or within the
    measurement's own 95% interval ``ci``."""
    if not _finite(measured):
        return not_applicable(f"{what or 'value'} not measured", paper)
    m, p = float(measured), float(paper_value)
    slack = max(rel_tol * abs(p), float(ci) if _finite(ci) else 0.0)
    off = (m - p) / p if p else math.inf
    text = f"{what + ' ' if what else ''}{fmt(m)}" + (f" ± {fmt(ci)}" if _finite(ci) and float(ci) > 0 else "")
    text += f" vs {fmt(p)} ({100 * off:+.1f}%, allowed ±{100 * rel_tol:.0f}%)"
    return Verdict(HOLDS if abs(m - p) <= slack else DIFFERS, text, paper)


def ratio_tends_to(table: Any, x: str, value: str, series: str, numerator: Any, denominator: Any, target: float, *,
                   tol: float, paper: str = "") -> Verdict:
    """The ratio ``value(numerator) / value(denominator)`` (two values of ``series``) approaches
    ``target`` as ``x`` grows: at the largest ``x`` it is within ``tol`` of ``target`` and no
    farther from it than at the smallest ``x``."""
    t = _usable(table, value)
    if t is None:
        return not_applicable(f"no {value} measured", paper)
    ratios = []
    for xv in sorted(set(t[x])):
        part = t[t[x] == xv]
        num, den = part[part[series] == numerator][value], part[part[series] == denominator][value]
        if len(num) and len(den) and float(den.iloc[0]) != 0:
            ratios.append((xv, float(num.iloc[0]) / float(den.iloc[0])))
    if len(ratios) < 2:
        return not_applicable(f"the ratio {numerator}/{denominator} is known at fewer than two values of {x}", paper)
    (x0, r0), (x1, r1) = ratios[0], ratios[-1]
    ok = abs(r1 - target) <= tol and abs(r1 - target) <= abs(r0 - target)
    return Verdict(HOLDS if ok else DIFFERS,
                   f"{numerator}/{denominator} = {fmt(r0)} at {x}={x0} -> {fmt(r1)} at {x}={x1} (target {fmt(target)} ± {fmt(tol)})",
                   paper)


def _identity(table: Any, value: str, exclude: Sequence[str] = ()) -> List[str]:
    """The columns of an aggregated table that identify a point: not a value column (``value``,
    ``*_ci``, ``*_n`` or another measured mean next to them), not in ``exclude``."""
    measured = {c[:-3] for c in table.columns if c.endswith("_ci")}
    skip = set(exclude) | measured | {f"{m}_ci" for m in measured} | {f"{m}_n" for m in measured} | {value}
    return [c for c in table.columns if c not in skip]
