"""bhoedjang98's LFC and oral's host metrics, from the Python API and the CLI."""

import mcastlab


def test_chain_all_to_all_deadlocks_without_recovery_and_completes_with_it():
    f = mcastlab.fabric("hypercube:dim=2")
    off = mcastlab.run_workload(f, "all_to_all:scheme=chain,bytes=8KiB", preset="bhoedjang98")["run"]
    assert off["outcome"]["kind"] == "deadlock"
    assert all("waits for a credit of NI" in c for c in off["outcome"]["diagnosis"]["cycle"])
    on = mcastlab.run_workload(
        f, "all_to_all:scheme=chain,bytes=8KiB", preset="bhoedjang98", params={"lfc.recovery": "eager"}
    )["run"]
    assert on["outcome"]["kind"] == "drained"
    assert on["messages_finished"] == on["messages"] == 16
    assert on["recoveries"] > 0 and on["fifo_violations"] == 0
    assert on["recoveries_per_multicast"] == on["recoveries"] / on["multicasts"]
    # The columns are absent without LFC.
    plain = mcastlab.run_workload(
        f, "all_to_all:scheme=chain,bytes=8KiB", preset="bhoedjang98", params={"ni.send": "pipelined"}
    )["run"]
    assert "recoveries" not in plain and plain["outcome"]["kind"] == "drained"


def test_simulate_reports_lfc_counts_and_oral_metrics():
    r = mcastlab.simulate("hypercube:dim=2", "binomial", 0, list(range(1, 16)), size="16KiB", preset="bhoedjang98",
                          params={"lfc.credits": 2, "lfc.low_water": 0})
    assert r["outcome"]["kind"] == "delivered"
    assert r["lfc"]["blocked_sends"] > 0 and r["lfc"]["credit_updates"] > 0
    assert r["startup_ps"] > 0 and r["root_cpu_ps"] >= r["startup_ps"] - 1
    assert 1 <= r["concurrency_max"] and 0 < r["concurrency_mean"] <= r["concurrency_max"]


def test_cli_prints_the_lfc_line_and_names_bad_lfc_parameters(capsys):
    from mcastlab.cli import main
    from conftest import assert_one_error_line

    code = main(["simulate", "hypercube:dim=2", "--workload", "all_to_all:scheme=chain,bytes=8KiB",
                 "--preset", "bhoedjang98", "--param", "lfc.recovery=eager"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "LFC credits" in out and "recovery" in out
    assert main(["simulate", "hypercube:dim=2", "--scheme", "binomial", "--src", "0", "--dests", "1-3", "--preset", "bhoedjang98",
                 "--param", "lfc.credits=0"]) == 2
    assert_one_error_line(capsys.readouterr().err, "lfc.credits")


def test_fmmc_preset_runs_with_its_counts_and_the_cli_shows_them(capsys):
    from mcastlab.cli import main

    f = mcastlab.fabric("hypercube:dim=2")
    run = mcastlab.run_workload(f, "all_to_all:scheme=binary,bytes=4KiB", preset="bhoedjang98_fmmc",
                                params={"fmmc.ni_buffers": 2})["run"]
    assert run["outcome"]["kind"] == "drained"
    assert run["credit_requests"] > 0 and run["token_rounds"] > 0 and run["swapped_packets"] > 0
    assert run["packets"] == 17, "4 KiB plus the handler word in 256-byte packets"
    assert main(["simulate", "hypercube:dim=2", "--workload", "all_to_all:scheme=binary,bytes=4KiB",
                 "--preset", "bhoedjang98_fmmc"]) == 0
    out = capsys.readouterr().out
    assert "FM/MC credits" in out and "FM/MC token" in out
    assert main(["simulate", "hypercube:dim=2", "--scheme", "binary", "--src", "0", "--dests", "1-3",
                 "--preset", "bhoedjang98_fmmc", "--param", "fmmc.manager=99"]) == 2
    err = capsys.readouterr().err
    assert "fmmc.manager" in err and "Traceback" not in err
