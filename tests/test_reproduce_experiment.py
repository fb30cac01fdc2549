"""The experiment declaration contract (mcastlab.reproduce.experiment, aggregate, registry)."""

import math

import pandas as pd
import pytest

from mcastlab.reproduce import registry
from mcastlab.reproduce.aggregate import aggregate, ci95, t95
from mcastlab.reproduce.experiment import HOLDS, Claim, Experiment, FigureSpec, Verdict, point_key, replicate_seed
from mcastlab.reproduce.serial import evaluate, run_serial


def _square(p):
    return [{"y": float(p["x"] ** 2 + (p["seed"] % 3))}]


def _toy(**kw) -> Experiment:
    base = dict(
        key="toy:fig1", paper="toy", label="Fig. 1", title="toy", section="§1", varies="x", metric="y",
        stated={}, grid=lambda scale: [{"x": x} for x in (1, 2, 3)], replicates={"tiny": 3, "quick": 5, "full": 10},
        run=_square, figure=FigureSpec(x="x", y="y"), values=("y",),
    )
    base.update(kw)
    return Experiment(**base)


def test_keys_are_unique_and_select_refuses_unknown_names():
    keys = [e.key for e in registry.EXPERIMENTS]
    assert len(keys) == len(set(keys))
    assert all(e.paper in registry.PAPERS and e.key.startswith(e.paper + ":") for e in registry.EXPERIMENTS)
    with pytest.raises(KeyError):
        registry.select(["nosuchpaper:fig99"])


def test_replicates_share_seeds_across_the_grid_and_differ_between_replicates():
    pts = _toy().points("tiny", seed=7)
    assert len(pts) == 9
    by_rep = {}
    for p in pts:
        by_rep.setdefault(p["replicate"], set()).add(p["seed"])
    assert all(len(s) == 1 for s in by_rep.values())
    assert len({next(iter(s)) for s in by_rep.values()}) == 3
    assert replicate_seed(7, "toy:fig1", 0) != replicate_seed(8, "toy:fig1", 0)
    with pytest.raises(ValueError):
        _toy().points("huge", 1)


def test_point_keys_change_with_every_input():
    e = _toy()
    p = e.points("tiny", 1)[0]
    k = point_key(e, p, "0.1.0")
    assert k == point_key(e, dict(p), "0.1.0")
    assert k != point_key(e, {**p, "x": 99}, "0.1.0")
    assert k != point_key(e, p, "0.1.1")
    assert k != point_key(_toy(revision=2), p, "0.1.0")


def test_confidence_interval_is_students_t():
    assert t95(1) == 12.706 and t95(1000) == 1.960
    assert ci95([1.0]) == 0.0 and math.isnan(ci95([]))
    # mean 2, sd 1, n 3: 4.303 * 1 / sqrt(3)
    assert ci95([1.0, 2.0, 3.0]) == pytest.approx(4.303 / math.sqrt(3))


def test_aggregate_and_claims_on_a_toy_experiment():
    e = _toy(claims=(Claim("grows", "y grows with x", "§1",
                           lambda t, r: Verdict(HOLDS if t["y"].is_monotonic_increasing else "differs", "ok")),))
    rows = run_serial(e, "tiny", 1)
    assert len(rows) == 9 and set(rows.columns) >= {"x", "y", "replicate", "seed"}
    table, verdicts = evaluate(e, rows)
    assert list(table["x"]) == [1, 2, 3] and list(table["y_n"]) == [3, 3, 3]
    assert verdicts[0][1].status == HOLDS
    nan_rows = pd.concat([rows, pd.DataFrame([{"x": 1, "y": float("nan"), "replicate": 9, "seed": 0}])])
    assert aggregate(e, nan_rows)["y_n"].iloc[0] == 3
