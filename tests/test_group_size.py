"""Group sizes (issue 10): one rule — a percentage counts the endpoints that may be members (the
others for one source's group, all endpoints for a group several senders share) — and an exact
count wherever a group is sized."""

import json

import pytest

import mcastlab
from mcastlab._core import workload_json
from mcastlab.cli import main


@pytest.fixture(scope="module")
def f64():
    return mcastlab.fabric("kary_ntree:k=4,n=3")  # 64 endpoints


def test_a_percentage_counts_the_other_endpoints(f64):
    # The case: 95.24% of the 63 others is 60 destinations (counting all 64 gave 61).
    assert len(f64.random_group(0, 95.24, seed=3)) == 60
    assert len(f64.random_group(0, 50, seed=3)) == 32  # 31.5 rounds half away from zero
    assert len(f64.random_group(0, 0.1, seed=3)) == 1  # at least one


def test_an_exact_count_and_nested_draws(f64):
    sixty = f64.random_group(0, seed=3, count=60)
    assert len(sixty) == 60 and 0 not in sixty
    assert sixty == f64.random_group(0, 95.24, seed=3)  # the same draw, cut at the same size
    assert set(f64.random_group(0, seed=3, count=10)) <= set(sixty)  # a smaller group is a subset
    with pytest.raises(mcastlab.PlanError, match="group.*64 members, but only 63"):
        f64.random_group(0, seed=3, count=64)
    with pytest.raises(mcastlab.PlanError, match="percent or count"):
        f64.random_group(0, 50, seed=3, count=5)


@pytest.mark.parametrize("group,n", [("60", 60), ("95.24%", 60), ("1", 1)])
def test_cli_group_is_a_count_or_a_percentage(group, n, capsys):
    assert main(["plan", "kary_ntree:k=4,n=3", "--scheme", "binomial", "--src", "0", "--group", group]) == 0
    assert f"-> {n} destinations" in capsys.readouterr().out


@pytest.mark.parametrize("group,message", [("64", "64 members, but only 63"), ("2.5", "number of destinations (60) or a "
                                           "percentage"), ("0", "from 1 to")])
def test_cli_group_errors_name_the_option(group, message, capsys):
    assert main(["plan", "kary_ntree:k=4,n=3", "--scheme", "binomial", "--src", "0", "--group", group]) == 2
    err = capsys.readouterr().err
    assert message in err and "group" in err


def test_compare_takes_an_exact_group_count():
    df = mcastlab.compare("kary_ntree:k=4,n=2", group_count=5, schemes=["binomial"], sizes=["128B"])
    assert set(df["destinations"]) == {5}


def test_the_api_takes_a_percentage_as_the_command_line_writes_it(f64):
    # compare(group="40%") was a bare ValueError from float(); the text reads as --group does.
    assert f64.random_group(0, "95.24%", seed=3) == f64.random_group(0, 95.24, seed=3)
    df = mcastlab.compare("kary_ntree:k=4,n=2", group="40%", schemes=["binomial"], sizes=["128B"])
    assert set(df["destinations"]) == {6}  # 40% of the 15 others


def test_workload_keys_take_exact_counts():
    single = json.loads(workload_json("single:source=0,group=5,scheme=binomial"))["traffic"]
    assert single["group"] == 5 and "group_pct" not in single
    m2m = json.loads(workload_json("many_to_many:senders=2,group=10,scheme=ib_cyclic"))["traffic"]
    assert (m2m["senders"], m2m["group"]) == (2, 10)
    f = mcastlab.fabric("irregular")  # 32 endpoints
    run = mcastlab.run_workload(f, "single:source=0,group=7,scheme=binomial,bytes=64",
                                measure={"detail": "destinations"})
    assert len(run["destinations"]) == 7
    # `single`'s percentage counts the others, like --group: 50% of the 31 others is 16.
    run = mcastlab.run_workload(f, "single:source=0,group_pct=50,scheme=binomial,bytes=64",
                                measure={"detail": "destinations"})
    assert len(run["destinations"]) == 16


@pytest.mark.parametrize("spec,key", [("single:group=5,group_pct=10", "group"),
                                      ("many_to_many:senders=2,senders_pct=10", "senders"),
                                      ("single:group=0", "group"),
                                      ("many_to_many:senders=40", "senders")])
def test_bad_group_keys_name_the_key(spec, key):
    f = mcastlab.fabric("irregular")
    with pytest.raises(mcastlab.SimError, match=key):
        mcastlab.run_workload(f, spec + ",scheme=binomial,bytes=64")
