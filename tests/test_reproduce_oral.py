"""oral's experiments (mcastlab.reproduce.papers.oral): the claim evaluators on synthetic tables
whose verdict is known, and the cheap experiment end to end. (Every experiment also runs at tiny
scale in the framework's registry-wide test.)"""

import pandas as pd
import pytest

from mcastlab.reproduce.experiment import DIFFERS, HOLDS, NOT_APPLICABLE
from mcastlab.reproduce.papers import oral
from mcastlab.reproduce.serial import evaluate, run_serial


def _table(curves, y="y", **extra):
    """A table like the aggregated one: one row per (scheme, group)."""
    return pd.DataFrame([{"scheme": s, "group": g, y: v, **extra} for s, c in curves.items() for g, v in c.items()])


GROUPS = (4, 6, 8, 10, 12, 14, 16)


def test_linear_growth_needs_a_rising_line():
    line = _table({"A": {g: 3.0 * g + 1 for g in GROUPS}})
    assert oral.linear_growth("A", "y")(line, None).status == HOLDS
    log = _table({"A": {g: float(max(1, (g - 1).bit_length())) for g in GROUPS}})
    assert oral.linear_growth("A", "y")(log, None).status == DIFFERS
    falling = _table({"A": {g: 100.0 - g for g in GROUPS}})
    assert oral.linear_growth("A", "y")(falling, None).status == DIFFERS
    assert oral.linear_growth("A", "y")(_table({"A": {4: 1.0, 6: 2.0}}), None).status == NOT_APPLICABLE


def test_flat_uses_the_stated_ratio():
    t = _table({"A": {4: 1.0, 8: 1.05, 16: 1.09}, "B": {4: 1.0, 8: 1.2, 16: 1.3}})
    assert oral.flat("A", "y", oral.FLAT_RATIO)(t, None).status == HOLDS
    assert oral.flat("B", "y", oral.FLAT_RATIO)(t, None).status == DIFFERS
    assert oral.flat("B", "y", oral.NEARLY_FLAT_RATIO)(t, None).status == HOLDS


def test_extreme_everywhere_names_the_group_sizes_it_misses():
    t = _table({s: {4: 1.0, 8: 2.0} for s in oral.SCHEMES})
    t.loc[(t["scheme"] == oral.STORUS), "y"] = [5.0, 1.5]
    v = oral.extreme_everywhere(oral.STORUS, "y", True)(t, None)
    assert v.status == DIFFERS and "8:" in v.measured and "4:" not in v.measured
    t.loc[(t["scheme"] == oral.STORUS), "y"] = [5.0, 6.0]
    assert oral.extreme_everywhere(oral.STORUS, "y", True)(t, None).status == HOLDS


def test_same_curves_skips_the_named_sizes():
    t = _table({"A": {4: 1.0, 10: 2.0, 16: 3.0}, "B": {4: 1.05, 10: 4.0, 16: 3.1}})
    assert oral.same_curves("A", "B", "y", 0.10)(t, None).status == DIFFERS
    assert oral.same_curves("A", "B", "y", 0.10, skip=(10,))(t, None).status == HOLDS


def test_bumps_and_log2_steps():
    bump = _table({"A": {8: 1.0, 10: 3.0, 12: 1.0, 14: 3.0, 16: 1.0}})
    assert oral.bumps_at("A", "y", (10, 14))(bump, None).status == HOLDS
    assert oral.bumps_at("A", "y", (12,))(bump, None).status == DIFFERS
    assert oral.bumps_at("A", "y", (16,))(bump, None).status == NOT_APPLICABLE
    steps = _table({"A": {g: float(max(1, (g - 1).bit_length())) for g in GROUPS}})
    assert oral.steps_with_log2("A", "y")(steps, None).status == HOLDS
    assert oral.steps_with_log2("A", "y")(_table({"A": {g: float(g) for g in GROUPS}}), None).status == DIFFERS


def test_bounded_and_reached():
    t = _table({"A": {4: 2.0, 8: 3.0, 10: 4.0, 16: 4.0}})
    assert oral.bounded_and_reached("A", "y", 4.0, 8)(t, None).status == HOLDS
    t2 = _table({"A": {4: 2.0, 8: 3.0, 10: 3.5, 16: 5.0}})
    assert oral.bounded_and_reached("A", "y", 4.0, 8)(t2, None).status == DIFFERS


def test_destinations_have_the_group_size_and_follow_the_seed():
    f = oral._fabric()
    for g in oral.GROUPS:
        d = oral._destinations(f, g, 5)
        assert len(d) == g - 1 and oral.ROOT not in d
    assert oral._destinations(f, 8, 5) == oral._destinations(f, 8, 5)
    assert oral._destinations(f, 8, 5) != oral._destinations(f, 8, 6)


def test_fig4_end_to_end_at_tiny_scale():
    e = next(x for x in oral.EXPERIMENTS if x.key == "oral:fig4")
    rows = run_serial(e, "tiny", 1)
    # 5 schemes' startup + 4 tree algorithms' creation, at each tiny group size
    assert len(rows) == 9 * len(oral.TINY_GROUPS)
    assert (rows["value_us"] > 0).all()
    table, verdicts = evaluate(e, rows)
    assert [c for c, _ in verdicts] == [c.id for c in e.claims]
    # S-torus builds no partitions: its tree creation is the cheapest of the four at every size
    assert dict(verdicts)["creation-storus-lowest"].status in (HOLDS, DIFFERS)
    creation = table[table["panel"] == oral.CREATION]
    assert set(creation["scheme"]) == set(oral.TREES)


def test_experiments_cover_figures_2_to_5():
    assert [e.key for e in oral.EXPERIMENTS] == ["oral:fig2", "oral:fig3", "oral:fig4", "oral:fig5"]
    for e in oral.EXPERIMENTS:
        assert e.claims and all(c.source.startswith("§") for c in e.claims)
        assert len({c.id for c in e.claims}) == len(e.claims)
