"""The command line: outputs, exit codes, one-line errors without tracebacks."""

import json
import subprocess
import sys

import pytest

from mcastlab.cli import main

from conftest import assert_one_error_line


def run(*args):
    p = subprocess.run([sys.executable, "-m", "mcastlab", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_info_default_reports_check(capsys):
    assert main(["fabric", "info"]) == 0
    out = capsys.readouterr().out
    assert "irregular" in out and "switches    8" in out and "endpoints   32" in out
    assert "reachability  verified" in out and "deadlock      free" in out


def test_info_json(capsys):
    assert main(["fabric", "info", "torus:4x4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fabric"]["switches"] == 16
    assert data["check"]["ok"] is True
    assert data["routing"]["spec"] == "dor:datelines=true"


def test_info_without_datelines_fails_with_status_1(capsys):
    assert main(["fabric", "info", "torus:4x4", "--routing", "dor:datelines=false"]) == 1
    assert "deadlock      POSSIBLE" in capsys.readouterr().out


def test_generate_and_reload(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["fabric", "generate", "mesh:3x3", "-o", str(out)]) == 0
    assert main(["fabric", "info", str(out), "--no-check"]) == 0
    assert "mesh" in capsys.readouterr().out
    assert main(["fabric", "generate", "mesh:3x3"]) == 0
    assert json.loads(capsys.readouterr().out)["topology"]["generator"] == "mesh"


def test_generate_is_byte_identical(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["fabric", "generate", "irregular:seed=11", "-o", str(a)]) == 0
    assert main(["fabric", "generate", "irregular:seed=11", "-o", str(b)]) == 0
    # Two runs wrote the same fabric, not merely the same (say, empty) bytes.
    assert json.loads(a.read_text())["topology"]["generator"] == "irregular"
    assert a.read_bytes() == b.read_bytes()


def test_route_by_name(capsys):
    assert main(["fabric", "route", "torus:4x4", "n(0,0)", "n(1,0)"]) == 0
    out = capsys.readouterr().out
    assert "n(0,0) -> r(0,0)[1>2] -> r(1,0)[3>1] -> n(1,0)" in out
    assert "(address 1)" in out, "DOR has no LIDs: the endpoint index is the address"


def test_route_under_zhou07_shows_the_dlid_of_path_q(capsys):
    # zhou07 §3.3.1: P(000) reaches P(200) along path Q with DLID 33 (LIDs start at 1).
    assert main(["fabric", "route", "mport_ntree:m=4,n=3", "P(000)", "P(200)"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("under mport_lmc (DLID 33)"), first


def test_list(capsys):
    assert main(["list", "generators"]) == 0
    out = capsys.readouterr().out
    for name in ["irregular", "torus", "mesh", "mport_ntree", "kary_ntree", "hypercube"]:
        assert name in out
    assert main(["list", "routings"]) == 0
    out = capsys.readouterr().out
    for name in ["updown", "dor", "mport_lmc", "nca", "ecube", "minhop", "updn"]:
        assert name in out


@pytest.mark.parametrize(
    "args, text",
    [
        (["fabric", "info", "torus:0"], "dims"),
        (["fabric", "info", "irregular:switches=2,ports=2,endpoints=9"], "endpoints"),
        (["fabric", "route", "torus:4x4", "0", "77"], "unknown endpoint"),
        (["fabric", "info", "nothere/x.json"], "no such file"),
        (["fabric", "info", "irregular", "--routing", "ecube"], "does not apply"),
        (["fabric", "generate", "torus:4x4", "-o", "x.weird"], "extension `.weird`"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--dests", "1,99"], "99"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--dests", "0,1"], "source"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--group", "0%"], "group"),
        (["plan", "irregular", "--scheme", "storus", "--src", "0", "--dests", "1"], "schemes that apply: separate, chain"),
        (["plan", "torus:4x4", "--scheme", "mutorus:r=0", "--src", "0", "--dests", "1"], "r"),
        (["plan", "torus:4x4", "--scheme", "separate:pipelined=true", "--src", "0", "--dests", "1", "--discipline", "host"],
         "pipelined=true"),
        (["check", "bad.json", "--fabric", "irregular"], "bad.json"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--group", "abc"], "--group `abc`"),
        (["compare", "--group", "abc"], "--group `abc`"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(args, text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text('{"format": "mcastlab-plan", "version": 1, "transmissions": [')
    code, out, err = run(*args)
    assert code == 2
    assert_one_error_line(err, text)


@pytest.mark.parametrize(
    "args, option",
    [
        (["kbinomial-table", "--n", "x", "--m", "1"], "--n"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--dests", "1", "-m", "-1"], "--packets/-m"),
        (["plan", "irregular", "--scheme", "binomial", "--src", "0", "--group", "40%", "--seed", "-1"], "--seed"),
        (["fabric", "info", "torus:4x4", "--max-work", "-5"], "--max-work"),
        (["plan", "torus:4x4", "--scheme", "binomial", "--src", "0", "--dests", "1", "--ns-per-op", "-1"], "--ns-per-op"),
        (["fabric", "route", "torus:4x4", "0", "5", "--max-paths", "-1"], "--max-paths"),
        (["compare", "--workers", "-1"], "--workers"),
    ],
)
def test_bad_numbers_are_usage_errors_not_tracebacks(args, option):
    # Checked while parsing, and reported like every other user mistake: one line naming the option.
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert_one_error_line(err, f"argument {option}: ")


def test_a_routings_vc_needs_configure_the_default_not_a_users_choice(capsys):
    # The newcomer's first torus command (issue 10): DOR's datelines need two VCs, the presets
    # have one; unless the user set switch.vcs, the switches get what the routing needs.
    assert main(["simulate", "torus:4x4", "--scheme", "binomial", "--src", "0", "--group", "50%", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["switch"]["vcs"] == 2
    argv = ["simulate", "torus:4x4", "-w", "uniform", "--load", "0.05", "--measure", "batches=2", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["run"]["params"]["switch"]["vcs"] == 2
    assert main(["simulate", "torus:4x4", "--scheme", "binomial", "--src", "0", "--group", "50%",
                 "--param", "switch.vcs=1"]) == 2
    assert_one_error_line(capsys.readouterr().err, "needs 2 virtual channels, the switches have 1")


def test_dests_take_mesh_and_torus_names_whose_commas_are_their_own(capsys):
    # `n(1,0)` was split at its comma into `n(1` and `0)`.
    assert main(["plan", "mesh:3x3", "--scheme", "binomial", "--src", "0", "--dests", "n(1,0), n(2,2),3"]) == 0
    assert "n(0,0) -> 3 destinations" in capsys.readouterr().out
    assert main(["plan", "torus:3x3", "--scheme", "binomial", "--src", "n(0,0)", "--dests", "n(1,1)"]) == 0
    assert "-> 1 destinations" in capsys.readouterr().out


def test_jobs_beyond_what_helps_are_refused(capsys):
    # 100,000 threads kept a 10 ms run busy for over a minute.
    from mcastlab.cli.options import MAX_JOBS

    run = ["simulate", "mesh:3x3", "--scheme", "binomial", "--src", "0", "--dests", "1-4", "--size", "128B"]
    assert main(run + ["--jobs", str(MAX_JOBS + 1)]) == 2
    assert_one_error_line(capsys.readouterr().err, f"give an integer from 1 to {MAX_JOBS}")


def test_lfts_checks_its_output_before_the_routing(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["lfts", "kary_ntree:k=4,n=2", "-r", "updn", "-o", str(afile / "l.dump")]) == 2
    assert_one_error_line(capsys.readouterr().err, f"-o/--output {afile / 'l.dump'}: {afile} is a file, not a directory")
    assert main(["lfts", "kary_ntree:k=4,n=2", "-r", "updn", "-o", str(tmp_path / "no" / "l.dump")]) == 2
    assert_one_error_line(capsys.readouterr().err, "does not exist")
    assert main(["lfts", "kary_ntree:k=4,n=2", "-r", "updn", "-o", str(tmp_path / "l.dump")]) == 0
    assert (tmp_path / "l.dump").read_text().count("Unicast lids") > 0


def test_tables_print_small_values_with_their_digits(capsys):
    # A fault percent below 0.01 % was printed 0.00 %, and a load of 0.00005 as 0.0001.
    assert main(["qs-table", "--sizes", "16", "--faulty", "0.001,1", "--trials", "2"]) == 0
    out = capsys.readouterr().out
    assert "   16   0.001%" in out and "   16    1.00%" in out
    from mcastlab.cli.values import load_text

    assert [load_text(x) for x in (0.1, 0.00005, 0.12345, 0.5)] == ["0.1000", "0.00005", "0.12345", "0.5000"]
    assert main(["sweep", "mesh:2x2", "-w", "uniform", "--loads", "0.00005", "--measure", "batches=1"]) in (0, 1)
    assert "\n 0.00005  " in capsys.readouterr().out
    # A load whose digits would fill the line is printed in its shortest form (it printed 300 digits).
    assert [load_text(x) for x in (1e-300, 1.5e-17, 1e-14)] == ["1e-300", "1.5e-17", "0.00000000000001"]
    main(["sweep", "mesh:2x2", "-w", "uniform", "--loads", "1e-300", "--measure", "batches=1"])
    out = capsys.readouterr().out
    assert "\n  1e-300  " in out and "measured at 1e-300:" in out and "0.000000000000000" not in out, out


def test_a_window_without_messages_says_nothing_was_measured(capsys):
    """A window too short to create a message reported `drained` and exit 0."""
    rc = main(["simulate", "mesh:4x4", "--workload", "uniform", "--load", "0.01", "--measure", "batch=1cycles",
               "--measure", "warmup=1cycles", "--measure", "batches=1"])
    out = capsys.readouterr().out
    assert rc == 1 and "outcome         no_message" in out and "drained" not in out, out
    assert "lengthen it (measure.batch, measure.batches)" in out


def test_a_printed_routing_spec_is_accepted_by_routing(capsys):
    """`updown:root=r(0,0)`, as printed, was refused by -r as a malformed item."""
    assert main(["fabric", "info", "mesh:3x3", "-r", "updown:root=0"]) == 0
    printed = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("routing"))
    spec = printed.split()[1].rstrip(",")
    assert spec == "updown:root=r(0,0)", printed
    assert main(["fabric", "info", "mesh:3x3", "-r", spec]) == 0
    assert f"routing     {spec}," in capsys.readouterr().out


def test_a_named_pipe_takes_rows_when_something_reads_it(tmp_path, capsys):
    """docs/reliability.md: a named pipe is an output like a file (`--csv >(gzip > rows.gz)`
    works); writing waits for the reader, which here is a thread."""
    import os
    import threading

    fifo = tmp_path / "rows.csv"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    rc = main(["sweep", "mesh:2x2", "-w", "uniform", "--loads", "0.05", "--measure", "batches=1", "--csv", str(fifo)])
    reader.join(timeout=60)
    assert rc == 0 and not reader.is_alive(), capsys.readouterr()
    lines = got[0].splitlines()
    assert lines[0].startswith("fabric,routing,workload,") and len(lines) == 2, got
