"""Workloads over time and load sweeps from Python and the CLI (issue 4)."""

import json

import pandas as pd
import pytest

import mcastlab
from mcastlab import SimError
from mcastlab.cli import main

from conftest import assert_one_error_line, assert_svg, read_rows


# A BookSim-like router on sivaram98's clock: no software overheads, 8-flit packets, 2 VCs.
ROUTER = {
    "host.t_hs": "0ns",
    "host.t_hr": "0ns",
    "ni.t_ns": "0ns",
    "ni.t_nr": "0ns",
    "ni.dma_bandwidth": "inf",
    "switch.vcs": 2,
    "link.mtu_bytes": 8,
}
SHORT = {"batch": "1000cycles", "batches": 3}
CLI_ROUTER = [x for k, v in ROUTER.items() for x in ("--param", f"{k}={v}")]


def test_a_workload_run_conserves_every_copy_and_is_reproducible():
    f = mcastlab.fabric("mesh:4x4")
    a = mcastlab.run_workload(f, "multicast_load:degree=3,scheme=kbinomial", load=0.05, params=ROUTER, measure=SHORT, seed=4)
    run = a["run"]
    assert run["outcome"]["kind"] == "drained" and not a["interrupted"]
    assert run["messages"] > 0 and run["messages_finished"] == run["messages"]
    assert run["copies_delivered"] == run["copies_expected"] == 3 * run["messages"]
    assert (run["copies_duplicated"], run["copies_missing"], run["in_flight_packets"]) == (0, 0, 0)
    assert run["seed"] == 4 and run["params"]["switch"]["vcs"] == 2
    assert a == mcastlab.run_workload(f, "multicast_load:degree=3,scheme=kbinomial", load=0.05, params=ROUTER, measure=SHORT, seed=4)
    b = mcastlab.run_workload(f, "multicast_load:degree=3,scheme=kbinomial", load=0.05, params=ROUTER, measure=SHORT, seed=5)
    assert b["run"]["latency_mean_ps"] != run["latency_mean_ps"]
    # simulate() dispatches a workload spec to the same run.
    assert mcastlab.simulate(f, "multicast_load:degree=3,scheme=kbinomial", load=0.05, params=ROUTER, measure=SHORT, seed=4) == a


def test_detail_keeps_one_row_per_message_and_destination():
    f = mcastlab.fabric("mesh:4x4")
    r = mcastlab.run_workload(f, "blast:count=5,scheme=binomial", params=ROUTER, measure={"detail": "destinations"})
    assert len(r["samples"]) == 5 and all(s["delivered"] == 15 for s in r["samples"])
    assert len(r["destinations"]) == 5 * 15
    last = {s["serial"]: s["latency_ps"] for s in r["samples"]}
    for serial, lat in last.items():
        assert lat == max(d["latency_ps"] for d in r["destinations"] if d["serial"] == serial)


def test_a_sweep_is_one_row_per_load_in_order_and_finds_saturation():
    f = mcastlab.fabric("mesh:4x4")
    loads = [0.1, 0.4, 0.95]
    df = mcastlab.sweep(f, "uniform", loads, params=ROUTER, measure=SHORT)
    assert isinstance(df, pd.DataFrame)
    assert list(df["offered_load"]) == loads
    lat = list(df["latency_mean_us"])
    assert lat[0] < lat[1]
    # Far above what a 4x4 mesh with DOR can carry (bisection: 0.5 flits/cycle/endpoint).
    assert bool(df["saturated"].iloc[2]) and not bool(df["saturated"].iloc[0])
    # Each point is the run of that load on its own.
    alone = mcastlab.run_workload(f, "uniform", load=0.4, params=ROUTER, measure=SHORT)["run"]
    assert df["latency_mean_ps"].iloc[1] == alone["latency_mean_ps"]
    assert json.loads(df["params"].iloc[0])["link"]["mtu_bytes"] == 8


@pytest.mark.parametrize(
    "kwargs, text",
    [
        ({"measure": {"batchez": 3}}, "measure.batchez"),
        ({"measure": {"batch": "12 furlongs"}}, "measure"),
        ({"measure": {"batch": "x cycles"}}, "measure.batch"),
        ({"measure": {"batches": 0}}, "measure.batches"),
        # A bare number of a duration is refused as its text "1000" is, not read as picoseconds.
        ({"measure": {"warmup": 1000}}, "measure.warmup`: 1000 needs a unit, e.g. '1000cycles' or '1000us'"),
        ({"measure": {"batch": 2.5}}, "measure.batch`: 2.5 needs a unit"),
        ({"params": {"switch.vcs": 0}}, "switch.vcs"),
        ({"preset": "nope"}, "preset"),
    ],
)
def test_bad_workload_input_names_the_parameter(kwargs, text):
    f = mcastlab.fabric("mesh:4x4")
    with pytest.raises(mcastlab.McastlabError, match=text.replace(".", r"\.")):
        mcastlab.run_workload(f, "uniform", load=0.1, **kwargs)
    with pytest.raises(SimError, match="workload"):
        mcastlab.run_workload(f, "uniformly", load=0.1)


