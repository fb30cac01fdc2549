"""OpenSM's minhop/updn engines, LFT dumps and the joint unicast + multicast deadlock check from
Python and the CLI (issue 11)."""
import json
import subprocess
import sys

import pytest

import mcastlab
from mcastlab import McastlabError


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mcastlab", *args], capture_output=True, text=True, cwd=cwd)


def test_engines_are_listed_and_checked():
    f = mcastlab.fabric("kary_ntree:k=4,n=2")
    assert {"minhop", "updn"} <= set(f.applicable_routings())
    assert f.check("minhop")["ok"] and f.check("updn")["ok"]
    assert not mcastlab.fabric("torus:6").check("minhop")["ok"]


def test_lft_dump_round_trip_and_joint_check(tmp_path):
    f = mcastlab.fabric("kary_ntree:k=4,n=2")
    r = f.routing("updn")
    path = tmp_path / "lfts.dump"
    path.write_text(r.lfts_dump())
    loaded = f.load_lfts(path)
    assert loaded.lfts_dump() == path.read_text()
    plans = [f.plan("ib_opensm", s, [d for d in range(16) if d != s and (d + s) % 3 == 0]) for s in range(3)]
    rep = loaded.joint_deadlock(plans)
    assert rep["ok"] and rep["trees"] == 3 and rep["deadlock"]["status"] == "free"


def test_bad_dump_is_one_line_naming_the_line(tmp_path):
    f = mcastlab.fabric("kary_ntree:k=4,n=2")
    text = f.routing("minhop").lfts_dump().splitlines()
    path = tmp_path / "bad.dump"
    path.write_text("\n".join(text[:-1]) + "\n")
    with pytest.raises(McastlabError, match="truncated"):
        f.load_lfts(path)


def test_cli_deadlock_and_lfts(tmp_path):
    out = run("lfts", "torus:6", "-r", "minhop", "-o", str(tmp_path / "m.dump"))
    assert out.returncode == 0, out.stderr
    res = run("deadlock", "torus:6", "--lfts", str(tmp_path / "m.dump"))
    assert res.returncode == 1 and "DEADLOCK POSSIBLE" in res.stdout, res.stdout + res.stderr
    ok = run("deadlock", "torus:6", "-r", "updn:roots=0", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["deadlock"]["status"] == "free"
    sl = tmp_path / "sl2vl"
    sl.write_text("0 0\n99 1\n")
    bad = run("deadlock", "torus:6", "-r", "updn:roots=0", "--sl2vl", str(sl))
    assert bad.returncode != 0 and "line 2" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_cli_deadlock_refuses_lfts_cut_between_blocks_or_with_holes(tmp_path):
    """A dump cut after half its switch blocks, or missing an entry, was called deadlock-free
    while Routing.check() said reachability failed."""
    lines = mcastlab.fabric("kary_ntree:k=4,n=2").routing("updn").lfts_dump().splitlines()
    ends = [i for i, x in enumerate(lines) if x.endswith("lids dumped")]
    half = tmp_path / "half.dump"
    half.write_text("\n".join(lines[: ends[len(ends) // 2 - 1] + 1]) + "\n")
    res = run("deadlock", "kary_ntree:k=4,n=2", "--lfts", str(half))
    assert res.returncode == 2 and "deadlock-free" not in res.stdout, res.stdout + res.stderr
    assert "half.dump: no block for 4 of the fabric's 8 switches" in res.stderr and "Traceback" not in res.stderr
    hole = tmp_path / "hole.dump"
    hole.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    res = run("deadlock", "kary_ntree:k=4,n=2", "--lfts", str(hole))
    assert res.returncode == 2 and "deadlock-free" not in res.stdout, res.stdout + res.stderr
    assert "needs LFTs that route every endpoint pair" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_cli_deadlock_refuses_plans_and_dumps_without_mft_trees(tmp_path):
    """A binomial (software) plan joined as 0 trees and the check said deadlock-free."""
    f = mcastlab.fabric("kary_ntree:k=4,n=2")
    f.plan("binomial", 0, [1, 2, 5, 9]).save(tmp_path / "bin.json")
    res = run("deadlock", "kary_ntree:k=4,n=2", "--plan", str(tmp_path / "bin.json"))
    assert res.returncode == 2 and "deadlock-free" not in res.stdout, res.stdout + res.stderr
    assert "bin.json: plan `binomial" in res.stderr and "has no MFT tree" in res.stderr
    (tmp_path / "empty.mcfdbs").write_text("")
    res = run("deadlock", "kary_ntree:k=4,n=2", "--mfts", str(tmp_path / "empty.mcfdbs"))
    assert res.returncode == 2 and "empty.mcfdbs: the MFT dump has no rows" in res.stderr, res.stdout + res.stderr
    with pytest.raises(McastlabError, match=r"plans\[1\]: plan `binomial"):
        f.routing("updn").joint_deadlock([f.plan("ib_opensm", 0, [1, 2]), f.plan("binomial", 0, [1, 2])])
    f.plan("ib_opensm", 0, [1, 2, 5, 9]).save(tmp_path / "ib.json")
    ok = run("deadlock", "kary_ntree:k=4,n=2", "--plan", str(tmp_path / "ib.json"))
    assert ok.returncode == 0 and "1 multicast tree(s)" in ok.stdout, ok.stdout + ok.stderr
