//! Benchmark (not a test, and not mcastlab's simulator): `bench_lean_router`'s router, stepped
//! bit-sliced across routers. Each bit of router state is one 64-bit word with one bit per router
//! of the 8×8 mesh, so a cycle's allocations, counters and round-robin pointers are computed
//! for all 64 routers at once with word operations, and a link to a neighbour is a shift. It
//! answers the question the lean router leaves open for issue 12's speed target: does a step
//! whose cost is per cycle, not per flit or per router visit, run much faster than a lean
//! per-router step, on the same work?
//!
//!     cargo run --release -p mcastlab-core --example bench_sliced_router -- 0.1
//!     cargo run --release -p mcastlab-core --example bench_sliced_router -- 0.3 events
//!
//! It must print the same packets, cycles, traversals, latency and statistics as
//! `bench_lean_router` for every load, with and without `events`, `mixed` and `slow-links` (a
//! test checks this): it is the same model, written the other way round. Per cycle it does, for
//! all routers at once:
//! - landing: each input VC's arrivals and each output VC's credits are a word from a delay line
//!   and bit-sliced counters (four words for 0-8) are incremented by them (only the words a
//!   per-slot mask marks nonzero: at low load most are zero);
//! - RC for VCs with a new packet at the front (the one scalar step per packet and router, with
//!   the buffers' packet records), visiting only the input VCs that hold a flit somewhere;
//! - VA as the real model's one-iteration iSLIP over input VCs × output VCs (`allocate_vcs`), SA
//!   as its one-iteration iSLIP over input ports × output ports (each input entering one VC per
//!   output), with round-robin pointers held as words (one-hot, or a thermometer for VA's
//!   grants);
//! - the moves: counters decremented, the head found from a word of VCs whose head has not gone,
//!   the tail from a bit-sliced count of the flits left, loaded at RC from the packet's record; a
//!   flit and its credit written into the delay line as many cycles on as their channel's latency
//!   (read per port at runtime), shifted to the neighbour;
//! - the statistics (`mesh_traffic::Stats`): the cycle's crossings per output port and injection
//!   link into bit-sliced counters, flushed to u64 totals every 2^15 cycles; the occupancy peak by
//!   a word comparison of the landing VCs' counters against it.
//!
//! Scalar work is left only where a packet, not a flit, needs it: its route at each router, its
//! record passed downstream at its head, its end at its tail, and the sources.

#[path = "support/bit_words.rs"]
mod bit_words;
#[path = "support/cpu.rs"]
mod cpu;
#[path = "support/mesh_traffic.rs"]
mod mesh_traffic;
use bit_words::{bits, round_robin, thermometer, Count, Wide};
use cpu::cpu_s;
use mesh_traffic::{route, Latency, Stats, Traffic, DEPTH, K, LOCAL, N, NV, P, RING, V};

/// The delay lines' capacity in slots; a run uses the first `Latency::slots` of them (its
/// largest latency's), through a mask. Fixed-size arrays, so that a slot's words are indexed
/// without a bounds check or a pointer load per access.
const MAX_SLOTS: usize = 8;

/// Cycles between flushes of the per-channel counters (`Wide`) into the u64 totals: a channel
/// takes at most one flit a cycle, so a counter of `WIDE` planes never overflows in between.
const FLUSH: u64 = 1 << 15;

