//! Benchmark (not a test, and not mcastlab's simulator): a minimal input-queued VC router on the
//! 8×8 mesh, written directly on fixed-size per-router arrays, as a reference for how fast this
//! kind of cycle-by-cycle router step runs on a machine. It answers one question for issue 12's
//! speed target: how far is `bench_booksim speed` (the iq router with its endpoints, measurement
//! and multicast support) from a lean router that does a router's work and little else?
//!
//!     cargo run --release -p mcastlab-core --example bench_lean_router -- 0.1
//!     cargo run --release -p mcastlab-core --example bench_lean_router -- 0.3
//!     cargo run --release -p mcastlab-core --example bench_lean_router -- 0.3 events
//!
//! What it models, close to `booksim_iq` but simplified: 5 ports (E, W, N, S, local), 2 VCs of 8
//! flits per input, 8-flit packets (or, with `mixed`, lengths of 1-16 flits; either way each router
//! reads a packet's length from its record, as the real model must), dimension-order routing,
//! Bernoulli sources at `load` flits/node/cycle with uniform destinations other than the source,
//! unbounded source queues; RC when a head is at the front, VA a cycle later (the real model's: one
//! iteration of iSLIP over input VCs × output VCs, see `allocate_vcs`), SA a cycle after the grant
//! (also the real model's: one iteration of iSLIP over input ports × output ports, each input
//! entering one VC per output, see `allocate_switch`), a flit and its credit three cycles on the
//! way between routers (or, with `slow-links`, two, and one on the terminal channels; the latencies
//! are read per port at runtime). Each packet is a record (destination, creation cycle, source,
//! length) that RC reads at every router, and the mean latency of the packets created in cycles
//! 30,000–79,999 is measured as BookSim's protocol does (creation to the tail's ejection: 40.6
//! cycles at 0.1 and 60.8 at 0.3, against `bench_booksim`'s 43.0 and 61.1, whose sources also
//! address themselves). With `events`, each packet also passes through a queue of timed events,
//! four per packet, in place of an endpoint model. Not modelled: BookSim's exact timing, the NIs'
//! work, messages, multicast, the checks. It keeps the real model's statistics
//! (`mesh_traffic::Stats`: per channel flits and heads, flit hops, the last move, the occupancy
//! peak), since a step that drops them would flatter itself. So its rate says how fast a router
//! step of this kind can run here, not how fast mcastlab should run on equal work. It prints the
//! flit-router traversals (hops out of a router, to a router or an endpoint), the CPU time of its
//! loop, the mean latency in cycles and those statistics.
//!
//! Its step has few branches on data: a VC's phase is its bit in the router's words (asking,
//! sending; idle is neither), a VC's readiness follows from its router being visited in every
//! cycle it holds a flit (a VC routed or granted in an earlier cycle may go on now), a bid is
//! the credit bit of its output VC, and the round-robin picks are bit operations. Written first
//! with a phase and a ready cycle per VC and the picks as searches (and without packet records),
//! the same traversals took 32 % more CPU time at 0.3 and 19 % more at 0.1 (docs/performance.md,
//! session 13).

#[path = "support/cpu.rs"]
mod cpu;
#[path = "support/mesh_traffic.rs"]
mod mesh_traffic;
use cpu::cpu_s;
use mesh_traffic::{route, Latency, Stats, Traffic, DEPTH, K, LOCAL, N, NV, P, RING, V};

/// One router: per input VC (port · V + VC) and per output VC, fixed-size arrays; a VC's phase as
/// bits of two words (idle is neither asking nor sending).
#[derive(Clone)]
struct Router {
    /// Input VCs holding a flit.
    occ: u16,
    /// Input VCs routed and waiting for an output VC.
    asking: u16,
    /// Input VCs holding an output VC.
    sending: u16,
    out: [u8; NV],
    /// The output VC (output port · V + VC) a sending input VC holds.
    ovc: [u8; NV],
    arrived: [u8; NV],
    sent: [u8; NV],
    /// The length of the packet at the front, read from its record at RC: the tail is the flit
    /// that makes `sent` reach it (packets come in any length, so no constant says where a
    /// packet ends).
    len: [u8; NV],
    /// The packets (ids of their records) in each buffer, oldest first (a ring of `RING`).
    dest: [[u32; RING]; NV],
    front: [u8; NV],
    packets: [u8; NV],
    /// Per output VC: credits, and whether a packet holds it.
    credits: [u8; NV],
    /// Output VCs a flit may be sent to (credits left, or the endpoint's).
    credit_ok: u16,
    held: u16,
    /// Flits sent into each local input VC and not yet landed (the source's side of its credits).
    on_the_way: [u8; NV],
    /// SA's round-robin pointers: per output over the inputs (grant), per input over the outputs
    /// (accept) and over its VCs.
    sa_out: [u8; P],
    sa_in: [u8; P],
    sa_vc: [u8; P],
    /// VA's round-robin pointers (iSLIP): per output VC over the input VCs it may grant (grant),
    /// per input VC over the output VCs granting it (accept).
    va_grant: [u8; NV],
    va_accept: [u8; NV],
}

