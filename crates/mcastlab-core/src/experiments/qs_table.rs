//! The experiment behind coll03 Table 1 and Fig. 7: on quaternary fat-trees with a fraction of the
//! endpoints faulty, how deep are the greedy and the optimal hardware-based multicast trees?
//!
//! Per configuration (network size, fault percentage) and trial, the faulty endpoints are drawn
//! uniformly without replacement from the stream `rng::stream(seed, "qs-table", trial)` (a partial
//! Fisher–Yates shuffle), then the source among the working ones (or the first working one). The
//! working endpoints are cut into maximal contiguous groups; by default the source belongs to its
//! group, as in coll03 Fig. 4 where source 8 lies inside `[7, 15]` (every working node takes part in
//! the collective). Both algorithms solve the same groups. A trial stream does not depend on the
//! configuration, so configurations of one size see nested fault sets (common random numbers).
//!
//! Choices the paper leaves open, made here and reported in each row: the number of faulty nodes
//! is `round(size · percent / 100)` but at least one (Fig. 7 shows no configuration solved in one
//! step); a network that is not a power of the arity (2048 nodes in Table 1) is the left part of
//! the next full tree, the rest being absent.

use crate::error::PlanError;
use crate::ids::EndpointId;
use crate::rng;
use crate::schemes::qs::qs_groups::QsNet;
use crate::schemes::qs::{qs_greedy, qs_optimal};
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Optimal-search budget per trial of the presets: a trial the search cannot settle within it
/// (about 1.5 s at 4096 endpoints) keeps the greedy depth and counts as `unproven`.
pub const TABLE_BUDGET: u64 = 20_000;

/// Which working endpoint is the source of a trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourcePick {
    /// Uniformly among the working endpoints, from the trial's stream.
    Random,
    /// The lowest-numbered working endpoint.
    First,
}

/// The configurations and options of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QsTableConfig {
    /// Switch arity (4 for the QsNET).
    pub k: u32,
    /// Network sizes in endpoints.
    pub sizes: Vec<u32>,
    /// Faulty endpoints in percent of the network size.
    pub fault_percents: Vec<f64>,
    /// Random fault sets per configuration.
    pub trials: u32,
    pub seed: u64,
    pub source: SourcePick,
    /// The source belongs to its run of working endpoints (coll03 Fig. 4); if false it breaks the run
    /// like a faulty endpoint, as a plan's destination set does.
    pub join_source: bool,
    /// Budget of each optimal search ([`qs_optimal::solve`]).
    pub budget: u64,
}

impl QsTableConfig {
    /// coll03 Table 1: 1024, 2048 and 4096 nodes, 0.2% to 1% faulty in steps of 0.2%, 1000 trials.
    pub fn table1() -> QsTableConfig {
        QsTableConfig {
            k: 4,
            sizes: vec![1024, 2048, 4096],
            fault_percents: vec![0.2, 0.4, 0.6, 0.8, 1.0],
            trials: 1000,
            seed: 1,
            source: SourcePick::Random,
            join_source: true,
            budget: TABLE_BUDGET,
        }
    }

    /// coll03 Fig. 7: networks of 16 to 4096 nodes, 0.1% to 10% faulty, 1000 trials.
    pub fn fig7() -> QsTableConfig {
        QsTableConfig {
            sizes: vec![16, 32, 64, 128, 256, 512, 1024, 2048, 4096],
            fault_percents: vec![0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0],
            ..QsTableConfig::table1()
        }
    }
}

/// One configuration's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QsTableRow {
    pub size: u32,
    /// Switch levels of the tree the network belongs to.
    pub levels: u32,
    pub fault_percent: f64,
    /// Faulty endpoints per trial.
    pub faulty: u32,
    pub trials: u32,
    /// `(depth, trials)` of the optimal trees, by depth.
    pub optimal: Vec<(u32, u32)>,
    /// `(depth, trials)` of the greedy trees, by depth.
    pub greedy: Vec<(u32, u32)>,
    /// Trials in which the greedy tree is as shallow as the optimal one.
    pub greedy_optimal: u32,
    pub greedy_worst: u32,
    pub optimal_worst: u32,
    /// Trials whose optimal search ran out of budget (their optimal depth is only an upper bound).
    pub unproven: u32,
    /// Table 1's notation: `x/y` for an x-step optimal tree with probability y, e.g. `2/0.582 3/0.418`;
    /// just `x` when every trial needs x steps.
    pub notation: String,
}

/// The smallest network a trial can run on: one faulty node (at least one is drawn), a working
/// source and one working destination.
pub const MIN_SIZE: u32 = 3;

/// Faulty endpoints of a configuration: `round(size · percent / 100)`, at least one.
pub fn faulty_count(size: u32, percent: f64) -> u32 {
    ((size as f64 * percent / 100.0).round() as u32).max(1)
}

/// Depths of one trial: (greedy, optimal, optimality proven).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrialDepths {
    pub greedy: u32,
    pub optimal: u32,
    pub proven: bool,
}

