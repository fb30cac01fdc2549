//! The size of a generated fabric from its parameters alone, so that [`super::build`] can refuse
//! a fabric past `fabric::limits` before allocating anything (`mport_ntree:m=256,n=3` used to
//! take seconds and gigabytes before its routing refused it). Arithmetic saturates: absurd
//! parameters give an absurd size to refuse, never an overflow.

use super::{hypercube::HypercubeParams, irregular::IrregularParams, kary_ntree::KaryNtreeParams};
use super::{mport_ntree::MportNtreeParams, Topology};
use crate::fabric::limits::Size;

/// `b^e`, saturating (and stopping early once saturated, so a huge `e` costs nothing).
fn pow(b: u64, e: u32) -> u64 {
    let mut r: u64 = 1;
    for _ in 0..e {
        r = r.saturating_mul(b);
        if r == u64::MAX || b <= 1 {
            break;
        }
    }
    r
}

/// Torus or mesh: one switch (1 endpoint port + 2 per dimension) and one endpoint per node;
/// per dimension of size k, n·(k−1)/k links in a mesh and n in a torus.
fn grid(dims: &[u32], wrap: bool) -> Size {
    let n = dims.iter().fold(1u64, |a, &k| a.saturating_mul(k as u64));
    let per_dim = |k: u32| if wrap || k == 0 { n } else { n / k as u64 * (k as u64 - 1) };
    let grid_links = dims.iter().fold(0u64, |a, &k| a.saturating_add(per_dim(k)));
    Size {
        switches: n,
        endpoints: n,
        links: n.saturating_add(grid_links),
        switch_ports: n.saturating_mul(1 + 2 * dims.len() as u64),
    }
}

/// zhou07's IBFT(m, n): 2·(m/2)^n endpoints, (2n−1)·(m/2)^(n−1) switches of m ports; every
/// switch below the top has m/2 up links.
fn mport_ntree(p: &MportNtreeParams) -> Size {
    let h = (p.m / 2) as u64;
    let top = pow(h, p.n.saturating_sub(1));
    let switches = top.saturating_mul(2 * p.n as u64).saturating_sub(top);
    let endpoints = pow(h, p.n).saturating_mul(2);
    Size {
        switches,
        endpoints,
        links: endpoints.saturating_add(switches.saturating_sub(top).saturating_mul(h)),
        switch_ports: switches.saturating_mul(p.m as u64),
    }
}

/// coll03's k-ary n-tree: k^n endpoints, n·k^(n−1) switches of 2k ports, n·k^n links.
fn kary_ntree(p: &KaryNtreeParams) -> Size {
    let endpoints = pow(p.k as u64, p.n);
    let switches = pow(p.k as u64, p.n.saturating_sub(1)).saturating_mul(p.n as u64);
    Size {
        switches,
        endpoints,
        links: endpoints.saturating_mul(p.n as u64),
        switch_ports: switches.saturating_mul(2 * p.k as u64),
    }
}

fn hypercube(p: &HypercubeParams) -> Size {
    let switches = pow(2, p.dim);
    let endpoints = switches.saturating_mul(p.endpoints_per_switch as u64);
    Size {
        switches,
        endpoints,
        links: endpoints.saturating_add(switches.saturating_mul(p.dim as u64) / 2),
        switch_ports: switches.saturating_mul(p.endpoints_per_switch as u64 + p.dim as u64),
    }
}

/// At most: every endpoint on a port, every other port paired into a link.
fn irregular(p: &IrregularParams) -> Size {
    let switch_ports = (p.switches as u64).saturating_mul(p.ports as u64);
    Size {
        switches: p.switches as u64,
        endpoints: p.endpoints as u64,
        links: (p.endpoints as u64).saturating_add(switch_ports.saturating_sub(p.endpoints as u64) / 2),
        switch_ports,
    }
}

/// The size `t` generates (None for imported and custom fabrics, which are not generated).
pub fn size(t: &Topology) -> Option<Size> {
    Some(match t {
        Topology::Irregular(p) => irregular(p),
        Topology::Torus(p) => grid(&p.dims, true),
        Topology::Mesh(p) => grid(&p.dims, false),
        Topology::MportNtree(p) => mport_ntree(p),
        Topology::KaryNtree(p) => kary_ntree(p),
        Topology::Hypercube(p) => hypercube(p),
        Topology::Imported { .. } | Topology::Custom {} => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::generators::{build, parse_spec};

    #[test]
    fn computed_sizes_are_the_built_ones() {
        for spec in [
            "torus:4x3x2",
            "torus:5,unidirectional",
            "mesh:4x3",
            "mport_ntree:m=8,n=3",
            "mport_ntree:m=6,n=1",
            "kary_ntree:k=4,n=3",
            "hypercube:dim=3,endpoints_per_switch=2",
        ] {
            let t = parse_spec(spec).unwrap();
            let f = build(&t).unwrap();
            let ports: u64 = f.switches().iter().map(|s| s.ports as u64).sum();
            let want = Size {
                switches: f.num_switches() as u64,
                endpoints: f.num_endpoints() as u64,
                links: f.num_links() as u64,
                switch_ports: ports,
            };
            assert_eq!(size(&t), Some(want), "{spec}");
        }
        // irregular gives an upper bound on links (connectivity leaves some ports free).
        let t = parse_spec("irregular").unwrap();
        let (s, f) = (size(&t).unwrap(), build(&t).unwrap());
        assert!(s.links >= f.num_links() as u64 && s.switches == 8 && s.endpoints == 32);
    }

    #[test]
    fn oversized_generators_are_refused_from_their_parameters() {
        for (spec, needle) in [
            ("mport_ntree:m=256,n=3", "4194304 endpoints"),
            ("mport_ntree:m=64,n=4", "2097152 endpoints"),
            ("torus:4096x4096", "16777216 switches"),
            ("kary_ntree:k=2,n=20", "1048576 endpoints"),
            ("irregular:switches=60000,ports=1000,endpoints=1", "60000000 switch ports"),
            ("hypercube:dim=20,endpoints_per_switch=16", "16777216 endpoints"),
        ] {
            let e = crate::fabric::generators::generate(spec).unwrap_err().to_string();
            assert!(e.contains("too large") && e.contains(needle), "{spec}: {e}");
        }
    }
}
