//! Inside a batch of the batched network engine: the configuration after its first `d` steps,
//! how many of its events come by a time, when its `e`-th event comes, and the first of its steps
//! at which a stop holds. Each is a function of the batch alone, so a run that looks inside a
//! batch (a time series, advancing in pieces) or stops inside it draws nothing that a run which
//! does not would draw otherwise: what a seed gives at a time is the same whatever else is asked.
//!
//! A batch is drawn whole when it begins: its `run` collision-free steps as a multiset of
//! outcomes (how many fired each reaction, how many were null), the step that ends it (a
//! collision), its events (the steps and the thinning's failures, see `clock`) and the time of
//! its last event, `Gamma(events, Λ*)` after its start. Given that, the law of what happens
//! inside is simple: the run's steps come in a uniformly random order (a collision-free run is
//! exchangeable), and the first `events - 1` events fall uniformly in the batch's span. Both are
//! drawn by halving, as a tree whose node `i` (children `2i`, `2i + 1`) draws from its own stream,
//! seeded by the batch's key and `i`:
//! - steps: a node of `m` steps with outcome counts `c` gives its first `floor(m / 2)` steps a
//!   multivariate hypergeometric share of `c`; the first `d` steps are the shares of the left
//!   nodes met on the way down to `d`;
//! - time: a node (a half-open interval of the span) with `m` events gives its left half a
//!   `Binomial(m, 1/2)` share; a node of one event (or 60 levels down) places its events by
//!   uniform draws.
//!
//! A look costs the tree's depth (`log2` of the batch) in draws, not the batch's length.

use super::clock::Events;
use super::network::Network;
use super::stop::CrnStop;
use crate::engine::sampling::{binomial, multivariate_hypergeometric, unit_open0};
use crate::rng::{PopRng, trial_seed};
use rand_core::SeedableRng;

/// Levels of the time tree below which a node places its events by uniform draws.
const TIME_DEPTH: u32 = 60;

/// The stream of node `node` of a batch's tree (`tree` 0: steps, 1: time).
fn node_rng(key: u64, tree: u64, node: u64) -> PopRng {
    PopRng::seed_from_u64(trial_seed(key ^ tree, node))
}

/// A batch drawn whole, and how far the run has gone into it.
#[derive(Clone, Debug, Default)]
pub(super) struct Batch {
    /// Whether the run is inside it (it has steps the run has not passed).
    pub(super) open: bool,
    /// The seed of its trees.
    pub(super) key: u64,
    /// The time it starts and the time of its last event (its last step).
    pub(super) start_time: f64,
    pub(super) end_time: f64,
    /// The species' counts at its start.
    pub(super) start: Vec<u64>,
    /// The counts of every state (catalyst and waste included) after its last step.
    pub(super) end: Vec<u64>,
    /// Its collision-free steps, then the step that ends it.
    pub(super) run: u64,
    /// Per reaction, how many of the run's steps fire it; then how many are null.
    pub(super) outcomes: Vec<u64>,
    /// Reactions fired by the whole batch.
    pub(super) fired: u64,
    /// The events of its `run + 1` steps.
    pub(super) events: Events,
    /// Steps of it the run has passed, and the reactions among them.
    pub(super) passed: u64,
    pub(super) passed_fired: u64,
}

impl Batch {
    /// Its steps: the run and the collision that ends it.
    pub(super) fn steps(&self) -> u64 {
        self.run + 1
    }

    /// The species' counts after its first `d <= steps()` steps, into `x`; returns the reactions
    /// among them. `change` is each reaction's change per state; `share` is scratch space.
    pub(super) fn after(&self, d: u64, change: &[Vec<(usize, i64)>], x: &mut [u64], share: &mut Vec<u64>) -> u64 {
        if d == self.steps() {
            x.copy_from_slice(&self.end[..x.len()]);
            return self.fired;
        }
        let mut prefix = vec![0u64; self.outcomes.len()];
        let (mut node, mut lo, mut hi) = (1u64, 0u64, self.run);
        let mut counts = self.outcomes.clone();
        share.resize(counts.len(), 0);
        while lo < d {
            if d == hi {
                add(&mut prefix, &counts);
                break;
            }
            let mid = lo + (hi - lo) / 2;
            self.split(node, &counts, mid - lo, share);
            if d <= mid {
                counts.copy_from_slice(share);
                (node, hi) = (2 * node, mid);
            } else {
                add(&mut prefix, share);
                sub(&mut counts, share);
                (node, lo) = (2 * node + 1, mid);
            }
        }
        x.copy_from_slice(&self.start);
        apply(x, change, &prefix);
        prefix[..change.len()].iter().sum()
    }

    /// The first step `j` past `passed()`, at most `steps()`, after which `stop` holds, with the
    /// species' counts then in `x`; `None` (and `x` unspecified) if there is none.
    pub(super) fn first_stop(
        &self,
        stop: &CrnStop,
        network: &Network,
        change: &[Vec<(usize, i64)>],
        x: &mut [u64],
    ) -> Option<u64> {
        x.copy_from_slice(&self.start);
        let search = Search { batch: self, stop, network, change };
        if let Some(j) = search.visit(1, 0, self.run, &self.outcomes, x) {
            return Some(j);
        }
        x.copy_from_slice(&self.end[..x.len()]);
        stop.holds(network, x).then_some(self.steps())
    }

