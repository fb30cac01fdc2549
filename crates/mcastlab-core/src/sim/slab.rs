//! A slab: reusable slots addressed by a typed id, for the objects a run creates and retires by
//! the million (messages, worms, branches, circuits).
//!
//! A freed slot keeps its value, so the lists inside it keep their capacity and the steady state
//! of a run allocates nothing: `alloc` hands the old value to an initializer, which clears what it
//! reuses. Freed slots are reused last in, first out, which is the order ids are handed out in and
//! so part of what a run reports (message and worm ids rank same-instant events).

use super::ids::DenseId;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

pub(crate) struct Slab<I, T> {
    items: Vec<T>,
    free: Vec<I>,
    _id: PhantomData<I>,
}

impl<I, T> Default for Slab<I, T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new(), _id: PhantomData }
    }
}

impl<I: DenseId, T: Default> Slab<I, T> {
    /// A slot, reusing the most recently freed one (and whatever capacity it kept) when there is
    /// one.
    #[inline]
    pub(crate) fn alloc(&mut self, init: impl FnOnce(&mut T)) -> I {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.items.push(T::default());
                I::from_index(self.items.len() - 1)
            }
        };
        init(&mut self.items[id.idx()]);
        id
    }

    /// Frees slot `id` for reuse.
    #[inline]
    pub(crate) fn release(&mut self, id: I) {
        self.free.push(id);
    }

    /// Slots ever allocated (live or free), for scanning in diagnostics and for the memory budget.
    pub(crate) fn slots(&self) -> usize {
        self.items.len()
    }

    /// Every slot ever allocated, live or free, with its id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (I, &T)> {
        self.items.iter().enumerate().map(|(i, t)| (I::from_index(i), t))
    }
}

impl<I: DenseId, T> Index<I> for Slab<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.items[id.idx()]
    }
}

impl<I: DenseId, T> IndexMut<I> for Slab<I, T> {
    #[inline]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.idx()]
    }
}
