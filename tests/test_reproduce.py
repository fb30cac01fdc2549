"""`mcastlab reproduce` and `mcastlab.reproduce()`: every registered experiment at tiny scale
(rows, figure, valid verdicts), the same rows on every backend and worker count, a run killed
with SIGKILL that resumes without recomputing a finished point, the store, the listing and the
one-line errors."""

import os
import signal
import subprocess
import sys
import threading

import pandas as pd
import pytest

import mcastlab
from mcastlab.cli import main
from mcastlab.reproduce import registry
from mcastlab.reproduce.api import ReproduceError, reproduce
from mcastlab.reproduce.experiment import PENDING, VERDICTS, Experiment, FigureSpec
from mcastlab.reproduce.serial import run_serial
from mcastlab.runner import Store

TIMEOUT_S = 300


@pytest.mark.parametrize("exp", registry.EXPERIMENTS, ids=lambda e: e.key)
def test_every_experiment_runs_at_tiny_scale(exp, tmp_path):
    rep = reproduce(exp.key, scale="tiny", out=tmp_path, serial=True, store=False)
    (res,) = rep.experiments
    assert res.figure is not None and res.figure.exists() and res.figure.stat().st_size > 1000
    assert {c.claim.id for c in res.claims} == {c.id for c in exp.claims}
    assert len({c.id for c in exp.claims}) == len(exp.claims), "claim ids must be unique"
    for c in res.claims:
        assert c.verdict.status in VERDICTS
        assert "evaluation failed" not in c.verdict.measured, (c.claim.id, c.verdict.measured)
    if exp.pending:
        assert len(res.rows) == 0 and all(c.verdict.status == PENDING for c in res.claims)
        return
    assert len(res.rows) > 0 and res.status == "done"
    # Aggregation merges the replicates of each grid point: a column that differs between replicates
    # (a fault map, an outcome) must be in `values` or `details`, or it splits them apart.
    reps = exp.replicates["tiny"]
    assert len(res.table) * reps == len(res.rows), (
        f"{len(res.rows)} rows of {reps} replicate(s) aggregate to {len(res.table)} table rows; "
        f"identity columns: {[c for c in res.table.columns if not c.endswith(('_ci', '_n'))]}")
    assert all(c.verdict.status != PENDING for c in res.claims)
    for col in (*exp.values, "replicate", "seed", "experiment", "master_seed", "mcastlab_version", "point_key"):
        assert col in res.rows.columns, col
    assert (tmp_path / "rows" / f"{exp.key.replace(':', '_')}.parquet").exists()
    assert (tmp_path / "report.html").exists() and (tmp_path / "summary.md").exists()
    assert set(res.rows["scale"]) == {"tiny"}


def test_every_experiment_declares_what_a_run_needs():
    for e in registry.EXPERIMENTS:
        assert e.values and e.figure.y and e.section and e.varies, e.key
        assert set(e.replicates) >= {"tiny", "quick", "full"}, e.key
        assert e.pending or set(e.cost_s) >= {"tiny", "quick", "full"}, e.key
        for c in e.claims:
            for key in c.calibrated_keys:
                assert key in e.stated and e.stated[key].calibrated, (e.key, c.id, key)


SMALL = "coll03:fig8"


def _rows(rep):
    return rep.rows.reset_index(drop=True)


def test_rows_are_identical_serial_pool_and_dask(tmp_path):
    serial = _rows(reproduce(SMALL, scale="tiny", out=None, serial=True, store=False))
    assert len(serial) > 0
    for kw in ({"workers": 1}, {"workers": 2}, {"dask": "local", "workers": 2}):
        got = _rows(reproduce(SMALL, scale="tiny", out=None, store=False, **kw))
        pd.testing.assert_frame_equal(got, serial, check_exact=True, obj=str(kw))
    # The contract's serial runner gives the same rows (without the provenance columns).
    plain = run_serial(registry.BY_KEY[SMALL], "tiny", 1)
    pd.testing.assert_frame_equal(serial[list(plain.columns)], plain, check_exact=True)


def test_store_reuses_points_and_a_new_seed_recomputes(tmp_path):
    first = reproduce(SMALL, scale="tiny", out=tmp_path, serial=True)
    assert first.computed > 0 and first.reused == 0
    again = reproduce(SMALL, scale="tiny", out=tmp_path, serial=True)
    assert again.computed == 0 and again.reused == first.computed
    pd.testing.assert_frame_equal(_rows(again), _rows(first), check_exact=True)
    other = reproduce(SMALL, scale="tiny", out=tmp_path, serial=True, seed=2)
    assert other.computed == first.computed and other.reused == 0