fn check_config(cfg: &QsTableConfig) -> Result<(), PlanError> {
    let bad = |param: &'static str, message: String| Err(PlanError::Param { param, message });
    if cfg.trials == 0 {
        return bad("trials", "must be at least 1".into());
    }
    if cfg.budget == 0 {
        return bad("budget", "must be at least 1".into());
    }
    if let Some(p) = cfg.fault_percents.iter().find(|p| !(**p > 0.0 && **p < 100.0)) {
        return bad("fault_percents", format!("{p} is not in (0, 100)"));
    }
    for &size in &cfg.sizes {
        // Any size is a network (a partial tree, as 2048 nodes in Table 1 and the 32-node cluster
        // of §6), but a trial needs one faulty node, a working source and a destination.
        if size < MIN_SIZE {
            return bad(
                "sizes",
                format!(
                    "{size} nodes: a trial needs at least {MIN_SIZE} (one faulty node, a source and a destination)"
                ),
            );
        }
        QsNet::for_size(cfg.k, size)
            .map_err(|e| PlanError::Param { param: "sizes", message: format!("{size} nodes: {e}") })?;
        if let Some(p) = cfg.fault_percents.iter().find(|p| faulty_count(size, **p) > size - 2) {
            return bad(
                "fault_percents",
                format!(
                    "{p}% of {size} nodes ({} faulty) leaves fewer than two working nodes (a source and a destination)",
                    faulty_count(size, *p)
                ),
            );
        }
    }
    Ok(())
}

/// One trial: draw the faults and the source, solve with both algorithms.
pub fn trial(net: &QsNet, faulty: u32, cfg: &QsTableConfig, index: u64) -> Result<TrialDepths, PlanError> {
    trial_with(net, faulty, cfg, index, &|| true)
}

/// [`trial`], whose optimal search asks `go_on` as it goes (an interrupted caller drops the trial).
fn trial_with(
    net: &QsNet,
    faulty: u32,
    cfg: &QsTableConfig,
    index: u64,
    go_on: &dyn Fn() -> bool,
) -> Result<TrialDepths, PlanError> {
    let mut r = rng::stream(cfg.seed, "qs-table", index);
    let size = net.size();
    let mut nodes: Vec<u32> = (0..size).collect();
    for i in 0..faulty as usize {
        let j = r.random_range(i..size as usize);
        nodes.swap(i, j);
    }
    let mut working: Vec<u32> = nodes[faulty as usize..].to_vec();
    working.sort_unstable();
    let source = match cfg.source {
        SourcePick::Random => working[r.random_range(0..working.len())],
        SourcePick::First => working[0],
    };
    let members: Vec<EndpointId> =
        working.iter().filter(|&&x| cfg.join_source || x != source).map(|&x| EndpointId(x)).collect();
    let groups = net.decompose(&members)?;
    let greedy = qs_greedy::solve(net, EndpointId(source), &groups)?;
    let optimal = qs_optimal::solve_with(net, EndpointId(source), &groups, cfg.budget, go_on)?;
    Ok(TrialDepths { greedy: greedy.depth(), optimal: optimal.tree.depth(), proven: optimal.proven })
}

/// Runs every configuration (sizes × fault percentages, in that order). Trials run in parallel;
/// the rows do not depend on the number of threads.
pub fn qs_table(cfg: &QsTableConfig) -> Result<Vec<QsTableRow>, PlanError> {
    qs_table_with(cfg, &|| true)
}

/// [`qs_table`], asking `go_on` before each trial (from the worker threads). Once it says no,
/// the configuration under way is dropped and the rows of the configurations that finished come
/// back: fewer rows than configurations means the caller stopped it.
pub fn qs_table_with(cfg: &QsTableConfig, go_on: &(dyn Fn() -> bool + Sync)) -> Result<Vec<QsTableRow>, PlanError> {
    check_config(cfg)?;
    let mut rows = Vec::new();
    for &size in &cfg.sizes {
        let net = QsNet::for_size(cfg.k, size)?;
        for &percent in &cfg.fault_percents {
            let faulty = faulty_count(size, percent);
            let depths: Vec<Option<TrialDepths>> = (0..cfg.trials as u64)
                .into_par_iter()
                .map(|t| {
                    // A trial stopped inside its search is dropped with its configuration.
                    let d = if go_on() { Some(trial_with(&net, faulty, cfg, t, go_on)?) } else { None };
                    Ok::<_, PlanError>(d.filter(|_| go_on()))
                })
                .collect::<Result<_, _>>()?;
            let Some(depths) = depths.into_iter().collect::<Option<Vec<TrialDepths>>>() else {
                return Ok(rows);
            };
            rows.push(row(&net, percent, faulty, &depths));
        }
    }
    Ok(rows)
}

fn histogram(values: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut h: BTreeMap<u32, u32> = BTreeMap::new();
    for v in values {
        *h.entry(v).or_insert(0) += 1;
    }
    h.into_iter().collect()
}

fn row(net: &QsNet, percent: f64, faulty: u32, depths: &[TrialDepths]) -> QsTableRow {
    let trials = depths.len() as u32;
    let optimal = histogram(depths.iter().map(|d| d.optimal));
    let notation = if optimal.len() == 1 {
        optimal[0].0.to_string()
    } else {
        optimal.iter().map(|(d, c)| format!("{d}/{:.3}", *c as f64 / trials as f64)).collect::<Vec<_>>().join(" ")
    };
    QsTableRow {
        size: net.size(),
        levels: net.levels(),
        fault_percent: percent,
        faulty,
        trials,
        greedy: histogram(depths.iter().map(|d| d.greedy)),
        greedy_optimal: depths.iter().filter(|d| d.greedy == d.optimal).count() as u32,
        greedy_worst: depths.iter().map(|d| d.greedy).max().unwrap_or(0),
        optimal_worst: depths.iter().map(|d| d.optimal).max().unwrap_or(0),
        unproven: depths.iter().filter(|d| !d.proven).count() as u32,
        optimal,
        notation,
    }
}
