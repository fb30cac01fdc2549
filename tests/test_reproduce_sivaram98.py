"""sivaram98's experiments (mcastlab.reproduce.papers.sivaram98): each runs at tiny scale, the
paper's worked example the phase count rests on, and every claim evaluator on synthetic tables
whose verdict is known."""

import math

import pandas as pd
import pytest

import mcastlab
from mcastlab.reproduce.experiment import DIFFERS, HOLDS, NOT_APPLICABLE, VERDICTS
from mcastlab.reproduce.papers import sivaram98 as S
from mcastlab.reproduce.serial import evaluate, run_serial

NI, PATH, TREE = S.NI, S.PATH, S.TREE


# -- the experiments -----------------------------------------------------------------------------


def test_one_experiment_per_result_figure():
    assert [e.key for e in S.EXPERIMENTS] == [f"sivaram98:fig{n}" for n in range(19, 29)]
    for e in S.EXPERIMENTS:
        assert e.claims and e.stated and e.pending is None
        assert set(e.replicates) == {"tiny", "quick", "full"} and e.replicates["full"] == 10  # §6.3
        assert all(s.source for s in e.stated.values())


@pytest.mark.parametrize("exp", S.EXPERIMENTS, ids=lambda e: e.key)
def test_each_experiment_runs_at_tiny_scale(exp):
    rows = run_serial(exp, "tiny", seed=3)
    assert len(rows) > 0
    assert set(exp.values) <= set(rows.columns)
    assert {"replicate", "seed", "scheme"} <= set(rows.columns)
    schemes = set(rows["scheme"])
    assert set(S.PAPER_SCHEMES) <= schemes
    if exp.run is S.run_single:
        assert schemes == set(S.SINGLE_SCHEMES)
        assert (rows["latency_cycles"] > 0).all() and (rows["phases"] >= 1).all()
        assert exp.figure.x in rows.columns and exp.figure.panel in rows.columns
    else:
        assert ((rows["saturated"] == 0) | (rows["saturated"] == 1)).all()
        assert exp.figure.panel in rows.columns and exp.figure.x in rows.columns
    table, verdicts = evaluate(exp, rows)
    # One table row per grid point and scheme: nothing in the rows splits a point's replicates.
    assert len(table) == len(rows) // exp.replicates["tiny"]
    assert len(verdicts) == len(exp.claims)
    assert all(v.status in VERDICTS and v.measured for _, v in verdicts)


def test_single_run_is_deterministic_and_its_tree_worm_takes_one_phase():
    point = {**S._single_point("tiny", 5), "replicate": 0, "seed": 11}
    a, b = S.run_single(point), S.run_single(dict(point))
    assert a == b
    tree = next(r for r in a if r["scheme"] == TREE)
    assert tree["phases"] == 1 and tree["messages"] == 1
    ni = next(r for r in a if r["scheme"] == NI)
    # n = 6 (source included), one packet: Theorem 3 gives L1 = ceil(log2 6) = 3 phases, 5 unicasts.
    assert ni["phases"] == 3 and ni["messages"] == 5


def test_params_follow_r_and_the_cycle():
    p = {"t_hs_cycles": 1000, "R": 2.0, "packet_flits": 32}
    assert S._params(p) == {"host.t_hs": "5000ns", "host.t_hr": "5000ns", "ni.t_ns": "2500ns",
                            "ni.t_nr": "2500ns", "link.mtu_bytes": "32B"}
    assert S._params({**p, "R": 5.0})["ni.t_ns"] == "1000ns"  # §6.4.1: t_ns = 200 cycles


def test_groups_are_deterministic_nested_and_exclude_the_source():
    src, g8 = S.draw_group(7, 32, 0, 8)
    src2, g16 = S.draw_group(7, 32, 0, 16)
    assert src == src2 and src not in g16 and len(set(g16)) == 16
    assert set(g8) <= set(g16)
    assert S.draw_group(7, 32, 0, 8) == (src, g8)
    assert S.draw_group(8, 32, 0, 8) != (src, g8)


