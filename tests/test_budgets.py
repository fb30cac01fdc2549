"""Long runs are estimated, announced and bounded (issue 13): a workload run or sweep says how
much work it is before it starts, a run estimated beyond ``limits.max_events`` is refused at once
with the numbers and the way to raise the budget, and the budgets' defaults are the README's."""

import mcastlab
from mcastlab import SimError
from mcastlab.cli import main, progress

import pytest

from conftest import assert_one_error_line

SHORT = {"batch": "1000cycles", "batches": 3}


def test_the_estimate_is_announced_in_python_and_kept_in_the_run_row():
    f = mcastlab.fabric("mesh:4x4")
    est = mcastlab.estimate(f, "uniform", [0.05, 0.1], measure=SHORT)
    assert [set(e) for e in est] == [{"span_ps", "messages", "flit_hops_per_message", "events", "setup_bytes"}] * 2
    assert est[1]["events"] > est[0]["events"] > 0
    run = mcastlab.run_workload(f, "uniform", load=0.05, measure=SHORT)["run"]
    assert run["estimated_events"] == est[0]["events"] <= run["events"]


def test_a_mistyped_batch_count_is_refused_at_once_naming_the_budget(capsys):
    # 100,000 batches on an 8x8 mesh: hours of work before; now one line, before the first event.
    argv = ["simulate", "mesh:8x8", "--workload", "uniform", "--load", "0.01", "--measure", "batches=100000"]
    assert main(argv) == 2
    assert_one_error_line(capsys.readouterr().err, "parameter `limits.max_events`: this run needs about")
    with pytest.raises(SimError, match="--param limits.max_events="):
        mcastlab.run_workload(mcastlab.fabric("mesh:8x8"), "uniform", load=0.01, measure={"batches": 100_000})


def test_a_sweep_is_refused_whole_before_its_cheap_points_run(capsys):
    argv = ["sweep", "mesh:4x4", "--loads", "0.01,0.02", "--param", "limits.max_events=20000", "--measure", "batches=50"]
    assert main(argv) == 2
    assert_one_error_line(capsys.readouterr().err, "limits.max_events")


def test_a_large_run_is_announced_with_its_size(capsys):
    # 2,000 batches on an 8x8 mesh: about 187 M events, estimated without running them. At load
    # 0.01 the 64 nodes create 100 messages in 20,000 cycles, so the default batch is that long,
    # not BookSim's 10,000 cycles (which would hold 50).
    est = mcastlab.estimate(mcastlab.fabric("mesh:8x8"), "uniform", load=0.01, measure={"batches": 2000})
    progress.announce(est, "simulate")
    line = capsys.readouterr().err
    assert line.startswith("simulate: about 200,300 messages and 187,480,800 events over 200,300.0 us"), line
    assert "CPU minutes" in line and line.count("\n") == 1


def test_the_commands_announce_their_estimate(capsys, monkeypatch):
    # The threshold lowered, so that a run of a few thousand events shows the announcement.
    monkeypatch.setattr(progress, "ANNOUNCE_EVENTS", 1)
    assert main(["simulate", "mesh:4x4", "--workload", "uniform", "--load", "0.05", "--measure", "batches=3"]) == 0
    assert capsys.readouterr().err.startswith("simulate: about ")
    assert main(["sweep", "mesh:4x4", "--loads", "0.05,0.1", "--measure", "batches=3"]) == 0
    assert capsys.readouterr().err.startswith("sweep: 2 runs, about ")


def test_small_runs_are_not_announced(capsys):
    argv = ["simulate", "mesh:4x4", "--workload", "uniform", "--load", "0.05", "--measure", "batches=3"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""


def test_the_readme_states_the_default_budgets():
    from pathlib import Path

    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    limits = mcastlab.sim_params()["params"]["limits"]
    assert limits["max_events"] == 10**9 and "`limits.max_events` (default 10^9 events" in readme
    assert limits["max_memory"] == 4 << 30 and "`limits.max_memory` (default 4 GiB" in readme
