//! What `bench_lean_router` and `bench_sliced_router` share: the 8×8 mesh model's constants, its
//! routing, and everything outside the routers (arguments, the sources' draws, packet records,
//! the timed endpoint events, latency, the printed row). The two then differ only in how they
//! compute a cycle of the routers, which is what they are there to compare.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

pub const K: usize = 8;
pub const N: usize = K * K;
/// Ports: east, west, north, south, the local endpoint.
pub const P: usize = 5;
pub const LOCAL: usize = 4;
pub const V: usize = 2;
pub const NV: usize = P * V;
pub const DEPTH: u8 = 8;
/// A packet's length in flits by default. The routers read each packet's length from its record
/// (`Traffic::len`), as the real model must for arbitrary message sizes, so this is the
/// traffic's choice, not the routers'.
pub const LEN: u8 = 8;
/// With `mixed`, each packet's length is drawn from these (mean 6.2 flits): the routers' tail
/// detection then meets every length from one flit (head and tail at once) to two buffers' worth.
const MIXED: [u8; 5] = [1, 2, 4, 8, 16];
/// Packets a buffer's ring of records holds: one per flit of a buffer, so that one-flit packets
/// fit (credits bound the flits in a buffer and on the way to it by `DEPTH`).
pub const RING: usize = DEPTH as usize;
/// The channels' latencies, which the routers read at runtime (as the real model reads each
/// channel's), per output port (the ejection port's from a tail's crossing to its ejection) and
/// for the injection links. A credit goes back over the same latency as the flits of its channel.
pub struct Latency {
    pub port: [u64; P],
    pub inject: u64,
}

impl Latency {
    /// By default 3 cycles from router to router, 2 from the source to its router and none to
    /// eject (the numbers of earlier sessions); with `slow-links`, BookSim's torus configuration's
    /// 1 cycle on terminal channels and 2 between routers.
    pub fn of(opts: &Opts) -> Latency {
        if opts.slow_links {
            Latency { port: [2, 2, 2, 2, 1], inject: 1 }
        } else {
            Latency { port: [3, 3, 3, 3, 0], inject: 2 }
        }
    }

    /// Slots of a delay line that holds everything on its way: a power of two above the largest
    /// latency, so a slot is a mask away.
    pub fn slots(&self) -> usize {
        (*self.port.iter().chain([&self.inject]).max().unwrap_or(&0) as usize + 1).next_power_of_two()
    }
}
pub const CYCLES: u64 = 80_000;
/// Packets created in these cycles are measured (BookSim's 30k warm-up, then 50k).
const MEASURED: std::ops::Range<u64> = 30_000..CYCLES;

/// The run's arguments: the load (flits/node/cycle), then any of the options.
pub struct Opts {
    pub load: f64,
    /// Timed endpoint events (see `Traffic`).
    pub events: bool,
    /// Packet lengths drawn from `MIXED` instead of all `LEN`.
    pub mixed: bool,
    /// The channels' latencies of BookSim's torus configuration (see `Latency`).
    pub slow_links: bool,
}

/// The run's arguments, or a message naming the bad argument and exit status 2.
pub fn args(program: &str) -> Opts {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "0.1".into());
    let load = match arg.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => x,
        _ => {
            eprintln!("{program}: load `{arg}`: give a number of flits/node/cycle between 0 and 1");
            std::process::exit(2);
        }
    };
    let mut opts = Opts { load, events: false, mixed: false, slow_links: false };
    for other in std::env::args().skip(2) {
        match other.as_str() {
            "events" => opts.events = true,
            "mixed" => opts.mixed = true,
            "slow-links" => opts.slow_links = true,
            _ => {
                eprintln!("{program}: `{other}`: the only option after the load is `events`, `mixed` or `slow-links`");
                std::process::exit(2);
            }
        }
    }
    opts
}

/// Dimension-order routing: the output port at router `i` towards endpoint `d`.
pub fn route(i: usize, d: usize) -> usize {
    let (x, y, dx, dy) = (i % K, i / K, d % K, d / K);
    if dx > x {
        0
    } else if dx < x {
        1
    } else if dy > y {
        2
    } else if dy < y {
        3
    } else {
        LOCAL
    }
}

