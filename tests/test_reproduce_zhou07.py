"""zhou07's experiments (mcastlab.reproduce.papers.zhou07): every figure at tiny scale, the counts
and link loads they rest on, and each claim evaluator on tables whose verdict is known."""

import math
import pickle

import pandas as pd
import pytest

import mcastlab
from mcastlab.reproduce import registry
from mcastlab.reproduce.experiment import DIFFERS, HOLDS, NOT_APPLICABLE
from mcastlab.reproduce.papers import zhou07 as z
from mcastlab.reproduce.serial import evaluate, run_serial


def test_one_experiment_per_result_figure_8_to_17():
    keys = [e.key for e in registry.select(["zhou07"])]
    assert keys == [f"zhou07:fig{n}" for n in range(8, 18)]
    for e in z.EXPERIMENTS:
        assert e.stated["fabric"].value == "mport_ntree:m=8,n=3"
        assert all(c.source for c in e.claims) and len({c.id for c in e.claims}) == len(e.claims)
        assert pickle.loads(pickle.dumps(e)).grid("quick") == e.grid("quick")  # ships to pool and Dask workers


def test_a_point_gives_the_same_row_every_time():
    p = {**z._figure_grid("all", 40, "tiny")[0], "replicate": 0, "seed": 11}
    assert z.run_figure_point(dict(p)) == z.run_figure_point(dict(p))


def test_section_4_fabric_and_exact_counts():
    # §4: "The network contains 80 switches and 128 processing nodes" (2(m/2)^n, (2n-1)(m/2)^(n-1)).
    f = mcastlab.fabric(z.FABRIC)
    assert (f.num_switches, f.num_endpoints) == (80, 128)
    assert [z.share(p, 128) for p in (10, 40, 70, 100)] == [13, 51, 90, 128]
    assert z.counts(z.FABRIC, "one", 10) == (1, 13)
    assert z.counts(z.FABRIC, "40%", 100) == (51, 128)
    assert z.counts(z.TINY_FABRIC, "all", 10) == (16, 2)  # 1.6 rounds to 2, and a group has two at least


def test_full_grid_is_the_papers_sizes_and_schemes():
    pts = z.EXPERIMENTS[0].grid("full")
    assert sorted({p["bytes"] for p in pts}) == [2**k for k in range(5, 18)]  # 32 B ... 128 KiB
    assert {p["scheme"] for p in pts} == set(z.SCHEMES)
    assert {p["size_range"] for p in pts if p["bytes"] <= 1024} == {"small"}


@pytest.mark.parametrize("e", z.EXPERIMENTS, ids=lambda e: e.key)
def test_every_experiment_runs_at_tiny_scale(e):
    rows = run_serial(e, "tiny", seed=3)
    assert len(rows) == len(e.points("tiny", 3))
    for v in e.values:
        assert rows[v].notna().all(), v
    if "complete" in e.values:
        assert (rows["complete"] == 1.0).all()
        # the busiest link never carries fewer messages than a receiver gets
        assert (rows["max_link_load"] >= rows["senders_n"] - 1).all()
        assert (rows["time_us"] >= rows["bound_us"] * 0.999).all()
    table, verdicts = evaluate(e, rows)
    assert len(table) == len(e.grid("tiny")) and len(verdicts) == len(e.claims)


def test_the_workload_draws_the_points_counts_and_a_changed_rule_is_refused():
    f = mcastlab.fabric(z.TINY_FABRIC)
    p = {**z._case(z.TINY_FABRIC, "70%", 40), "bytes": 32, "seed": 5}
    res = mcastlab.run_workload(f, z._workload(p, z.CYCLIC), preset="zhou07", seed=5,
                                measure={"detail": "destinations"})
    sends = z._who(f, res, p)
    assert len(sends) == 11 and {len(d) for d in sends.values()} <= {5, 6}  # 11.2 -> 11 senders, 6.4 -> 6
    with pytest.raises(RuntimeError, match="not 11 and 7"):
        z._who(f, res, {**p, "group_n": 7})


def test_link_loads_agree_with_the_plan_check():
    f = mcastlab.fabric(z.FABRIC)
    dests = [8, 9, 10, 11, 40, 77, 127]
    for scheme in z.SCHEMES:
        load = z.link_loads(f, scheme, {0: dests})
        rep = f.plan(scheme, 0, dests).check()
        assert (sum(load.values()), len(load)) == (rep["link_visits"], rep["used_links"]), scheme


def test_own_groups_are_seeded_and_exact():
    p = {"fabric": z.FABRIC, "group_n": 13, "seed": 9}
    a, b = z.own_groups(p, [0, 5]), z.own_groups(p, [0, 5])
    assert a == b and all(len(d) in (12, 13) and s not in d for s, d in a.items())
    assert a != z.own_groups({**p, "seed": 10}, [0, 5])


def test_descending_links():
    assert z.descends("SW<03,2>[1] -> P(030)")
    assert z.descends("SW<00,0>[3] -> SW<20,1>[3]")
    assert not z.descends("SW<20,1>[3] -> SW<00,0>[3]")
    assert not z.descends("P(000) -> SW<00,2>[1]")


# --- claim evaluators on synthetic tables --------------------------------------------------------


def fig_table(cyclic, opensm, unicast, sizes=(32, 4096), zero=(2.0, 18.0), links=(384, 168), down=1.0):
    rows = []
    for scheme, times, used in ((z.CYCLIC, cyclic, links[0]), (z.OPENSM, opensm, links[1]), (z.UNICAST, unicast, 384)):
        for b, t, zl in zip(sizes, times, zero):
            rows.append({"scheme": scheme, "bytes": b, "time_us": t, "zero_load_us": zl, "used_links": used,
                         "max_link_load": 127.0, "bound_us": t / 1.01, "descending_bottleneck": down})
    return pd.DataFrame(rows)


