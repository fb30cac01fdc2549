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
//! flits per input, 8-flit packets, dimension-order routing, Bernoulli sources at `load`
//! flits/node/cycle with uniform destinations other than the source, unbounded source queues; RC
//! when a head is at the front, VA a cycle later (the first free VC of the output after its
//! pointer), SA a cycle after the grant (each input picks one VC round robin, each output one
//! input round robin), a flit and its credit three cycles on the way. Each packet is a record
//! (destination, creation cycle, source) that RC reads at every router, and the mean latency of
//! the packets created in cycles 30,000–79,999 is measured as BookSim's protocol does (creation
//! to the tail's ejection: 40.5 cycles at 0.1 and 59.6 at 0.3, against `bench_booksim`'s 43.0
//! and 61.1, whose sources also address themselves). With `events`,
//! each packet also passes through a queue of timed events, four per packet, in place of an
//! endpoint model. Not modelled: BookSim's exact timing and allocators, the NIs' work, messages,
//! statistics beyond the mean latency, multicast, the checks. So its rate says how fast a router
//! step of this kind can run here, not how fast mcastlab should run on equal work. It prints the
//! flit-router traversals (hops out of a router, to a router or an endpoint), the CPU time of its
//! loop and the mean latency in cycles.
//!
//! Its step has few branches on data: a VC's phase is its bit in the router's words (asking,
//! sending; idle is neither), a VC's readiness follows from its router being visited in every
//! cycle it holds a flit (a VC routed or granted in an earlier cycle may go on now), a bid is
//! the credit bit of its output VC, and the round-robin picks are bit operations. Written first
//! with a phase and a ready cycle per VC and the picks as searches (and without packet records),
//! the same traversals took 32 % more CPU time at 0.3 and 19 % more at 0.1 (docs/performance.md,
//! session 13).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_s;

const K: usize = 8;
const N: usize = K * K;
/// Ports: east, west, north, south, the local endpoint.
const P: usize = 5;
const LOCAL: usize = 4;
const V: usize = 2;
const NV: usize = P * V;
const DEPTH: u8 = 8;
const LEN: u8 = 8;
/// Cycles from a flit's crossing to its landing downstream, and from a freed slot to its credit.
const HOP: u64 = 3;
const CYCLES: u64 = 80_000;

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
    /// The destinations of the packets in each buffer, oldest first (a ring of four).
    dest: [[u32; 4]; NV],
    front: [u8; NV],
    packets: [u8; NV],
    /// Per output VC: credits, and whether a packet holds it.
    credits: [u8; NV],
    /// Output VCs a flit may be sent to (credits left, or the endpoint's).
    credit_ok: u16,
    held: u16,
    /// Flits sent into each local input VC and not yet landed (the source's side of its credits).
    on_the_way: [u8; NV],
    sa_out: [u8; P],
    sa_vc: [u8; P],
    va_out: [u8; P],
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
            dest: [[0; 4]; NV],
            front: [0; NV],
            packets: [0; NV],
            credits: [DEPTH; NV],
            credit_ok: (1 << NV) - 1,
            held: 0,
            on_the_way: [0; NV],
            sa_out: [0; P],
            sa_vc: [0; P],
            va_out: [0; P],
        }
    }
}

/// The round-robin choice among two VCs: `m` has bit k set when VC k may be chosen, `ptr` is the
/// VC to prefer.
fn pick2(m: u32, ptr: u8) -> usize {
    if m == 3 {
        ptr as usize
    } else {
        (m >> 1) as usize
    }
}

