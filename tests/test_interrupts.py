"""Ctrl-C never loses finished work (issue 13): a long command stops, writes the rows it finished
to the files asked for, marked as partial (column ``complete``), says so, and exits 130 — and
the conclusions it prints come from complete points only.

The SIGINT cases run the real command in a subprocess and interrupt it once its progress (one
stderr line per finished step with ``MCASTLAB_PROGRESS=lines``) shows a finished point; the rows it
wrote are compared with the same rows of an uninterrupted run, which do not depend on the other
points (every run is seeded and independent).
"""

import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import mcastlab
from mcastlab.cli.sweep import conclusions
from mcastlab.workloads import STOPPED_BY_CALLER, run_rows

# Generous: the interrupted commands end within a second of the signal on the 2-core machine.
TIMEOUT_S = 120


def interrupt_after_progress(argv, done_text, signals=1):
    """Runs ``mcastlab argv``, waits for a stderr line containing ``done_text`` (a finished
    step), sends SIGINT (``signals`` times, as an impatient user does) and returns (exit
    status, stdout, stderr)."""
    env = dict(os.environ, MCASTLAB_PROGRESS="lines")  # a line per finished step on stderr
    p = subprocess.Popen([sys.executable, "-m", "mcastlab", *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    try:
        timer = threading.Timer(TIMEOUT_S, p.kill)
        timer.start()
        for line in p.stderr:
            seen.append(line)
            if done_text in line:
                break
        for i in range(signals):
            p.send_signal(signal.SIGINT)
            time.sleep(0.01)
        out, err = p.communicate(timeout=TIMEOUT_S)
    finally:
        timer.cancel()
        p.kill()
    return p.returncode, out, "".join(seen) + err


def assert_clean_interrupt(code, err):
    assert code == 130, err
    assert "Traceback" not in err and "FATAL" not in err, err
    assert "mcastlab: interrupted" in err


def same_rows(got, want, key):
    """The rows of ``got`` equal those of ``want`` (matched on ``key``), column by column over
    ``want``'s columns; the dtypes may differ (placeholder rows make integer columns float)."""
    got = got.set_index(key).sort_index()
    want = want.set_index(key).sort_index()
    pd.testing.assert_frame_equal(got.loc[want.index, want.columns], want, check_dtype=False)


def test_ctrl_c_during_compare_writes_the_finished_rows(tmp_path):
    # One worker: the 128 B run finishes at once, the 1 MiB run after it takes seconds.
    base = ["compare", "--schemes", "binomial,chain", "--no-plots", "--workers", "1"]
    # Two Ctrl-Cs: the second used to end the interpreter while pool threads were inside the
    # core ("FATAL: exception not rethrown", SIGABRT).
    code, out, err = interrupt_after_progress(base + ["--sizes", "128B,1MiB", "--out", str(tmp_path / "cut")],
                                              "1 of 8 done", signals=2)
    assert_clean_interrupt(code, err)
    assert "interrupted after" in out and "complete = true" in out
    rows = pd.read_csv(tmp_path / "cut" / "rows.csv")
    assert pd.read_parquet(tmp_path / "cut" / "rows.parquet")["complete"].tolist() == rows["complete"].tolist()
    assert len(rows) == 8 and 1 <= rows["complete"].sum() < 8
    assert (rows[~rows["complete"]]["outcome"] == "interrupted").all()
    finished = rows[rows["complete"] & (rows["size"] == "128B")]
    assert len(finished) >= 1
    # The same rows from a run that was not interrupted (128 B only: rows do not depend on other sizes).
    assert mcastlab.cli.main(base + ["--sizes", "128B", "--out", str(tmp_path / "full")]) == 0
    full = pd.read_csv(tmp_path / "full" / "rows.csv")
    assert full["complete"].all()
    same_rows(finished, full[full["label"].isin(finished["label"])], "label")


def test_ctrl_c_during_sweep_writes_the_finished_points(tmp_path):
    # The 0.02 point ends in about a second, the 0.3 point runs ten times longer.
    base = ["sweep", "mesh:4x4", "--preset", "booksim_iq", "--measure", "batch=100000cycles", "--measure", "batches=20"]
    cut = tmp_path / "cut.csv"
    code, out, err = interrupt_after_progress(base + ["--loads", "0.02,0.3", "--csv", str(cut)], "1 of 2 done")
    assert_clean_interrupt(code, err)
    assert "interrupted after 1 of 2 points" in err
    assert "conclusions     from the 1 complete of 2 points (not finished: 0.3000)" in out
    rows = pd.read_csv(cut)
    assert rows["complete"].tolist() == [True, False]
    assert rows["outcome_detail"][1].find(STOPPED_BY_CALLER) >= 0
    full = tmp_path / "full.csv"
    assert mcastlab.cli.main(base + ["--loads", "0.02", "--csv", str(full)]) == 0
    same_rows(rows[rows["complete"]], pd.read_csv(full), "offered_load")


def point(load, saturated, complete=True):
    return {"offered_load": load, "saturated": saturated, "complete": complete}


def test_sweep_conclusions_leave_out_unfinished_points():
    # The interrupted 0.25 point looked saturated: counted, it gave "between 0.4500 and 0.2500".
    df = pd.DataFrame([point(0.25, True, complete=False), point(0.35, False), point(0.45, False), point(0.55, True)])
    lines = conclusions(df)
    assert lines == [
        "conclusions     from the 3 complete of 4 points (not finished: 0.2500)",
        "saturation      between 0.4500 and 0.5500 flits/cycle/endpoint",
    ]


def test_sweep_conclusions_leave_out_points_that_measured_no_message():
    # A no_message point is not saturated and counted as stable: "not bracketed ... up to 0.5000".
    df = pd.DataFrame([dict(point(0.1, False), outcome="drained"), dict(point(0.3, True), outcome="unstable"),
                       dict(point(0.5, False), outcome="no_message")])
    assert conclusions(df) == [
        "no message      measured at 0.5000: left out (lengthen the window, --measure batch=...)",
        "saturation      between 0.1000 and 0.3000 flits/cycle/endpoint",
    ]


def test_sweep_conclusions_never_bracket_backwards():
    df = pd.DataFrame([point(0.2, True), point(0.4, False)])
    assert conclusions(df) == ["saturation      not bracketed: stable up to 0.4000 but saturated from 0.2000"]


def test_sweep_conclusions_with_every_point_complete_name_no_missing_points():
    df = pd.DataFrame([point(0.1, False), point(0.2, True)])
    assert conclusions(df) == ["saturation      between 0.1000 and 0.2000 flits/cycle/endpoint"]


def test_run_rows_mark_a_stopped_run_incomplete():
    row = {"outcome": {"kind": "budget", "message": STOPPED_BY_CALLER}, "params": {}, "measure": {}}
    budget = {"outcome": {"kind": "budget", "message": "event budget"}, "params": {}, "measure": {}}
    df = run_rows([row, budget])
    assert df["complete"].tolist() == [False, True]
    assert df["outcome"].tolist() == ["interrupted", "budget"]


def test_ctrl_c_keeps_a_single_runs_partial_result_when_asked():
    # The run takes 19 s to the end; Ctrl-C after 0.3 s returns what it measured.
    f = mcastlab.fabric("irregular")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        r = mcastlab.simulate(f, "binomial", 0, list(range(1, 32)), size="4MiB",
                              params={"switch.granularity": "flit"}, keep_partial=True)
    finally:
        timer.cancel()
    assert r["interrupted"] is True
    assert r["outcome"] == {"kind": "budget", "message": STOPPED_BY_CALLER}
    assert 0 < r["events"] < 377_946_144


def test_qs_table_rows_say_whether_they_are_complete():
    rows = mcastlab.qs_table("fig7", sizes=[16], fault_percents=[10.0], trials=3)
    assert len(rows) == 1 and rows.interrupted is False


def test_ctrl_c_during_qs_table_returns_the_finished_configurations():
    # Table 1 takes seconds to minutes; Ctrl-C after 0.3 s stops it inside its trials.
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        rows = mcastlab.qs_table("table1")
    finally:
        timer.cancel()
    assert rows.interrupted is True
    assert len(rows) < 15 and all(r["trials"] == 1000 for r in rows)