def test_phases_of_sivaram98_fig8_optimal_tree():
    # Reading notes, Fig. 8: 7 destinations, 3 packets: Theorem 3's optimum is k = 2 with L1 = 4
    # steps (8 steps in all with the pipeline).
    f = mcastlab.fabric("irregular")
    p = f.plan("kbinomial", 0, list(range(1, 8)), packets=3, discipline="fpfs")
    assert "k=2" in p.scheme
    assert S.phases(p.transmissions) == 4
    assert p.steps()["completion"] == 8


def test_phases_count_a_senders_worms_one_per_phase():
    start = {"kind": "start"}
    t = [
        {"sender": 0, "trigger": start},
        {"sender": 0, "trigger": start},
        {"sender": 5, "trigger": {"kind": "after_message", "from": 0}},
        {"sender": 5, "trigger": {"kind": "after_message", "from": 0}},
        {"sender": 9, "trigger": {"kind": "after_message", "from": 3}},
    ]
    # source: phases 1, 2; node 5 (reached in phase 1): 2, 3; node 9 (reached in phase 3): 4.
    assert S.phases(t) == 4
    assert S.phases([]) == 0


# -- single-multicast claim evaluators ----------------------------------------------------------


def single_table(lat, panel="R", phases=None, messages=None):
    """A table from {scheme: {(panel value, destinations): latency}}."""
    rows = []
    for scheme, pts in lat.items():
        for (v, d), x in pts.items():
            rows.append({panel: v, "destinations": d, "scheme": scheme, "latency_cycles": float(x),
                         "phases": float((phases or {}).get(scheme, {}).get((v, d), 1)),
                         "messages": float((messages or {}).get(scheme, {}).get((v, d), 1))})
    return pd.DataFrame(rows)


def grid(fn, values=(1, 2), dests=(2, 8)):
    return {(v, d): fn(v, d) for v in values for d in dests}


def test_best_everywhere():
    good = single_table({TREE: grid(lambda v, d: 10), NI: grid(lambda v, d: 20), PATH: grid(lambda v, d: 10.01)})
    assert S.best_everywhere(good, None, best=TREE, others=(NI, PATH), keys=("R", "destinations"), paper="").status == HOLDS
    bad = single_table({TREE: grid(lambda v, d: 10), NI: grid(lambda v, d: 20 if d > 2 else 9), PATH: grid(lambda v, d: 30)})
    v = S.best_everywhere(bad, None, best=TREE, others=(NI, PATH), keys=("R", "destinations"), paper="")
    assert v.status == DIFFERS and "2 of 4" in v.measured
    assert S.best_everywhere(bad[bad.scheme != NI], None, best=TREE, others=(NI, PATH), keys=("R",), paper="").status == NOT_APPLICABLE


def test_crossover_and_ratio_trend():
    def tab(ratio):
        return single_table({NI: grid(lambda v, d: 100 * ratio[v], values=tuple(ratio)), PATH: grid(lambda v, d: 100, values=tuple(ratio))})

    assert S.crossover(tab({0.5: 1.5, 1: 1.2, 5: 0.8}), None, panel="R", name="R", paper="").status == HOLDS
    assert S.crossover(tab({0.5: 1.5, 1: 1.2, 5: 1.1}), None, panel="R", name="R", paper="").status == DIFFERS
    assert S.crossover(tab({0.5: 1.5, 1: 0.8, 5: 0.9}), None, panel="R", name="R", paper="").status == DIFFERS
    assert S.crossover(tab({1: 1.5}), None, panel="R", name="R", paper="").status == NOT_APPLICABLE
    assert S.ratio_trend(tab({32: 1.1, 64: 1.2, 128: 1.3}), None, panel="R", name="p", paper="").status == HOLDS
    assert S.ratio_trend(tab({32: 1.5, 64: 1.4, 128: 1.3}), None, panel="R", name="p", paper="").status == DIFFERS
    # `only` keeps the rows of one configuration: a second message length flips the trend.
    t = tab({32: 1.1, 128: 1.3}).assign(message_flits=128)
    other = tab({32: 9.0, 128: 0.1}).assign(message_flits=512)
    both = pd.concat([t, other])
    assert S.ratio_trend(both, None, panel="R", name="p", paper="", only=("message_flits", 128)).status == HOLDS
    assert S.ratio_trend(both, None, panel="R", name="p", paper="", only=("message_flits", 512)).status == DIFFERS