/// The sources, the packets and the endpoints: Bernoulli sources at `load` flits/node/cycle with
/// uniform destinations other than the source, unbounded source queues, packet records
/// (destination, creation cycle, source, length in flits) with recycled ids, and the mean
/// latency (creation to the tail's ejection) of the packets created in the measured cycles.
pub struct Traffic {
    rng: ChaCha8Rng,
    /// ln(1 − p) for p the chance of a packet per node and cycle (geometric gaps).
    ln_q: f64,
    /// The sources' next packets (cycle, source), soonest first: a cycle visits only the sources
    /// creating a packet in it, in source order, not all of them (at low load nearly all of a
    /// cycle's work was asking each source whether it had one).
    next: BinaryHeap<Reverse<(u64, u8)>>,
    pkts: Vec<(u8, u64, u8, u8)>,
    mixed: bool,
    free_ids: Vec<u32>,
    /// With `events`, each packet also passes through a queue of timed events (cycle, packet,
    /// kind), four per packet, in place of an endpoint model: 0 host send, 1 NI send (the packet
    /// joins its source's queue), 2 NI receive, 3 host receive (the packet is done).
    events: bool,
    heap: BinaryHeap<Reverse<(u64, u32, u8)>>,
    /// Per source, the packets waiting to be sent, oldest first.
    pub queue: Vec<VecDeque<u32>>,
    /// The sources whose queue holds a packet (bit `i`, source `i`), so that the routers' side
    /// visits only sources with something to send.
    pub waiting: u64,
    latency: (f64, u64),
    delivered: u64,
    created: u64,
}

impl Traffic {
    pub fn new(opts: &Opts) -> Traffic {
        let mean =
            if opts.mixed { MIXED.iter().map(|&l| l as f64).sum::<f64>() / MIXED.len() as f64 } else { LEN as f64 };
        let mut t = Traffic {
            rng: ChaCha8Rng::seed_from_u64(1),
            ln_q: (-opts.load / mean).ln_1p(),
            next: BinaryHeap::new(),
            pkts: Vec::new(),
            mixed: opts.mixed,
            free_ids: Vec::new(),
            events: opts.events,
            heap: BinaryHeap::new(),
            queue: vec![VecDeque::new(); N],
            waiting: 0,
            latency: (0.0, 0),
            delivered: 0,
            created: 0,
        };
        for i in 0..N {
            let g = t.gap();
            t.next.push(Reverse((g, i as u8)));
        }
        t
    }

    fn gap(&mut self) -> u64 {
        ((1.0 - self.rng.random::<f64>()).ln() / self.ln_q) as u64
    }

    /// Whether cycle `c` is run: the sources create packets for `CYCLES` cycles, then the network
    /// drains.
    pub fn running(&self, c: u64) -> bool {
        c < CYCLES || self.delivered < self.created
    }

    /// The endpoint events due by cycle `c` (none without `events`).
    pub fn endpoints(&mut self, c: u64) {
        while let Some(&Reverse((t, id, kind))) = self.heap.peek() {
            if t > c {
                break;
            }
            self.heap.pop();
            match kind {
                0 | 2 => self.heap.push(Reverse((t, id, kind + 1))),
                1 => {
                    let i = self.pkts[id as usize].2 as usize;
                    self.queue[i].push_back(id);
                    self.waiting |= 1 << i;
                }
                _ => self.done(id, c),
            }
        }
    }

    /// The sources with a packet in cycle `c` create it, in source order (so the draws come in
    /// the same order whatever the router model).
    pub fn create(&mut self, c: u64) {
        if c >= CYCLES {
            return;
        }
        while let Some(&Reverse((t, i))) = self.next.peek() {
            if t != c {
                break;
            }
            self.next.pop();
            let g = self.gap();
            self.next.push(Reverse((c + 1 + g, i)));
            self.new_packet(i as usize, c);
        }
    }

