"""Issue 12: BookSim's routing rules as options (checked by the checker, refused by the simulator
when they would need a per-packet choice), its presets, and what `--help` says of cycles and threads."""

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
def test_a_per_packet_up_port_rule_is_checked_but_not_simulated(rule, capsys):
    f = mcastlab.fabric("kary_ntree:k=4,n=3")
    assert f.check(f"nca:up={rule}")["ok"]
    code = main(["simulate", "kary_ntree:k=4,n=3", "--scheme", "separate", "--src", "0", "--dests", "63",
                 "--routing", f"nca:up={rule}", "--preset", "booksim_fattree", "--size", "8B"])
    err = capsys.readouterr().err
    assert code != 0
    assert f"up={rule}" in err and "run time" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


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
