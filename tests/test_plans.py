"""Multicast plans from Python and the CLI (issue 3, first part: unicast-based trees)."""

import json

import pytest

import mcastlab
from mcastlab import PlanError, SpecError
from mcastlab.cli import main

from conftest import assert_one_error_line, assert_svg


def test_fig7_and_fig8_from_python():
    f = mcastlab.fabric()
    assert mcastlab.plan(f, "binomial", 0, [1, 2, 3], packets=3).check()["steps"] == 6
    assert mcastlab.plan(f, "chain", 0, [1, 2, 3], packets=3).check()["steps"] == 5
    assert mcastlab.plan(f, "binomial", 0, list(range(1, 8)), packets=3).check()["steps"] == 9
    assert mcastlab.kbinomial_optimal(8, 3) == {"k": 2, "L1": 4, "steps": 8}
    assert [mcastlab.kbinomial_covered(s, 2) for s in range(7)] == [1, 2, 4, 7, 12, 20, 33]


def test_plan_report_and_round_trip(tmp_path):
    f = mcastlab.fabric("torus:4x4")
    p = f.plan("kbinomial", "n(0,0)", list(range(1, 16)), packets=4)
    rep = p.check()
    assert rep["ok"] and rep["exactly_once"] and rep["conforms"]
    assert rep["messages"] == 15 and rep["packets_sent"] == 60
    # The dimension-ordered chain keeps the tree contention-free under DOR.
    assert rep["max_step_contention"] == 1
    path = tmp_path / "p.json"
    p.save(path)
    q = f.load_plan(path)
    assert q.to_json() == p.to_json()
    assert q.steps()["completion"] == rep["steps"]


def test_user_written_tree_is_checked_like_a_scheme():
    f = mcastlab.fabric("mesh:3x3")
    tx = [
        {"sender": 0, "trigger": {"kind": "start"}, "carrier": {"kind": "unicast", "dst": "n(2,2)"}, "delivers": ["n(2,2)"]},
        {"sender": 0, "trigger": {"kind": "start"}, "carrier": {"kind": "unicast", "dst": 1}, "delivers": [1]},
        {"sender": "n(2,2)", "trigger": {"kind": "per_packet", "from": 0}, "carrier": {"kind": "unicast", "dst": 1}, "delivers": [1]},
    ]
    p = mcastlab.Plan.from_transmissions(f, 0, [1, 8, 4], tx)
    rep = p.check()
    assert not rep["ok"]
    assert rep["duplicates"] == [["n(1,0)", 2]] and rep["missing"] == ["n(1,1)"]
    with pytest.raises(PlanError, match="does not deliver to it"):
        # n(2,2) forwards transmission 0, which went to n(1,0), not to it.
        mcastlab.Plan.from_transmissions(f, 0, [1, 8], [tx[1], tx[2] | {"carrier": {"kind": "unicast", "dst": 8}, "delivers": [8]}])
    with pytest.raises(PlanError, match="does not come before it"):
        mcastlab.Plan.from_transmissions(f, 0, [1], [tx[2]])


def test_random_groups_are_deterministic():
    f = mcastlab.fabric("irregular")
    a = f.random_group(0, 40, seed=3)
    assert a == f.random_group(0, 40, seed=3)
    assert a != f.random_group(0, 40, seed=4)
    assert len(a) == round(31 * 0.4) and 0 not in a


@pytest.mark.parametrize(
    "args, exc, text",
    [
        (("binomial", 0, []), PlanError, "empty"),
        (("binomial", 0, [0, 1]), PlanError, "source"),
        (("binomial", 0, [1, 1]), PlanError, "twice"),
        (("nosuch", 0, [1]), SpecError, "unknown scheme"),
        (("kbinomial:k=0", 0, [1]), PlanError, "k"),
    ],
)
def test_bad_plans(args, exc, text):
    with pytest.raises(exc, match=text):
        mcastlab.fabric().plan(*args)


