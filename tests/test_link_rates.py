"""Link speeds from an ibnetdiscover file reach the simulator (issue 13): the DDR link of a
two-switch fabric serializes a flit in twice the time its QDR links do."""

import json
from pathlib import Path

from mcastlab.cli import main


def two_switches(between: str) -> str:
    return (
        'Switch 8 "S-0000000000000001" # "s1" base port 0 lid 1 lmc 0\n'
        '[1] "H-0000000000000003"[1] # "h3" lid 3 4xQDR\n'
        f'[3] "S-0000000000000002"[3] # "s2" lid 2 {between}\n\n'
        'Switch 8 "S-0000000000000002" # "s2" base port 0 lid 2 lmc 0\n'
        '[1] "H-0000000000000004"[1] # "h4" lid 4 4xQDR\n'
        f'[3] "S-0000000000000001"[3] # "s1" lid 1 {between}\n\n'
        'Ca 1 "H-0000000000000003" # "h3"\n[1] "S-0000000000000001"[1] # lid 3 lmc 0 "s1" lid 1 4xQDR\n\n'
        'Ca 1 "H-0000000000000004" # "h4"\n[1] "S-0000000000000002"[1] # lid 4 lmc 0 "s2" lid 2 4xQDR\n'
    )


def simulate(tmp_path: Path, between: str, capsys) -> dict:
    f = tmp_path / f"{between}.topo"
    f.write_text(two_switches(between))
    assert main(["simulate", str(f), "--scheme", "separate", "--src", "index:0", "--dests", "index:1", "--size", "1KiB",
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_ddr_link_takes_twice_the_qdr_serialization_time(tmp_path, capsys):
    ddr, qdr = simulate(tmp_path, "4xDDR", capsys), simulate(tmp_path, "4xQDR", capsys)

    def per_flit(run: dict, needle: str) -> set:
        return {l["busy_ps"] // l["flits"] for l in run["links"] if needle in l["text"]}

    # 8 bits at 16 Gb/s = 500 ps, at 32 Gb/s = 250 ps (1-byte flits of the default preset)
    assert per_flit(ddr, "S-0000000000000001[3]") == {500}
    assert per_flit(qdr, "S-0000000000000001[3]") == {250}
    assert per_flit(ddr, "H-0000000000000003") == {250}
    assert ddr["completion_ps"] > qdr["completion_ps"]