/// The network's state, one word per state bit (bit `i` is router `i`).
struct Net {
    /// Per input VC: holds a flit, routed and waiting for an output VC, holding an output VC.
    occ: [u64; NV],
    asking: [u64; NV],
    sending: [u64; NV],
    /// Per input VC, one-hot over output ports: the route of the packet at its front.
    out: [[u64; P]; NV],
    /// Per input VC: the output VC it holds is VC 1 of its output port (else VC 0).
    vc1: [u64; NV],
    arrived: [Count; NV],
    /// Per input VC, the flits of the front packet still to go after the next one (its length
    /// less one, loaded from its record at RC; four planes, lengths 1-16): the flit that goes at
    /// zero is the tail. Packets come in any length, so the tail is found against each packet's
    /// own count, not a constant.
    left: [[u64; 4]; NV],
    /// Per input VC, the routers whose front packet's head has not gone yet.
    fresh: [u64; NV],
    /// Per output VC: credits, whether any are left, whether a packet holds it.
    credits: [Count; NV],
    credit_ok: [u64; NV],
    held: [u64; NV],
    /// VA's round-robin pointers (iSLIP). Grant, per output VC over the input VCs: as a
    /// thermometer, `va_grant[res][q]` for the routers whose pointer is at or before input VC `q`
    /// (so the askers at or after the pointer are those of `q` with the bit set; one word is
    /// read per asker, none is computed). Accept, per input VC over the output VCs: an input VC
    /// is granted only VCs of the one port it asks, and of VCs o·V and o·V + 1 the accept pointer
    /// puts o·V + 1 first only when it is at o·V + 1, so `va_accept1[q][o]` holds the routers
    /// whose pointer is there (with V = 2 that is all of the pointer an accept reads).
    va_grant: [[u64; NV]; NV],
    va_accept1: [[u64; P]; NV],
    /// SA's round-robin pointers: per input port over its VCs (VC 1 next) and one-hot over the
    /// outputs, per output port one-hot over the inputs.
    sa_vc1: [u64; P],
    sa_in: [[u64; P]; P],
    sa_out: [[u64; P]; P],
    /// Delay lines: flits landing in each input VC, credits reaching each output VC; slot
    /// `c & mask` holds what lands in cycle `c` (sized by the largest channel latency).
    flits: [[u64; NV]; MAX_SLOTS],
    credits_due: [[u64; NV]; MAX_SLOTS],
    mask: usize,
    /// Per slot, the VCs whose delay-line word is nonzero: landing visits only those.
    flits_any: [u32; MAX_SLOTS],
    credits_any: [u32; MAX_SLOTS],
    /// The input VCs holding a flit in some router: RC and the bids visit only those.
    occ_any: u32,
    /// Per output port, its channel's latency (the same port of every router: the mesh's links
    /// are alike per direction, which is what lets a port's flits of all routers go as one word).
    lat: [u64; P],
    /// Per output port, the slot its flits and credits of this cycle land in, set once a cycle
    /// (computing it in each call of `cross` from the latency and the mask cost 37 M instructions
    /// of 825 M at 0.1: loads and bounds checks the compiler could not drop).
    later: [usize; P],
    /// Statistics between flushes (see `Stats`): per output port the flits and head flits that
    /// crossed it, per injection link the same, and the flit hops.
    ch_flits: [Wide; P],
    ch_heads: [Wide; P],
    inj_flits: Wide,
    inj_heads: Wide,
    hops: u64,
    /// Per output port, the routers whose port a flit (a head) crossed in this cycle: SA lets
    /// one flit through a port per cycle, so the counters are incremented once per port and
    /// cycle from these (`count_crossings`), not once per group of crossings.
    crossed: [u64; P],
    crossed_heads: [u64; P],
}

impl Net {
    fn new(lat: &Latency) -> Net {
        assert!(lat.slots() <= MAX_SLOTS, "channel latencies past the delay lines' {MAX_SLOTS} slots");
        let mut sa_out = [[0; P]; P];
        for row in &mut sa_out {
            row[0] = !0;
        }
        Net {
            occ: [0; NV],
            asking: [0; NV],
            sending: [0; NV],
            out: [[0; P]; NV],
            vc1: [0; NV],
            arrived: [Count::default(); NV],
            left: [[0; 4]; NV],
            fresh: [0; NV],
            credits: [Count::full(DEPTH); NV],
            credit_ok: [!0; NV],
            held: [0; NV],
            va_grant: [[!0; NV]; NV],
            va_accept1: [[0; P]; NV],
            sa_vc1: [0; P],
            sa_in: sa_out,
            sa_out,
            flits: [[0; NV]; MAX_SLOTS],
            credits_due: [[0; NV]; MAX_SLOTS],
            mask: lat.slots() - 1,
            flits_any: [0; MAX_SLOTS],
            credits_any: [0; MAX_SLOTS],
            occ_any: 0,
            lat: lat.port,
            later: [0; P],
            ch_flits: [Wide::default(); P],
            ch_heads: [Wide::default(); P],
            inj_flits: Wide::default(),
            inj_heads: Wide::default(),
            hops: 0,
            crossed: [0; P],
            crossed_heads: [0; P],
        }
    }

