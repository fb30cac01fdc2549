"""oral's metrics in the plan check, seen from Python and the CLI (issue 9): link utilization and
concurrency (oral §4.5), tree-creation work (§4.4) and separate addressing's network
pipelining (§4.1).

The group used throughout is torus:4x4, source n(0,0) (endpoint 0) and destinations 1, 3, 4, 5:
under dimension-order routing no route has a tie between the two ways round a ring, so the paths
are fixed and can be counted by hand."""

import pytest

import mcastlab
from mcastlab import PlanError
from mcastlab.cli import main

DESTS = [1, 3, 4, 5]


@pytest.fixture(scope="module")
def torus():
    return mcastlab.fabric("torus:4x4")


def test_separate_addressing_by_hand(torus):
    rep = torus.plan("separate", 0, DESTS).check()
    # 0→1 s0→s1, 0→3 s0→s3, 0→4 s0→s4, 0→5 s0→s1→s5: 5 visits over 4 switch channels.
    assert (rep["oral_link_visits"], rep["oral_used_links"]) == (5, 4)
    assert rep["oral_link_utilization"] == 1.25
    # Endpoint links counted too: 13 visits over 9 of the fabric's 48 links.
    assert (rep["link_visits"], rep["used_links"]) == (13, 9)
    assert rep["fabric_link_fraction"] == pytest.approx(9 / 48)
    assert "link_utilization" not in rep
    # One transfer per step, four steps.
    assert (rep["max_concurrency"], rep["mean_concurrency"]) == (1, 1.0)
    # Tree creation: sort 5 members (5·3 comparisons) and rotate them (5); no partitioning.
    c = rep["creation"]
    assert (c["ordering_ops"], c["partitioning_ops"], c["operations"]) == (20, 0, 20)


def test_binomial_tree_by_hand(torus):
    rep = torus.plan("binomial", 0, DESTS).check(ns_per_op=10)
    # 0→5 s0→s1→s5, 0→3 s0→s3, 0→1 s0→s1, then 3→4 s3→s0→s4: 6 visits, 5 distinct channels.
    assert (rep["oral_link_visits"], rep["oral_used_links"]) == (6, 5)
    assert rep["oral_link_utilization"] == pytest.approx(1.2)
    # Steps 1, 2, 3 from the source, 3→4 in step 3 as well: in flight 1, 1, 2.
    assert rep["steps"] == 3
    assert rep["max_concurrency"] == 2 and rep["mean_concurrency"] == pytest.approx(4 / 3)
    # Ordering 20, then the subsets handed down: depths 1+1+1+2 = 5; 25 ops at 10 ns.
    assert rep["creation"]["operations"] == 25
    assert rep["creation"]["latency_ns"] == 250.0


def test_fpfs_keeps_every_transfer_in_flight(torus):
    # Two packets: FPFS interleaves them (spans [1,5] .. [4,8]); FCFS sends one message at a time.
    fpfs = torus.plan("separate", 0, DESTS, packets=2).check()
    fcfs = torus.plan("separate", 0, DESTS, packets=2, discipline="fcfs").check()
    assert (fpfs["max_concurrency"], fpfs["mean_concurrency"]) == (4, 2.5)
    assert (fcfs["max_concurrency"], fcfs["mean_concurrency"]) == (1, 1.0)
    # oral counts messages, not packets.
    assert fpfs["oral_link_visits"] == 5 and fpfs["link_visits"] == 26


def test_creation_is_reported_only_where_modelled(torus):
    assert torus.plan("utorus", 0, list(range(1, 16))).check()["creation"]["operations"] == 80 + 32
    f = mcastlab.fabric("mport_ntree:m=4,n=2")
    assert f.plan("ib_opensm", 0, [1, 2, 3]).check()["creation"] is None


def test_pipelining_changes_the_simulated_time(torus):
    dests = list(range(1, 16))
    on = torus.plan("separate:pipelined=true", 0, dests)
    off = torus.plan("separate:pipelined=false", 0, dests)
    assert (on.data["discipline"], off.data["discipline"]) == ("ni_fpfs", "host")
    a = on.simulate(size=64, preset="oral")["completion_ps"]
    b = off.simulate(size=64, preset="oral")["completion_ps"]
    assert a < b
    with pytest.raises(PlanError, match="pipelined=true"):
        torus.plan("separate:pipelined=true", 0, dests, discipline="host")


def test_cli_prints_the_metrics(capsys):
    assert main(["plan", "torus:4x4", "--scheme", "binomial", "--src", "0", "--dests", "1,3,4,5", "--ns-per-op", "10"]) == 0
    out = capsys.readouterr().out
    assert "6 message visits over 5 switch channels, utilization 1.20" in out
    assert "max 2, mean 1.33 transfers in flight per step" in out
    assert "25 operations (20 ordering + 5 partitioning) = 0.250 us at 10 ns/op" in out

