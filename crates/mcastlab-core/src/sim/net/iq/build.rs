//! Building the iq network of a fabric: its configuration in cycles, every router's inputs and
//! outputs numbered in port order, the sources, and where each VC sits (its router, input, bit of
//! the occupancy words, and credit return delay). Done once per run, before the first cycle.

use super::wheel::Wheel;
use super::{router, va, Active, Cfg, IqNet, Phases, Pointers, RouterPorts, Source, Vc, Wiring};
use crate::fabric::{Channel, Fabric};
use crate::sim::net::NetStats;
use crate::sim::params::Params;
use crate::sim::queue::EventQueue;
use crate::sim::units::Time;
use std::collections::VecDeque;

impl IqNet {
    /// The network of `f` under `p`, whose routing has `classes` VC classes.
    pub(super) fn build(f: &Fabric, p: &Params, classes: u32) -> IqNet {
        let cycle = p.flit_ps();
        let cyc = |t: Time| t.ps() / cycle;
        let v = p.switch.vcs as u32;
        let cfg = Cfg {
            cycle,
            v,
            rc: cyc(p.switch.routing_delay),
            va: cyc(p.switch.va_delay),
            sa: cyc(p.switch.sa_delay),
            st: cyc(p.switch.crossbar_delay),
            credit: cyc(p.switch.credit_delay),
            allocator: p.switch.allocator,
            lone_vc: false,
            words: 1,
        };
        let nc = f.num_channels();
        // Per channel: a flit put on it in cycle t is usable at t + 1 + its time of flight.
        let lat: Vec<u64> = p.channel_propagation_ps(f).into_iter().map(|ps| 1 + ps / cycle).collect();
        let longest = lat.iter().copied().max().unwrap_or(1);
        let mut net = IqNet {
            cfg,
            wiring: Wiring {
                lat,
                to_router: vec![None; nc],
                in_local: vec![0; nc],
                out_local: vec![0; nc],
                source_of: vec![None; nc],
                class_vcs: IqNet::class_shares(v, classes.max(1)),
                ..Wiring::default()
            },
            routers: vec![RouterPorts::default(); f.num_switches()],
            occ: Vec::new(),
            phase: Phases::default(),
            vcs: vec![Vc::default(); nc * v as usize],
            credits: vec![p.switch.buffer_flits; nc * v as usize],
            held: va::Held::new(nc * v as usize),
            ptrs: Pointers::default(),
            sources: Vec::with_capacity(f.num_endpoints()),
            active: Active::new(f.num_switches()),
            wheel: Wheel::new(cfg.sa + cfg.st + 2 * longest + 1 + cfg.credit),
            scratch: router::Scratch::default(),
            queue: EventQueue::default(),
            stats: NetStats::new(nc),
            peak: (0, None),
        };
        net.wire(f);
        net
    }

    /// Numbers every router's inputs and outputs in port order and sizes the pointer arrays.
    fn wire(&mut self, f: &Fabric) {
        let v = self.cfg.v as usize;
        for s in f.switch_ids() {
            for port in f.switch_ports(s) {
                let Some(pp) = f.port(s, port) else { continue };
                let r = &mut self.routers[s.idx()];
                if let Some(c) = pp.inc {
                    self.wiring.to_router[c.idx()] = Some(s);
                    self.wiring.in_local[c.idx()] = r.inputs.len() as u32;
                    r.inputs.push(c);
                }
                if let Some(c) = pp.out {
                    self.wiring.out_local[c.idx()] = r.outputs.len() as u32;
                    r.outputs.push(c);
                }
            }
        }
        let (mut ins, mut outs) = (0u32, 0u32);
        let nc = self.wiring.lat.len();
        self.wiring.slot = vec![0; nc];
        for r in &mut self.routers {
            (r.in_base, r.out_base) = (ins, outs);
            for (i, c) in r.inputs.iter().enumerate() {
                self.wiring.slot[c.idx()] = ins + i as u32;
            }
            ins += r.inputs.len() as u32;
            outs += r.outputs.len() as u32;
        }
        let mut next = ins;
        for c in 0..nc {
            if self.wiring.to_router[c].is_none() {
                self.wiring.slot[c] = next;
                next += 1;
            }
        }
        self.wiring.chan_of = vec![Channel(0); nc];
        for c in 0..nc {
            self.wiring.chan_of[self.wiring.slot[c] as usize] = Channel(c as u32);
        }
        self.ptrs = Pointers {
            sa_vc: vec![0; ins as usize],
            sa_in: vec![0; ins as usize],
            sa_out: vec![0; outs as usize],
            va_in: vec![0; ins as usize * v],
            va_out: vec![0; outs as usize * v],
        };
        for e in f.endpoint_ids() {
            let (s, port) = f.attachment(e);
            let pp = f.port(s, port).expect("an endpoint hangs on a connected port");
            // The endpoint's channel into its switch is the one entering the switch's port.
            let chan = pp.inc.expect("an endpoint's link enters its switch");
            self.wiring.source_of[chan.idx()] = Some(e.0);
            // The first packet tries VC 0 first.
            self.sources.push(Source {
                chan,
                queue: VecDeque::new(),
                cur: None,
                last_vc: self.cfg.v - 1,
                active: false,
            });
        }
        let max_in = self.routers.iter().map(|r| r.inputs.len()).max().unwrap_or(0);
        self.cfg.words = (max_in * v).div_ceil(64).max(1);
        self.cfg.lone_vc = self.cfg.words == 1 && v <= 64;
        self.occ = vec![0; self.routers.len() * self.cfg.words];
        self.phase = Phases::new(self.occ.len());
        self.index_vcs(max_in);
        let max_out = self.routers.iter().map(|r| r.outputs.len()).max().unwrap_or(0);
        self.scratch.size(max_in, max_out);
    }

    /// Fills in where every VC sits, and which input each router-local VC index belongs to for
    /// routers of up to `max_in` inputs.
    fn index_vcs(&mut self, max_in: usize) {
        let v = self.cfg.v;
        let words = self.cfg.words;
        let nc = self.wiring.lat.len();
        self.wiring.input_of = (0..max_in as u32 * v).map(|local| local / v).collect();
        self.wiring.router_vcs = self.routers.iter().map(|r| r.inputs.len() as u32).sum::<u32>() * v;
        for chan in 0..nc {
            let r = self.wiring.to_router[chan];
            let i = self.wiring.in_local[chan];
            for vc in 0..v {
                let id = self.vc_of(Channel(chan as u32), vc);
                let back = self.credit_back(Channel(chan as u32));
                let x = &mut self.vcs[id.idx()];
                (x.site.router, x.site.vc) = (r, vc as u8);
                x.back = u32::try_from(back).expect("parameter validation bounds the delays' span by 2^20 cycles");
                if let Some(r) = r {
                    let local = (i * v + vc) as usize;
                    x.word = (r.idx() * words + local / 64) as u32;
                    x.bit = (local % 64) as u8;
                    debug_assert_eq!(id.idx(), (self.routers[r.idx()].in_base * v) as usize + local);
                }
            }
        }
    }
}
