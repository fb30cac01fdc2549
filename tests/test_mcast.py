"""Many InfiniBand multicast groups from the CLI and Python (issue 11): groups file -> MFTs in
OpenSM's and ibroute's layouts, the capacity report, a dump checked and simulated."""

import json
import re
from pathlib import Path

import pytest

import mcastlab
from mcastlab.cli import main

GROUPS = "bcast ipoib : Hca1 Hca2 Hca3 Hca4\npair : Hca1 Hca2\nsolo : Hca3\nsw : switch:Switch1 Hca2@sendonly\n"


@pytest.fixture
def ibsim(topologies) -> Path:
    return topologies / "linux-rdma-ibsim" / "net.2sw2path4hca"


def test_cli_mfts_writes_what_python_returns(ibsim, tmp_path, capsys):
    g = tmp_path / "groups.txt"
    g.write_text(GROUPS)
    f = mcastlab.load(ibsim)
    res = f.mcast(g)
    assert [x["mlid"] for x in res["groups"]] == [0xC000, 0xC001, 0xC002, 0xC003]
    assert res["groups"][2]["root"] is None and "fewer than two" in res["groups"][2]["note"]
    assert main(["mfts", str(ibsim), "--groups", str(g), "--out", str(tmp_path / "o.mcfdbs")]) == 0
    assert (tmp_path / "o.mcfdbs").read_text() == res["mcfdbs"]
    # Switch1 joined group `sw`: its port 0 is in the MLID's mask.
    assert "0xC003 : 0x000 " in res["mcfdbs"]
    assert main(["mfts", str(ibsim), "--groups", str(g), "--format", "ibroute"]) == 0
    out = capsys.readouterr().out
    assert out == res["ibroute"] and out.count("Multicast mlids") == 2 and "valid mlids dumped" in out
    # The same groups as a Python list give the same tables.
    as_list = [{"name": "bcast", "ipoib": True, "members": ["Hca1", "Hca2", "Hca3", "Hca4"]},
               {"name": "pair", "members": ["Hca1", "Hca2"]}, {"name": "solo", "members": ["Hca3"]},
               {"name": "sw", "members": ["switch:Switch1", {"member": "Hca2", "join": "sendonly"}]}]
    assert f.mcast(as_list)["mcfdbs"] == res["mcfdbs"]


def test_capacity_exit_status_says_whether_every_group_fits(ibsim, tmp_path, capsys):
    g = tmp_path / "many.txt"
    g.write_text("".join(f"g{i} : Hca1 Hca{2 + i % 3}\n" for i in range(40)))
    assert main(["capacity", str(ibsim), "--groups", str(g)]) == 0
    assert main(["capacity", str(ibsim), "--groups", str(g), "--mft-cap", "32"]) == 1
    out = capsys.readouterr().out
    assert "software      8 group(s)" in out and "first limit   group `g32`" in out
    c = mcastlab.load(ibsim).capacity(g, mft_cap=32)
    assert (c["hardware"], c["software"]) == (32, 8)