def test_single_multicasts_ignore_one_destination_in_ratios():
    # With one destination NI and path send one message each; only groups of 2+ decide.
    t = single_table({NI: {(0.5, 1): 50, (0.5, 4): 150, (5, 1): 500, (5, 4): 80},
                      PATH: {(0.5, 1): 100, (0.5, 4): 100, (5, 1): 100, (5, 4): 100}})
    assert S.crossover(t, None, panel="R", name="R", paper="").status == HOLDS


def test_spread_grows_and_faster_growth():
    flat = single_table({TREE: grid(lambda v, d: 100 + v)}, panel="endpoints")
    assert S.spread(flat, None, scheme=TREE, panel="endpoints", limit=0.05, paper="").status == HOLDS
    steep = single_table({TREE: grid(lambda v, d: 100 * v)}, panel="endpoints")
    assert S.spread(steep, None, scheme=TREE, panel="endpoints", limit=0.05, paper="").status == DIFFERS

    up = single_table({PATH: grid(lambda v, d: d * v, values=(32, 64, 128))}, panel="endpoints")
    assert S.grows(up, None, scheme=PATH, panel="endpoints", value="latency_cycles", paper="").status == HOLDS
    assert S.grows(up, None, scheme=PATH, panel="endpoints", value="latency_cycles", paper="", falling=True).status == DIFFERS
    # A dip in the middle is still a rising trend, and is said to be one.
    dip = single_table({PATH: grid(lambda v, d: {32: 10, 64: 30, 128: 25, 256: 40}[v], values=(32, 64, 128, 256))}, panel="endpoints")
    v = S.grows(dip, None, scheme=PATH, panel="endpoints", value="latency_cycles", paper="")
    assert v.status == HOLDS and "not every step" in v.measured
    down = single_table({PATH: grid(lambda v, d: {32: 40, 64: 10, 128: 30}[v], values=(32, 64, 128))}, panel="endpoints")
    assert S.grows(down, None, scheme=PATH, panel="endpoints", value="latency_cycles", paper="").status == DIFFERS

    both = single_table({PATH: grid(lambda v, d: 100 * (1 + v / 100), values=(32, 256)),
                         NI: grid(lambda v, d: 100, values=(32, 256))}, panel="endpoints")
    assert S.faster_growth(both, None, a=PATH, b=NI, panel="endpoints", paper="").status == HOLDS
    assert S.faster_growth(both, None, a=NI, b=PATH, panel="endpoints", paper="").status == DIFFERS


def test_never_worse_better_on_average_and_more_value():
    t = single_table({PATH: grid(lambda v, d: 90), S.SSR_LG: grid(lambda v, d: 100)})
    assert S.never_worse(t, None, a=PATH, b=S.SSR_LG, keys=("R", "destinations"), paper="").status == HOLDS
    assert S.never_worse(t, None, a=S.SSR_LG, b=PATH, keys=("R", "destinations"), paper="").status == DIFFERS
    assert S.better_on_average(t, None, a=PATH, b=S.SSR_LG, keys=("R", "destinations"), paper="").status == HOLDS
    tie = single_table({PATH: grid(lambda v, d: 100), S.PATH_GREEDY: grid(lambda v, d: 100)})
    assert S.better_on_average(tie, None, a=PATH, b=S.PATH_GREEDY, keys=("R", "destinations"), paper="").status == DIFFERS
    ph = single_table({NI: grid(lambda v, d: 1), PATH: grid(lambda v, d: 1)},
                      phases={NI: grid(lambda v, d: 5), PATH: grid(lambda v, d: 2 if d > 2 else 5)})
    # More at 2 of 4 points, as many at the others: not "more" in general.
    v = S.more_value(ph, None, a=NI, b=PATH, value="phases", paper="")
    assert v.status == DIFFERS and "more phases than path-based at 2, as many at 2" in v.measured
    ph2 = single_table({NI: grid(lambda v, d: 1, dests=(2, 8, 16)), PATH: grid(lambda v, d: 1, dests=(2, 8, 16))},
                       phases={NI: grid(lambda v, d: 5, dests=(2, 8, 16)), PATH: grid(lambda v, d: 5 if d == 2 else 2, dests=(2, 8, 16))})
    assert S.more_value(ph2, None, a=NI, b=PATH, value="phases", paper="").status == HOLDS
    ph3 = single_table({NI: grid(lambda v, d: 1, dests=(2, 8, 16)), PATH: grid(lambda v, d: 1, dests=(2, 8, 16))},
                       phases={NI: grid(lambda v, d: 5, dests=(2, 8, 16)), PATH: grid(lambda v, d: 6 if d == 2 else 2, dests=(2, 8, 16))})
    assert S.more_value(ph3, None, a=NI, b=PATH, value="phases", paper="").status == DIFFERS