def test_a_killed_run_resumes_without_recomputing_finished_points(tmp_path):
    """SIGKILL (the whole process group: the command and its pool) after a few points; the next
    run reuses every stored point, computes only the rest, and gives the uninterrupted rows."""
    exp = "coll03:fig9"
    out = tmp_path / "out"
    total = len(registry.BY_KEY[exp].points("tiny", 1))
    env = dict(os.environ, MCASTLAB_PROGRESS="lines")
    p = subprocess.Popen([sys.executable, "-m", "mcastlab", "reproduce", exp, "--tiny", "--workers", "1", "--out", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    timer = threading.Timer(TIMEOUT_S, lambda: os.killpg(p.pid, signal.SIGKILL))
    timer.start()
    try:
        for line in p.stderr:
            if f"2 of {total} done" in line:
                os.killpg(p.pid, signal.SIGKILL)
                break
        p.wait(timeout=TIMEOUT_S)
    finally:
        timer.cancel()
    assert p.returncode == -signal.SIGKILL
    store = Store(out / "store")
    before = {k: os.stat(store.path(k)).st_mtime_ns for k in store.keys()}
    assert 2 <= len(before) < total, f"{len(before)} of {total} points were stored before the kill"
    resumed = reproduce(exp, scale="tiny", out=out, workers=1)
    assert resumed.reused == len(before) and resumed.computed == total - len(before)
    assert all(os.stat(store.path(k)).st_mtime_ns == m for k, m in before.items())
    fresh = reproduce(exp, scale="tiny", out=None, serial=True, store=False)
    pd.testing.assert_frame_equal(_rows(resumed), _rows(fresh), check_exact=True)


def test_python_api_returns_rows_tables_verdicts_and_paths(tmp_path):
    rep = mcastlab.reproduce("coll03:fig8", scale="tiny", out=tmp_path, serial=True, store=False)
    assert isinstance(rep.rows, pd.DataFrame) and len(rep.rows)
    assert set(rep.tables) == {"coll03:fig8"} and "latency_us_ci" in rep.tables["coll03:fig8"]
    v = rep.verdicts
    assert list(v.columns)[:5] == ["experiment", "claim", "text", "source", "status"]
    assert len(v) == len(registry.BY_KEY["coll03:fig8"].claims)
    assert (v[v["claim"] == "f8-hardware-one-step"]["evidence"].str.startswith("calibrated: no evidence")).all()
    assert rep.paths["report"].exists() and rep.paths["summary"].exists()


def _pending(key="toy:fig1"):
    return Experiment(key=key, paper="toy", label="Fig. 1", title="toy", section="§1", varies="nothing", metric="y",
                      stated={}, grid=lambda s: [{"x": 1}], replicates={"tiny": 1, "quick": 1, "full": 1},
                      run=lambda p: [{"y": 1.0}], figure=FigureSpec(x="x", y="y"), values=("y",),
                      pending="needs the endpoint-protocol issue's mechanisms")


def test_pending_experiments_say_so_when_run(tmp_path, monkeypatch, capsys):
    toy = _pending()
    monkeypatch.setattr(registry, "EXPERIMENTS", [*registry.EXPERIMENTS, toy])
    monkeypatch.setattr(registry, "PAPERS", (*registry.PAPERS, "toy"))
    assert main(["reproduce", "toy:fig1", "--tiny", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "toy:fig1: pending: needs the endpoint-protocol issue's mechanisms" in captured.err
    assert "[pending: needs the endpoint-protocol" in captured.out
    assert main(["reproduce", "--list"]) == 0
    assert "pending: needs the endpoint-protocol" in capsys.readouterr().out


def test_list_names_every_experiment_with_its_cost(capsys):
    assert main(["reproduce", "--list", "--quick"]) == 0
    out = capsys.readouterr().out
    for e in registry.EXPERIMENTS:
        assert e.key in out
    assert "at scale quick" in out


@pytest.mark.parametrize("argv,message", [
    (["reproduce", "coll03:fig88"], "unknown experiment `coll03:fig88`; did you mean coll03:fig8"),
    (["reproduce", "col03"], "did you mean coll03"),
    (["reproduce"], "name the experiments to run"),
    (["reproduce", "coll03:fig8", "--dask", "nohost"], "--dask nohost: not a scheduler address"),
])
def test_bad_input_is_one_line_before_any_work(argv, message, capsys, tmp_path):
    assert main(argv + ["--tiny", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "store").exists() or not list((tmp_path / "o" / "store").iterdir())


def test_unwritable_out_is_refused(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["reproduce", "coll03:fig8", "--tiny", "--out", str(f)]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err
    with pytest.raises(ReproduceError, match="scale 'huge'"):
        reproduce("coll03:fig8", scale="huge", out=None)


def test_figures_are_byte_reproducible(tmp_path):
    a = reproduce("coll03:fig8", scale="tiny", out=tmp_path / "a", serial=True, store=False)
    b = reproduce("coll03:fig8", scale="tiny", out=tmp_path / "b", serial=True, store=False)
    assert a.experiments[0].figure.read_bytes() == b.experiments[0].figure.read_bytes()
    assert (tmp_path / "a" / "rows" / "coll03_fig8.csv").read_bytes() == (tmp_path / "b" / "rows" / "coll03_fig8.csv").read_bytes()