    /// Counts the cycle's crossings into the per-channel counters and the hops.
    fn count_crossings(&mut self) {
        for o in 0..P {
            let m = std::mem::take(&mut self.crossed[o]);
            if m == 0 {
                continue;
            }
            self.ch_flits[o].inc(m);
            let heads = std::mem::take(&mut self.crossed_heads[o]);
            if heads != 0 {
                self.ch_heads[o].inc(heads);
            }
            if o != LOCAL {
                self.hops += u64::from(m.count_ones());
            }
        }
    }

    /// Moves the bit-sliced statistics into `stats`' totals.
    fn flush(&mut self, stats: &mut Stats) {
        for o in 0..P {
            self.ch_flits[o].flush(|i, n| stats.flits[i][o] += n);
            self.ch_heads[o].flush(|i, n| stats.heads[i][o] += n);
        }
        self.inj_flits.flush(|i, n| stats.inj_flits[i] += n);
        self.inj_heads.flush(|i, n| stats.inj_heads[i] += n);
        stats.hops += std::mem::take(&mut self.hops);
    }
}

/// The packets in each router's input VC buffers, oldest first (a ring of `RING` per VC).
#[derive(Clone, Default)]
struct Records {
    dest: [[u32; RING]; NV],
    front: [u8; NV],
    packets: [u8; NV],
}

impl Records {
    fn push(&mut self, v: usize, id: u32) {
        let k = (self.front[v] + self.packets[v]) as usize % RING;
        self.dest[v][k] = id;
        self.packets[v] += 1;
    }
    fn front(&self, v: usize) -> u32 {
        self.dest[v][self.front[v] as usize % RING]
    }
    fn pop(&mut self, v: usize) {
        self.front[v] = ((self.front[v] as usize + 1) % RING) as u8;
        self.packets[v] -= 1;
    }
}

/// The routers behind port `p` of the routers in `m`, as a word: a link of the mesh is a shift.
fn across(m: u64, p: usize) -> u64 {
    match p {
        0 => m << 1,
        1 => m >> 1,
        2 => m << K,
        _ => m >> K,
    }
}

/// The input port a link out of port `p` enters at its far end (east leaves into west, ...).
fn far_port(p: usize) -> usize {
    p ^ 1
}

/// The router behind port `p` of router `i`.
fn neighbour(i: usize, p: usize) -> usize {
    match p {
        0 => i + 1,
        1 => i - 1,
        2 => i + K,
        _ => i - K,
    }
}