def test_same_ranking_and_equal_at():
    same = single_table({TREE: grid(lambda v, d: 1 * v), PATH: grid(lambda v, d: 2 * v), NI: grid(lambda v, d: 3 * v)}, panel="t_hs_cycles")
    assert S.same_ranking(same, None, panel="t_hs_cycles", paper="").status == HOLDS
    swap = single_table({TREE: grid(lambda v, d: 1), PATH: grid(lambda v, d: 2 if v == 1 else 4), NI: grid(lambda v, d: 3)}, panel="t_hs_cycles")
    assert S.same_ranking(swap, None, panel="t_hs_cycles", paper="").status == DIFFERS

    eq = single_table({PATH: grid(lambda v, d: 100, values=(8, 32)), TREE: grid(lambda v, d: 100, values=(8, 32))}, panel="ports",
                      messages={PATH: grid(lambda v, d: 1 if v == 32 else 3, values=(8, 32))})
    assert S.equal_at(eq, None, a=PATH, b=TREE, panel="ports", at=32, paper="").status == HOLDS
    assert S.equal_at(eq, None, a=PATH, b=TREE, panel="ports", at=8, paper="").status == DIFFERS
    assert S.equal_at(eq, None, a=PATH, b=TREE, panel="ports", at=16, paper="").status == NOT_APPLICABLE


def test_similar_ratio():
    def rows(cfgs):
        out = []
        for (m, p), r in cfgs.items():
            for d in (2, 8):
                out.append({"message_flits": m, "packet_flits": p, "destinations": d, "scheme": NI, "latency_cycles": 100 * r})
                out.append({"message_flits": m, "packet_flits": p, "destinations": d, "scheme": PATH, "latency_cycles": 100})
        return pd.DataFrame(out)

    near = rows({(128, 32): 1.0, (512, 128): 0.98, (128, 128): 1.3})
    assert S.similar_ratio(near, None, target=(128, 32), near=(512, 128), far=(128, 128), paper="").status == HOLDS
    far = rows({(128, 32): 1.3, (512, 128): 0.9, (128, 128): 1.28})
    assert S.similar_ratio(far, None, target=(128, 32), near=(512, 128), far=(128, 128), paper="").status == DIFFERS


# -- load claim evaluators ----------------------------------------------------------------------


def load_table(curves, key="R", traffic=None, loads=(0.01, 0.02, 0.03, 0.04)):
    """A load table from {(key value, degree): {scheme: (saturation load or None, latency at load)}}.
    Latency is NaN from the saturation load on."""
    rows = []
    for (v, degree), schemes in curves.items():
        for scheme, (sat, lat) in schemes.items():
            for load in loads:
                s = sat is not None and load >= sat
                rows.append({key: v, "degree": degree, "panel": f"{key} {v}, {degree}-way", "scheme": scheme,
                             "load": load, "saturated": 1.0 if s else 0.0,
                             "latency_cycles": math.nan if s else lat * (1 + load),
                             "latency_any_cycles": lat * (1 + load),
                             "accepted_load": load,
                             "flit_hops_per_multicast": (traffic or {}).get(scheme, 100.0)})
    return pd.DataFrame(rows)


