//! InfiniBand link widths and speeds (`4xQDR`): the vocabulary ibnetdiscover prints, which the
//! reader and the writer share, and the data rate each gives a link. A link whose width and speed
//! are both known carries its own rate ([`Link::data_rate_bps`]); the simulator serializes its
//! flits at that rate and uses the preset's `link.bandwidth` for the other links.
//!
//! Rates are data rates per lane, after line encoding (IBA Vol. 2, and the values `ibstat` and
//! `iblinkinfo` users quote): SDR 2.5 Gbaud and DDR 5, QDR 10 with 8b/10b give 2, 4, 8 Gb/s;
//! FDR10 10.3125, FDR 14.0625 and EDR 25.78125 Gbaud with 64b/66b give 10, 13.64 and 25 Gb/s;
//! HDR, NDR and XDR are 50, 100 and 200 Gb/s per lane. A link's rate is lanes × lane rate
//! (4xQDR = 32 Gb/s, 4xDDR = 16 Gb/s).

use super::Link;

/// Widths with their lanes, longest name first where one is a prefix of another (`12x`, `1x`).
pub const WIDTHS: &[(&str, u64)] = &[("12x", 12), ("1x", 1), ("2x", 2), ("4x", 4), ("8x", 8)];

/// Speeds with their data rate per lane in bit/s.
pub const SPEEDS: &[(&str, u64)] = &[
    ("SDR", 2_000_000_000),
    ("DDR", 4_000_000_000),
    ("QDR", 8_000_000_000),
    ("FDR10", 10_000_000_000),
    ("FDR", 13_636_363_636),
    ("EDR", 25_000_000_000),
    ("HDR", 50_000_000_000),
    ("NDR", 100_000_000_000),
    ("XDR", 200_000_000_000),
];

/// Lanes of a width (`4x` → 4).
pub fn lanes(width: &str) -> Option<u64> {
    WIDTHS.iter().find(|(w, _)| *w == width).map(|(_, n)| *n)
}

/// Data rate per lane of a speed, in bit/s.
pub fn lane_rate(speed: &str) -> Option<u64> {
    SPEEDS.iter().find(|(s, _)| *s == speed).map(|(_, r)| *r)
}

impl Link {
    /// The link's data rate in bit/s when its width and speed are both known (a file that says
    /// `??` for either leaves the rate to the simulator's `link.bandwidth`).
    pub fn data_rate_bps(&self) -> Option<u64> {
        Some(lanes(self.width.as_deref()?)? * lane_rate(self.speed.as_deref()?)?)
    }

    /// Why the link's width or speed is not one of the known names, or None. A JSON fabric is
    /// checked with this, so `"speed": "QDRX"` is refused instead of silently losing its rate.
    pub fn width_speed_problem(&self) -> Option<String> {
        let names = |v: &[(&str, u64)]| v.iter().map(|x| x.0).collect::<Vec<_>>().join(", ");
        if let Some(w) = self.width.as_deref().filter(|w| lanes(w).is_none()) {
            return Some(format!("unknown link width `{w}` (known: {})", names(WIDTHS)));
        }
        if let Some(s) = self.speed.as_deref().filter(|s| lane_rate(s).is_none()) {
            return Some(format!("unknown link speed `{s}` (known: {})", names(SPEEDS)));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::Terminal;

    fn link(w: Option<&str>, s: Option<&str>) -> Link {
        let mut l = Link::new(Terminal::switch(0, 1), Terminal::endpoint(0));
        l.width = w.map(str::to_string);
        l.speed = s.map(str::to_string);
        l
    }

    #[test]
    fn rates_are_lanes_times_the_data_rate_per_lane() {
        assert_eq!(link(Some("4x"), Some("QDR")).data_rate_bps(), Some(32_000_000_000));
        assert_eq!(link(Some("4x"), Some("DDR")).data_rate_bps(), Some(16_000_000_000));
        assert_eq!(link(Some("12x"), Some("SDR")).data_rate_bps(), Some(24_000_000_000));
        assert_eq!(link(Some("4x"), Some("EDR")).data_rate_bps(), Some(100_000_000_000));
        assert_eq!(link(None, Some("QDR")).data_rate_bps(), None, "an unknown width leaves the default");
        assert_eq!(link(Some("4x"), None).data_rate_bps(), None);
    }

    #[test]
    fn unknown_names_are_named() {
        assert_eq!(link(Some("4x"), Some("FDR10")).width_speed_problem(), None);
        assert!(link(Some("3x"), None).width_speed_problem().unwrap().contains("unknown link width `3x`"));
        assert!(link(None, Some("QDRX")).width_speed_problem().unwrap().contains("unknown link speed `QDRX`"));
    }
}
