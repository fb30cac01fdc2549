"""The generic claim evaluators (mcastlab.reproduce.claims) on synthetic aggregated tables whose
verdicts are known."""

import math

import pandas as pd
import pytest

from mcastlab.reproduce import claims as C
from mcastlab.reproduce.experiment import DIFFERS, HOLDS, NOT_APPLICABLE


def table(rows):
    """An aggregated table: each row's ``lat`` gets ``lat_ci`` and ``lat_n`` beside it."""
    out = []
    for r in rows:
        r = dict(r)
        r.setdefault("lat_ci", 0.1)
        r.setdefault("lat_n", 3)
        out.append(r)
    return pd.DataFrame(out)


GRID = table([
    {"size": s, "scheme": name, "lat": base * s}
    for s in (1, 2, 4) for name, base in (("tree", 1.0), ("path", 2.0), ("unicast", 3.0))
])


def test_lowest_holds_when_the_series_is_lowest_everywhere():
    v = C.lowest(GRID, "scheme", "lat", "tree", paper="lowest")
    assert v.status == HOLDS and "all 3 points" in v.measured and v.paper == "lowest"


def test_lowest_differs_and_names_the_point():
    t = GRID.copy()
    t.loc[(t["size"] == 4) & (t["scheme"] == "path"), "lat"] = 0.5
    v = C.lowest(t, "scheme", "lat", "tree")
    assert v.status == DIFFERS and "1 of 3" in v.measured and "size=4" in v.measured and "path 0.5" in v.measured


def test_lowest_of_a_series_never_run_is_not_applicable():
    assert C.lowest(GRID, "scheme", "lat", "bitstring").status == NOT_APPLICABLE
    assert C.lowest(GRID.iloc[0:0], "scheme", "lat", "tree").status == NOT_APPLICABLE


def test_ordered_checks_every_point_and_tolerates_only_what_it_is_told():
    assert C.ordered(GRID, "scheme", "lat", ["tree", "path", "unicast"]).status == HOLDS
    assert C.ordered(GRID, "scheme", "lat", ["path", "tree"]).status == DIFFERS
    t = GRID.copy()
    t.loc[(t["size"] == 2) & (t["scheme"] == "tree"), "lat"] = 4.1  # path is 4.0 there
    assert C.ordered(t, "scheme", "lat", ["tree", "path"]).status == DIFFERS
    assert C.ordered(t, "scheme", "lat", ["tree", "path"], rel_tol=0.05).status == HOLDS


def test_monotone_per_curve_with_noise_tolerance():
    assert C.monotone(GRID, "size", "lat", by=["scheme"]).status == HOLDS
    assert C.monotone(GRID, "size", "lat", increasing=False, by=["scheme"]).status == DIFFERS
    t = GRID.copy()
    t.loc[(t["size"] == 4) & (t["scheme"] == "tree"), "lat"] = 1.95  # a step back of 2.5% from 2.0
    v = C.monotone(t, "size", "lat", by=["scheme"])
    assert v.status == DIFFERS and "scheme=tree" in v.measured
    assert C.monotone(t, "size", "lat", by=["scheme"], rel_tol=0.05).status == HOLDS
    flat = table([{"x": x, "lat": 1.0} for x in (1, 2, 3)])
    assert C.monotone(flat, "x", "lat").status == HOLDS
    assert C.monotone(flat, "x", "lat", strict=True).status == DIFFERS


def test_monotone_uses_every_identity_column_but_x_by_default():
    # Two schemes, one rising and one falling: split by scheme (the default), one curve differs.
    v = C.monotone(table([{"x": x, "s": "a", "lat": x} for x in (1, 2)] + [{"x": x, "s": "b", "lat": -x} for x in (1, 2)]),
                   "x", "lat")
    assert v.status == DIFFERS and "1 of 2 curves" in v.measured


def test_constant_within_tolerance():
    t = table([{"k": k, "lat": v} for k, v in ((0, 17.0), (1, 17.2), (2, 16.9), (3, 17.1))])
    assert C.constant(t, "k", "lat", rel_tol=0.05).status == HOLDS
    t2 = table([{"k": k, "lat": v} for k, v in ((0, 17.0), (1, 12.0))])
    v = C.constant(t2, "k", "lat", rel_tol=0.05)
    assert v.status == DIFFERS and "12 to 17" in v.measured


def test_within_uses_the_tolerance_or_the_confidence_interval():
    assert C.within(4.3, 4.0, rel_tol=0.1).status == HOLDS
    assert C.within(4.6, 4.0, rel_tol=0.1).status == DIFFERS
    assert C.within(4.6, 4.0, rel_tol=0.1, ci=0.7).status == HOLDS  # the paper's value is inside the CI
    assert C.within(float("nan"), 4.0, rel_tol=0.1).status == NOT_APPLICABLE
    assert "+15.0%" in C.within(4.6, 4.0, rel_tol=0.1).measured


def test_ratio_tends_to_a_value():
    rows = []
    for g, (cyc, osm) in {10: (1.0, 3.0), 50: (2.0, 3.0), 100: (2.9, 3.0)}.items():
        rows += [{"group": g, "scheme": "cyclic", "lat": cyc}, {"group": g, "scheme": "opensm", "lat": osm}]
    t = table(rows)
    v = C.ratio_tends_to(t, "group", "lat", "scheme", "opensm", "cyclic", 1.0, tol=0.1)
    assert v.status == HOLDS and "3 at group=10" in v.measured
    assert C.ratio_tends_to(t, "group", "lat", "scheme", "opensm", "cyclic", 1.0, tol=0.01).status == DIFFERS
    assert C.ratio_tends_to(t, "group", "lat", "scheme", "opensm", "nosuch", 1.0, tol=0.1).status == NOT_APPLICABLE


def test_nan_points_are_left_out_not_counted_as_lowest():
    t = GRID.copy()
    t.loc[(t["size"] == 1) & (t["scheme"] == "path"), "lat"] = math.nan
    assert C.lowest(t, "scheme", "lat", "tree").status == HOLDS


@pytest.mark.parametrize("x,text", [(12345678.0, "1.23e+07"), (0.5, "0.5"), (None, "-"), (float("inf"), "-")])
def test_fmt(x, text):
    assert C.fmt(x) == text