    /// Source `i` creates a packet in cycle `c` (its next already drawn).
    fn new_packet(&mut self, i: usize, c: u64) {
        let d = self.rng.random_range(0..N as u32 - 1) as usize;
        let len = if self.mixed { MIXED[self.rng.random_range(0..MIXED.len())] } else { LEN };
        let rec = ((if d >= i { d + 1 } else { d }) as u8, c, i as u8, len);
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.pkts[id as usize] = rec;
                id
            }
            None => {
                self.pkts.push(rec);
                self.pkts.len() as u32 - 1
            }
        };
        if self.events {
            self.heap.push(Reverse((c, id, 0)));
        } else {
            self.queue[i].push_back(id);
            self.waiting |= 1 << i;
        }
        self.created += 1;
    }

    /// Source `i` takes the packet at the front of its queue to send it.
    pub fn take(&mut self, i: usize) {
        self.queue[i].pop_front();
        if self.queue[i].is_empty() {
            self.waiting &= !(1 << i);
        }
    }

    /// Packet `id`'s destination endpoint.
    pub fn dest(&self, id: u32) -> usize {
        self.pkts[id as usize].0 as usize
    }

    /// Packet `id`'s length in flits.
    pub fn len(&self, id: u32) -> u8 {
        self.pkts[id as usize].3
    }

    /// Packet `id`'s tail leaves the network in cycle `c`.
    pub fn ejected(&mut self, id: u32, c: u64) {
        if self.events {
            self.heap.push(Reverse((c, id, 2)));
        } else {
            self.done(id, c);
        }
    }

    /// Packet `id` is done in cycle `c`: its latency counts if it was created in the measured
    /// cycles, and its id is free again.
    fn done(&mut self, id: u32, c: u64) {
        let created = self.pkts[id as usize].1;
        if MEASURED.contains(&created) {
            self.latency.0 += (c - created) as f64;
            self.latency.1 += 1;
        }
        self.free_ids.push(id);
        self.delivered += 1;
    }

    /// Prints the run's row: `cycles` run, the traversals (hops out of a router, to a router or
    /// an endpoint), the CPU seconds of the loop, the latency, as a mean and as an exact total,
    /// and the statistics the real model keeps (`Stats`).
    pub fn report(&self, case: &str, load: f64, cycles: u64, traversals: u64, cpu: f64, stats: &Stats) {
        let (total, n) = self.latency;
        println!(
            "{{\"case\": \"{case}\", \"offered\": {load}, \"cycles\": {cycles}, \"packets\": {}, \
             \"flit_router_traversals\": {traversals}, \"cpu_s\": {cpu:.3}, \"traversals_per_cpu_s\": {:.0}, \
             \"latency_cycles\": {:.3}, \"latency_total_cycles\": {total}, {}}}",
            self.delivered,
            traversals as f64 / cpu,
            total / n as f64,
            stats.json()
        );
    }
}

/// The statistics the real model (`IqNet`) keeps besides latency, which a router step must carry
/// to be compared with it: per channel (each router output port, the ejection port included, and
/// each injection link) the flits and the head flits that crossed it; the flit hops (flits sent
/// from router to router); the cycle of the last move (a flit crossing any channel); and the
/// occupancy peak, the most flits any input buffer has held and the first buffer to hold that
/// many (ties within one cycle go to the lowest router index, then input VC index).
pub struct Stats {
    pub flits: Vec<[u64; P]>,
    pub heads: Vec<[u64; P]>,
    pub inj_flits: Vec<u64>,
    pub inj_heads: Vec<u64>,
    pub hops: u64,
    pub last_move: u64,
    /// The peak: flits, router, input VC.
    peak: (u8, usize, usize),
    /// A buffer past the peak in this cycle's landings, the best by the tie order so far.
    pending: Option<(u8, usize, usize)>,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            flits: vec![[0; P]; N],
            heads: vec![[0; P]; N],
            inj_flits: vec![0; N],
            inj_heads: vec![0; N],
            hops: 0,
            last_move: 0,
            peak: (0, 0, 0),
            pending: None,
        }
    }
}

impl Stats {
    /// The peak so far, in flits: a buffer holding no more than this needs no look.
    pub fn peak(&self) -> u8 {
        self.peak.0
    }

    /// Input VC `v` of router `i` holds `n` flits after a landing of this cycle.
    pub fn offer(&mut self, n: u8, i: usize, v: usize) {
        if n <= self.peak.0 {
            return;
        }
        let better = match self.pending {
            None => true,
            Some((m, j, w)) => n > m || (n == m && (i, v) < (j, w)),
        };
        if better {
            self.pending = Some((n, i, v));
        }
    }

    /// The cycle's landings are done: the best buffer past the peak, if any, is the new peak.
    pub fn settle(&mut self) {
        if let Some(p) = self.pending.take() {
            self.peak = p;
        }
    }

    /// The printed fields: totals and a checksum of the per-channel counts (FNV-1a over the
    /// counts in router and port order, so that one count off anywhere changes it), and the peak.
    fn json(&self) -> String {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let all = self.flits.iter().chain(&self.heads).flatten().chain(&self.inj_flits).chain(&self.inj_heads);
        for &x in all {
            h = (h ^ x).wrapping_mul(0x100_0000_01b3);
        }
        let sum = |rows: &[[u64; P]]| rows.iter().flatten().sum::<u64>();
        format!(
            "\"channel_flits\": {}, \"channel_heads\": {}, \"injected_flits\": {}, \"flit_hops\": {}, \
             \"last_move_cycle\": {}, \"channel_checksum\": {h}, \"peak_buffer_flits\": {}, \"peak_buffer\": [{}, {}]",
            sum(&self.flits),
            sum(&self.heads),
            self.inj_flits.iter().sum::<u64>(),
            self.hops,
            self.last_move,
            self.peak.0,
            self.peak.1,
            self.peak.2
        )
    }
}
