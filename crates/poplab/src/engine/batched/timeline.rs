//! A batch's interactions in their order in time, drawn from its exact law given what the batch
//! drew (see the [module docs](super)): for replaying a batch in which the watch fired, for
//! showing the configuration inside a batch to observers that only look, and for the census's
//! last demotion.

use super::{Batcher, PairType, Single, index_of_rank};
use crate::engine::Lookers;
use crate::engine::configuration::Configuration;
use crate::engine::sampling::{binomial, hypergeometric};
use crate::protocol::Protocol;
use crate::rng::{PopRng, below_u64};
use std::ops::Deref;

impl Batcher {
    /// Takes the batch's interactions one at a time in their order in time (drawn from its law
    /// given the batch, see the module docs), from the batch's start, until the watch is met;
    /// returns whether it was. `lookers` look at their steps on the way (the replay draws the same
    /// whether they look or not).
    pub(super) fn replay<P: Protocol, R: Deref<Target = P>, const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        mut lookers: Option<&mut Lookers<'_, P>>,
    ) -> bool {
        walk(&self.runs, &self.singles, &self.pairs, rng, |interaction| {
            configuration.count_steps(1);
            if let Some((before, after)) = interaction
                && configuration.take::<SAFE_SET, OUTPUT_CHANGE>(before, after)
            {
                return true;
            }
            let step = configuration.step();
            if let Some(lookers) = lookers.as_deref_mut()
                && lookers.due(step)
            {
                let counts = counts_of(configuration, configuration.present());
                lookers.look_counts(step, configuration.protocol(), &counts);
            }
            false
        })
    }

    /// Shows `lookers` the configuration at each of their steps strictly inside the batch just
    /// drawn (`len` interactions from the current step, not applied yet), drawn from its exact law
    /// given what the batch drew, from the looks' own stream and applied to a copy of the counts
    /// (the run's own draws do not depend on it). A look costs the batch's pair types, not its
    /// length: see [`Prefix`].
    pub(super) fn look_inside<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        len: u64,
        lookers: &mut Lookers<'_, P>,
    ) {
        let start = configuration.step();
        let end = start + u128::from(len);
        let Self { looks_rng, runs, singles, pairs, look_counts, monotone, .. } = self;
        // The monotone table's lower partners, from the looks' stream.
        let full = monotone.fill_in(configuration, looks_rng, pairs);
        let pairs = full.as_deref().unwrap_or(pairs);
        look_counts.clear();
        for (index, count) in configuration.present() {
            add_count(look_counts, index, count as i64);
        }
        let mut prefix = Prefix::new(runs, singles, pairs, looks_rng);
        while let Some(at) = lookers.next_at().filter(|&at| at < end) {
            prefix.advance_to((at.max(start) - start) as u64, looks_rng, look_counts);
            let counts = look_counts.iter().enumerate().map(|(index, &count)| (index as u32, count));
            let counts = counts_of(configuration, counts.filter(|c| c.1 > 0));
            lookers.look_counts(at.max(start), configuration.protocol(), &counts);
        }
    }

    /// For the census: the cause of the batch's last demotion, from the census's own stream.
    /// Walking back in time, a collision is checked before the run that precedes it; a run's
    /// demoting bulk pairs number a hypergeometric draw from those not yet placed, and the last
    /// demotion of a run is uniform among its demotions (the run's order is uniform).
    pub(super) fn census_of_batch<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
    ) {
        // The monotone table's lower partners, from the census's stream.
        let full = self.monotone.fill_in(configuration, &mut self.census_rng, &self.pairs);
        let pairs = full.as_deref().unwrap_or(&self.pairs);
        let cause = |before: [u32; 2], after: [u32; 2]| {
            let protocol = configuration.protocol();
            protocol
                .observables()
                .and_then(|o| o.demotion_cause(configuration.states_of(before), configuration.states_of(after)))
        };
        let rng = &mut self.census_rng;
        let Timeline { free, resolved_in, collisions } = Timeline::draw(&self.runs, &self.singles, rng);
        // An unordered pair type's interactions had either role order, each with probability 1/2.
        let mut bulk: Vec<(&'static str, u64)> = Vec::new();
        for p in pairs {
            let reversed = p.reversed.map_or(0, |_| binomial(rng, p.times, 0.5));
            let forward = [([p.initiator, p.responder], p.result, p.times - reversed)];
            let backward = p.reversed.map(|result| ([p.responder, p.initiator], result, reversed));
            for (before, after, times) in forward.into_iter().chain(backward) {
                if let Some(c) = cause(before, after).filter(|_| times > 0) {
                    bulk.push((c, times));
                }
            }
        }
        let demoting: u64 = bulk.iter().map(|b| b.1).sum();
        let (mut slots_left, mut demoting_left) = (free.iter().sum::<u64>(), demoting);
        let mut last = None;
        for run in (0..free.len()).rev() {
            if let Some(collision) = collisions.get(run)
                && let Some(c) = cause(collision.before, collision.after)
            {
                last = Some(c);
                break;
            }
            let in_bulk = hypergeometric(rng, slots_left, demoting_left, free[run]);
            let resolved: Vec<&'static str> =
                resolved_in[run].iter().filter_map(|s| cause(s.before, s.after)).collect();
            if in_bulk + resolved.len() as u64 > 0 {
                let y = below_u64(rng, in_bulk + resolved.len() as u64);
                last = Some(if y < in_bulk {
                    // Uniform among all demoting bulk pairs: the walk used only their number.
                    bulk[index_of_rank(bulk.iter().map(|b| b.1), below_u64(rng, demoting))].0
                } else {
                    resolved[(y - in_bulk) as usize]
                });
                break;
            }
            slots_left -= free[run];
            demoting_left -= in_bulk;
        }
        if let Some(cause) = last {
            configuration.note_demotion(cause);
        }
    }
}

