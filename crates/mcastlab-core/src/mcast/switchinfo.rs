//! Per-switch `MulticastFDBCap` from what a live fabric reports: the text `smpquery switchinfo`
//! prints for each switch (`# Switch info: Lid 3`, then dotted `Field:....value` lines, among
//! them `McastFdbCap`), several switches' blocks concatenated as a loop over their LIDs leaves
//! them. The capacity report then uses each switch's own cap; switches the file does not name
//! keep the `mft_cap` parameter. LIDs are the fabric's LID plan (`io::lids`), so the file must
//! come from the same subnet as the fabric's dump.

use crate::error::PlanError;
use crate::fabric::Fabric;
use crate::io::lids::{lid_plan, LidOwner};
use std::collections::BTreeMap;

fn bad(file: &str, line: usize, m: impl Into<String>) -> PlanError {
    PlanError::Group(format!("{file}:{line}: {}", m.into()))
}

/// The value of a dotted `Name:.....value` line when its name is `name` (case-insensitive).
fn field<'a>(line: &'a str, names: &[&str]) -> Option<&'a str> {
    let (k, v) = line.split_once(':')?;
    names.iter().any(|n| k.trim().eq_ignore_ascii_case(n)).then(|| v.trim_start_matches('.').trim())
}

/// Caps by switch index (see the module doc). Errors name the file and line: a LID that is no
/// switch of the fabric, a switch given twice, a block without `McastFdbCap`, a value that is not
/// a whole number, a field before any header.
pub fn switch_caps(f: &Fabric, text: &str, file: &str) -> Result<BTreeMap<u32, u32>, PlanError> {
    let plan = lid_plan(f);
    let by_lid: BTreeMap<u32, u32> = plan.switch.iter().enumerate().map(|(j, l)| (*l, j as u32)).collect();
    let mut caps = BTreeMap::new();
    // (switch, header line, cap seen)
    let mut cur: Option<(u32, usize, bool)> = None;
    let close = |cur: Option<(u32, usize, bool)>| match cur {
        Some((_, h, false)) => Err(bad(file, h, "switch info without `McastFdbCap` (truncated?)")),
        _ => Ok(()),
    };
    for (i, raw) in text.lines().enumerate() {
        let (n, l) = (i + 1, raw.trim());
        if l.is_empty() {
            continue;
        }
        if let Some(rest) = l.trim_start_matches('#').trim().strip_prefix("Switch info:") {
            close(cur)?;
            let lid = rest
                .trim()
                .strip_prefix("Lid")
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| bad(file, n, "header without `Lid N`"))?;
            let Some(&s) = by_lid.get(&lid) else {
                let what = match plan.ranges().iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&lid)) {
                    Some((_, _, LidOwner::Endpoint(_))) => "an endpoint's LID, not a switch's",
                    _ => "no switch of the fabric has it",
                };
                return Err(bad(file, n, format!("LID {lid}: {what}")));
            };
            if caps.contains_key(&s) {
                return Err(bad(
                    file,
                    n,
                    format!("switch `{}` (LID {lid}) given twice", f.switches()[s as usize].name),
                ));
            }
            cur = Some((s, n, false));
            continue;
        }
        let Some(v) = field(l, &["McastFdbCap", "MulticastFdbCap", "MulticastFDBCap"]) else { continue };
        let Some((s, _, seen)) = cur.as_mut() else {
            return Err(bad(file, n, "`McastFdbCap` before any `# Switch info: Lid N` header"));
        };
        let cap: u32 = v.parse().map_err(|_| bad(file, n, format!("McastFdbCap `{v}`: not a whole number")))?;
        caps.insert(*s, cap);
        *seen = true;
    }
    close(cur)?;
    if caps.is_empty() {
        return Err(bad(file, 1, "no `# Switch info: Lid N` block (expected smpquery switchinfo output)"));
    }
    Ok(caps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::generators::generate;

    fn block(lid: u32, cap: &str) -> String {
        format!("# Switch info: Lid {lid}\nLinearFdbCap:....................49152\nMcastFdbCap:.....................{cap}\nLinearFdbTop:....................12\n")
    }

    #[test]
    fn reads_each_switch_cap_by_its_lid() {
        let f = generate("mport_ntree:m=4,n=2").unwrap();
        let plan = lid_plan(&f);
        let text = block(plan.switch[0], "4096") + "\n" + &block(plan.switch[2], "256");
        let caps = switch_caps(&f, &text, "si.txt").unwrap();
        assert_eq!(caps, BTreeMap::from([(0, 4096), (2, 256)]));
    }

    #[test]
    fn bad_files_name_the_line() {
        let f = generate("mport_ntree:m=4,n=2").unwrap();
        let plan = lid_plan(&f);
        let s0 = plan.switch[0];
        let err = |t: &str| switch_caps(&f, t, "si.txt").unwrap_err().to_string();
        assert!(
            err(&block(plan.endpoint[0], "8")).contains("si.txt:1: LID 1: an endpoint's LID"),
            "{}",
            err(&block(1, "8"))
        );
        assert!(err(&block(9999, "8")).contains("LID 9999: no switch"));
        assert!(err(&(block(s0, "8") + &block(s0, "8"))).contains("si.txt:5:"));
        assert!(err(&block(s0, "lots")).contains("si.txt:3: McastFdbCap `lots`"));
        assert!(err(&format!("# Switch info: Lid {s0}\nLinearFdbCap:...1\n")).contains("si.txt:1: switch info without"));
        assert!(err("McastFdbCap:....4\n").contains("si.txt:1: `McastFdbCap` before"));
        assert!(err("hello\n").contains("no `# Switch info"));
    }
}
