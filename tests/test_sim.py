"""The simulator from Python and the CLI (issue 4, first slice: single runs)."""

import json

import pytest

import mcastlab
from mcastlab import PlanError, SimError
from mcastlab.cli import main


def test_simulate_a_scheme_and_a_plan():
    f = mcastlab.fabric()
    r = mcastlab.simulate(f, "binomial", 0, list(range(1, 8)), size="4KiB", preset="sivaram98")
    assert r["outcome"]["kind"] == "delivered"
    assert len(r["per_destination"]) == 7 and r["completion_ps"] == max(d["latency_ps"] for d in r["per_destination"])
    assert r["in_flight_packets"] == 0 and r["buffered_flits"] == 0
    # The same plan run twice gives the same result; a hardware-free single worm is faster.
    packets = r["packets"]
    p = f.plan("binomial", 0, list(range(1, 8)), packets=packets)
    assert p.simulate(size="4KiB") == r
    worm = mcastlab.simulate(f, "bitstring", 0, list(range(1, 8)), size="4KiB")
    assert worm["completion_ps"] < r["completion_ps"]


def test_progress_is_reported_and_params_override():
    f = mcastlab.fabric()
    seen = []
    r = mcastlab.simulate(f, "chain", 0, [1, 2, 3], size="64KiB", progress=lambda e, t, done: seen.append((e, done)))
    assert seen and seen[-1] == (r["events"], True)
    # One worm, no forwarding NI: the links carry the whole time, so slower links take longer.
    fast = mcastlab.simulate(f, "bitstring", 0, [1, 2, 3], size="64KiB")
    slow = mcastlab.simulate(f, "bitstring", 0, [1, 2, 3], size="64KiB", params={"link.bandwidth": "10MB/s"})
    assert slow["completion_ps"] > fast["completion_ps"]
    assert mcastlab.sim_params("zhou07")["params"] == mcastlab.sim_params("zhou07", {})["params"]
    assert {p["name"] for p in mcastlab.sim_presets()} >= {"sivaram98", "oral", "zhou07", "bhoedjang98", "coll03"}


@pytest.mark.parametrize(
    "kwargs, exc, text",
    [
        ({"preset": "nosuch"}, SimError, "unknown preset"),
        ({"params": {"link.bandwidth": "0Gb/s"}}, SimError, "link.bandwidth"),
        ({"params": {"no.such": "1"}}, SimError, "unknown parameter"),
        ({"size": "4 parsecs"}, SimError, "size"),
    ],
)
def test_bad_simulation_input(kwargs, exc, text):
    with pytest.raises(exc, match=text):
        mcastlab.simulate(mcastlab.fabric(), "binomial", 0, [1, 2], **kwargs)


def test_plan_and_size_must_agree():
    f = mcastlab.fabric()
    p = f.plan("binomial", 0, [1, 2], packets=1)
    with pytest.raises(SimError, match="message_bytes"):
        p.simulate(size="1MiB")
    with pytest.raises(PlanError):
        mcastlab.simulate(f, "binomial")


def test_cli_simulate(tmp_path, capsys):
    assert main(["simulate", "torus:4x4", "--scheme", "mdtorus:variant=worm", "--src", "5", "--group", "50%",
                 "--preset", "oral", "--size", "1KiB", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["outcome"]["kind"] == "delivered" and r["params"] and "wall_s" in r
    out = tmp_path / "p.json"
    assert main(["plan", "irregular", "--scheme", "ssr", "--src", "0", "--dests", "1-9", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["simulate", "irregular", "--plan", str(out), "--size", "128B"]) == 0
    assert "outcome         delivered" in capsys.readouterr().out
    assert main(["list", "presets"]) == 0
    assert "coll03" in capsys.readouterr().out


def test_cli_reports_the_combined_acknowledgement_under_coll03(capsys):
    args = ["simulate", "kary_ntree:k=4,n=2", "--scheme", "qs_greedy", "--src", "0", "--dests", "1-15", "--size", "8B"]
    assert main([*args, "--preset", "coll03"]) == 0
    out = capsys.readouterr().out
    assert "acknowledged" in out
    assert main([*args, "--preset", "sivaram98"]) == 0
    assert "acknowledged" not in capsys.readouterr().out