def test_saturation_loads_and_sustained():
    t = load_table({(1, 3): {NI: (0.02, 300), PATH: (0.03, 200), TREE: (None, 100)}})
    assert S.saturation_loads(t)[("R 1, 3-way", NI)] == 0.02
    assert math.isinf(S.saturation_loads(t)[("R 1, 3-way", TREE)])
    assert S.sustained(t)[("R 1, 3-way", NI)] == 0.01 and S.sustained(t)[("R 1, 3-way", TREE)] == 0.04
    assert S.sustained(load_table({(1, 3): {NI: (0.01, 1)}}))[("R 1, 3-way", NI)] == 0.0


def test_load_order_and_ni_near_tree():
    good = load_table({(1, 3): {NI: (0.02, 300), PATH: (0.03, 200), TREE: (None, 100)},
                       (5, 3): {NI: (0.04, 120), PATH: (0.02, 300), TREE: (0.04, 100)}})
    low = dict(key="R", cond=lambda r: r <= 1, order=(TREE, PATH, NI), paper="")
    assert S.load_order(good, None, **low).status == HOLDS
    assert S.ni_near_tree(good, None, key="R", cond=lambda r: r > 1, paper="").status == HOLDS
    # NI better than path at R = 1: the order differs; NI far from tree at R = 5: differs too.
    bad = load_table({(1, 3): {NI: (0.03, 150), PATH: (0.02, 200), TREE: (None, 100)},
                      (5, 3): {NI: (0.04, 250), PATH: (0.02, 300), TREE: (0.04, 100)}})
    assert S.load_order(bad, None, **low).status == DIFFERS
    assert S.ni_near_tree(bad, None, key="R", cond=lambda r: r > 1, paper="").status == DIFFERS
    assert S.ni_near_tree(good, None, key="R", cond=lambda r: r > 9, paper="").status == NOT_APPLICABLE


def test_tree_saturates_last():
    good = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.03, 200), TREE: (None, 100)}}, key="switches")
    assert S.tree_saturates_last(good, None, paper="").status == HOLDS
    tie = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.03, 200), TREE: (0.03, 100)}}, key="switches")
    assert S.tree_saturates_last(tie, None, paper="").status == DIFFERS
    none = load_table({(8, 3): {NI: (None, 300), PATH: (None, 200), TREE: (None, 100)}}, key="switches")
    assert S.tree_saturates_last(none, None, paper="").status == NOT_APPLICABLE


def test_path_trend_and_gap_closes():
    good = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.04, 200), TREE: (None, 100)},
                       (32, 3): {NI: (0.02, 300), PATH: (0.03, 250), TREE: (None, 100)}}, key="switches")
    assert S.path_trend(good, None, key="switches", paper="").status == HOLDS
    assert S.gap_closes(good, None, key="switches", a=PATH, b=NI, paper="").status == HOLDS
    bad = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.03, 250), TREE: (None, 100)},
                      (32, 3): {NI: (0.02, 300), PATH: (0.04, 200), TREE: (None, 100)}}, key="switches")
    assert S.path_trend(bad, None, key="switches", paper="").status == DIFFERS
    assert S.gap_closes(bad, None, key="switches", a=PATH, b=NI, paper="").status == DIFFERS
    # The same gap in grid steps at both ends (0.07 − 0.06 and 0.06 − 0.05 in floating point): not closer.
    same = load_table({(8, 3): {NI: (0.06, 300), PATH: (0.07, 250)}, (32, 3): {NI: (0.07, 300), PATH: (0.08, 250)}},
                      key="switches", loads=(0.05, 0.06, 0.07, 0.08))
    assert S.gap_closes(same, None, key="switches", a=PATH, b=NI, paper="").status == DIFFERS
    one = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.03, 250), TREE: (None, 100)}}, key="switches")
    assert S.path_trend(one, None, key="switches", paper="").status == NOT_APPLICABLE
    assert S.gap_closes(one, None, key="switches", a=PATH, b=NI, paper="").status == NOT_APPLICABLE