fn main() {
    let opts = mesh_traffic::args("bench_sliced_router");
    let mut traffic = Traffic::new(&opts);
    let lat = Latency::of(&opts);
    let mut net = Net::new(&lat);
    let mut rec = vec![Records::default(); N];
    // Per source, the packet being sent: its id, injection VC, flits sent.
    let mut current: Vec<Option<(u32, usize, u8)>> = vec![None; N];
    // The sources whose `current` is a packet.
    let mut busy = 0u64;
    let mut traversals = 0u64;
    let mut stats = Stats::default();
    let start = cpu_s();
    let mut c = 0u64;
    while traffic.running(c) {
        let slot = c as usize & net.mask;
        // Only the VCs something lands in (a mask per slot, written with the words).
        for v in bits(std::mem::take(&mut net.flits_any[slot]) as u64) {
            let a = std::mem::take(&mut net.flits[slot][v]);
            net.occ_any |= 1 << v;
            {
                net.arrived[v].inc(a);
                net.occ[v] |= a;
                // A buffer past the occupancy peak (none once the peak is a full buffer).
                if stats.peak() < DEPTH {
                    for i in bits(a & net.arrived[v].above(stats.peak())) {
                        stats.offer(net.arrived[v].of(i), i, v);
                    }
                }
            }
        }
        for v in bits(std::mem::take(&mut net.credits_any[slot]) as u64) {
            let a = std::mem::take(&mut net.credits_due[slot][v]);
            net.credits[v].inc(a);
            net.credit_ok[v] |= a;
        }
        stats.settle();
        traffic.endpoints(c);
        // Flits injected in the last `lat.inject - 1` cycles are still on their way to the local
        // input VC (a source sends one a cycle, so each slot holds one at most).
        let room = |net: &Net, i: usize, v: usize| {
            let on_the_way: u8 =
                (1..lat.inject).map(|k| (net.flits[(slot + k as usize) & net.mask][v] >> i & 1) as u8).sum();
            net.arrived[v].of(i) + on_the_way < DEPTH
        };
        let (mut injected, mut inj_heads) = ([0u64; V], 0u64);
        traffic.create(c);
        // Only the sources sending a packet or holding one in their queue.
        for i in bits(traffic.waiting | busy) {
            if current[i].is_none() {
                if let Some(&d) = traffic.queue[i].front() {
                    if let Some(v) = (0..V).map(|k| LOCAL * V + k).find(|&v| room(&net, i, v)) {
                        traffic.take(i);
                        current[i] = Some((d, v, 0));
                        busy |= 1 << i;
                    }
                }
            }
            if let Some((d, v, sent)) = current[i] {
                if room(&net, i, v) {
                    if sent == 0 {
                        rec[i].push(v, d);
                        inj_heads |= 1 << i;
                    }
                    injected[v - LOCAL * V] |= 1 << i;
                    current[i] = (sent + 1 < traffic.len(d)).then_some((d, v, sent + 1));
                    if current[i].is_none() {
                        busy &= !(1 << i);
                    }
                }
            }
        }
        for (k, m) in injected.into_iter().enumerate() {
            let t = (slot + lat.inject as usize) & net.mask;
            net.flits[t][LOCAL * V + k] |= m;
            net.flits_any[t] |= u32::from(m != 0) << (LOCAL * V + k);
        }
        if injected[0] | injected[1] != 0 {
            net.inj_flits.inc(injected[0] | injected[1]);
            if inj_heads != 0 {
                net.inj_heads.inc(inj_heads);
            }
            stats.last_move = c;
        }
        let crossed = step(&mut net, &mut rec, &mut traffic, c);
        if crossed != 0 {
            traversals += crossed;
            stats.last_move = c;
            net.count_crossings();
        }
        if c % FLUSH == FLUSH - 1 {
            net.flush(&mut stats);
        }
        c += 1;
    }
    net.flush(&mut stats);
    let cpu = cpu_s().zip(start).map_or(f64::NAN, |(b, a)| b - a);
    traffic.report("sliced router estimate", opts.load, c, traversals, cpu, &stats);
}

