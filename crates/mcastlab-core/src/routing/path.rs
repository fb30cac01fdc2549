//! Tracing routes: the deterministic path of a (source, destination) pair and the enumeration of
//! every adaptive path.

use super::{Arrival, Hop, Routing};
use crate::error::RoutingError;
use crate::fabric::{Fabric, Terminal};
use crate::ids::{Address, EndpointId, PortNum, SwitchId};
use serde::Serialize;

/// One switch traversal of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PathHop {
    pub switch: SwitchId,
    pub in_port: PortNum,
    pub out_port: PortNum,
    /// VC class of the channel the packet leaves on.
    pub vc: u8,
}

/// A route from a source endpoint to a destination endpoint, switch by switch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Path {
    pub src: EndpointId,
    pub dst: EndpointId,
    pub address: Address,
    pub hops: Vec<PathHop>,
}

impl Path {
    /// Number of links traversed, counting the injection and ejection links.
    pub fn links(&self) -> usize {
        self.hops.len() + 1
    }

    /// `e0 -> s3[2>5] -> s1[4>1] -> e7`, with VC classes when non-zero.
    pub fn render(&self, f: &Fabric) -> String {
        let mut s = f.endpoint(self.src).name.clone();
        for h in &self.hops {
            s.push_str(&format!(" -> {}[{}>{}", f.switch(h.switch).name, h.in_port, h.out_port));
            if h.vc != 0 {
                s.push_str(&format!(" vc{}", h.vc));
            }
            s.push(']');
        }
        s.push_str(&format!(" -> {}", f.endpoint(self.dst).name));
        s
    }
}

/// Longest route any engine may produce before we call it a loop.
pub fn hop_limit(fabric: &Fabric, routing: &dyn Routing) -> usize {
    4 * fabric.num_switches() * routing.vc_classes() as usize + 4
}

/// Where a hop leads: `Ok(None)` when it ejects to `dst`, `Ok(Some(..))` for the next switch.
pub(crate) fn follow(
    fabric: &Fabric,
    at: SwitchId,
    hop: Hop,
    dst: EndpointId,
) -> Result<Option<(SwitchId, Arrival)>, String> {
    let Some(pp) = fabric.port(at, hop.port) else {
        return Err(format!("port {} of {} is not connected", hop.port, fabric.switch(at).name));
    };
    if pp.out.is_none() {
        return Err(format!("port {} of {} cannot send (directed link)", hop.port, fabric.switch(at).name));
    }
    match pp.peer {
        Terminal::Endpoint { endpoint } if endpoint == dst => Ok(None),
        Terminal::Endpoint { endpoint } => {
            Err(format!("delivered to {} instead of {}", fabric.endpoint(endpoint).name, fabric.endpoint(dst).name))
        }
        Terminal::Switch { switch, .. } if switch == at => {
            Err(format!("port {} of {} is a self-loop cable", hop.port, fabric.switch(at).name))
        }
        Terminal::Switch { switch, port } => Ok(Some((switch, Arrival { port, vc: hop.vc }))),
    }
}

fn no_route(fabric: &Fabric, at: SwitchId, dst: EndpointId, msg: String) -> RoutingError {
    RoutingError::NoRoute {
        switch: fabric.switch(at).name.clone(),
        target: fabric.endpoint(dst).name.clone(),
        message: msg,
    }
}

/// The deterministic route (first choice at every switch).
pub fn deterministic(
    fabric: &Fabric,
    routing: &dyn Routing,
    src: EndpointId,
    dst: EndpointId,
) -> Result<Path, RoutingError> {
    let address = routing.address(src, dst);
    let (mut at, port) = fabric.attachment(src);
    let mut arrived = Arrival { port, vc: 0 };
    let mut hops = Vec::new();
    let mut buf = Vec::new();
    let limit = hop_limit(fabric, routing);
    loop {
        if hops.len() > limit {
            return Err(RoutingError::Loop {
                src: fabric.endpoint(src).name.clone(),
                dst: fabric.endpoint(dst).name.clone(),
                hops: limit,
            });
        }
        routing.next_hops(at, arrived, address, &mut buf);
        let Some(&hop) = buf.first() else {
            return Err(no_route(fabric, at, dst, "the routing offers no output port".into()));
        };
        hops.push(PathHop { switch: at, in_port: arrived.port, out_port: hop.port, vc: hop.vc });
        match follow(fabric, at, hop, dst).map_err(|m| no_route(fabric, at, dst, m))? {
            None => return Ok(Path { src, dst, address, hops }),
            Some((t, a)) => {
                at = t;
                arrived = a;
            }
        }
    }
}

/// Every path the routing allows (adaptive choices), up to `limit` of them, and their total count.
pub fn all_paths(
    fabric: &Fabric,
    routing: &dyn Routing,
    src: EndpointId,
    dst: EndpointId,
    limit: usize,
) -> Result<(Vec<Path>, u128), RoutingError> {
    let address = routing.address(src, dst);
    let (at, port) = fabric.attachment(src);
    let mut out = Vec::new();
    let mut count: u128 = 0;
    let mut stack: Vec<PathHop> = Vec::new();
    let max = hop_limit(fabric, routing);
    #[allow(clippy::too_many_arguments)]
    fn walk(
        fabric: &Fabric,
        routing: &dyn Routing,
        at: SwitchId,
        arrived: Arrival,
        ctx: (EndpointId, EndpointId, Address, usize, usize),
        stack: &mut Vec<PathHop>,
        out: &mut Vec<Path>,
        count: &mut u128,
    ) -> Result<(), RoutingError> {
        let (src, dst, address, limit, max) = ctx;
        if stack.len() > max {
            return Err(RoutingError::Loop {
                src: fabric.endpoint(src).name.clone(),
                dst: fabric.endpoint(dst).name.clone(),
                hops: max,
            });
        }
        let mut hops = Vec::new();
        routing.next_hops(at, arrived, address, &mut hops);
        if hops.is_empty() {
            return Err(no_route(fabric, at, dst, "the routing offers no output port".into()));
        }
        for hop in hops {
            stack.push(PathHop { switch: at, in_port: arrived.port, out_port: hop.port, vc: hop.vc });
            match follow(fabric, at, hop, dst).map_err(|m| no_route(fabric, at, dst, m))? {
                None => {
                    *count += 1;
                    if out.len() < limit {
                        out.push(Path { src, dst, address, hops: stack.clone() });
                    }
                }
                Some((t, a)) => walk(fabric, routing, t, a, ctx, stack, out, count)?,
            }
            stack.pop();
        }
        Ok(())
    }
    walk(
        fabric,
        routing,
        at,
        Arrival { port, vc: 0 },
        (src, dst, address, limit, max),
        &mut stack,
        &mut out,
        &mut count,
    )?;
    Ok((out, count))
}