def test_capacity_reads_each_switch_cap_from_smpquery_switchinfo(ibsim, tmp_path, capsys):
    """A switch's own MulticastFDBCap (smpquery switchinfo) lowers the subnet's MLID ceiling;
    the switches the file does not name keep --mft-cap. LIDs are the ones the dumps use."""
    g = tmp_path / "many.txt"
    g.write_text("".join(f"g{i} : Hca1 Hca{2 + i % 3}\n" for i in range(40)))
    f = mcastlab.load(ibsim)
    lids = re.findall(r"of switch Lid (\d+) guid", f.mcast(g, brief=True)["ibroute"])
    assert lids, "the ibroute text names each switch's LID"
    si = tmp_path / "switchinfo.txt"
    si.write_text(f"# Switch info: Lid {lids[0]}\nLinearFdbCap:....................49152\n"
                  "McastFdbCap:.....................16\nLinearFdbTop:....................8\n")
    c = f.capacity(g, switchinfo=si)
    assert (c["hardware"], c["software"], c["mlid_ceiling"]) == (16, 24, 0xC00F)
    assert list(c["limits"]["switch_caps"].values()) == [16]
    assert main(["capacity", str(ibsim), "--groups", str(g), "--switchinfo", str(si)]) == 1
    out = capsys.readouterr().out
    assert "MulticastFDBCap 1024, 1 switch(es) with their own (smallest 16)" in out
    assert "first limit   group `g16`" in out
    # An endpoint's LID is refused with the file and line, nothing else printed.
    si.write_text("\n# Switch info: Lid 1\nMcastFdbCap:....8\n")
    assert main(["capacity", str(ibsim), "--groups", str(g), "--switchinfo", str(si)]) != 0
    err = capsys.readouterr().err
    assert f"{si}:2: LID 1: an endpoint's LID" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_check_and_simulate_a_dump(ibsim, tmp_path, capsys):
    g = tmp_path / "groups.txt"
    g.write_text(GROUPS)
    f = mcastlab.load(ibsim)
    dump = tmp_path / "opensm.mcfdbs"
    dump.write_text(f.mcast(g)["mcfdbs"])
    assert main(["check", str(ibsim), "--mfts", str(dump), "--groups", str(g)]) == 0
    assert "0xC000  4 members: ok" in capsys.readouterr().out
    # Both parallel links in the broadcast group's masks: a loop, exit 1.
    looped = "\n".join(l + " 0x005 " if l.startswith("0xC000 :") else l for l in dump.read_text().split("\n"))
    assert looped != dump.read_text()
    bad = tmp_path / "looped.mcfdbs"
    bad.write_text(looped)
    assert main(["check", str(ibsim), "--mfts", str(bad), "--mlid", "0xC000"]) == 1
    assert "loop: switch 0x" in capsys.readouterr().out
    assert all(r["ok"] for r in f.check_mfts(dump, groups=g))
    assert main(["simulate", str(ibsim), "--mfts", str(dump), "--mlid", "0xC000", "--src", "Hca1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["outcome"]["kind"] == "delivered"
    p = f.plan_from_mfts(dump, 0xC000, "Hca1")
    assert p.check()["ok"]
    # Nothing checked is not a pass: an empty dump, an MLID the dump has no row for.
    empty = tmp_path / "empty.mcfdbs"
    empty.write_text("")
    assert main(["check", str(ibsim), "--mfts", str(empty)]) == 1
    assert f"{empty}: no MFT rows: nothing to check" in capsys.readouterr().err
    assert main(["check", str(ibsim), "--mfts", str(dump), "--mlid", "0xC0FF"]) == 1
    assert "no MFT row for MLID 0xC0FF: nothing to check" in capsys.readouterr().err
    # With the groups, an empty dump fails every group of two or more members.
    res = f.check_mfts(empty, groups=g)
    assert res and not any(r["ok"] for r in res if r["members"] > 1)
    assert main(["check", str(ibsim), "--mfts", str(empty), "--groups", str(g)]) == 1


def test_formats_doc_groups_example_builds(topologies):
    """docs/formats.md's text-form example, on the X5 dump the README calls my-cluster.topo."""
    import re

    from conftest import REPO

    doc = (REPO / "docs" / "formats.md").read_text()
    section = doc[doc.index("**Text form**"):]
    block = re.search(r"^```text\n(.*?)^```", section, flags=re.S | re.M).group(1)
    f = mcastlab.load(topologies / "ltaulell-HPC_toolset" / "X5.topofile")
    res = f.mcast([])  # an empty list is no groups
    assert res["groups"] == [] and res["mcfdbs"] == ""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        g = Path(d) / "groups.txt"
        g.write_text(block)
        res = f.mcast(g)
    assert [(x["name"], x["mlid"]) for x in res["groups"]] == [("bcast", 0xC000), ("job1", 0xC001), ("agents", 0xC010)]
    assert res["groups"][2]["root"] is not None and "0xC010 : 0x000 " in res["mcfdbs"]


def test_trees_follow_the_unicast_engine_and_the_joint_check_sees_why(tmp_path, capsys):
    """On an 8-ring routed by updn from switch 0, minhop's tree for CAs 1, 3, 5 turns at the
    bottom switch 4, which updn's unicast never does: together they close the ring. The tree built
    over updn's hop matrix avoids switch 4, and the joint check proves it free."""
    g = tmp_path / "g.txt"
    g.write_text("g : index:1 index:3 index:5\n")
    updn, minhop = tmp_path / "updn.mcfdbs", tmp_path / "minhop.mcfdbs"
    assert main(["mfts", "torus:8", "--groups", str(g), "-r", "updn:roots=0", "--out", str(updn)]) == 0
    assert main(["mfts", "torus:8", "--groups", str(g), "--out", str(minhop)]) == 0
    assert updn.read_text() != minhop.read_text()
    f = mcastlab.fabric("torus:8")
    assert f.mcast(g, routing="updn:roots=0")["mcfdbs"] == updn.read_text()
    assert f.mcast(g, routing="minhop")["mcfdbs"] == minhop.read_text()
    capsys.readouterr()
    assert main(["deadlock", "torus:8", "-r", "updn:roots=0", "--mfts", str(updn)]) == 0
    assert "unicast updn" in capsys.readouterr().out
    assert main(["deadlock", "torus:8", "-r", "updn:roots=0", "--mfts", str(minhop)]) == 1
    assert "DEADLOCK POSSIBLE" in capsys.readouterr().out
    r = f.routing("updn:roots=0")
    assert r.joint_deadlock(mfts=updn)["ok"] and r.joint_deadlock(mfts=updn)["trees"] == 1
    assert r.joint_deadlock(mfts=minhop)["deadlock"]["status"] == "cycle"
    # On another VL (SL 1 -> VL 1) the minhop tree shares no buffers with unicast: free.
    sl2vl = tmp_path / "sl2vl.txt"
    sl2vl.write_text("0 0\n1 1\n")
    assert r.joint_deadlock(mfts=minhop, mfts_sl=1, sl2vl=sl2vl)["ok"]