/// Walks a batch's interactions (collision-free `runs`, `singles` and bulk `pairs`, see
/// [`Batcher`]) in their order in time, drawn from `rng` from its exact law given them: calls
/// `interaction` for each, with `Some((before, after))` (state indices) for one that changes
/// something and `None` for a null one, until it returns `true`; returns whether it did.
fn walk(
    runs: &[u64],
    singles: &[Single],
    pairs: &[PairType],
    rng: &mut PopRng,
    mut interaction: impl FnMut(Option<([u32; 2], [u32; 2])>) -> bool,
) -> bool {
    let Timeline { free, resolved_in, collisions } = Timeline::draw(runs, singles, rng);
    // The bulk pairs fill the free slots in a uniformly random order.
    let mut bulk: Vec<(PairType, u64)> = pairs.iter().map(|&p| (p, p.times)).collect();
    let mut non_null_left: u64 = bulk.iter().map(|(_, t)| t).sum();
    let mut null_left = free.iter().sum::<u64>() - non_null_left;
    let changes = |single: Single| (!single.is_null()).then_some((single.before, single.after));
    for (run, mut resolved) in resolved_in.into_iter().enumerate() {
        let mut bulk_here = free[run];
        while bulk_here + resolved.len() as u64 > 0 {
            let x = below_u64(rng, bulk_here + resolved.len() as u64);
            let taken = if x < resolved.len() as u64 {
                changes(resolved.swap_remove(x as usize))
            } else {
                bulk_here -= 1;
                let y = below_u64(rng, non_null_left + null_left);
                if y >= non_null_left {
                    null_left -= 1;
                    None
                } else {
                    non_null_left -= 1;
                    let at = index_of_rank(bulk.iter().map(|b| b.1), y);
                    let (pair, times) = &mut bulk[at];
                    *times -= 1;
                    match pair.reversed {
                        // An unordered pair type: its role order, by a fair coin.
                        Some(result) if crate::rng::coin(rng) => Some(([pair.responder, pair.initiator], result)),
                        _ => Some(([pair.initiator, pair.responder], pair.result)),
                    }
                }
            };
            if interaction(taken) {
                return true;
            }
        }
        if let Some(&collision) = collisions.get(run)
            && interaction(changes(collision))
        {
            return true;
        }
    }
    false
}

/// An interaction that changes something: the state indices before and after.
type Change = ([u32; 2], [u32; 2]);

/// A batch's interactions taken in their order in time up to chosen offsets, with the law of
/// [`walk`] but by bulk: the resolved pairs get their slots as in a walk ([`Timeline::draw`]); the
/// interactions of a run are its free slots and its resolved pairs in uniformly random order, so
/// how many of the first `j` are resolved is hypergeometric, and which ones uniform; the free slots
/// of all runs take the bulk pairs (and the nulls) in uniformly random order, so the pair types
/// among the next `b` of them are multivariate hypergeometric given those already taken. The free
/// slots a prefix passes, over all the runs it passes, are drawn from the urn at once (the counts
/// at the offset are a sum, whatever the order): taking a prefix costs the runs it passes plus the
/// pair types once, not its length nor runs times pair types.
struct Prefix {
    timeline: Timeline,
    /// The bulk urn: the non-null pair types with the times not yet taken, then the nulls.
    urn: Vec<(Option<Change>, u64)>,
    /// Interactions taken so far (the batch's offset).
    taken: u64,
    /// The run the next interaction belongs to, and its free slots not yet taken.
    run: usize,
    run_free_left: u64,
}

impl Prefix {
    fn new(runs: &[u64], singles: &[Single], pairs: &[PairType], rng: &mut PopRng) -> Self {
        let timeline = Timeline::draw(runs, singles, rng);
        let mut urn: Vec<_> = pairs.iter().map(|p| (Some(([p.initiator, p.responder], p.result)), p.times)).collect();
        let non_null: u64 = urn.iter().map(|u| u.1).sum();
        urn.push((None, timeline.free.iter().sum::<u64>() - non_null));
        let run_free_left = timeline.free.first().copied().unwrap_or(0);
        Self { timeline, urn, taken: 0, run: 0, run_free_left }
    }

