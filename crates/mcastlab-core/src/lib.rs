//! mcastlab-core: fabrics, unicast routing and their verification, the foundation of mcastlab.
//!
//! Pipeline (see docs/architecture.md): a spec or file becomes a [`fabric::Fabric`]; a routing
//! engine turns it into a [`routing::Routing`]; [`check`] proves the routing deadlock-free and
//! complete. Later stages (multicast plans, the simulator) take these values as input.

pub mod check;
pub mod error;
pub mod experiments;
pub mod fabric;
pub mod ids;
pub mod io;
pub mod mcast;
pub mod plan;
pub mod rng;
pub mod routing;
pub mod schemes;
pub mod sim;
pub mod stats;

pub use error::{FabricError, PlanError, RoutingError, SimError, SpecError};
pub use fabric::Fabric;
pub use ids::{Address, EndpointId, LinkId, PortNum, SwitchId};
pub use routing::Routing;