def test_cli_plan_check_and_table(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["plan", "irregular", "--scheme", "kbinomial", "--src", "0", "--dests", "1-7", "-m", "3", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "steps           8 (source fan-out 2)" in text and "exactly once    yes" in text
    assert main(["check", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 8
    assert main(["kbinomial-table", "--n", "8", "--m", "3"]) == 0
    assert "8  3          2   4          8         9" in capsys.readouterr().out
    assert main(["list", "schemes"]) == 0
    assert "kbinomial" in capsys.readouterr().out


def test_torus_path_worms_and_their_drawing(tmp_path):
    f = mcastlab.fabric("torus:4x4")
    dests = [1, 2, 4, 7, 9, 12, 13, 14, 15]
    sci = f.plan("mutorus:r=4,variant=sci", 5, dests).check()
    worm = f.plan("mutorus:r=4,variant=worm", 5, dests)
    rep = worm.check()
    assert rep["exactly_once"] and rep["worms"] > 0 and rep["messages"] < sci["messages"]
    trees = worm.trees()
    assert len(trees) == rep["messages"]
    # Every destination is reached by exactly one carrier, and the channels add up to the visits.
    assert sorted(e for t in trees for e in t["reached"]) == sorted(dests)
    assert sum(len(t["channels"]) for t in trees) == rep["link_visits"]
    svg = tmp_path / "plan.svg"
    worm.draw(svg)
    assert "mutorus" in assert_svg(svg)


def test_user_written_mft_multicast(tmp_path):
    f = mcastlab.fabric("irregular")
    s, src_port = f.attachment(0)
    # Endpoints are numbered switch by switch: 1 and 2 share the source's switch.
    assert f.attachment(1)[0] == s and f.attachment(2)[0] == s
    p = f.attachment(1)[1]
    tx = [{"sender": 0, "trigger": {"kind": "start"}, "carrier": {"kind": "mft", "mlid": 49152}, "delivers": [1]}]
    state = {"mft": [{"mlid": 49152, "switch": s, "ports": [src_port, p]}]}
    rep = mcastlab.Plan.from_transmissions(f, 0, [1], tx, switch_state=state).check()
    assert rep["ok"] and rep["hardware_multicasts"] == 1
    # An MFT that also floods a second endpoint delivers where the plan does not say.
    state2 = {"mft": [{"mlid": 49152, "switch": s, "ports": [src_port, p, f.attachment(2)[1]]}]}
    rep2 = mcastlab.Plan.from_transmissions(f, 0, [1], tx, switch_state=state2).check()
    assert not rep2["ok"] and rep2["extra"] and rep2["problems"]


def test_cli_plan_svg(tmp_path, capsys):
    svg = tmp_path / "p.svg"
    assert main(["plan", "torus:4x4", "--scheme", "storus:variant=worm", "--src", "5", "--group", "60%", "--seed", "1", "--svg", str(svg)]) == 1
    out = capsys.readouterr().out
    # The worm leaves dimension order: the CLI says so and shows the cycle, exit 1.
    assert "conforms        NO" in out and "cycle " in out
    assert svg.exists()


def test_zhou07_fig7_mft_from_python_and_cli(tmp_path, capsys):
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    dests = ["P(200)", "P(201)", "P(210)", "P(211)"]
    p = f.plan("ib_cyclic", "P(000)", dests)
    rep = p.check()
    assert rep["ok"] and rep["hardware_multicasts"] == 1 and rep["steps"] == 1
    rows = {f.switches[e["switch"]]["name"]: e["ports"] for e in p.data["switch_state"]["mft"]}
    assert rows == {
        "SW<00,2>": [3], "SW<00,1>": [3], "SW<00,0>": [3],
        "SW<20,1>": [1, 2], "SW<20,2>": [1, 2], "SW<21,2>": [1, 2],
    }
    dump = p.mft_dump()
    assert dump.count("Switch 0x") == 6 and "0xC000 : 0x001  0x002" in dump
    out = tmp_path / "mcfdbs"
    assert main(["plan", "mport_ntree:m=4,n=3", "--scheme", "ib_opensm", "--src", "P(000)",
                 "--dests", ",".join(dests), "--mft-dump", str(out)]) == 0
    assert "hardware multicasts" in capsys.readouterr().out and out.read_text().strip()


def test_switch_based_worm_schemes_from_python():
    f = mcastlab.fabric("irregular:switches=16,ports=8,endpoints=48,seed=5")
    dests = f.random_group(0, 50, seed=2)
    ssr = f.plan("ssr", 0, dests, discipline="host").check()
    md = f.plan("multidrop:schedule=less_greedy", 0, dests, discipline="host").check()
    bs = f.plan("bitstring", 0, dests).check()
    for rep in (ssr, md, bs):
        assert rep["ok"], rep
    assert md["worms"] <= ssr["worms"]
    assert bs["messages"] == 1 and bs["steps"] == 1
    assert f.plan("kbinomial:order=poc", 0, dests, packets=4).check()["ok"]


def test_qs_table_reproduces_its_rows_and_counts_every_trial():
    rows = mcastlab.qs_table(sizes=[64, 256], fault_percents=[5.0], trials=50, seed=3)
    assert [(r["size"], r["fault_percent"]) for r in rows] == [(64, 5.0), (256, 5.0)]
    for r in rows:
        assert sum(n for _, n in r["optimal"]) == r["trials"] == 50
        assert sum(n for _, n in r["greedy"]) == 50
        # Greedy is never shallower than the optimum.
        assert min(d for d, _ in r["greedy"]) >= min(d for d, _ in r["optimal"])
        assert 0 <= r["greedy_optimal"] <= 50
    assert rows == mcastlab.qs_table(sizes=[64, 256], fault_percents=[5.0], trials=50, seed=3)
    assert rows[1]["faulty"] == 13  # round(5% of 256)


def test_qs_table_rejects_bad_options():
    with pytest.raises(mcastlab.PlanError, match="trials"):
        mcastlab.qs_table(sizes=[64], fault_percents=[1.0], trials=0)
    with pytest.raises(mcastlab.PlanError, match="fault_percents"):
        mcastlab.qs_table(sizes=[64], fault_percents=[100.0], trials=1)
    with pytest.raises(mcastlab.PlanError, match="preset"):
        mcastlab.qs_table("table9")


def test_cli_qs_table_prints_the_table_with_its_seed(capsys):
    assert main(["qs-table", "--sizes", "64", "--faulty", "1,5", "--trials", "40", "--seed", "9"]) == 0
    out = capsys.readouterr().out
    assert "40 trials per row, seed 9" in out
    assert "greedy as shallow as optimal in" in out and "of 80 trials" in out
    assert main(["qs-table", "--sizes", "64", "--faulty", "1", "--trials", "40", "--seed", "9", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == mcastlab.qs_table(sizes=[64], fault_percents=[1.0], trials=40, seed=9)
    assert main(["qs-table", "--trials", "0"]) == 2
    assert_one_error_line(capsys.readouterr().err, "trials")


def test_a_plan_matches_its_fabric_by_canonical_spec(tmp_path):
    """A plan recording `mesh:3x3` was refused on the fabric `mesh:dims=3x3` (text compared)."""
    f = mcastlab.fabric("mesh:3x3")
    path = tmp_path / "p.json"
    f.plan("binomial", 0, [1, 2, 3]).save(path)
    data = json.loads(path.read_text())
    data["fabric"] = "mesh:3x3"
    path.write_text(json.dumps(data))
    assert f.load_plan(path).scheme.startswith("binomial")
    data["fabric"] = "mesh:4x4"
    path.write_text(json.dumps(data))
    with pytest.raises(mcastlab.PlanError, match="plan was built for fabric `mesh:4x4`"):
        f.load_plan(path)
