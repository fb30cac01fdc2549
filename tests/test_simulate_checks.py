"""A run states its plan's check and refuses a plan that can deadlock (issue 13): a worm plan that
leaves the base routing was refused by `mcastlab plan`/`check` but simulated without a word, also
inside the multicast_load workload."""

import pytest
from conftest import assert_one_error_line

import mcastlab
from mcastlab.cli import main

# sivaram98-style S-torus path worms under DOR: `mcastlab plan` shows a cycle of channel dependencies.
TORUS = "torus:4x4"
WORM = "storus:variant=worm"
VCS = {"switch.vcs": 2}  # DOR with datelines needs two virtual channels
WORM_CLI = ["simulate", TORUS, "--scheme", WORM, "--src", "5", "--group", "60%", "--param", "switch.vcs=2"]
WORM_LOAD = f"multicast_load:degree=3,scheme={WORM}"


@pytest.fixture(scope="module")
def torus():
    return mcastlab.fabric(TORUS)


def test_the_worm_plan_fails_its_check(torus, capsys):
    assert main(["plan", TORUS, "--scheme", WORM, "--src", "5", "--group", "60%"]) == 1
    assert "deadlock        cycle" in capsys.readouterr().out


def test_cli_refuses_to_simulate_it_naming_the_property_and_the_way_out(capsys):
    assert main(WORM_CLI) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_error_line(err, "fails the deadlock check")
    assert "cycle of channel dependencies" in err and "--allow-unchecked" in err


def test_cli_simulates_it_with_allow_unchecked_and_states_the_verdict(capsys):
    assert main(WORM_CLI + ["--allow-unchecked"]) == 0
    out = capsys.readouterr().out
    assert "checks          exactly-once yes, conforms to dor:datelines=true NO, deadlock-free NO" in out


def test_cli_states_the_verdict_of_a_plan_that_passes(capsys):
    assert main(["simulate", "--scheme", "binomial", "--src", "0", "--dests", "1-5"]) == 0
    assert "checks          exactly-once yes, conforms to updown:root=s7 yes, deadlock-free yes" in capsys.readouterr().out


def test_api_refuses_and_allows(torus):
    group = torus.random_group(5, 60, 1)
    with pytest.raises(mcastlab.PlanError, match="fails the deadlock check.*allow_unchecked=True"):
        mcastlab.simulate(torus, WORM, 5, group, params=VCS)
    r = mcastlab.simulate(torus, WORM, 5, group, params=VCS, allow_unchecked=True)
    assert r["check"]["deadlock"] == "cycle" and r["check"]["conforms"] is False
    assert r["outcome"]["kind"] == "delivered"  # it ran
    p = torus.plan(WORM, 5, group)
    with pytest.raises(mcastlab.PlanError, match="deadlock"):
        p.simulate(params=VCS)


class CountingCore:
    """Wraps a plan's core object, counting check_json calls."""

    def __init__(self, core):
        self.core, self.checks = core, 0

    def check_json(self, *a):
        self.checks += 1
        return self.core.check_json(*a)

    def __getattr__(self, name):
        return getattr(self.core, name)


def test_simulate_reuses_the_check_the_plan_already_has(torus):
    p = torus.plan("binomial", 0, [1, 2, 3])
    p._core = CountingCore(p._core)
    rep = p.check()
    r = p.simulate(size="128B", params=VCS)
    p.simulate(size="128B", params=VCS)
    assert p._core.checks == 1
    assert r["check"]["verdict"].startswith("exactly-once yes") and rep["ok"]


def test_multicast_load_refuses_worm_plans_that_can_deadlock(torus, capsys):
    with pytest.raises(mcastlab.PlanError, match="fails the deadlock check"):
        mcastlab.run_workload(torus, WORM_LOAD, load=0.05, params=VCS)
    argv = ["simulate", TORUS, "-w", WORM_LOAD, "--load", "0.05", "--param", "switch.vcs=2",
            "--measure", "warmup=200cycles", "--measure", "batch=200cycles", "--measure", "batches=2"]
    assert main(argv) == 2
    assert_one_error_line(capsys.readouterr().err, "fails the deadlock check")
    assert main(argv + ["--allow-unchecked"]) in (0, 1)
    assert "deadlock-free NO" in capsys.readouterr().out


def test_multicast_load_states_the_verdict_of_its_sampled_plans(torus):
    r = mcastlab.run_workload(torus, "multicast_load:degree=3,scheme=binomial", load=0.05, params=VCS,
                              measure={"warmup": "200cycles", "batch": "200cycles", "batches": 2})
    assert r["check"]["deadlock"] == "free" and r["check"]["plans"] >= 8
    assert "sampled plans of binomial" in r["check"]["verdict"]
    assert mcastlab.run_workload(torus, "uniform", load=0.05, params=VCS,
                                 measure={"warmup": "200cycles", "batch": "200cycles", "batches": 2})["check"] is None