/// VA of every router for the input VCs in `asking` (a word per input VC), as the real model
/// (`IqNet`, allocator `Islip`) runs it: one iteration of iSLIP over input VCs × output VCs, the
/// same match as `bench_lean_router`'s `allocate_vcs`, on words. Every asking VC asks every free
/// VC of its output port; each free output VC grants the first asker at or after its pointer;
/// each input VC granted accepts the first grant at or after its own; both pointers of an
/// accepted pair move one past the partner. The pointers are kept as words (see `Net`), and the
/// askers' words are visited through a mask of the nonzero ones, so that a cycle costs words
/// in proportion to the (port, input VC) pairs that ask somewhere in the mesh, not to all of
/// them.
#[allow(clippy::needless_range_loop)]
fn allocate_vcs(net: &mut Net, asking: &[u64; NV]) {
    if asking.iter().all(|&a| a == 0) {
        return;
    }
    let free: [u64; NV] = std::array::from_fn(|res| !net.held[res]);
    // Per output port: per input VC, the routers where it asks the port and the port has a free
    // VC; the input VCs with a nonzero word.
    let mut want = [[0u64; NV]; P];
    let mut askers = [0u32; P];
    // Per output port, the routers where two input VCs or more ask it.
    let (mut one, mut two) = ([0u64; P], [0u64; P]);
    for q in 0..NV {
        let a = asking[q];
        if a == 0 {
            continue;
        }
        for o in 0..P {
            // Without a branch: whether a word is empty is data (mispredicted a million times at
            // 0.3 under cachegrind's model).
            let w = a & net.out[q][o] & (free[o * V] | free[o * V + 1]);
            want[o][q] = w;
            askers[o] |= u32::from(w != 0) << q;
            two[o] |= one[o] & w;
            one[o] |= w;
        }
    }
    // Grant: each free output VC, the first asker at or after its pointer (`ahead`), else the
    // first asker. `granted[q][k]`: the routers where VC k of the port input VC q asks grants it.
    let mut granted = [[0u64; V]; NV];
    let mut takers = 0u32;
    for o in 0..P {
        if askers[o] == 0 {
            continue;
        }
        if two[o] == 0 {
            // One asker per router: every free VC of the port grants it, whatever the pointers.
            let mut qs = askers[o];
            while qs != 0 {
                let q = qs.trailing_zeros() as usize;
                qs &= qs - 1;
                for k in 0..V {
                    granted[q][k] |= want[o][q] & free[o * V + k];
                }
                takers |= 1 << q;
            }
            continue;
        }
        for k in 0..V {
            let res = o * V + k;
            let (f, ge) = (free[res], &net.va_grant[res]);
            // The routers with an asker at or after the pointer take the first of those; the
            // others the first asker. (`ahead` leaves out whether the VC is free: where it is
            // not, no asker is a candidate anyway.)
            let mut ahead = 0u64;
            let mut qs = askers[o];
            while qs != 0 {
                let q = qs.trailing_zeros() as usize;
                qs &= qs - 1;
                ahead |= want[o][q] & ge[q];
            }
            let mut seen = 0u64;
            let mut qs = askers[o];
            while qs != 0 {
                let q = qs.trailing_zeros() as usize;
                qs &= qs - 1;
                let cand = want[o][q] & f & (ge[q] | !ahead);
                let g = cand & !seen;
                seen |= cand;
                granted[q][k] |= g;
                takers |= u32::from(g != 0) << q;
            }
        }
    }
    // Accept: VC 1 when only it grants, or both do and the pointer is at VC 1 of the port. Every
    // router granted accepts one grant, so the routers whose pointer moves (`t`) are known
    // before which VC each takes.
    while takers != 0 {
        let q = takers.trailing_zeros() as usize;
        takers &= takers - 1;
        let (g0, g1) = (granted[q][0], granted[q][1]);
        let t = g0 | g1;
        let mut at1 = 0;
        for o in 0..P {
            let a = net.va_accept1[q][o];
            at1 |= net.out[q][o] & a;
            net.va_accept1[q][o] = a & !t;
        }
        let t1 = g1 & (!g0 | at1);
        let t0 = t & !t1;
        // The ports whose VCs are taken, found without a branch per port.
        let mut ports = 0u32;
        for o in 0..P {
            ports |= u32::from(t & net.out[q][o] != 0) << o;
        }
        while ports != 0 {
            let o = ports.trailing_zeros() as usize;
            ports &= ports - 1;
            let m = t & net.out[q][o];
            // The accept pointer moves to o·V + 1 after VC 0, to the next port's VC 0 after VC 1.
            net.va_accept1[q][o] |= m & t0;
            for (k, mk) in [(0, m & t0), (1, m & t1)] {
                if mk == 0 {
                    continue;
                }
                let res = o * V + k;
                net.held[res] |= mk;
                // The grant pointer moves to q + 1: the thermometer's places from q + 1 on.
                for (word, &on) in net.va_grant[res].iter_mut().zip(&THERMOMETER[(q + 1) % NV]) {
                    *word = *word & !mk | on & mk;
                }
            }
        }
        net.vc1[q] = net.vc1[q] & !t | t1;
        net.asking[q] &= !t;
        net.sending[q] |= t;
    }
}

