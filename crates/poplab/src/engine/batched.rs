//! Batching for the count engine: many interactions at once, exactly (the batched engine).
//!
//! Following the batching idea of Berenbrink, Hammer, Kaaser, Meyer, Penschuck and Tran
//! ("Simulating Population Protocols in Sub-Constant Time per Interaction", ESA 2020); the code is
//! our own. Let `L` be the number of interactions before the first one that involves an agent
//! already involved since the batch began. Its law is known in closed form,
//! `P(L >= k) = n (n - 1) ... (n - 2k + 1) / (n (n - 1))^k`, and given `L` the first `L`
//! interactions involve `2L` distinct agents in uniformly random order. So a batch:
//!
//! 1. draws `L` ([`collision_free_run`]), capped by the steps left before the caller's limit;
//! 2. draws the initiators' states (`L` agents without replacement: a multivariate hypergeometric
//!    draw over the present states), then the responders' states from the agents left, then how the
//!    two groups pair up (for each initiator state, a multivariate hypergeometric draw of its
//!    partners among the responders left) — `O(k^2)` draws for `k` present states, whatever `L`;
//! 3. applies every pair type's transition times its multiplicity (each agent interacts once, so
//!    each interaction sees its agents' states from the start of the batch);
//! 4. unless capped, takes the colliding interaction: an ordered pair with at least one agent
//!    among the `2L` touched ones (whose states are now their results), drawn exactly.
//!
//! **Exact first passage.** A batch's interactions are exchangeable: given the multiset of pair
//! types, their order is a uniformly random permutation. The engine records the whole batch into a
//! copy of the monitor; if the watched event happened in the batch (the safe set holds at its end —
//! safe sets are closed, so it cannot be entered and left inside a batch — or some pair type
//! changes an output), it discards the batch's effect and replays the same multiset one
//! interaction at a time in a uniformly random order from the batch's start, checking after each
//! one. The step found is the exact first-passage step and the configuration is the one at that
//! step. The colliding interaction is taken singly and checked like any step.
//!
//! A batch costs `O(k^2)` draws however few of its interactions change anything, so the engine
//! batches only while a batch is expected to hold at least `k^2` non-null interactions, and
//! otherwise takes the count engine's single null-skipping steps; batching needs the skip table
//! (at most [`super::SKIP_MAX_STATES`] present states). Every choice depends only on the current
//! configuration, so mixing batches and single steps keeps the law exact.

use super::counts::{CountRun, below, below_wide};
use super::sampling::{collision_free_run, expected_run_length, multivariate_hypergeometric};
use crate::protocol::{Monitor, Protocol};
use crate::rng::PopRng;
use rand_core::{Rng, SeedableRng};

/// Scratch space of the batched engine, reused across batches.
pub(super) struct Batcher {
    /// `E[L]`, for the decision to batch.
    expected_run: f64,
    /// Batch whenever something can change, however few non-null interactions a batch holds.
    always: bool,
    /// Picks the last demotion inside a batch for the census (a stream of its own, so a census
    /// does not change the run).
    census_rng: PopRng,
    counts: Vec<u64>,
    initiators: Vec<u64>,
    responders: Vec<u64>,
    row: Vec<u64>,
    /// The batch's pair types: initiator slot, responder slot, multiplicity, non-null.
    pairs: Vec<PairType>,
}

#[derive(Clone, Copy)]
struct PairType {
    initiator: u32,
    responder: u32,
    times: u64,
    /// The result states' indices, when the pair is non-null.
    result: Option<(u32, u32)>,
}

impl Batcher {
    pub(super) fn new(n: u64, rng: &mut PopRng) -> Self {
        Self {
            expected_run: expected_run_length(n),
            always: false,
            census_rng: PopRng::seed_from_u64(rng.next_u64()),
            counts: Vec::new(),
            initiators: Vec::new(),
            responders: Vec::new(),
            row: Vec::new(),
            pairs: Vec::new(),
        }
    }
}

/// Adds `amount` to `index`'s entry of a short list of (state index, amount).
fn add_to<T: std::ops::AddAssign>(list: &mut Vec<(u32, T)>, index: u32, amount: T) {
    match list.iter_mut().find(|(i, _)| *i == index) {
        Some(entry) => entry.1 += amount,
        None => list.push((index, amount)),
    }
}

