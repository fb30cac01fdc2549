//! A small FIFO ring of `Copy` values with a power-of-two capacity, for the packets queued in an
//! iq input buffer.
//!
//! `VecDeque` would do, but its general index arithmetic and growth checks cost a noticeable share
//! of a hop; here an index is one add and one mask, and growth (doubling) happens only while a
//! run warms up, since credit flow control bounds the queue by the buffer depth.

/// A FIFO of `T`; starts empty without allocating.
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    buf: Box<[T]>,
    head: u32,
    len: u32,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Box::new([]), head: 0, len: 0 }
    }
}

impl<T: Copy + Default> Ring<T> {
    /// The `i`-th value from the front.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Option<T> {
        if i < self.len {
            Some(self.buf[(self.head.wrapping_add(i) as usize) & (self.buf.len() - 1)])
        } else {
            None
        }
    }

    #[inline]
    pub(crate) fn front(&self) -> Option<T> {
        self.get(0)
    }

    #[inline]
    pub(crate) fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let at = (self.head.wrapping_add(self.len) as usize) & (self.buf.len() - 1);
        self.buf[at] = x;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let x = self.front()?;
        self.head = self.head.wrapping_add(1) & (self.buf.len() as u32 - 1);
        self.len -= 1;
        Some(x)
    }

    /// Doubles the capacity (at least 4), keeping the order.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = vec![T::default(); cap].into_boxed_slice();
        for (i, slot) in buf.iter_mut().take(self.len as usize).enumerate() {
            *slot = self.get(i as u32).expect("within len");
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_vecdeque_through_growth_and_wrap_around() {
        let mut r: Ring<u64> = Ring::default();
        let mut d: VecDeque<u64> = VecDeque::new();
        let mut x = 1u64;
        for step in 0..2_000u64 {
            // A pseudo-random mix of pushes and pops, more pushes early on.
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (x >> 33) % 3 != 0 || step < 50 {
                r.push_back(step);
                d.push_back(step);
            } else {
                assert_eq!(r.pop_front(), d.pop_front());
            }
            assert_eq!(r.len as usize, d.len());
            assert_eq!(r.front(), d.front().copied());
            assert_eq!(r.get(r.len / 2), d.get(d.len() / 2).copied());
        }
        while let Some(v) = d.pop_front() {
            assert_eq!(r.pop_front(), Some(v));
        }
        assert_eq!(r.pop_front(), None);
    }
}
