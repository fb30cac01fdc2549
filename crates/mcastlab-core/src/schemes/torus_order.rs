//! Orderings on tori used by oral's schemes (Robinson et al.).
//!
//! Coordinates here are mcastlab's: 0-based, dimension 0 first. oral prints 2D coordinates 1-based
//! as `(σ1, σ0)`, so `σ0 = c0 + 1` and `σ1 = c1 + 1`.

use crate::error::PlanError;
use crate::fabric::generators::torus::coords_of;
use crate::fabric::{Fabric, Topology};
use crate::ids::EndpointId;

/// Dimensions of a torus or mesh fabric (endpoint i sits on router i).
pub fn dims(f: &Fabric) -> Result<Vec<u32>, String> {
    match f.topology() {
        Topology::Torus(t) => Ok(t.dims.clone()),
        Topology::Mesh(m) => Ok(m.dims.clone()),
        other => Err(format!("needs a torus or mesh (this fabric is `{}`)", other.kind())),
    }
}

/// `applies` of the schemes that work on any torus or mesh.
pub fn applies(f: &Fabric) -> Result<(), String> {
    dims(f).map(|_| ())
}

/// oral Eq. 2, the Hamiltonian ranking of a node of a k-ary 2D torus:
/// `l(u) = ((σ0 + σ1) mod k) + k·σ1`, with the paper's 1-based coordinates.
pub fn hamiltonian_rank(k: u32, c0: u32, c1: u32) -> u32 {
    let (s0, s1) = (c0 + 1, c1 + 1);
    ((s0 + s1) % k) + k * s1
}

/// `items` sorted by `key`, rotated so that `first` leads (the Φ′ / Θ′ of oral §3).
pub fn rotated(mut items: Vec<EndpointId>, first: EndpointId, key: impl Fn(EndpointId) -> u64) -> Vec<EndpointId> {
    items.sort_by_key(|e| (key(*e), *e));
    let pos = items.iter().position(|e| *e == first).unwrap_or(0);
    items.rotate_left(pos);
    items
}

/// Θ′: the group (source included) in Hamiltonian-rank order, rotated to start at the source.
pub fn theta_prime(f: &Fabric, source: EndpointId, dests: &[EndpointId]) -> Result<Vec<EndpointId>, PlanError> {
    let d = dims(f).map_err(|r| PlanError::Param { param: "fabric", message: r })?;
    if d.len() != 2 || d[0] != d[1] {
        return Err(PlanError::Param {
            param: "fabric",
            message: format!("the Hamiltonian ranking of oral Eq. 2 is defined for k-ary 2D tori (dims {d:?})"),
        });
    }
    let k = d[0];
    let mut all = dests.to_vec();
    all.push(source);
    Ok(rotated(all, source, |e| {
        let c = coords_of(&d, e.0);
        hamiltonian_rank(k, c[0], c[1]) as u64
    }))
}
