"""Issue 12: BookSim's routing rules as options (checked by the checker; per-packet rules chosen by
the simulator as each head is routed, from the run's seed), its presets, and what `--help` says of
cycles, threads and route choices."""

import argparse
import os

import pytest

import mcastlab
from mcastlab.cli import main
from mcastlab.cli import options


@pytest.mark.parametrize("spec", ["dor:tie=random,classes=entry", "dor:tie=parity", "dor:tie=+,classes=entry"])
def test_every_torus_rule_is_checked_deadlock_free(spec):
    f = mcastlab.fabric("torus:8x8")
    c = f.check(spec)
    assert c["ok"], c
    assert f.routing(spec).spec.startswith("dor:datelines=true")


def test_one_class_with_random_ties_shows_the_cycle():
    bad = mcastlab.fabric("torus:8x8").check("dor:datelines=false,tie=random")
    assert not bad["ok"] and bad["deadlock"]["status"] == "cycle"


@pytest.mark.parametrize("rule", ["random", "adaptive"])
def test_a_per_packet_up_port_rule_is_checked_and_simulated(rule, capsys):
    f = mcastlab.fabric("kary_ntree:k=4,n=3")
    assert f.check(f"nca:up={rule}")["ok"]
    code = main(["simulate", "kary_ntree:k=4,n=3", "--scheme", "separate", "--src", "0", "--dests", "63",
                 "--routing", f"nca:up={rule}", "--preset", "booksim_fattree", "--size", "64B"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert f"nca:up={rule}" in out.out and "Traceback" not in out.err


def test_random_up_ports_are_drawn_per_packet_from_the_seed():
    # 64 packets from endpoint 0 to 63 climb to the top: dmodk keeps them on one route; random up
    # ports spread them, the same way for a seed and another way for another seed.
    f = mcastlab.fabric("kary_ntree:k=4,n=3")

    def links(routing, seed):
        plan = f.plan("separate", 0, [63], packets=64, routing=routing)
        r = plan.simulate(size=64 * 8, preset="booksim_fattree", seed=seed)
        d = r["per_destination"][0]
        assert (d["deliveries"], d["packets"]) == (1, 64), d
        return [(link["channel"], link["packets"]) for link in r["links"] if link["packets"] > 0]

    dmodk = links("nca", 1)
    assert len(dmodk) == 6 and all(n == 64 for _, n in dmodk)  # injection, 4 switch links, ejection
    assert links("nca", 2) == dmodk
    a = links("nca:up=random", 1)
    assert a == links("nca:up=random", 1)
    assert a != links("nca:up=random", 2)
    assert len(a) > 6 + 3 * 2  # the leaf's 4 up links and more of the level above them


def test_a_permutation_runs_under_adaptive_ascent(capsys):
    code = main(["simulate", "kary_ntree:k=4,n=3", "--routing", "nca:up=adaptive", "--preset", "booksim_fattree",
                 "--workload", "permutation:pattern=bitrev,bytes=8", "--load", "0.3", "--measure", "batches=2"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "permutation:pattern=bitrev" in out.out


def test_simulate_help_says_how_route_choices_are_made_and_seeded(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "ChaCha8 stream keyed by --seed" in text and "most free credits" in text


@pytest.mark.parametrize("command", ["simulate", "sweep"])
def test_help_states_the_cycle_and_the_thread_option(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a cycle is the time one flit takes to cross a link" in text
    assert "1 ns under the booksim presets" in text
    assert "--jobs N" in text and "RAYON_NUM_THREADS" in text


def test_jobs_sets_the_core_thread_count(monkeypatch, capsys):
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)
    options.apply_jobs(argparse.Namespace(jobs=None))
    assert "RAYON_NUM_THREADS" not in os.environ
    options.apply_jobs(argparse.Namespace(jobs=3))
    assert os.environ["RAYON_NUM_THREADS"] == "3"
    assert main(["sweep", "torus:4x4", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_the_booksim_presets_carry_booksims_link_delays():
    table = mcastlab.param_table()
    row = lambda key: table[table["key"] == key].iloc[0]  # noqa: E731
    assert row("link.propagation")["booksim_torus"] == "1ns"
    assert row("link.terminal_propagation")["booksim_torus"] == "0ns"
    assert row("link.propagation")["booksim_fattree"] == "0ns"