impl Default for Router {
    fn default() -> Self {
        Router {
            occ: 0,
            asking: 0,
            sending: 0,
            out: [0; NV],
            ovc: [0; NV],
            arrived: [0; NV],
            sent: [0; NV],
            len: [0; NV],
            dest: [[0; RING]; NV],
            front: [0; NV],
            packets: [0; NV],
            credits: [DEPTH; NV],
            credit_ok: (1 << NV) - 1,
            held: 0,
            on_the_way: [0; NV],
            sa_out: [0; P],
            sa_in: [0; P],
            sa_vc: [0; P],
            va_grant: [0; NV],
            va_accept: [0; NV],
        }
    }
}

/// Of the places in `m` (nonzero, places below 32), the first at or after pointer `p`,
/// wrapping: the round-robin choice of the real model's allocators (`alloc::first_after`).
fn first_after(m: u32, p: u8) -> usize {
    let ahead = m & (!0u32 << p);
    (if ahead != 0 { ahead } else { m }).trailing_zeros() as usize
}

/// The place after `x` in a round-robin order of `NV` places (input VCs, or output VCs).
fn next(x: usize) -> u8 {
    ((x + 1) % NV) as u8
}

/// VA as the real model (`IqNet`, allocator `Islip`) runs it: one iteration of iSLIP over input
/// VCs × output VCs. Every VC of `asking` asks every free VC of its output port (one VC class on
/// the mesh, and every VC into the endpoint); every free output VC grants the first of its
/// askers at or after its grant pointer; every input VC granted accepts the first of its grants
/// at or after its accept pointer; both pointers of an accepted pair move one past the partner,
/// and nothing else moves (a grant not accepted is lost for this cycle). All of it reads the
/// holders as they were before the match, as the real model's does. One difference of shape:
/// every router here has 5 ports, so the pointers wrap over 10 VCs, where the real model's edge
/// routers have fewer ports and their pointers wrap sooner.
fn allocate_vcs(x: &mut Router, asking: u16) {
    if asking == 0 {
        return;
    }
    let free = !x.held as u32 & ((1 << NV) - 1);
    if asking.is_power_of_two() {
        // One input VC asks alone (most VAs below saturation): every free VC of its port grants
        // it, so it takes the first of them after its accept pointer, as the real model's
        // shortcut (`va::lone_ask`) computes it.
        let q = asking.trailing_zeros() as usize;
        let o = x.out[q] as usize;
        let f = free & 3 << (o * V);
        if f != 0 {
            take_vc(x, q, first_after(f, x.va_accept[q]));
        }
        return;
    }
    // Per output port, the input VCs asking it that have a free VC there.
    let (mut want, mut ports) = ([0u32; P], 0u32);
    let mut bits = asking;
    while bits != 0 {
        let v = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let o = x.out[v] as usize;
        if free >> (o * V) & 3 != 0 {
            want[o] |= 1 << v;
            ports |= 1 << o;
        }
    }
    // Grant: per input VC, the output VCs granting it.
    let (mut granted, mut takers) = ([0u32; NV], 0u32);
    while ports != 0 {
        let o = ports.trailing_zeros() as usize;
        ports &= ports - 1;
        for res in o * V..o * V + V {
            if free >> res & 1 != 0 {
                let q = first_after(want[o], x.va_grant[res]);
                granted[q] |= 1 << res;
                takers |= 1 << q;
            }
        }
    }
    // Accept.
    while takers != 0 {
        let q = takers.trailing_zeros() as usize;
        takers &= takers - 1;
        take_vc(x, q, first_after(granted[q], x.va_accept[q]));
    }
}

/// Input VC `q` takes output VC `res` in VA: both pointers move one past the partner.
fn take_vc(x: &mut Router, q: usize, res: usize) {
    x.va_accept[q] = next(res);
    x.va_grant[res] = next(q);
    x.held |= 1 << res;
    x.ovc[q] = res as u8;
    x.asking &= !(1 << q);
    x.sending |= 1 << q;
}

