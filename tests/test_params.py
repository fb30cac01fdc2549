"""The parameter table seen from Python: one row per key, a column per preset, values that parse
back, and the measurement keys taken from the core instead of spelled in Python."""

import pandas as pd
import pytest

import mcastlab
from mcastlab import SimError
from mcastlab.workloads import MEASURE_KEYS


def test_param_table_has_a_row_per_key_and_a_column_per_preset():
    df = mcastlab.param_table()
    assert isinstance(df, pd.DataFrame)
    presets = [p["name"] for p in mcastlab.sim_presets()]
    assert list(df.columns) == ["key", "type", "unit_or_values", "doc", *presets]
    assert df["key"].is_unique and df["doc"].str.len().min() > 0
    bw = df.set_index("key").loc["link.bandwidth"]
    assert (bw["type"], bw["sivaram98"], bw["zhou07"]) == ("rate", "200MB/s", "2Gb/s")
    assert "vct" in df.set_index("key").loc["switch.switching", "unit_or_values"]


def test_every_presets_value_parses_back_to_the_preset():
    df = mcastlab.param_table()
    sim = df[~df["key"].str.startswith("measure.")]
    presets = [p["name"] for p in mcastlab.sim_presets()]
    for preset in presets:
        base = mcastlab.sim_params(preset)
        again = mcastlab.sim_params(preset, dict(zip(sim["key"], sim[preset])))
        assert again == base, preset


def test_the_keys_are_the_ones_params_accepts():
    keys = list(mcastlab.param_table()["key"])
    with pytest.raises(SimError, match="unknown parameter `link.colour`") as e:
        mcastlab.sim_params("sivaram98", {"link.colour": "blue"})
    sim_keys = [k for k in keys if not k.startswith("measure.")]
    assert all(k in str(e.value) for k in sim_keys)
    assert tuple(k.split(".", 1)[1] for k in keys if k.startswith("measure.")) == MEASURE_KEYS
    assert MEASURE_KEYS == (
        "warmup", "batch", "batches", "latency_limit", "latency_factor", "accepted_margin", "drain_limit", "detail",
        "ages", "stop",
    )


def test_cli_lists_every_key_with_each_preset_s_value(capsys):
    from mcastlab.cli import main

    assert main(["list", "params"]) == 0
    out = capsys.readouterr().out
    rows = mcastlab.param_table().set_index("key")
    for key in rows.index:
        assert f"\n{key} " in f"\n{out}", key
    assert "zhou07 2Gb/s" in out and "booksim_iq 1GB/s" in out
    assert main(["list", "params", "--preset", "zhou07"]) == 0
    one = capsys.readouterr().out.splitlines()
    assert len(one) == len(rows)
    bw = next(line for line in one if line.startswith("link.bandwidth "))
    assert bw.split()[1] == "2Gb/s" and "Data rate of one direction." in bw


def test_cli_list_params_refuses_an_unknown_preset(capsys):
    from mcastlab.cli import main
    from conftest import assert_one_error_line

    assert main(["list", "params", "--preset", "bogus"]) == 2
    assert_one_error_line(capsys.readouterr().err, "unknown preset `bogus`")


def test_ni_protocols_are_the_values_of_ni_send(capsys):
    from mcastlab.cli import main

    names = [p["name"] for p in mcastlab.ni_protocols()]
    assert names == ["pipelined", "step", "lfc", "fmmc"]
    row = mcastlab.param_table().set_index("key").loc["ni.send"]
    assert all(n in row["unit_or_values"] for n in names)
    assert main(["list", "protocols"]) == 0
    out = capsys.readouterr().out
    assert all(f"ni.send={n}" in out for n in names)
