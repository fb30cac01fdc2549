"""The Python API over the Rust core: generation, routing, checks, I/O, networkx, errors."""

import json

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcastlab
from mcastlab import FabricError, McastlabError, RoutingError, SpecError

from conftest import assert_routing_verified


def test_default_fabric_is_sivaram98():
    f = mcastlab.fabric()
    assert (f.num_switches, f.num_endpoints) == (8, 32)
    assert f.topology["generator"] == "irregular"
    assert f.routing().engine == "updown"
    assert_routing_verified(f)


def test_torus_route_and_datelines():
    f = mcastlab.fabric("torus:4x4")
    r = f.route(0, "n(3,2)")
    assert [h["switch_name"] for h in r["deterministic"]["hops"]] == ["r(0,0)", "r(3,0)", "r(3,1)", "r(3,2)"]
    assert r["total_paths"] == 1
    assert f.check()["ok"]
    bad = f.check("dor:datelines=false")
    assert not bad["ok"]
    assert bad["deadlock"]["status"] == "cycle"
    assert len(bad["deadlock"]["cycle"]) == len(bad["deadlock"]["rendered"]) >= 2


def test_save_load_round_trip(tmp_path):
    f = mcastlab.fabric("irregular:seed=4")
    p = tmp_path / "f.json"
    f.save(p)
    g = mcastlab.load(p)
    assert g == f
    assert g.to_json() == f.to_json()
    assert mcastlab.fabric(str(p)) == f
    data = json.loads(p.read_text())
    assert data["format"] == "mcastlab-fabric" and data["version"] == 1


def test_dot_export(tmp_path):
    f = mcastlab.fabric("mesh:2x2")
    dot = f.to_dot()
    assert dot.startswith("digraph") and dot.count("->") == f.num_links
    f.save(tmp_path / "m.dot")
    assert (tmp_path / "m.dot").read_text() == dot


def test_to_networkx_matches_fabric():
    f = mcastlab.fabric("irregular:switches=6,ports=6,endpoints=12,seed=9")
    g = f.to_networkx()
    assert isinstance(g, nx.MultiGraph) and not g.is_directed()
    assert g.number_of_nodes() == f.num_switches + f.num_endpoints
    assert g.number_of_edges() == f.num_links
    assert nx.is_connected(g)
    kinds = nx.get_node_attributes(g, "kind")
    assert sum(k == "switch" for k in kinds.values()) == 6
    # Every endpoint has degree one.
    assert all(g.degree(n) == 1 for n, k in kinds.items() if k == "endpoint")


def test_to_networkx_directed_torus():
    f = mcastlab.fabric("torus:4x4,unidirectional")
    g = f.to_networkx()
    assert g.is_directed()
    assert nx.is_strongly_connected(g)


def test_endpoint_names_resolve():
    f = mcastlab.fabric("torus:4x4")
    assert f.endpoint("n(1,2)") == 1 + 4 * 2
    assert f.endpoint(5) == 5
    with pytest.raises(FabricError, match="unknown endpoint"):
        f.endpoint("n(9,9)")
    with pytest.raises(FabricError, match="out of range"):
        f.route(0, 16)


@pytest.mark.parametrize(
    "spec, exc, text",
    [
        ("torus:1x4", FabricError, "dims"),
        ("irregular:endpoints=100", FabricError, "p > s·k"),
        ("irregular:nope=1", SpecError, "unknown field `nope`"),
        ("nosuch:1", SpecError, "unknown generator"),
        ("", SpecError, "empty spec"),
        ("missing/file.json", FabricError, "no such file"),
    ],
)
def test_bad_specs_raise_specific_errors(spec, exc, text):
    with pytest.raises(exc, match=text):
        mcastlab.fabric(spec)


def test_routing_errors():
    f = mcastlab.fabric("irregular")
    with pytest.raises(RoutingError, match="does not apply"):
        f.routing("dor")
    with pytest.raises(SpecError, match="unknown routing"):
        f.routing("fastest")
    with pytest.raises(McastlabError):
        f.routing("updown:root=nowhere")


def test_registries_are_listed():
    names = [g["name"] for g in mcastlab.generators()]
    assert names == ["irregular", "torus", "mesh", "mport_ntree", "kary_ntree", "hypercube"]
    assert [r["name"] for r in mcastlab.routings()] == ["updown", "dor", "mport_lmc", "nca", "ecube", "minhop", "updn"]


@settings(max_examples=25, deadline=None)
@given(
    switches=st.integers(2, 10),
    ports=st.integers(4, 8),
    fill=st.floats(0.1, 0.6),
    seed=st.integers(0, 2**32),
)
def test_random_irregular_fabrics_route_cleanly(switches, ports, fill, seed):
    endpoints = max(2, int(switches * ports * fill))
    spec = f"irregular:switches={switches},ports={ports},endpoints={endpoints},connectivity=100,seed={seed}"
    try:
        f = mcastlab.fabric(spec)
    except FabricError as e:
        assert "connectivity" in str(e)
        return
    assert f.check()["ok"]
    assert mcastlab.Fabric.parse(f.to_json()) == f
    assert mcastlab.fabric(spec).to_json() == f.to_json()


