//! The templates a workload's messages run on, cached by (source, destinations) so that a pair
//! that comes again reuses its template, and recycled beyond `limits.kept_templates` (the engine
//! takes back a template no message uses; see `sim::ni::program`).

use crate::sim::engine::Simulation;
use crate::sim::ids::TemplateId;
use crate::sim::trees::put;
use std::collections::BTreeMap;

/// Largest fabric (endpoints) whose unicast templates are also kept in a flat table (N² entries:
/// 4 MiB at the limit).
const DENSE_UNICAST: usize = 1024;

/// What a template is cached under: a unicast pair of the flat table, or a source and a
/// destination set (a unicast's needs no list of its own: an allocation per template).
enum Key {
    Unicast(u32, u32),
    Set(u32, Vec<u32>),
}

/// The cache of one workload run's templates.
pub(crate) struct Templates {
    /// Endpoints of the fabric.
    n: usize,
    /// Templates by source, then destination set (unicast pairs the flat table holds are kept
    /// there only: a tree insertion and its key's allocation per template bought nothing).
    by_pair: BTreeMap<u32, BTreeMap<Vec<u32>, TemplateId>>,
    /// The same for single destinations, indexed source · N + destination (`None`: not built
    /// yet), on fabrics of up to `DENSE_UNICAST` endpoints: uniform traffic looks a template up
    /// for every packet, and a flat table does it in one read instead of two tree searches.
    unicast: Vec<Option<TemplateId>>,
    /// Per template: the (source, destinations) it is cached under; `None` once it is recycled.
    key_of: Vec<Option<Key>>,
    /// Templates cached, and how many to keep before recycling those no message uses
    /// (`limits.kept_templates`; `None`: keep all).
    held: u64,
    keep: Option<u64>,
    /// Templates built and recycled so far.
    built: u64,
    recycled: u64,
}

impl Templates {
    /// An empty cache for a fabric of `n` endpoints, keeping up to `keep` templates.
    pub(crate) fn new(n: usize, keep: Option<u64>) -> Templates {
        Templates {
            n,
            by_pair: BTreeMap::new(),
            unicast: Vec::new(),
            key_of: Vec::new(),
            held: 0,
            keep,
            built: 0,
            recycled: 0,
        }
    }

    /// The flat-table index of a unicast pair, on a fabric small enough for the table.
    fn dense(&self, source: u32, dests: &[u32]) -> Option<usize> {
        (dests.len() == 1 && self.n <= DENSE_UNICAST).then(|| source as usize * self.n + dests[0] as usize)
    }

    /// The cached template of (`source`, `dests`), if there is one.
    pub(crate) fn get(&self, source: u32, dests: &[u32]) -> Option<TemplateId> {
        if let Some(k) = self.dense(source, dests) {
            return self.unicast.get(k).copied().flatten();
        }
        self.by_pair.get(&source).and_then(|m| m.get(dests)).copied()
    }

    /// Caches `t`, just built, as the template of (`source`, `dests`).
    pub(crate) fn insert(&mut self, source: u32, dests: &[u32], t: TemplateId) {
        if let Some(k) = self.dense(source, dests) {
            if self.unicast.is_empty() {
                self.unicast = vec![None; self.n * self.n];
            }
            self.unicast[k] = Some(t);
            if self.keep.is_some() {
                put(&mut self.key_of, t.idx(), Some(Key::Unicast(source, dests[0])));
            }
        } else {
            if self.keep.is_some() {
                put(&mut self.key_of, t.idx(), Some(Key::Set(source, dests.to_vec())));
            }
            self.by_pair.entry(source).or_default().insert(dests.to_vec(), t);
        }
        self.held += 1;
        self.built += 1;
    }

    /// Templates built and recycled so far.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.built, self.recycled)
    }

    /// Messages of templates `done` finished. While more templates are cached than
    /// `limits.kept_templates`, each of them that no message uses any more is recycled by the
    /// engine and forgotten here, so the next message of that pair builds its template again.
    pub(crate) fn finished(&mut self, sim: &mut Simulation<'_>, done: &[TemplateId]) {
        let Some(keep) = self.keep else { return };
        for &t in done {
            if self.held <= keep {
                return;
            }
            if !self.key_of.get(t.idx()).is_some_and(Option::is_some) || !sim.retire_template(t) {
                continue;
            }
            match self.key_of[t.idx()].take().expect("checked above") {
                Key::Unicast(source, d) => {
                    let k = self.dense(source, &[d]).expect("a unicast key is in the flat table");
                    self.unicast[k] = None;
                }
                Key::Set(source, dests) => {
                    if let Some(m) = self.by_pair.get_mut(&source) {
                        m.remove(dests.as_slice());
                        if m.is_empty() {
                            self.by_pair.remove(&source);
                        }
                    }
                }
            }
            self.held -= 1;
            self.recycled += 1;
        }
    }
}
