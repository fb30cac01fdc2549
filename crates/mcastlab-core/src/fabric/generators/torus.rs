//! `torus` and `mesh`: k-ary n-cubes as direct networks — one router (switch) per node with its
//! endpoint attached.
//!
//! Node `i` has coordinates `(c0, c1, …)` in mixed radix with dimension 0 fastest:
//! `i = c0 + k0·(c1 + k1·(c2 + …))`; endpoint `i` sits on router `i`, named `n(c0,c1,…)`
//! (0-based; oral prints the same coordinates 1-based as `(σ1, σ0)`).
//!
//! Router ports: 1 = the endpoint; for dimension d, port `2+2d` sends towards `+d` and port `3+2d`
//! faces `−d`. In a bidirectional torus or mesh every link is full duplex. In a unidirectional torus
//! (SCI ringlets, oral §4.1) each link is directed: it leaves port `2+2d` of a node and enters port
//! `3+2d` of its `+d` neighbour.

use super::{at_least, at_most, dims, GeneratorEntry};
use crate::error::FabricError;
use crate::fabric::{Endpoint, Fabric, Link, Switch, Terminal, Topology};
use serde::{Deserialize, Serialize};

pub const TORUS_ENTRY: GeneratorEntry = GeneratorEntry {
    name: "torus",
    summary: "k-ary n-cube with wrap-around links, bidirectional or unidirectional (oral)",
    params: "dims=4x4 (positional) unidirectional=false",
    positional: Some("dims"),
    endpoint_order: "mixed radix, dimension 0 fastest: i = c0 + k0*(c1 + k1*...); named n(c0,c1,...)",
    default_routing: "dor",
};

pub const MESH_ENTRY: GeneratorEntry = GeneratorEntry {
    name: "mesh",
    summary: "k-ary n-dimensional mesh (no wrap-around links)",
    params: "dims=4x4 (positional)",
    positional: Some("dims"),
    endpoint_order: "mixed radix, dimension 0 fastest: i = c0 + k0*(c1 + k1*...); named n(c0,c1,...)",
    default_routing: "dor",
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TorusParams {
    #[serde(with = "dims")]
    pub dims: Vec<u32>,
    pub unidirectional: bool,
}

impl Default for TorusParams {
    fn default() -> Self {
        TorusParams { dims: vec![4, 4], unidirectional: false }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MeshParams {
    #[serde(with = "dims")]
    pub dims: Vec<u32>,
}

impl Default for MeshParams {
    fn default() -> Self {
        MeshParams { dims: vec![4, 4] }
    }
}

/// Coordinates of node `i` (dimension 0 fastest).
pub fn coords_of(dims: &[u32], mut i: u32) -> Vec<u32> {
    dims.iter()
        .map(|&k| {
            let c = i % k;
            i /= k;
            c
        })
        .collect()
}

/// Node index of coordinates (dimension 0 fastest).
pub fn index_of(dims: &[u32], coords: &[u32]) -> u32 {
    coords.iter().zip(dims).rev().fold(0, |acc, (&c, &k)| acc * k + c)
}

fn check_dims(d: &[u32]) -> Result<u32, FabricError> {
    at_least("dims", d.len() as u64, 1)?;
    at_most("dims", d.len() as u64, 16, "at most 16 dimensions")?;
    let mut n: u64 = 1;
    for &k in d {
        at_least("dims", k as u64, 2)?;
        n *= k as u64;
        at_most("dims", n, 1 << 24, "at most 16M nodes")?;
    }
    Ok(n as u32)
}

fn build(dims: &[u32], wrap: bool, directed: bool, topo: Topology) -> Result<Fabric, FabricError> {
    let n = check_dims(dims)?;
    super::check_size(&topo)?;
    let ports = 1 + 2 * dims.len() as u16;
    let label = |c: &[u32]| c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
    let mut switches = Vec::with_capacity(n as usize);
    let mut endpoints = Vec::with_capacity(n as usize);
    let mut links = Vec::new();
    for i in 0..n {
        let c = coords_of(dims, i);
        switches.push(Switch {
            name: format!("r({})", label(&c)),
            ports,
            level: None,
            coords: Some(c.clone()),
            ib: None,
        });
        endpoints.push(Endpoint { name: format!("n({})", label(&c)), ib: None });
        links.push(Link::new(Terminal::switch(i, 1), Terminal::endpoint(i)));
    }
    for i in 0..n {
        let c = coords_of(dims, i);
        for (d, &k) in dims.iter().enumerate() {
            if !wrap && c[d] + 1 == k {
                continue;
            }
            let mut nc = c.clone();
            nc[d] = (c[d] + 1) % k;
            let j = index_of(dims, &nc);
            let mut l = Link::new(Terminal::switch(i, 2 + 2 * d as u16), Terminal::switch(j, 3 + 2 * d as u16));
            l.directed = directed;
            links.push(l);
        }
    }
    let name = super::canonical_spec(&topo);
    Fabric::new(name, topo, switches, endpoints, links)
}

pub fn build_torus(p: &TorusParams) -> Result<Fabric, FabricError> {
    build(&p.dims, true, p.unidirectional, Topology::Torus(p.clone()))
}

pub fn build_mesh(p: &MeshParams) -> Result<Fabric, FabricError> {
    build(&p.dims, false, false, Topology::Mesh(p.clone()))
}
