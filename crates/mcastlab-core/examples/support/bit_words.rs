//! Word operations of `bench_sliced_router`, where each bit of a word is one router of the mesh:
//! counters as bit planes, the set bits of a word, and round-robin choices made for every router
//! at once. Apart from the router step so that the step reads as the router's stages.

/// Planes of a per-channel counter (`Wide`): with a flush every 2^15 cycles or more often, and at
/// most one flit per channel and cycle, 16 planes of pairs never overflow.
pub const WIDE: usize = 16;

/// A counter per router, bit-sliced: plane `b` holds bit `b` of every router's count.
#[derive(Clone, Copy, Default)]
pub struct Count(pub [u64; 4]);

impl Count {
    pub fn full(n: u8) -> Count {
        Count(std::array::from_fn(|b| if n >> b & 1 == 1 { !0 } else { 0 }))
    }
    /// Adds one for the routers in `m`.
    pub fn inc(&mut self, m: u64) {
        let mut carry = m;
        for p in &mut self.0 {
            let next = *p & carry;
            *p ^= carry;
            carry = next;
        }
    }
    /// Takes one away for the routers in `m` (each of which counts at least one).
    pub fn dec(&mut self, m: u64) {
        let mut borrow = m;
        for p in &mut self.0 {
            let next = !*p & borrow;
            *p ^= borrow;
            borrow = next;
        }
    }
    pub fn nonzero(&self) -> u64 {
        self.0[0] | self.0[1] | self.0[2] | self.0[3]
    }
    /// The routers counting more than `n`, by one word comparison from the top plane down (so the
    /// occupancy peak is tested on the planes, and a buffer is looked at alone only when it
    /// passes the peak).
    pub fn above(&self, n: u8) -> u64 {
        let (mut gt, mut eq) = (0u64, !0u64);
        for b in (0..4).rev() {
            let p = self.0[b];
            if n >> b & 1 == 0 {
                gt |= eq & p;
                eq &= !p;
            } else {
                eq &= p;
            }
        }
        gt
    }
    pub fn of(&self, i: usize) -> u8 {
        self.0.iter().enumerate().map(|(b, p)| ((p >> i & 1) as u8) << b).sum()
    }
}

/// A per-channel statistic, bit-sliced like `Count` (a count per router), so a cycle's crossings
/// are counted with word operations, and flushed into per-router u64 totals every `FLUSH` cycles
/// and at the end. Words are added two at a time, as a carry-save adder does: the first waits
/// (`pending`), the second goes with it and the ones place (`ones`) through one full adder, and
/// only the carry ripples into `pairs` (counting twos): half the ripples, and shorter. (Counting
/// the channels costs about 40 M of 800 M instructions at 0.1; rippling every word, 4.5 M more,
/// and 10 M more at 0.3.)
#[derive(Clone, Copy, Default)]
pub struct Wide {
    pending: u64,
    waiting: bool,
    ones: u64,
    pairs: [u64; WIDE],
}

impl Wide {
    /// Adds one for the routers in `m` (nonzero).
    pub fn inc(&mut self, m: u64) {
        if !self.waiting {
            self.pending = m;
            self.waiting = true;
            return;
        }
        self.waiting = false;
        let (a, b) = (std::mem::take(&mut self.pending), m);
        let half = self.ones ^ a;
        let mut carry = (self.ones & a) | (half & b);
        self.ones = half ^ b;
        for p in &mut self.pairs {
            if carry == 0 {
                break;
            }
            let next = *p & carry;
            *p ^= carry;
            carry = next;
        }
    }
    /// Hands each router's count to `add` (router, amount) and starts again from zero.
    pub fn flush(&mut self, mut add: impl FnMut(usize, u64)) {
        let (pending, ones) = (std::mem::take(&mut self.pending), std::mem::take(&mut self.ones));
        self.waiting = false;
        for i in bits(pending) {
            add(i, 1);
        }
        for i in bits(ones) {
            add(i, 1);
        }
        for (b, p) in self.pairs.iter_mut().enumerate() {
            for i in bits(std::mem::take(p)) {
                add(i, 2 << b);
            }
        }
    }
}

/// Iterates the set bits of `m`, lowest first.
pub fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// A round-robin choice among `N` places in every router at once: of the candidates (`cand[x]`:
/// the routers where place x is one), each router's first at or after its pointer (`ptr[x]`: the
/// routers whose pointer is at x), as a word per place. A router with one candidate takes it; the
/// rotation over pointer and place, N² steps, runs only where some router has two or more, and
/// only for those (below saturation most routers have one bidder per output, and an input one
/// grant, and a rotation on every output and input with bids was the larger part of SA's cost).
pub fn round_robin<const N: usize>(cand: &[u64; N], ptr: &[u64; N]) -> [u64; N] {
    let (mut one, mut two) = (0u64, 0u64);
    for &x in cand {
        two |= one & x;
        one |= x;
    }
    if two == 0 {
        return *cand;
    }
    let mut out: [u64; N] = std::array::from_fn(|x| cand[x] & !two);
    for (p, &at) in ptr.iter().enumerate() {
        let mut rest = at & two;
        for j in 0..N {
            let x = (p + j) % N;
            let w = rest & cand[x];
            out[x] |= w;
            rest &= !w;
        }
    }
    out
}

/// Per pointer place p of `N`, the thermometer of a pointer at p: all ones at the places from p on (a
/// constant row, so that moving a pointer is a masked copy, not a comparison per place).
pub const fn thermometer<const N: usize>() -> [[u64; N]; N] {
    let mut t = [[0; N]; N];
    let mut p = 0;
    while p < N {
        let mut j = p;
        while j < N {
            t[p][j] = !0;
            j += 1;
        }
        p += 1;
    }
    t
}