    /// Node `node`'s first `draws` steps' share of its outcome `counts`, into `share`.
    fn split(&self, node: u64, counts: &[u64], draws: u64, share: &mut [u64]) {
        let total = counts.iter().sum();
        multivariate_hypergeometric(&mut node_rng(self.key, 0, node), counts, total, draws, share);
    }

    /// How many of its events come at or before `t` (the last one at `end_time`).
    pub(super) fn events_by(&self, t: f64) -> u64 {
        if t >= self.end_time {
            return self.events.total();
        }
        let mut found = 0;
        let (mut node, mut lo, mut hi, mut m, mut depth) = (1u64, self.start_time, self.end_time, self.inner(), 0);
        loop {
            if m == 0 || t < lo {
                return found;
            }
            if t >= hi {
                return found + m;
            }
            if m == 1 || depth == TIME_DEPTH {
                return found + self.places(node, lo, hi, m).iter().filter(|&&p| p <= t).count() as u64;
            }
            let mid = lo + (hi - lo) / 2.0;
            let left = binomial(&mut node_rng(self.key, 1, node), m, 0.5);
            if t < mid {
                (node, hi, m) = (2 * node, mid, left);
            } else {
                found += left;
                (node, lo, m) = (2 * node + 1, mid, m - left);
            }
            depth += 1;
        }
    }

    /// The time of its `e`-th event (`1 <= e <= events.total()`).
    pub(super) fn event_time(&self, mut e: u64) -> f64 {
        if e >= self.events.total() {
            return self.end_time;
        }
        let (mut node, mut lo, mut hi, mut m, mut depth) = (1u64, self.start_time, self.end_time, self.inner(), 0);
        loop {
            if m == 1 || depth == TIME_DEPTH {
                return self.places(node, lo, hi, m)[(e - 1) as usize];
            }
            let mid = lo + (hi - lo) / 2.0;
            let left = binomial(&mut node_rng(self.key, 1, node), m, 0.5);
            if e <= left {
                (node, hi, m) = (2 * node, mid, left);
            } else {
                e -= left;
                (node, lo, m) = (2 * node + 1, mid, m - left);
            }
            depth += 1;
        }
    }

    /// The events strictly inside its span (all but the last).
    fn inner(&self) -> u64 {
        self.events.total() - 1
    }

    /// The times of a time node's `m` events, in order, uniform in `[lo, hi)`.
    fn places(&self, node: u64, lo: f64, hi: f64, m: u64) -> Vec<f64> {
        let mut rng = node_rng(self.key, 1, node);
        let mut places: Vec<f64> = (0..m).map(|_| (lo + (hi - lo) * (1.0 - unit_open0(&mut rng))).min(hi)).collect();
        places.sort_by(f64::total_cmp);
        places
    }
}

/// The depth-first search of [`Batch::first_stop`].
struct Search<'a> {
    batch: &'a Batch,
    stop: &'a CrnStop,
    network: &'a Network,
    change: &'a [Vec<(usize, i64)>],
}

impl Search<'_> {
    /// The first step `j` in `(max(lo, passed), hi]` after which the stop holds, among node
    /// `node`'s steps `[lo, hi)` of outcome `counts`, from the species' counts `x` before them;
    /// without one, `x` becomes the counts after them.
    fn visit(&self, node: u64, lo: u64, hi: u64, counts: &[u64], x: &mut [u64]) -> Option<u64> {
        if hi <= self.batch.passed || !self.stop.may_hold_within(self.network, x, &counts[..self.change.len()]) {
            apply(x, self.change, counts);
            return None;
        }
        if hi - lo == 1 {
            apply(x, self.change, counts);
            return self.stop.holds(self.network, x).then_some(hi);
        }
        let mid = lo + (hi - lo) / 2;
        let mut left = vec![0; counts.len()];
        self.batch.split(node, counts, mid - lo, &mut left);
        if let Some(j) = self.visit(2 * node, lo, mid, &left, x) {
            return Some(j);
        }
        let mut right = counts.to_vec();
        sub(&mut right, &left);
        self.visit(2 * node + 1, mid, hi, &right, x)
    }
}

/// Applies `fired[r]` firings of each reaction `r` to the species' counts `x` (`change[r]` per
/// state; the catalyst's and waste's entries, past the species, are left out).
fn apply(x: &mut [u64], change: &[Vec<(usize, i64)>], fired: &[u64]) {
    for (deltas, &times) in change.iter().zip(fired) {
        if times == 0 {
            continue;
        }
        let species = x.len();
        for &(s, d) in deltas.iter().filter(|&&(s, _)| s < species) {
            x[s] = x[s].wrapping_add_signed(d * times as i64);
        }
    }
}

fn add(into: &mut [u64], counts: &[u64]) {
    into.iter_mut().zip(counts).for_each(|(a, &b)| *a += b);
}

fn sub(from: &mut [u64], counts: &[u64]) {
    from.iter_mut().zip(counts).for_each(|(a, &b)| *a -= b);
}