/// SA as the real model (`IqNet`, allocator `Islip`) runs it, on the VCs in `bid`: each input
/// enters, per output, the one of its VCs bidding for it that comes first from its VC pointer;
/// then one iteration of iSLIP over input ports × output ports: every output bid for grants the
/// first bidding input at or after its pointer, every input granted accepts the first granting
/// output at or after its own; an accepted pair moves both pointers one past the partner and the
/// input's VC pointer one past the VC that goes. Writes the (output, input VC) pairs that cross
/// into `wins` and returns how many.
fn allocate_switch(x: &mut Router, bid: u32, wins: &mut [(usize, usize); P]) -> usize {
    // Per output, the inputs bidding; per input and output, the VC entered.
    let (mut inputs_for, mut cand, mut outs) = ([0u32; P], [[0u8; P]; P], 0u32);
    let mut bits = bid;
    while bits != 0 {
        let v = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let (ip, o) = (v / V, x.out[v] as usize);
        // VC 0 comes first (bits in increasing order): VC 1 replaces it where the pointer is at 1.
        if inputs_for[o] >> ip & 1 == 0 || (v % V) as u8 == x.sa_vc[ip] {
            cand[ip][o] = v as u8;
        }
        inputs_for[o] |= 1 << ip;
        outs |= 1 << o;
    }
    let (mut granted, mut ins) = ([0u32; P], 0u32);
    while outs != 0 {
        let o = outs.trailing_zeros() as usize;
        outs &= outs - 1;
        let ip = first_after(inputs_for[o], x.sa_out[o]);
        granted[ip] |= 1 << o;
        ins |= 1 << ip;
    }
    let mut won = 0;
    while ins != 0 {
        let ip = ins.trailing_zeros() as usize;
        ins &= ins - 1;
        let o = first_after(granted[ip], x.sa_in[ip]);
        let v = cand[ip][o] as usize;
        x.sa_in[ip] = ((o + 1) % P) as u8;
        x.sa_out[o] = ((ip + 1) % P) as u8;
        x.sa_vc[ip] = ((v % V + 1) % V) as u8;
        wins[won] = (o, v);
        won += 1;
    }
    won
}

impl Router {
    /// A head entering input VC `v` brings its packet's destination.
    fn push_packet(&mut self, v: usize, dest: u32) {
        let k = (self.front[v] + self.packets[v]) as usize % RING;
        self.dest[v][k] = dest;
        self.packets[v] += 1;
    }
}

/// What lands in a later cycle: a flit in (router, input VC), or a credit for (router, output VC).
#[derive(Clone, Copy)]
enum Due {
    Flit(u16, u8),
    Credit(u16, u8),
}

/// The router behind port `p` of router `i`, and the input port the link enters there.
fn neighbour(i: usize, p: usize) -> (usize, usize) {
    match p {
        0 => (i + 1, 1),
        1 => (i - 1, 0),
        2 => (i + K, 3),
        _ => (i - K, 2),
    }
}

