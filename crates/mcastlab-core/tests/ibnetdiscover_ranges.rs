//! ibnetdiscover fields with a range (LID 16-bit unicast, LMC 3-bit, port numbers 8-bit, vendor
//! and device ids 24/16-bit) are refused past it with file:line and the valid range, instead of
//! loading silently (issue 13, the fabric side).

use mcastlab_core::io::ibnetdiscover::parse;

/// One switch and two hosts; the pieces the cases vary are the switch line's tail, the switch's
/// first port, the first host's port comment, the first peer port and a header.
fn topo(sw_tail: &str, port: &str, ca_comment: &str, peer_port: &str, header: &str) -> String {
    format!(
        "{header}Switch 8 \"S-0000000000000001\" # \"sw\" {sw_tail}\n\
         [{port}] \"H-0000000000000002\"[{peer_port}] # \"h2\" lid 3 4xQDR\n\
         [2] \"H-0000000000000003\"[1] # \"h3\" lid 4 4xQDR\n\n\
         Ca 1 \"H-0000000000000002\" # \"h2\"\n[1] \"S-0000000000000001\"[1] # {ca_comment} \"sw\" lid 1 4xQDR\n\n\
         Ca 1 \"H-0000000000000003\" # \"h3\"\n[1] \"S-0000000000000001\"[2] # lid 4 lmc 0 \"sw\" lid 1 4xQDR\n"
    )
}

fn error(text: &str) -> String {
    parse(text, "t.topo").expect_err("must be refused").to_string()
}

const SW: &str = "base port 0 lid 1 lmc 0";
const CA: &str = "lid 3 lmc 0";

#[test]
fn valid_values_load_and_lid_0_means_unassigned() {
    assert!(parse(&topo(SW, "1", CA, "1", ""), "t.topo").is_ok());
    assert!(parse(&topo("base port 0 lid 0 lmc 0", "1", "lid 0 lmc 7", "1", "vendid=0xffffff\n"), "t.topo").is_ok());
    assert!(parse(&topo("base port 0 lid 49151 lmc 0", "1", CA, "1", ""), "t.topo").is_ok());
}

#[test]
fn lids_and_lmcs_out_of_range_name_the_line_and_the_range() {
    let e = error(&topo(SW, "1", "lid 70000 lmc 0", "1", ""));
    assert!(e.starts_with("t.topo:6: LID 70000 is outside the unicast range 1..=49151"), "{e}");
    let e = error(&topo("base port 0 lid 49152 lmc 0", "1", CA, "1", ""));
    assert!(e.starts_with("t.topo:1: LID 49152 is outside"), "{e}");
    let e = error(&topo(SW, "1", "lid 3 lmc 9", "1", ""));
    assert!(e.starts_with("t.topo:6: LMC 9 is outside 0..=7"), "{e}");
    let e = error(&topo("base port 0 lid 1 lmc 8", "1", CA, "1", ""));
    assert!(e.starts_with("t.topo:1: LMC 8 is outside 0..=7"), "{e}");
    // the range a LID and its LMC own must end inside the unicast LIDs
    let e = error(&topo(SW, "1", "lid 49150 lmc 2", "1", ""));
    assert!(e.contains("owns LIDs up to 49153"), "{e}");
    // the peer's LID in a port comment is checked too: no real dump states LID 70000
    let e = error(&topo(SW, "1", "lid 3 lmc 0", "1", "").replace("\"h2\" lid 3 4xQDR", "\"h2\" lid 99999 4xQDR"));
    assert!(e.starts_with("t.topo:2: LID 99999"), "{e}");
}

#[test]
fn port_numbers_and_ids_past_their_fields_are_refused() {
    let e = error(&topo(SW, "70000", CA, "1", ""));
    assert!(e.starts_with("t.topo:2: port number `[70000]` is outside 0..=255"), "{e}");
    let e = error(&topo(SW, "1", CA, "300", ""));
    assert!(e.starts_with("t.topo:2: peer port number `[300]` is outside 0..=255"), "{e}");
    let e = error(&topo(SW, "x1", CA, "1", ""));
    assert!(e.contains("bad port number `[x1]`"), "{e}");
    let e = error(&topo(SW, "1", CA, "1", "vendid=0x1000000\n"));
    assert!(e.starts_with("t.topo:1: `vendid` 0x1000000 does not fit its field (at most 0xffffff)"), "{e}");
    let e = error(&topo(SW, "1", CA, "1", "devid=0x10000\n"));
    assert!(e.contains("`devid` 0x10000 does not fit"), "{e}");
}
