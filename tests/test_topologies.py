"""Real fabric dumps (shared/reference/topologies) load, route, pass the checks, and round-trip."""

import pytest

import mcastlab
from mcastlab.cli import main

from conftest import assert_routing_verified


FILES = [
    ("ltaulell-HPC_toolset/X5.topofile", 11, 89),
    ("jabl-ibtopotool/3.topo", None, None),
    ("linux-rdma-ibsim/net.2sw2path4hca", 2, 4),
]


@pytest.mark.parametrize("rel, switches, endpoints", FILES)
def test_real_files_load_route_and_check(topologies, rel, switches, endpoints):
    f = mcastlab.load(topologies / rel)
    if switches is not None:
        assert (f.num_switches, f.num_endpoints) == (switches, endpoints)
    assert f.topology["generator"] == "imported"
    assert f.routing().engine == "updown"
    assert_routing_verified(f)
    # Export to ibnetdiscover and back keeps the structure and names.
    g = mcastlab.Fabric.parse(f.to_ibnetdiscover(), "re-export")
    assert (g.num_switches, g.num_endpoints, g.num_links) == (f.num_switches, f.num_endpoints, f.num_links)
    assert sorted(e["name"] for e in g.endpoints) == sorted(e["name"] for e in f.endpoints)


def test_x5_with_spine_root_and_guid_lookup(topologies):
    path = topologies / "ltaulell-HPC_toolset" / "X5.topofile"
    spine = [l.strip() for l in (topologies / "ltaulell-HPC_toolset" / "X5.spine").read_text().splitlines() if l.startswith("S-")]
    f = mcastlab.load(path)
    r = f.routing(f"updown:root={spine[0]}")
    assert r.facts()["root"] == spine[0]
    assert r.check()["ok"]
    # A CA by port GUID as printed in the dump, and a switch by GUID.
    assert f.endpoint("0x3048c749cd0001") == f.endpoint("H-003048c749cd0000")
    assert f.switch("0x8f10500200b50") == f.switch("S-0008f10500200b50")


def test_cli_info_on_real_file(topologies, capsys):
    assert main(["fabric", "info", str(topologies / "linux-rdma-ibsim" / "net.2sw2path4hca")]) == 0
    out = capsys.readouterr().out
    assert "switches    2" in out and "deadlock      free" in out


def test_json_round_trip_of_imported_fabric(topologies, tmp_path):
    f = mcastlab.load(topologies / "jabl-ibtopotool" / "3.topo")
    f.save(tmp_path / "3.json")
    assert mcastlab.load(tmp_path / "3.json") == f