impl<P: Protocol> CountRun<'_, P> {
    /// Whether a batch is expected to hold at least `k^2` non-null interactions (`k` present
    /// states), so that it beats single null-skipping steps.
    pub(super) fn batch_pays(&self) -> bool {
        let (Some(batcher), Some(table)) = (self.batcher.as_deref(), self.skip.as_deref()) else {
            return false;
        };
        let k = self.present.len() as f64;
        table.w > 0 && (batcher.always || table.w as f64 / self.pairs as f64 * batcher.expected_run >= k * k)
    }

    /// Batches whenever the skip table is kept and some pair is non-null, even where single steps
    /// would be faster: for tests of exactness, which need batches in small populations.
    pub fn batch_always(&mut self) {
        self.batcher.get_or_insert_with(|| Box::new(Batcher::new(self.n, &mut self.rng))).always = true;
    }

    /// One batch (and its colliding interaction), not beyond step `until`; returns whether the
    /// watch was met (at exactly the current step).
    pub(super) fn batch_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, until: u64) -> bool {
        let mut batcher = self.batcher.take().expect("batched engine");
        self.pending = None;
        let run = collision_free_run(&mut self.rng, self.n);
        let room = until - self.step;
        let (len, collides) = if run >= room { (room, false) } else { (run, true) };
        self.draw_pair_types(&mut batcher, len);

        // Record the batch into a copy of the monitor; replay it singly if the watch fires inside.
        let mut monitor = self.monitor.clone();
        let mut output_changed = false;
        for pair in &batcher.pairs {
            if let Some((i2, j2)) = pair.result {
                let before = [self.states[pair.initiator as usize], self.states[pair.responder as usize]];
                let after = [self.states[i2 as usize], self.states[j2 as usize]];
                monitor.record_times(before, after, pair.times);
                output_changed |= OUTPUT_CHANGE
                    && (self.protocol.output(after[0]) != self.protocol.output(before[0])
                        || self.protocol.output(after[1]) != self.protocol.output(before[1]));
            }
        }
        if (SAFE_SET && monitor.is_safe()) || output_changed {
            let met = self.replay::<SAFE_SET, OUTPUT_CHANGE>(&batcher, len);
            debug_assert!(met, "the replayed batch must meet the watch");
            self.batcher = Some(batcher);
            return met;
        }
        self.monitor = monitor;
        if self.census {
            self.census_of_batch(&mut batcher);
        }
        let mut deltas: Vec<(u32, i64)> = Vec::new();
        for pair in &batcher.pairs {
            if let Some((i2, j2)) = pair.result {
                let times = pair.times as i64;
                for (index, delta) in [(pair.initiator, -times), (pair.responder, -times), (i2, times), (j2, times)] {
                    add_to(&mut deltas, index, delta);
                }
            }
        }
        self.apply_deltas(&deltas);
        self.step += len;
        let met = collides && self.collision::<SAFE_SET, OUTPUT_CHANGE>(&batcher, len);
        self.batcher = Some(batcher);
        met
    }

    /// Draws the pair types of `len` collision-free interactions into `batcher.pairs`.
    fn draw_pair_types(&mut self, batcher: &mut Batcher, len: u64) {
        let k = self.present.len();
        let Batcher { counts, initiators, responders, row, pairs, .. } = batcher;
        counts.clear();
        counts.extend(self.present.iter().map(|&i| self.counts[i as usize]));
        for buffer in [&mut *initiators, &mut *responders, &mut *row] {
            buffer.resize(k, 0);
        }
        multivariate_hypergeometric(&mut self.rng, counts, self.n, len, initiators);
        for (c, a) in counts.iter_mut().zip(initiators.iter()) {
            *c -= a;
        }
        multivariate_hypergeometric(&mut self.rng, counts, self.n - len, len, responders);
        pairs.clear();
        let mut responders_left = len;
        for (r, &a) in initiators.iter().enumerate() {
            if a == 0 {
                continue;
            }
            multivariate_hypergeometric(&mut self.rng, responders, responders_left, a, row);
            responders_left -= a;
            for c in 0..k {
                let times = row[c];
                if times == 0 {
                    continue;
                }
                responders[c] -= times;
                let non_null = self.skip.as_deref().expect("skip table").row[r] >> c & 1 == 1;
                let result = non_null.then(|| self.result_of(r, c));
                pairs.push(PairType { initiator: self.present[r], responder: self.present[c], times, result });
            }
        }
    }

    /// Takes the batch's interactions one at a time, in a uniformly random order, from the batch's
    /// start, until the watch is met; returns whether it was.
    fn replay<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, batcher: &Batcher, len: u64) -> bool {
        let mut left: Vec<(PairType, u64)> =
            batcher.pairs.iter().filter(|p| p.result.is_some()).map(|&p| (p, p.times)).collect();
        let mut non_null_left: u64 = left.iter().map(|(_, t)| t).sum();
        let mut null_left = len - non_null_left;
        while non_null_left > 0 {
            self.step += 1;
            let mut x = below(&mut self.rng, non_null_left + null_left);
            if x >= non_null_left {
                null_left -= 1;
                continue;
            }
            let (pair, times) = left
                .iter_mut()
                .find(|(_, t)| {
                    let hit = x < *t;
                    if !hit {
                        x -= *t;
                    }
                    hit
                })
                .expect("x is below the total");
            *times -= 1;
            non_null_left -= 1;
            let (i2, j2) = pair.result.expect("non-null");
            let (i, j) = (pair.initiator, pair.responder);
            let before = [self.states[i as usize], self.states[j as usize]];
            let after = [self.states[i2 as usize], self.states[j2 as usize]];
            self.apply([i, j], [i2, j2]);
            if self.event::<SAFE_SET, OUTPUT_CHANGE>(before, after) {
                return true;
            }
        }
        false
    }

    /// For the census: the last demotion of the batch is that of a uniformly chosen demoting
    /// interaction (the last of a uniformly random order is uniform among them).
    fn census_of_batch(&mut self, batcher: &mut Batcher) {
        let causes: Vec<(&'static str, u64)> = batcher
            .pairs
            .iter()
            .filter_map(|p| {
                let (i2, j2) = p.result?;
                let before = [self.states[p.initiator as usize], self.states[p.responder as usize]];
                let after = [self.states[i2 as usize], self.states[j2 as usize]];
                self.protocol.demotion_cause(before, after).map(|cause| (cause, p.times))
            })
            .collect();
        let total: u64 = causes.iter().map(|(_, t)| t).sum();
        if total > 0 {
            let mut x = below(&mut batcher.census_rng, total);
            for (cause, times) in causes {
                if x < times {
                    self.last_demotion = Some(cause);
                    break;
                }
                x -= times;
            }
        }
    }

    /// The interaction that ends a batch of `len`: an ordered pair with at least one of the `2 len`
    /// touched agents (now in their result states), drawn uniformly among such pairs.
    fn collision<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, batcher: &Batcher, len: u64) -> bool {
        self.step += 1;
        // Touched agents by state index.
        let mut touched: Vec<(u32, u64)> = Vec::new();
        for pair in &batcher.pairs {
            let (i2, j2) = pair.result.unwrap_or((pair.initiator, pair.responder));
            add_to(&mut touched, i2, pair.times);
            add_to(&mut touched, j2, pair.times);
        }
        let t = 2 * len;
        let u = self.n - t;
        let (t_wide, u_wide) = (u128::from(t), u128::from(u));
        let x = below_wide(&mut self.rng, t_wide * (t_wide - 1) + 2 * t_wide * u_wide);
        let pick_touched = |rng: &mut PopRng, exclude: Option<u32>| {
            let mut y = below(rng, t - u64::from(exclude.is_some()));
            for &(index, count) in &touched {
                let count = count - u64::from(exclude == Some(index));
                if y < count {
                    return index;
                }
                y -= count;
            }
            unreachable!("y is below the number of touched agents")
        };
        let (i, j) = if x < t_wide * (t_wide - 1) {
            let i = pick_touched(&mut self.rng, None);
            (i, pick_touched(&mut self.rng, Some(i)))
        } else if x < t_wide * (t_wide - 1) + t_wide * u_wide {
            (pick_touched(&mut self.rng, None), self.pick_untouched(&touched, u))
        } else {
            let i = self.pick_untouched(&touched, u);
            (i, pick_touched(&mut self.rng, None))
        };
        self.interact::<SAFE_SET, OUTPUT_CHANGE>(i, j)
    }

    /// A uniformly chosen untouched agent's state index (`u` untouched agents).
    fn pick_untouched(&mut self, touched: &[(u32, u64)], u: u64) -> u32 {
        let mut y = below(&mut self.rng, u);
        for &index in &self.present {
            let t = touched.iter().find(|(i, _)| *i == index).map_or(0, |&(_, t)| t);
            let count = self.counts[index as usize] - t;
            if y < count {
                return index;
            }
            y -= count;
        }
        unreachable!("y is below the number of untouched agents")
    }
}