/// One cycle of every router: RC, VA, SA and the moves. Returns the flit-router traversals of the
/// cycle. (Its loops index several per-VC or per-port word arrays by the same number, which an
/// iterator over one of them would hide.)
#[allow(clippy::needless_range_loop)]
fn step(net: &mut Net, rec: &mut [Records], traffic: &mut Traffic, c: u64) -> u64 {
    for o in 0..P {
        net.later[o] = (c + net.lat[o]) as usize & net.mask;
    }
    let asking = net.asking;
    // RC: a VC holding a flit that is neither asking nor sending has a new packet at its front.
    // Only VCs holding a flit in some router are looked at (at low load most hold none).
    let occ_any = net.occ_any as u64;
    for v in bits(occ_any) {
        let idle = net.occ[v] & !(net.asking[v] | net.sending[v]);
        if idle == 0 {
            continue;
        }
        net.asking[v] |= idle;
        net.fresh[v] |= idle;
        // Each router's route and length gathered into words, then written once per word.
        let (mut out, mut left) = ([0u64; P], [0u64; 4]);
        for i in bits(idle) {
            let id = rec[i].front(v);
            out[route(i, traffic.dest(id))] |= 1 << i;
            let l = (traffic.len(id) - 1) as u64;
            for (b, word) in left.iter_mut().enumerate() {
                *word |= (l >> b & 1) << i;
            }
        }
        for (word, set) in net.out[v].iter_mut().zip(out) {
            *word = *word & !idle | set;
        }
        for (word, set) in net.left[v].iter_mut().zip(left) {
            *word = *word & !idle | set;
        }
    }
    // SA bids: a sending VC holding a flit whose output VC has a credit. Only the ports where
    // some router lacks a credit on a VC (`tight`) can stop one: at low load there are seldom
    // any, and then the test per VC and port is skipped (past that, it is run on every port, as
    // visiting only the tight ones cost more than it saved at 0.3).
    let mut tight = 0u32;
    for o in 0..P {
        tight |= u32::from(net.credit_ok[o * V] & net.credit_ok[o * V + 1] != !0) << o;
    }
    let mut bid = [0u64; NV];
    for v in bits(occ_any) {
        let s = net.sending[v] & net.occ[v];
        if s == 0 {
            continue;
        }
        if tight == 0 {
            bid[v] = s;
            continue;
        }
        let mut ok = 0;
        for o in 0..P {
            let ok1 = net.vc1[v] & net.credit_ok[o * V + 1] | !net.vc1[v] & net.credit_ok[o * V];
            ok |= net.out[v][o] & ok1;
        }
        bid[v] = s & ok;
    }
    allocate_vcs(net, &asking);
    // SA as the real model's (see `bench_lean_router`'s `allocate_switch`): per input and
    // output, the VC entered (VC 1 where only it bids, or both do and the input's VC pointer is
    // at 1), then one iteration of iSLIP over input ports × output ports.
    let mut cand1 = [[0u64; P]; P];
    let mut req = [[0u64; P]; P];
    let mut outs = 0u64;
    for ip in 0..P {
        let (b0, b1) = (bid[ip * V], bid[ip * V + 1]);
        if b0 | b1 == 0 {
            continue;
        }
        for o in 0..P {
            let (r0, r1) = (b0 & net.out[ip * V][o], b1 & net.out[ip * V + 1][o]);
            cand1[ip][o] = r1 & (!r0 | net.sa_vc1[ip]);
            req[o][ip] = r0 | r1;
            outs |= r0 | r1;
        }
    }
    if outs == 0 {
        return 0;
    }
    // Grant: each output, the first bidding input at or after its pointer.
    let mut granted = [[0u64; P]; P];
    for o in 0..P {
        if req[o].iter().all(|&r| r == 0) {
            continue;
        }
        let g = round_robin(&req[o], &net.sa_out[o]);
        for ip in 0..P {
            granted[ip][o] = g[ip];
        }
    }
    // Accept: each input granted, the first granting output at or after its pointer.
    let mut traversals = 0;
    for ip in 0..P {
        if granted[ip].iter().all(|&g| g == 0) {
            continue;
        }
        let accepted = round_robin(&granted[ip], &net.sa_in[ip]);
        for o in 0..P {
            let w = accepted[o];
            if w == 0 {
                continue;
            }
            for row in net.sa_out[o].iter_mut() {
                *row &= !w;
            }
            net.sa_out[o][(ip + 1) % P] |= w;
            for row in net.sa_in[ip].iter_mut() {
                *row &= !w;
            }
            net.sa_in[ip][(o + 1) % P] |= w;
            let pick1 = cand1[ip][o];
            net.sa_vc1[ip] = net.sa_vc1[ip] & !w | (w & !pick1);
            for k in 0..V {
                let m = w & if k == 1 { pick1 } else { !pick1 };
                if m != 0 {
                    traversals += m.count_ones() as u64;
                    cross(net, rec, traffic, ip * V + k, o, m, c);
                }
            }
        }
    }
    traversals
}