    /// Takes the interactions up to offset `target` (at least the current one) into `counts`.
    fn advance_to(&mut self, target: u64, rng: &mut PopRng, counts: &mut Vec<u64>) {
        // The free slots passed, in all the runs passed: their pairs are drawn at once at the end.
        let mut free_passed = 0;
        while self.taken < target && self.run < self.timeline.free.len() {
            let resolved_left = self.timeline.resolved_in[self.run].len() as u64;
            let in_run = self.run_free_left + resolved_left;
            let want = target - self.taken;
            if want <= in_run {
                // The target falls inside this run: `want` of its interactions, in random order.
                let resolved = hypergeometric(rng, in_run, resolved_left, want);
                self.take_resolved(resolved, rng, counts);
                free_passed += want - resolved;
                self.run_free_left -= want - resolved;
                self.taken += want;
                break;
            }
            self.take_resolved(resolved_left, rng, counts);
            free_passed += self.run_free_left;
            self.taken += in_run;
            // The run's collision, if it has one, comes right after its slots.
            if let Some(collision) = self.timeline.collisions.get(self.run) {
                apply(counts, collision.before, collision.after);
                self.taken += 1;
            }
            self.run += 1;
            self.run_free_left = self.timeline.free.get(self.run).copied().unwrap_or(0);
        }
        self.take_bulk(free_passed, rng, counts);
    }

    /// Takes `count` of the current run's resolved pairs, uniformly.
    fn take_resolved(&mut self, count: u64, rng: &mut PopRng, counts: &mut Vec<u64>) {
        let resolved = &mut self.timeline.resolved_in[self.run];
        for _ in 0..count {
            let single = resolved.swap_remove(below_u64(rng, resolved.len() as u64) as usize);
            apply(counts, single.before, single.after);
        }
    }

    /// Takes the next `draws` free slots' pairs from the urn: multivariate hypergeometric.
    fn take_bulk(&mut self, mut draws: u64, rng: &mut PopRng, counts: &mut Vec<u64>) {
        if draws == 0 {
            return;
        }
        let mut total: u64 = self.urn.iter().map(|u| u.1).sum();
        for (pair, left) in self.urn.iter_mut() {
            if draws == 0 {
                break;
            }
            let here = hypergeometric(rng, total, *left, draws);
            total -= *left;
            *left -= here;
            draws -= here;
            if let Some((before, after)) = *pair {
                for index in before {
                    add_count(counts, index, -(here as i64));
                }
                for index in after {
                    add_count(counts, index, here as i64);
                }
            }
        }
    }
}

/// Applies one interaction (state indices) to `counts`.
fn apply(counts: &mut Vec<u64>, before: [u32; 2], after: [u32; 2]) {
    for index in before {
        add_count(counts, index, -1);
    }
    for index in after {
        add_count(counts, index, 1);
    }
}

/// Adds `amount` to the count of state index `index` in `counts` (grown as needed).
fn add_count(counts: &mut Vec<u64>, index: u32, amount: i64) {
    let i = index as usize;
    if i >= counts.len() {
        counts.resize(i + 1, 0);
    }
    counts[i] = counts[i].wrapping_add_signed(amount);
}

/// The configuration with these (state index, count) pairs as (state, count) pairs.
pub(super) fn counts_of<P: Protocol, R: Deref<Target = P>>(
    configuration: &Configuration<P, R>,
    counts: impl IntoIterator<Item = (u32, u64)>,
) -> Vec<(P::State, u64)> {
    counts.into_iter().map(|(index, count)| (configuration.state(index), count)).collect()
}

/// A batch's order in time, as far as a replay or the census needs it: the slots of each run not
/// taken by resolved pairs (`free`), the resolved pairs in each run, and the collisions (collision
/// `c` comes just after run `c`).
struct Timeline {
    free: Vec<u64>,
    resolved_in: Vec<Vec<Single>>,
    collisions: Vec<Single>,
}

impl Timeline {
    /// Gives each resolved pair a slot: uniform among the slots not yet given away in the runs
    /// before its collision (the delayed pair it resolved was uniform among those).
    fn draw(runs: &[u64], singles: &[Single], rng: &mut PopRng) -> Self {
        let mut free = runs.to_vec();
        let mut resolved_in: Vec<Vec<Single>> = vec![Vec::new(); free.len()];
        let mut collisions = Vec::new();
        for single in singles {
            if single.collision {
                collisions.push(*single);
                continue;
            }
            let before = &free[..=collisions.len()];
            let run = index_of_rank(before.iter().copied(), below_u64(rng, before.iter().sum()));
            free[run] -= 1;
            resolved_in[run].push(*single);
        }
        Self { free, resolved_in, collisions }
    }
}