def test_numpy_numbers_are_numbers_in_a_workload_run():
    # load=np.float64(0.1) was a decimal.InvalidOperation (numpy 2's repr is `np.float64(0.1)`);
    # np.int64 batches were refused as not whole.
    np = pytest.importorskip("numpy")
    f = mcastlab.fabric("mesh:2x2")
    m = {"batch": "200cycles", "batches": 1}
    plain = mcastlab.run_workload(f, "uniform", load=0.1, measure=m)["run"]
    for load, measure in ((np.float64(0.1), m), (np.float32(0.1), m), (0.1, m | {"batches": np.int64(1)}),
                          (0.1, m | {"warmup": 0})):
        run = mcastlab.run_workload(f, "uniform", load=load, measure=measure)["run"]
        assert run["offered_load"] == plain["offered_load"] and run["events"] > 0
    with pytest.raises(TypeError, match="load: expected a number"):
        mcastlab.run_workload(f, "uniform", load=[0.1], measure=m)


def test_cli_simulate_workload_and_sweep(tmp_path, capsys):
    args = ["mesh:4x4", *CLI_ROUTER, "--measure", "batch=1000cycles", "--measure", "batches=3"]
    assert main(["simulate", "--workload", "uniform", "--load", "0.2", *args]) == 0
    out = capsys.readouterr().out
    assert "outcome         drained" in out and "accepted" in out and "cycles" in out
    csv, pq, svg = tmp_path / "rows.csv", tmp_path / "rows.parquet", tmp_path / "sweep.svg"
    rc = main(["sweep", *args, "--loads", "0.1:0.3:0.1", "--csv", str(csv), "--parquet", str(pq), "--plot", str(svg)])
    assert rc == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("  0.")]
    assert len(table) == 3 and all(line.rstrip().endswith("drained") for line in table)
    rows = read_rows(csv, pq, "latency_mean_ps")
    assert list(rows["offered_load"]) == [0.1, 0.2, 0.3]
    assert_svg(svg)
    assert main(["sweep", *args, "--loads", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["offered_load"] == 0.1


def test_cli_workload_errors_are_one_line(capsys):
    assert main(["simulate", "mesh:4x4", "--workload", "uniform", "--load", "0.1", "--measure", "bogus=1"]) == 2
    assert_one_error_line(capsys.readouterr().err, "measure.bogus")
    assert main(["simulate", "mesh:4x4", "--load", "0.1", "--scheme", "binomial", "--src", "0", "--dests", "1"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--load goes with --workload")
    assert main(["sweep", "mesh:4x4", "--loads", "abc"]) == 2
    assert_one_error_line(capsys.readouterr().err, "argument --loads: `abc`")
    assert main(["sweep", "mesh:4x4", "--loads", "0.1,-0.2"]) == 2
    assert_one_error_line(capsys.readouterr().err, "load")


def test_ctrl_c_stops_a_run_and_keeps_what_it_measured():
    import os
    import signal
    import threading

    f = mcastlab.fabric("mesh:8x8")
    seen = []
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        # Far too long to finish in 0.3 s: 10 batches of 1 ms of simulated time on 64 endpoints.
        r = mcastlab.run_workload(
            f, "uniform", load=0.3, params=ROUTER, measure={"batch": "1ms", "batches": 10},
            progress=lambda *p: seen.append(p),
        )
    finally:
        timer.cancel()
    assert r["interrupted"]
    assert r["run"]["outcome"]["kind"] == "budget"
    assert r["run"]["messages"] > 0 and seen
    now_ps, end_ps = seen[-1][0], seen[-1][1]
    assert now_ps < end_ps


def test_a_workloads_plan_check_is_reused_across_loads(monkeypatch):
    """The plans a workload's scheme builds do not depend on its load: one fabric object checks
    them once however many loads run, and every result still carries the check. Another seed or
    degree is another check."""
    import importlib

    w = importlib.import_module("mcastlab.workloads")
    calls = []
    real = w.check_plans
    monkeypatch.setattr(w, "check_plans", lambda *a, **k: calls.append(k) or real(*a, **k))
    f = mcastlab.fabric("irregular")
    spec = "multicast_load:degree=3,bytes=64"
    m = {"batches": 1, "batch": "2000cycles", "warmup": "1000cycles"}
    first = w.run_workload(f, spec, load=0.01, measure=m)
    second = w.run_workload(f, spec, load=0.02, measure=m)
    assert len(calls) == 1
    assert first["check"] == second["check"] and first["check"]["plans"] > 0
    first["check"]["verdict"] = "changed by the caller"
    assert w.run_workload(f, spec, load=0.03, measure=m)["check"] == second["check"], "a copy is returned"
    w.run_workload(f, spec, load=0.01, measure=m, seed=2)
    w.run_workload(f, "multicast_load:degree=4,bytes=64", load=0.01, measure=m)
    assert len(calls) == 3
    w.run_workload(mcastlab.fabric("irregular"), spec, load=0.01, measure=m)
    assert len(calls) == 4, "a new fabric object checks again"


def test_cli_options_a_run_would_not_read_are_refused(capsys):
    # Each was ignored without a word: a workload ran its own scheme and size, a missing --plan
    # file went unread, --measure on a single multicast went unchecked.
    wl = ["simulate", "mesh:4x4", "--workload", "multicast_load:degree=3", "--load", "0.01"]
    assert main(wl + ["--scheme", "separate", "--size", "1KiB", "--discipline", "host"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--scheme, --size, --discipline: a single multicast's options")
    assert main(wl + ["--plan", "nonexistent.json"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--plan: a single multicast's options")
    one = ["simulate", "mesh:4x4", "--scheme", "binomial", "--src", "0", "--dests", "1-3"]
    assert main(one + ["--measure", "warmup=bogus", "--detail", "destinations"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--detail, --measure go with --workload")
    assert main(one + ["--mlid", "0xC000"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--mlid: only with --mfts")


def test_a_sweep_refuses_a_workload_with_a_load_of_its_own(capsys):
    # Its points' loads are the sweep's: the spec's own was dropped without a word.
    assert main(["sweep", "mesh:3x3", "--workload", "uniform:load=0.5", "--loads", "0.01"]) == 2
    assert_one_error_line(capsys.readouterr().err, "workload `uniform:load=0.5` gives a load of its own")
    with pytest.raises(mcastlab.SimError, match="gives a load of its own"):
        mcastlab.sweep(mcastlab.fabric("mesh:3x3"), "uniform:load=0.5", [0.01])


def test_a_load_below_1e_4_is_read_as_the_number_it_is():
    # str(0.00005) is `5e-05`, which the spec read as a rate with the unit `e-05`.
    f = mcastlab.fabric("mesh:3x3")
    for load in [0.00005, 1e-7, 0.25]:
        (est,) = mcastlab.estimate(f, "uniform", load=load)
        assert est["messages"] > 0, (load, est)
    # The window is sized for a number of messages, so half the load takes twice the time.
    low, high = mcastlab.estimate(f, "uniform", load=0.00005)[0], mcastlab.estimate(f, "uniform", load=0.0001)[0]
    assert low["span_ps"] / high["span_ps"] == pytest.approx(2.0, rel=1e-3)


def test_a_load_in_exponent_notation_is_the_number_it_is(capsys):
    # `--load 1e-2` was read as a rate with the unit `e-2` and refused.
    f = mcastlab.fabric("mesh:3x3")
    assert mcastlab.estimate(f, "uniform", load="1e-2") == mcastlab.estimate(f, "uniform", load=0.01)
    assert mcastlab.estimate(f, "uniform", load=" 2.5E-2") == mcastlab.estimate(f, "uniform", load=0.025)
    assert main(["simulate", "mesh:2x2", "-w", "uniform", "--load", "1e-2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["offered_load"] == 0.01


def test_a_load_that_is_not_finite_is_refused():
    # inf was read as 1.15e10 flits/cycle/endpoint: refused for too many messages per cycle, or
    # (process=poisson) run without end.
    f = mcastlab.fabric("mesh:2x2")
    for load in [float("inf"), "inf", "Infinity", float("nan")]:
        with pytest.raises(SimError, match="parameter `load`: .* is not a finite number"):
            mcastlab.estimate(f, "uniform", load=load)


def test_simulate_refuses_arguments_its_run_would_not_read():
    # Each was dropped without a word: a workload ran its own scheme and size, a Plan its own
    # routing, source and fabric, a single multicast ignored load and measure.
    f = mcastlab.fabric("mesh:4x4")
    with pytest.raises(mcastlab.PlanError, match="source, destinations, size, discipline: a single multicast's"):
        mcastlab.simulate(f, "uniform", source=0, destinations=[1], size="1MiB", discipline="host", load=0.01)
    p = f.plan("binomial", 0, [1, 2, 3])
    with pytest.raises(mcastlab.PlanError, match="load, measure: go with a workload spec"):
        mcastlab.simulate(f, p, load=0.5, measure={"warmup": "bogus"})
    with pytest.raises(mcastlab.PlanError, match="routing: the Plan gives them"):
        mcastlab.simulate(f, p, routing="updown")
    other = mcastlab.fabric("mesh:3x3").plan("binomial", 0, [1, 2])
    with pytest.raises(mcastlab.PlanError, match="built for fabric mesh:dims=3x3, not mesh:dims=4x4"):
        mcastlab.simulate(f, other, size="128B")
    # What they may take still runs, a null message (size 0) too.
    assert mcastlab.simulate(f, p, size="128B")["outcome"]["kind"] == "delivered"
    null = mcastlab.simulate(f, "binomial", 0, [1, 2, 3], size=0)
    assert (null["outcome"]["kind"], null["message_bytes"]) == ("delivered", 0)
    assert mcastlab.simulate("mesh:4x4", p, size="128B")["outcome"]["kind"] == "delivered"
