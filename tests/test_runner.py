"""The runner (mcastlab.runner): the same results on every backend and worker count, a result
store written atomically and reused, Ctrl-C and errors, where-to-run validation."""

import json
import os

import pytest

from mcastlab.runner import Job, RunnerError, Stopped, Store, StoreError, Where, run_jobs
from mcastlab.runner import cluster


def square(x):
    """A job: plain data in, plain data out (floats that JSON must keep bit for bit)."""
    return {"x": x, "y": x * x / 3.0, "t": (x, x + 1), "nan": float("nan") if x == 2 else 0.0}


def boom(x):
    raise ValueError(f"job {x} failed")


def stoppable(x, stop):
    if stop():
        raise Stopped()
    return {"x": x}


def jobs(xs, key=lambda x: f"k{x}"):
    return [Job(key=key(x), fn=square, args=(x,), label=f"x={x}", inputs={"x": x}) for x in xs]


def same(a, b):
    """Results equal bit for bit (NaN included): compared as their JSON text."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_threads_and_processes_give_the_same_results_in_job_order():
    want = run_jobs(jobs(range(6)), Where("threads", 1)).results
    assert [r["x"] for r in want] == list(range(6))
    assert want[0]["t"] == [0, 1]  # through JSON: a tuple is a list, wherever it was computed
    for where in (Where("threads", 3), Where("processes", 1), Where("processes", 2)):
        out = run_jobs(jobs(range(6)), where)
        assert same(out.results, want), where
        assert out.computed == 6 and out.reused == 0 and not out.interrupted
    assert run_jobs(jobs(range(6)), Where("processes", 2)).cpu_s is not None
    assert run_jobs(jobs(range(6)), Where("threads", 2)).cpu_s is None


def test_store_reuses_finished_jobs_and_recomputes_only_changed_ones(tmp_path):
    store = Store(tmp_path / "s")
    first = run_jobs(jobs(range(4)), Where("threads", 2), store=store)
    assert first.computed == 4 and len(store) == 4
    mtimes = {k: os.stat(store.path(k)).st_mtime_ns for k in store.keys()}
    again = run_jobs(jobs(range(4)), Where("threads", 2), store=store)
    assert again.computed == 0 and again.reused == 4 and same(again.results, first.results)
    # One job's input changes (its key with it): only that one runs; the others' records untouched.
    changed = run_jobs(jobs([0, 1, 2, 7]), Where("threads", 2), store=store)
    assert changed.computed == 1 and changed.reused == 3 and changed.results[3]["x"] == 7
    assert all(os.stat(store.path(k)).st_mtime_ns == m for k, m in mtimes.items())
    rec = json.loads(store.path("k7").read_text())
    assert rec["inputs"] == {"x": 7} and rec["result"]["y"] == 49 / 3.0 and rec["meta"]["where"] == "thread"


def test_store_record_is_whole_or_absent_and_damage_is_recomputed(tmp_path):
    store = Store(tmp_path)
    store.put("abc", json.dumps({"v": 1}))
    assert store.get("abc") == ({"v": 1}, {})
    assert not [p for p in (tmp_path / "ab").iterdir() if p.suffix == ".tmp"]  # no temporary left behind
    store.path("abc").write_text('{"format": 1, "key": "abc", "result": {"v"')  # torn by hand
    assert store.get("abc") is None
    store.path("abc").write_text(json.dumps({"format": 1, "key": "other", "result": 1}))
    assert store.get("abc") is None


def test_store_that_cannot_be_created_is_a_one_line_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(StoreError, match="--store .*cannot create"):
        Store(f / "sub")


def test_jobs_with_one_key_run_once():
    out = run_jobs([Job("same", square, (3,)), Job("same", square, (3,)), Job("other", square, (4,))], Where("threads", 2))
    assert out.computed == 2 and out.results[0] == out.results[1]


def test_a_failing_job_stops_the_run_with_its_error():
    for where in (Where("threads", 2), Where("processes", 2)):
        with pytest.raises(ValueError, match="job 1 failed"):
            run_jobs([Job("a", square, (0,)), Job("b", boom, (1,))], where)


def test_stoppable_jobs_get_a_stop_check():
    out = run_jobs([Job("a", stoppable, (1,), stoppable=True)], Where("processes", 1))
    assert out.results == [{"x": 1}]


def test_incomplete_results_are_used_but_not_stored(tmp_path):
    store = Store(tmp_path)
    out = run_jobs([Job("a", square, (1,), complete=lambda r: False)], Where("threads", 1), store=store)
    assert out.results[0]["x"] == 1 and len(store) == 0


def test_progress_counts_reused_and_finished_jobs(tmp_path):
    store = Store(tmp_path)
    run_jobs(jobs([0, 1]), Where("threads", 1), store=store)
    seen = []
    run_jobs(jobs([0, 1, 2]), Where("threads", 1), store=store, progress=lambda d, t, note: seen.append((d, t, note)))
    assert seen == [(2, 3, ""), (3, 3, "x=2")]


@pytest.mark.parametrize("bad", ["localhost", "tcp://nohost", "http://x:1:2", "sched.json"])
def test_bad_dask_addresses_are_refused_before_any_work(bad):
    with pytest.raises(RunnerError, match="--dask"):
        cluster.check_address(bad)


def test_where_refuses_nonsense():
    with pytest.raises(RunnerError):
        Where("gpu")
    with pytest.raises(RunnerError):
        Where("processes", 0)
    with pytest.raises(RunnerError):
        Where("dask")


def test_unreachable_scheduler_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    with pytest.raises(RunnerError, match="cannot reach the Dask scheduler"):
        run_jobs(jobs([1]), Where("dask", None, "tcp://127.0.0.1:9"))


def test_dask_local_cluster_gives_the_same_results():
    want = run_jobs(jobs(range(5)), Where("threads", 1)).results
    out = run_jobs(jobs(range(5)), Where("dask", 2, "local"))
    assert same(out.results, want) and out.computed == 5 and out.cpu_s is not None