/// VA's grant pointers as thermometers (see `Net::va_grant`).
const THERMOMETER: [[u64; NV]; NV] = thermometer::<NV>();

/// The routers in `m` send a flit from input VC `v` out of port `o`.
#[allow(clippy::too_many_arguments)]
fn cross(net: &mut Net, rec: &mut [Records], traffic: &mut Traffic, v: usize, o: usize, m: u64, c: u64) {
    net.arrived[v].dec(m);
    net.occ[v] = net.arrived[v].nonzero();
    if net.occ[v] == 0 {
        net.occ_any &= !(1 << v);
    }
    let head = m & net.fresh[v];
    net.fresh[v] &= !m;
    net.crossed[o] |= m;
    net.crossed_heads[o] |= head;
    let l = &mut net.left[v];
    let tail = m & !(l[0] | l[1] | l[2] | l[3]);
    // The others count one down (a tail's count is zero, and RC loads the next packet's). The
    // borrow runs through all four planes: stopping it where it ends saved 20 M of 825 M
    // instructions at 0.1 but cost about 15 % more CPU time (a branch on data, mispredicted;
    // the same held for `Count`'s counters).
    let mut borrow = m & !tail;
    for p in l.iter_mut() {
        let next = !*p & borrow;
        *p ^= borrow;
        borrow = next;
    }
    let (m1, m0) = (m & net.vc1[v], m & !net.vc1[v]);
    let ip = v / V;
    if ip != LOCAL {
        // Back over the link into `ip`: the upstream router's port `up`, and its latency.
        let up = far_port(ip);
        let t = net.later[up] & (MAX_SLOTS - 1);
        net.credits_due[t][up * V + v % V] |= across(m, ip);
        net.credits_any[t] |= 1 << (up * V + v % V);
    }
    let later = net.later[o] & (MAX_SLOTS - 1);
    if o != LOCAL {
        for (k, mk) in [(0, m0), (1, m1)] {
            if mk != 0 {
                let ov = o * V + k;
                net.credits[ov].dec(mk);
                net.credit_ok[ov] = net.credits[ov].nonzero();
                net.flits[later][far_port(o) * V + k] |= across(mk, o);
                net.flits_any[later] |= 1 << (far_port(o) * V + k);
            }
        }
        for i in bits(head) {
            let k = (net.vc1[v] >> i & 1) as usize;
            let id = rec[i].front(v);
            rec[neighbour(i, o)].push(far_port(o) * V + k, id);
        }
    }
    if tail != 0 {
        let t1 = tail & net.vc1[v];
        net.held[o * V + 1] &= !t1;
        net.held[o * V] &= !(tail & !t1);
        net.sending[v] &= !tail;
        for i in bits(tail) {
            if o == LOCAL {
                traffic.ejected(rec[i].front(v), c + net.lat[LOCAL]);
            }
            rec[i].pop(v);
        }
    }
}