def test_traffic_worse_at_and_convergence():
    t = load_table({(128, 3): {NI: (None, 300), PATH: (None, 100), TREE: (None, 50)},
                    (1024, 3): {NI: (0.02, 400), PATH: (0.03, 350), TREE: (None, 100)},
                    (1024, 15): {NI: (0.02, 800), PATH: (0.04, 400), TREE: (None, 100)}},
                   key="message_flits", traffic={NI: 150.0, PATH: 100.0})
    assert S.more_traffic(t, None, a=NI, b=PATH, paper="").status == HOLDS
    assert S.more_traffic(t, None, a=PATH, b=NI, paper="").status == DIFFERS
    assert S.worse_at(t, None, key="message_flits", at=1024, a=NI, b=PATH, paper="").status == HOLDS
    assert S.worse_at(t, None, key="message_flits", at=1024, a=PATH, b=NI, paper="").status == DIFFERS
    assert S.worse_at(t, None, key="message_flits", at=512, a=NI, b=PATH, paper="").status == NOT_APPLICABLE
    # Worse at both degrees, but not more so at 15-way: differs.
    flat = load_table({(1024, 3): {NI: (0.02, 800), PATH: (0.03, 400)}, (1024, 15): {NI: (0.02, 500), PATH: (0.04, 400)}},
                      key="message_flits")
    v = S.worse_at(flat, None, key="message_flits", at=1024, a=NI, b=PATH, paper="")
    assert v.status == DIFFERS and "not wider" in v.measured
    # 3-way: NI/path 3.0 at 128 flits, 1.14 at 1024: they converge.
    assert S.ni_path_converge(t, None, key="message_flits", paper="").status == HOLDS
    apart = load_table({(128, 3): {NI: (None, 110), PATH: (None, 100)}, (1024, 3): {NI: (None, 300), PATH: (None, 100)}},
                       key="message_flits")
    assert S.ni_path_converge(apart, None, key="message_flits", paper="").status == DIFFERS


def test_saturation_anomalies_are_named_in_load_verdicts():
    t = load_table({(8, 3): {NI: (0.02, 300), PATH: (0.03, 200), TREE: (None, 100)}}, key="switches")
    rows = t.assign(replicate=0)
    assert S.saturation_anomalies(rows) == []
    flaky = rows.copy()
    hit = (flaky.scheme == TREE) & (flaky.load == 0.02)
    flaky.loc[hit, "saturated"] = 1.0
    found = S.saturation_anomalies(flaky)
    assert found == [f"switches 8, 3-way, {TREE}, replicate 0: saturated at 0.02, not at 0.04"]
    v = S.noted(t, flaky, evaluate=lambda table, r: S.tree_saturates_last(table, r, paper=""))
    assert "non-monotone saturation flags (1)" in v.measured


def test_few_long_messages_are_not_called_saturated_by_chance():
    """Issue 10's case: Fig. 26, R = 1, 15-way path-based multicasts, replicate 1 of the quick
    scale, was called saturated at load 0.02 (2 unfinished messages at the window's start, 11 at
    its end) but not at 0.03 or 0.04. With the backlog's noise allowed for, the verdicts along the
    curve are monotone: stable up to a load, saturated from there on, and a clearly saturated load
    is still caught."""
    exp = next(e for e in S.EXPERIMENTS if e.key == "sivaram98:fig26")
    points = [p for p in exp.points("quick", 1)
              if p["degree"] == 15 and p["R"] == 1 and p["replicate"] == 1 and "path" in str(p["scheme"]).lower()]
    points.sort(key=lambda p: p["load"])
    flags = [(p["load"], exp.run(p)[0]["saturated"]) for p in points if p["load"] <= 0.08]
    assert [load for load, _ in flags][:4] == [0.01, 0.02, 0.03, 0.04], flags
    sat = [s for _, s in flags]
    assert sat[:4] == [0.0, 0.0, 0.0, 0.0], flags
    first = sat.index(1.0)
    assert all(s == 1.0 for s in sat[first:]), flags