impl Router {
    /// A head entering input VC `v` brings its packet's destination.
    fn push_packet(&mut self, v: usize, dest: u32) {
        let k = (self.front[v] + self.packets[v]) as usize & 3;
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

/// Dimension-order routing: the output port at router `i` towards endpoint `d`.
fn route(i: usize, d: usize) -> u8 {
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
        LOCAL as u8
    }
}

/// Packet `id` is done in cycle `c`: its latency counts if it was created in the measurement
/// window, and its id is free again.
fn done(id: u32, c: u64, pkts: &[(u8, u64, u8)], free: &mut Vec<u32>, lat: &mut (f64, u64), delivered: &mut u64) {
    let created = pkts[id as usize].1;
    if (30_000..CYCLES).contains(&created) {
        lat.0 += (c - created) as f64;
        lat.1 += 1;
    }
    free.push(id);
    *delivered += 1;
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "0.1".into());
    let load = match arg.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => x,
        _ => {
            eprintln!("bench_lean_router: load `{arg}`: give a number of flits/node/cycle between 0 and 1");
            std::process::exit(2);
        }
    };
    let p_packet = load / LEN as f64;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut r = vec![Router::default(); N];
    let mut wheel: Vec<Vec<Due>> = vec![Vec::new(); 8];
    let mut queue: Vec<VecDeque<u32>> = vec![VecDeque::new(); N];
    // Per source, the packet being sent: its id, injection VC, flits sent.
    let mut current: Vec<Option<(u32, usize, u8)>> = vec![None; N];
    // `events`: each packet also passes through a queue of timed events, four per packet, as a
    // stand-in for an endpoint model (a send and a receive job at the host and the NI).
    let events = match std::env::args().nth(2).as_deref() {
        None => false,
        Some("events") => true,
        Some(other) => {
            eprintln!("bench_lean_router: `{other}`: the only option after the load is `events`");
            std::process::exit(2);
        }
    };
    // Packet records (destination, creation cycle, source), ids recycled; the buffers hold ids.
    let mut pkts: Vec<(u8, u64, u8)> = Vec::new();
    let mut free_ids: Vec<u32> = Vec::new();
    // Timed events (cycle, packet, kind): 0 host send, 1 NI send (the packet joins its source's
    // queue), 2 NI receive, 3 host receive (the packet is done).
    let mut heap: BinaryHeap<Reverse<(u64, u32, u8)>> = BinaryHeap::new();
    // Latency (creation to the tail's ejection) of the packets created in cycles 30,000-79,999.
    let mut lat = (0f64, 0u64);
    // Per source, its next packet's cycle (geometric gaps of a Bernoulli process).
    let ln_q = (-p_packet).ln_1p();
    let gap = |rng: &mut ChaCha8Rng| ((1.0 - rng.random::<f64>()).ln() / ln_q) as u64;
    let mut next: Vec<u64> = (0..N).map(|_| gap(&mut rng)).collect();
    let (mut active, mut listed) = (Vec::<usize>::new(), vec![false; N]);
    let (mut traversals, mut delivered, mut created) = (0u64, 0u64, 0u64);
    let start = cpu_s();
    let mut c = 0u64;
    while c < CYCLES || delivered < created {
        let mut due = std::mem::take(&mut wheel[(c & 7) as usize]);
        for d in &due {
            match *d {
                Due::Flit(i, v) => {
                    let (i, v) = (i as usize, v as usize);
                    let x = &mut r[i];
                    x.arrived[v] += 1;
                    x.occ |= 1 << v;
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
        wheel[(c & 7) as usize] = due;
        while let Some(&Reverse((t, id, kind))) = heap.peek() {
            if t > c {
                break;
            }
            heap.pop();
            match kind {
                0 | 2 => heap.push(Reverse((t, id, kind + 1))),
                1 => queue[pkts[id as usize].2 as usize].push_back(id),
                _ => done(id, c, &pkts, &mut free_ids, &mut lat, &mut delivered),
            }
        }
        for i in 0..N {
            if c < CYCLES && next[i] == c {
                next[i] = c + 1 + gap(&mut rng);
                let d = rng.random_range(0..N as u32 - 1) as usize;
                let rec = ((if d >= i { d + 1 } else { d }) as u8, c, i as u8);
                let id = match free_ids.pop() {
                    Some(id) => {
                        pkts[id as usize] = rec;
                        id
                    }
                    None => {
                        pkts.push(rec);
                        pkts.len() as u32 - 1
                    }
                };
                if events {
                    heap.push(Reverse((c, id, 0)));
                } else {
                    queue[i].push_back(id);
                }
                created += 1;
            }
            let x = &mut r[i];
            if current[i].is_none() {
                if let Some(&d) = queue[i].front() {
                    let free = (0..V).map(|k| LOCAL * V + k).find(|&v| x.arrived[v] + x.on_the_way[v] < DEPTH);
                    if let Some(v) = free {
                        queue[i].pop_front();
                        current[i] = Some((d, v, 0));
                    }
                }
            }
            if let Some((d, v, sent)) = current[i] {
                if x.arrived[v] + x.on_the_way[v] < DEPTH {
                    if sent == 0 {
                        x.push_packet(v, d);
                    }
                    x.on_the_way[v] += 1;
                    wheel[((c + 2) & 7) as usize].push(Due::Flit(i as u16, v as u8));
                    current[i] = (sent + 1 < LEN).then_some((d, v, sent + 1));
                }
            }
        }
        let mut j = 0;
        while j < active.len() {
            let i = active[j];
            let mut wins = [(0usize, 0usize); P];
            let mut won = 0;
            {
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
                    x.out[v] = route(i, pkts[x.dest[v][x.front[v] as usize & 3] as usize].0 as usize);
                }
                let mut bid = 0u32;
                let mut bits = sending;
                while bits != 0 {
                    let v = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    bid |= ((x.credit_ok >> x.ovc[v]) as u32 & 1) << v;
                }
                let mut bits = asking;
                while bits != 0 {
                    let v = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let o = x.out[v] as usize;
                    let free = (!x.held >> (o * V)) as u32 & 3;
                    if free != 0 {
                        let k = pick2(free, x.va_out[o]);
                        x.held |= 1 << (o * V + k);
                        x.va_out[o] = ((k + 1) % V) as u8;
                        x.ovc[v] = (o * V + k) as u8;
                        x.asking &= !(1 << v);
                        x.sending |= 1 << v;
                    }
                }
                let (mut inputs_for, mut pick) = ([0u32; P], [0usize; P]);
                let mut outs = 0u32;
                let mut ins = (bid | bid >> 1) & 0x155;
                while ins != 0 {
                    let ip = ins.trailing_zeros() as usize / 2;
                    ins &= ins - 1;
                    let v = ip * V + pick2(bid >> (ip * V) & 3, x.sa_vc[ip]);
                    pick[ip] = v;
                    let o = x.out[v] as usize;
                    inputs_for[o] |= 1 << ip;
                    outs |= 1 << o;
                }
                while outs != 0 {
                    let o = outs.trailing_zeros() as usize;
                    outs &= outs - 1;
                    let m = inputs_for[o];
                    let p = x.sa_out[o] as u32;
                    let ip = ((m >> p | m << (P as u32 - p)).trailing_zeros() + p) as usize % P;
                    x.sa_out[o] = ((ip + 1) % P) as u8;
                    x.sa_vc[ip] = ((pick[ip] % V + 1) % V) as u8;
                    wins[won] = (o, pick[ip]);
                    won += 1;
                }
            }
            for &(o, v) in &wins[..won] {
                let x = &mut r[i];
                x.arrived[v] -= 1;
                x.sent[v] += 1;
                if x.arrived[v] == 0 {
                    x.occ &= !(1 << v);
                }
                traversals += 1;
                let (ov, tail, head) = (x.ovc[v] as usize, x.sent[v] == LEN, x.sent[v] == 1);
                let dest = x.dest[v][x.front[v] as usize & 3];
                if tail {
                    x.held &= !(1 << ov);
                    x.sending &= !(1 << v);
                    x.sent[v] = 0;
                    x.front[v] = (x.front[v] + 1) & 3;
                    x.packets[v] -= 1;
                }
                if v / V != LOCAL {
                    let (up, up_out) = neighbour(i, v / V);
                    wheel[((c + HOP) & 7) as usize].push(Due::Credit(up as u16, (up_out * V + v % V) as u8));
                }
                if o == LOCAL {
                    if tail {
                        if events {
                            heap.push(Reverse((c, dest, 2)));
                        } else {
                            done(dest, c, &pkts, &mut free_ids, &mut lat, &mut delivered);
                        }
                    }
                    continue;
                }
                x.credits[ov] -= 1;
                if x.credits[ov] == 0 {
                    x.credit_ok &= !(1 << ov);
                }
                let (down, down_in) = neighbour(i, o);
                let dv = down_in * V + ov % V;
                if head {
                    r[down].push_packet(dv, dest);
                }
                wheel[((c + HOP) & 7) as usize].push(Due::Flit(down as u16, dv as u8));
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
    println!(
        "{{\"case\": \"lean router estimate\", \"offered\": {load}, \"cycles\": {c}, \"packets\": {delivered}, \
         \"flit_router_traversals\": {traversals}, \"cpu_s\": {cpu:.3}, \"traversals_per_cpu_s\": {:.0}, \"latency_cycles\": {:.3}}}",
        traversals as f64 / cpu,
        lat.0 / lat.1 as f64
    );
}