def status(fn, table):
    return fn(table, None).status


def test_multicast_beats_unicast():
    assert status(z.multicast_beats_unicast, fig_table((2, 20), (2, 20), (4, 200))) == HOLDS
    v = z.multicast_beats_unicast(fig_table((2, 20), (2, 21), (4, 20.5)), None)
    assert v.status == DIFFERS and "ib_opensm at 4 KiB" in v.measured


def test_cyclic_same_as_opensm_and_no_contention():
    assert status(z.cyclic_same_as_opensm, fig_table((2, 20), (2.01, 20.1), (4, 200))) == HOLDS
    assert status(z.cyclic_same_as_opensm, fig_table((2, 20), (2, 22), (4, 200))) == DIFFERS
    assert status(z.no_contention_one_source, fig_table((2, 18), (2, 18), (4, 200))) == HOLDS
    assert status(z.no_contention_one_source, fig_table((2, 36), (2, 18), (4, 200))) == DIFFERS
    assert status(z.contention_occurs, fig_table((5, 90), (5, 90), (6, 100))) == HOLDS
    assert status(z.contention_occurs, fig_table((2, 90), (5, 90), (6, 100))) == DIFFERS


def test_cyclic_against_opensm_for_small_and_whole_groups():
    assert status(z.cyclic_outperforms_opensm, fig_table((10, 100), (20, 150), (30, 300))) == HOLDS
    assert status(z.cyclic_outperforms_opensm, fig_table((10, 100), (10, 150), (30, 300))) == DIFFERS
    assert status(z.cyclic_little_better, fig_table((10, 100), (10.5, 104), (30, 300))) == HOLDS
    assert status(z.cyclic_little_better, fig_table((10, 100), (10, 101), (30, 300))) == DIFFERS  # equal at 32 B
    assert status(z.cyclic_little_better, fig_table((10, 100), (15, 101), (30, 300))) == DIFFERS  # 50% better
    assert status(z.cyclic_uses_more_links, fig_table((1, 1), (1, 1), (1, 1))) == HOLDS
    assert status(z.cyclic_uses_more_links, fig_table((1, 1), (1, 1), (1, 1), links=(168, 168))) == DIFFERS
    assert status(z.descending_congestion, fig_table((1, 1), (1, 1), (1, 1))) == HOLDS
    assert status(z.descending_congestion, fig_table((1, 1), (1, 1), (1, 1), down=0.0)) == DIFFERS


def test_speedup_grows_with_size():
    assert status(z.unicast_speedup_grows_with_size, fig_table((2, 20), (2, 20), (4, 200))) == HOLDS
    assert status(z.unicast_speedup_grows_with_size, fig_table((2, 20), (2, 20), (40, 20.1))) == DIFFERS
    one = fig_table((2,), (2,), (4,), sizes=(32,), zero=(2.0,))
    assert status(z.unicast_speedup_grows_with_size, one) == NOT_APPLICABLE


def speedup_table(speedup, unicast=None, times=None):
    """Fig. 17 table from {(senders, group): speedup}; unicast speedups and (cyclic) times likewise."""
    rows = []
    for (s, g), v in speedup.items():
        t = (times or {}).get((s, g), 100.0)
        rows.append({"senders": s, "group_pct": g, "bytes": 4096, "speedup": v,
                     "speedup_unicast": (unicast or {}).get((s, g), 2.0), "bound_speedup_own_groups": 1.5,
                     "time_cyclic_us": t, "time_opensm_us": t * v, "time_unicast_us": t * 2})
    return pd.DataFrame(rows)


def test_fig17_small_groups_and_tends_to_one():
    paper_like = speedup_table({("one", 10): 1.0, ("one", 100): 1.0, ("all", 10): 2.5, ("all", 100): 1.03})
    assert status(z.small_groups_higher_speedup, paper_like) == HOLDS
    assert status(z.speedup_tends_to_one, paper_like) == HOLDS
    flat = speedup_table({("all", 10): 1.016, ("all", 100): 1.016})
    assert status(z.small_groups_higher_speedup, flat) == DIFFERS
    assert status(z.speedup_tends_to_one, speedup_table({("all", 10): 3.0, ("all", 100): 1.5})) == DIFFERS
    assert status(z.small_groups_higher_speedup, speedup_table({("one", 10): 1.0, ("one", 100): 1.0})) == NOT_APPLICABLE


def test_fig17_all_to_many_slower_and_unicast_growth():
    t = {("40%", 10): 800.0, ("40%", 100): 800.0, ("all", 10): 2000.0, ("all", 100): 2000.0}
    sp = {k: 1.0 for k in t}
    assert status(z.all_to_many_slower, speedup_table(sp, times=t)) == HOLDS
    assert status(z.all_to_many_slower, speedup_table(sp, times={**t, ("all", 10): 700.0})) == DIFFERS
    assert status(z.all_to_many_slower, speedup_table({("all", 10): 1.0})) == NOT_APPLICABLE
    growing = {("40%", 10): 1.2, ("40%", 100): 2.5, ("all", 10): 1.5, ("all", 100): 3.0}
    assert status(z.unicast_speedup_grows, speedup_table(sp, unicast=growing)) == HOLDS
    assert status(z.unicast_speedup_grows, speedup_table(sp, unicast={**growing, ("all", 100): 1.1})) == DIFFERS


def test_nan_times_are_left_out_not_counted_as_wins():
    t = fig_table((2, math.nan), (2, 20), (4, 200))
    assert "4 KiB" not in z.multicast_beats_unicast(t, None).measured.split("unicast/ib_opensm")[0]