def test_zhou07_path_q_from_python():
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    r = f.route("P(000)", "P(200)")
    # zhou07's DLID 33 (LID 0 is reserved, so the dense address is the LID minus one).
    assert (r["dlid"], r["address"]) == (33, 32)
    hops = [(h["switch_name"], h["in_port"], h["out_port"]) for h in r["deterministic"]["hops"]]
    assert hops == [
        ("SW<00,2>", 1, 3),
        ("SW<00,1>", 1, 3),
        ("SW<00,0>", 1, 3),
        ("SW<20,1>", 3, 1),
        ("SW<20,2>", 3, 1),
    ]


def test_zhou07_paths_q_to_t_carry_dlids_33_to_36():
    # §3.2's example: four sources in different cyclic groups of P(200) pick its four LIDs.
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    r = f.routing()
    assert [r.dlid(s, "P(200)") for s in ("P(000)", "P(001)", "P(010)", "P(011)")] == [33, 34, 35, 36]
    assert mcastlab.fabric("torus:4x4").routing().dlid(0, 5) is None
    facts = f.routing().facts()
    assert facts["LMC"] == "2"
    assert f.check()["ok"]


def test_quaternary_fat_tree_nca():
    f = mcastlab.fabric("kary_ntree:k=4,n=3")
    assert (f.num_endpoints, f.num_switches) == (64, 48)
    r = f.route(0, 63)
    # Nearest common ancestor at the top level: 5 switches, 4^2 adaptive ascents.
    assert len(r["deterministic"]["hops"]) == 5
    assert r["total_paths"] == 16
    assert f.check()["ok"]


def test_hypercube_ecube():
    f = mcastlab.fabric("hypercube")
    assert (f.num_switches, f.num_endpoints) == (16, 64)
    assert f.routing().engine == "ecube"
    assert f.check()["ok"]


def _mesh_json():
    return json.loads(mcastlab.fabric("mesh:2x2").to_json())


def _edit(fn):
    d = _mesh_json()
    fn(d)
    return json.dumps(d)


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"format": "mcastlab-fabric", "version": 1,', r"f\.json:1: EOF while parsing"),
        (_edit(lambda d: d.update(version=2)), "schema version 2 is not supported"),
        (_edit(lambda d: d.update(format="other")), "expected `mcastlab-fabric`"),
        (_edit(lambda d: d.update(colour="red")), "unknown field `colour`"),
        (_edit(lambda d: d["links"][4]["a"].update(port=9)), "port beyond the switch's 5 ports"),
        (_edit(lambda d: d["links"].append({"a": {"switch": 0, "port": 5}, "b": {"switch": 7, "port": 1}})), "switch #7 does not exist"),
        (_edit(lambda d: d["links"].append({"a": {"switch": 0, "port": 2}, "b": {"switch": 3, "port": 4}})), "carries two links"),
        (_edit(lambda d: d["links"].pop(0)), "not attached to any switch"),
        (_edit(lambda d: d.update(links=[l for l in d["links"] if "endpoint" in l["b"]])), "disconnected"),
        (_edit(lambda d: d["switches"][1].update(name=d["switches"][0]["name"])), "duplicate switch name"),
    ],
)
def test_invalid_json_fabrics_name_the_problem(text, match):
    with pytest.raises(FabricError, match=match):
        mcastlab.Fabric.parse(text, "f.json")


def test_edited_structured_fabric_is_refused_by_structure_aware_engines():
    d = _mesh_json()
    # Rewire: move the link 0-1 onto other ports; the fabric stays valid but is no longer the mesh.
    d["links"] = [l for l in d["links"] if not ("switch" in l["b"] and l["a"]["switch"] == 0 and l["b"]["switch"] == 1)]
    d["links"].append({"a": {"switch": 0, "port": 3}, "b": {"switch": 1, "port": 2}})
    f = mcastlab.Fabric.parse(json.dumps(d), "edited.json")
    with pytest.raises(RoutingError, match="differs from what"):
        f.routing("dor")
    assert f.check("updown")["ok"]


def test_kbinomial_covered_is_exact_or_refused():
    """N(s, k) past 128 bits came back as 2**128 - 1, silently capped."""
    assert mcastlab.kbinomial_covered(6, 2) == 33
    assert mcastlab.kbinomial_covered(127, 200) == 2**127
    with pytest.raises(mcastlab.PlanError, match=r"parameter `s`: N\(128, 200\) exceeds 2\^128 - 1"):
        mcastlab.kbinomial_covered(128, 200)
    # 2^128 - 1 itself fits and is exact: N(128, 127) = 1 + 2^127 + ... + 2 (it was refused as capped).
    assert mcastlab.kbinomial_covered(128, 127) == 2**128 - 1