fn main() {
    let opts = mesh_traffic::args("bench_lean_router");
    let mut traffic = Traffic::new(&opts);
    let mut r = vec![Router::default(); N];
    let lat = Latency::of(&opts);
    let mask = lat.slots() - 1;
    let mut wheel: Vec<Vec<Due>> = vec![Vec::new(); mask + 1];
    // Per source, the packet being sent: its id, injection VC, flits sent.
    let mut current: Vec<Option<(u32, usize, u8)>> = vec![None; N];
    // The sources whose `current` is a packet.
    let mut busy = 0u64;
    let (mut active, mut listed) = (Vec::<usize>::new(), vec![false; N]);
    let mut traversals = 0u64;
    let mut stats = Stats::default();
    let start = cpu_s();
    let mut c = 0u64;
    while traffic.running(c) {
        let mut due = std::mem::take(&mut wheel[c as usize & mask]);
        for d in &due {
            match *d {
                Due::Flit(i, v) => {
                    let (i, v) = (i as usize, v as usize);
                    let x = &mut r[i];
                    x.arrived[v] += 1;
                    x.occ |= 1 << v;
                    if x.arrived[v] > stats.peak() {
                        stats.offer(x.arrived[v], i, v);
                    }
                    if v / V == LOCAL {
                        x.on_the_way[v] -= 1;
                    }
                    if !listed[i] {
                        listed[i] = true;
                        active.push(i);
                    }
                }
                Due::Credit(i, ov) => {
                    let x = &mut r[i as usize];
                    x.credits[ov as usize] += 1;
                    x.credit_ok |= 1 << ov;
                }
            }
        }
        due.clear();
        wheel[c as usize & mask] = due;
        stats.settle();
        traffic.endpoints(c);
        traffic.create(c);
        // Only the sources sending a packet or holding one in their queue.
        let mut work = traffic.waiting | busy;
        while work != 0 {
            let i = work.trailing_zeros() as usize;
            work &= work - 1;
            let x = &mut r[i];
            if current[i].is_none() {
                if let Some(&d) = traffic.queue[i].front() {
                    let free = (0..V).map(|k| LOCAL * V + k).find(|&v| x.arrived[v] + x.on_the_way[v] < DEPTH);
                    if let Some(v) = free {
                        traffic.take(i);
                        current[i] = Some((d, v, 0));
                        busy |= 1 << i;
                    }
                }
            }
            if let Some((d, v, sent)) = current[i] {
                if x.arrived[v] + x.on_the_way[v] < DEPTH {
                    if sent == 0 {
                        x.push_packet(v, d);
                        stats.inj_heads[i] += 1;
                    }
                    stats.inj_flits[i] += 1;
                    stats.last_move = c;
                    x.on_the_way[v] += 1;
                    wheel[(c + lat.inject) as usize & mask].push(Due::Flit(i as u16, v as u8));
                    current[i] = (sent + 1 < traffic.len(d)).then_some((d, v, sent + 1));
                    if current[i].is_none() {
                        busy &= !(1 << i);
                    }
                }
            }
        }
        // Per output port, the wheel's slot for its flits and credits of this cycle, once a cycle.
        let later: [usize; P] = std::array::from_fn(|o| (c + lat.port[o]) as usize & mask);
        let mut j = 0;
        while j < active.len() {
            let i = active[j];
            let mut wins = [(0usize, 0usize); P];
            let won = {
                let x = &mut r[i];
                // Every router holding a flit is visited every cycle, so a VC routed or granted
                // in an earlier cycle is ready for VA or SA now.
                let asking = x.asking;
                let sending = x.sending & x.occ;
                let mut idle = x.occ & !(x.asking | x.sending);
                x.asking |= idle;
                while idle != 0 {
                    let v = idle.trailing_zeros() as usize;
                    idle &= idle - 1;
                    let id = x.dest[v][x.front[v] as usize % RING];
                    x.out[v] = route(i, traffic.dest(id)) as u8;
                    x.len[v] = traffic.len(id);
                }
                let mut bid = 0u32;
                let mut bits = sending;
                while bits != 0 {
                    let v = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    bid |= ((x.credit_ok >> x.ovc[v]) as u32 & 1) << v;
                }
                allocate_vcs(x, asking);
                allocate_switch(x, bid, &mut wins)
            };
            for &(o, v) in &wins[..won] {
                let x = &mut r[i];
                x.arrived[v] -= 1;
                x.sent[v] += 1;
                if x.arrived[v] == 0 {
                    x.occ &= !(1 << v);
                }
                traversals += 1;
                let (ov, tail, head) = (x.ovc[v] as usize, x.sent[v] == x.len[v], x.sent[v] == 1);
                let dest = x.dest[v][x.front[v] as usize % RING];
                stats.flits[i][o] += 1;
                stats.heads[i][o] += u64::from(head);
                stats.last_move = c;
                if tail {
                    x.held &= !(1 << ov);
                    x.sending &= !(1 << v);
                    x.sent[v] = 0;
                    x.front[v] = ((x.front[v] as usize + 1) % RING) as u8;
                    x.packets[v] -= 1;
                }
                if v / V != LOCAL {
                    let (up, up_out) = neighbour(i, v / V);
                    let t = later[up_out];
                    wheel[t].push(Due::Credit(up as u16, (up_out * V + v % V) as u8));
                }
                if o == LOCAL {
                    if tail {
                        traffic.ejected(dest, c + lat.port[LOCAL]);
                    }
                    continue;
                }
                stats.hops += 1;
                x.credits[ov] -= 1;
                if x.credits[ov] == 0 {
                    x.credit_ok &= !(1 << ov);
                }
                let (down, down_in) = neighbour(i, o);
                let dv = down_in * V + ov % V;
                if head {
                    r[down].push_packet(dv, dest);
                }
                wheel[later[o]].push(Due::Flit(down as u16, dv as u8));
            }
            if r[i].occ == 0 {
                listed[i] = false;
                active.swap_remove(j);
            } else {
                j += 1;
            }
        }
        c += 1;
    }
    let cpu = cpu_s().zip(start).map_or(f64::NAN, |(b, a)| b - a);
    traffic.report("lean router estimate", opts.load, c, traversals, cpu, &stats);
}
