//! The monotone table: a batch's bulk pairs in `O(k)` draws for a rule that is *monotone* on the
//! present states (see the [module docs](super)).
//!
//! **Peeling.** A present state is *peelable* from a set of states when its row and its column
//! are each constant over the set's other states: every `(s, t)` has one deterministic result, and
//! every `(t, s)` another (its own pair `(s, s)` may be anything). Peeling one such state after
//! another, from the whole present set, ranks the peeled states top first; what cannot be peeled
//! is the *core*, ranked below them all. A pair's result then depends only on its higher-ranked
//! state and on that state's role (initiator, responder or both): max-propagation (`(x, y) ->
//! (max - 1, max - 1)`), a one-way clock, an epidemic of the largest value.
//!
//! **Drawing.** Given the batch's initiators' states `a` and responders' states `b` (drawn from
//! the urn as for the ordered table), walk the peeled states top first, with `A` initiators and
//! `B` responders at or below the current state `s` and `M` pairs with both agents at or below
//! it. Those pairs' initiators are a uniform `M`-subset of the `A`, so `I ~ HG(A, A - a_s, M)` of
//! them are below `s`; likewise `R ~ HG(B, B - b_s, M)` responders; the pairing of the `M` is
//! uniform, so `M' ~ HG(M, R, I)` pairs have both agents below `s`. The others have `s` on top:
//! `M - I - R + M'` pairs `(s, s)`, `M - I` with `s` as initiator in all, `M - R` as responder.
//! Three draws per peeled state; the core's `M'` pairs get their states by two multivariate draws
//! and are paired as in the ordered table. The counts need no more: the lower partners of the
//! pairs with `s` on top are the agents of `a` and `b` not in a pair of their own level.
//!
//! **The partners, when something reads the pairs.** A replay, a look inside the batch and the
//! census read pair types, so the lower partners are then drawn from their exact law given the
//! batch (`Monotone::fill_in`): given the counts above, which partner joins which peeled state's
//! pairs is a uniform assignment of the partners to the pairs' slots in which a partner sits below
//! its pair's top. Those allowed sets are nested (a lower partner may join every pair a higher one
//! may), so placing the partners state by state, highest first, each state's agents by a
//! multivariate hypergeometric draw over the slots still open to them, is exactly uniform. It
//! costs `O(k^2)` draws, only where something reads the batch's pairs.

use super::{PairType, PairingScratch, pair_up, push_pair_types};
use crate::engine::configuration::{Configuration, Effect};
use crate::engine::sampling::{hypergeometric, multivariate_hypergeometric, multivariate_hypergeometric_each};
use crate::protocol::Protocol;
use crate::rng::PopRng;
use std::ops::Deref;

/// The fewest peeled states for which a batch is drawn by the monotone table: below it the
/// ordered or unordered table costs about as little, and keeps the draws of protocols with a few
/// states (angluin's two, approximate majority's three) as they were.
pub(super) const MONOTONE_MIN_PEELED: usize = 8;

/// The ranking of the present states and, for the batch just drawn, its pairs with a peeled state
/// on top whose lower partner was not drawn.
#[derive(Default)]
pub(super) struct Monotone {
    /// The present states (indices) for which `order` was found.
    for_present: Vec<u32>,
    /// The peeled states, top first: slot, and the results of the state's row and column.
    order: Vec<Peeled>,
    /// The core's slots (the present states not peeled).
    core: Vec<usize>,
    /// The batch's peeled states with pairs over a lower partner, top first (empty when the
    /// batch was drawn otherwise).
    pub(super) tops: Vec<Top>,
    /// By slot: the batch's initiators and responders that are the lower partners of a peeled
    /// state's pairs.
    pub(super) lower_initiators: Vec<u64>,
    pub(super) lower_responders: Vec<u64>,
    /// By slot: the initiators and responders of the core's pairs.
    core_initiators: Vec<u64>,
    core_responders: Vec<u64>,
}

#[derive(Clone, Copy)]
struct Peeled {
    slot: usize,
    index: u32,
    /// The results of `(s, t)` and `(t, s)` for every state `t` ranked below `s` (`s`'s own when
    /// nothing is below it).
    row: [u32; 2],
    column: [u32; 2],
}

/// One peeled state's pairs over a lower partner in a batch.
#[derive(Clone, Copy)]
pub(super) struct Top {
    /// Its rank among the peeled states (0 at the top).
    rank: usize,
    index: u32,
    /// Pairs with the state as initiator and a lower responder, and the other way round.
    over_responder: u64,
    over_initiator: u64,
    row: [u32; 2],
    column: [u32; 2],
}

impl Monotone {
    /// How many present states peel (see the module docs), found again only when the present
    /// states change. Which states peel does not depend on the order in which they are tried
    /// (peeling one never stops another from peeling), but the ranking does, and the draws with
    /// it: so the ranking is a function of the present states alone (at each turn the peelable
    /// state with the highest index), never of the run's history, and a run resumed from a
    /// checkpoint draws as the run that was not stopped. (A state's row usually stops being
    /// constant at the first higher-ranked state met, so a turn costs about one check per state.)
    pub(super) fn peeled<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
    ) -> usize {
        if self.for_present.iter().copied().eq(configuration.present().map(|(i, _)| i)) {
            return self.order.len();
        }
        self.for_present.clear();
        self.for_present.extend(configuration.present().map(|(i, _)| i));
        let mut candidates: Vec<usize> = (0..self.for_present.len()).collect();
        candidates.sort_unstable_by_key(|&s| std::cmp::Reverse(self.for_present[s]));
        let mut alive: Vec<usize> = (0..self.for_present.len()).collect();
        self.order.clear();
        while let Some((at, row, column)) =
            candidates.iter().enumerate().find_map(|(at, &s)| peel(configuration, s, &alive).map(|(r, c)| (at, r, c)))
        {
            let slot = candidates.remove(at);
            alive.retain(|&s| s != slot);
            self.order.push(Peeled { slot, index: self.for_present[slot], row, column });
        }
        self.core = alive;
        self.order.len()
    }

    /// Draws the bulk pairs of `pairs_len` interactions whose initiators' and responders' states
    /// (by slot) are `initiators` and `responders` (see the module docs): the pairs with a known
    /// lower state into `pairs`, the others into `tops` and the lower partners' margins.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn draw<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        initiators: &[u64],
        responders: &[u64],
        pairs_len: u64,
        pairs: &mut Vec<PairType>,
        scratch: PairingScratch<'_>,
    ) {
        self.tops.clear();
        self.lower_initiators.clear();
        self.lower_initiators.extend_from_slice(initiators);
        self.lower_responders.clear();
        self.lower_responders.extend_from_slice(responders);
        // At or below the current state: initiators, responders, pairs.
        let (mut at_or_below_i, mut at_or_below_r, mut pairs_below) = (pairs_len, pairs_len, pairs_len);
        for (rank, peeled) in self.order.iter().enumerate() {
            if pairs_below == 0 {
                break;
            }
            let (a, b) = (initiators[peeled.slot], responders[peeled.slot]);
            let (below_i, below_r) = (at_or_below_i - a, at_or_below_r - b);
            let lower_i = hypergeometric(rng, at_or_below_i, below_i, pairs_below);
            let lower_r = hypergeometric(rng, at_or_below_r, below_r, pairs_below);
            let both_lower = hypergeometric(rng, pairs_below, lower_r, lower_i);
            let (here_i, here_r) = (pairs_below - lower_i, pairs_below - lower_r);
            let both = here_i + here_r + both_lower - pairs_below;
            self.lower_initiators[peeled.slot] -= here_i;
            self.lower_responders[peeled.slot] -= here_r;
            if both > 0 {
                push_pair_types(configuration, pairs, (peeled.index, peeled.index), both, false);
            }
            let (over_responder, over_initiator) = (here_i - both, here_r - both);
            if over_responder + over_initiator > 0 {
                let (index, row, column) = (peeled.index, peeled.row, peeled.column);
                self.tops.push(Top { rank, index, over_responder, over_initiator, row, column });
            }
            (at_or_below_i, at_or_below_r, pairs_below) = (below_i, below_r, both_lower);
        }
        if pairs_below == 0 {
            return;
        }
        // The core's pairs: uniform subsets of the core's initiators and responders, paired up.
        let k = initiators.len();
        let mut in_core = vec![0; k];
        for (lower, core_side, total) in [
            (&mut self.lower_initiators, &mut self.core_initiators, at_or_below_i),
            (&mut self.lower_responders, &mut self.core_responders, at_or_below_r),
        ] {
            for &s in &self.core {
                in_core[s] = lower[s];
            }
            core_side.resize(k, 0);
            multivariate_hypergeometric(rng, &in_core, total, pairs_below, core_side);
            for (left, taken) in lower.iter_mut().zip(core_side.iter()) {
                *left -= taken;
            }
        }
        pair_up(configuration, rng, &self.core_initiators, &self.core_responders, pairs_below, pairs, scratch);
    }

    /// Adds to `net` (by state index, through `add`) the changes of the pairs in `tops` and of
    /// their lower partners.
    pub(super) fn add_tops_to_net<P: Protocol, R: Deref<Target = P>>(
        &self,
        configuration: &Configuration<P, R>,
        mut add: impl FnMut(u32, i64),
    ) {
        for top in &self.tops {
            for (times, result) in [(top.over_responder, top.row), (top.over_initiator, top.column)] {
                let times = times as i64;
                add(top.index, -times);
                add(result[0], times);
                add(result[1], times);
            }
        }
        if self.tops.is_empty() {
            return;
        }
        for (slot, (i, r)) in self.lower_initiators.iter().zip(&self.lower_responders).enumerate() {
            if i + r > 0 {
                add(configuration.index_at(slot), -((i + r) as i64));
            }
        }
    }

    /// The batch's bulk pairs with every lower partner drawn, from `rng` (see the module docs):
    /// `pairs` (the pairs whose states were drawn) and one pair type per peeled state and partner
    /// state; `None` (nothing drawn) when the batch was not drawn by this table.
    pub(super) fn fill_in<P: Protocol, R: Deref<Target = P>>(
        &self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        pairs: &[PairType],
    ) -> Option<Vec<PairType>> {
        if self.tops.is_empty() {
            return None;
        }
        let mut full = pairs.to_vec();
        // Partner states by rank, highest first: the peeled states, then the core (below all).
        let ranked = self.order.iter().map(|p| p.slot).chain(self.core.iter().copied());
        let mut open_to = Vec::new();
        for (rank, slot) in ranked.enumerate() {
            // The tops above this rank, which this state's partners may join.
            open_to.push((slot, self.tops.partition_point(|t| t.rank < rank)));
        }
        for partner_is_responder in [true, false] {
            let (lower, mut slots_left): (&[u64], Vec<u64>) = if partner_is_responder {
                (&self.lower_responders, self.tops.iter().map(|t| t.over_responder).collect())
            } else {
                (&self.lower_initiators, self.tops.iter().map(|t| t.over_initiator).collect())
            };
            let mut row = Vec::new();
            for &(slot, open) in &open_to {
                if lower[slot] == 0 {
                    continue;
                }
                row.clear();
                let total = slots_left[..open].iter().sum();
                multivariate_hypergeometric_each(
                    rng,
                    slots_left[..open].iter().copied(),
                    total,
                    lower[slot],
                    |t, x| row.push((t, x)),
                );
                let partner = configuration.index_at(slot);
                for &(t, times) in &row {
                    slots_left[t] -= times;
                    let top = self.tops[t].index;
                    let pair = if partner_is_responder { (top, partner) } else { (partner, top) };
                    push_pair_types(configuration, &mut full, pair, times, false);
                }
            }
            debug_assert!(slots_left.iter().all(|&s| s == 0), "every pair over a lower partner gets one");
        }
        Some(full)
    }
}

/// The constant results of `s`'s row and column over the other states of `alive` (slots), if
/// both are constant and deterministic.
fn peel<P: Protocol, R: Deref<Target = P>>(
    configuration: &mut Configuration<P, R>,
    s: usize,
    alive: &[usize],
) -> Option<([u32; 2], [u32; 2])> {
    let index = configuration.index_at(s);
    let (mut row, mut column) = (None, None);
    for &t in alive.iter().filter(|&&t| t != s) {
        let other = configuration.index_at(t);
        for (result, (i, j)) in [(&mut row, (index, other)), (&mut column, (other, index))] {
            let Effect::To(i2, j2) = configuration.effect_of(i, j) else { return None };
            match *result {
                None => *result = Some([i2, j2]),
                Some(known) if known != [i2, j2] => return None,
                Some(_) => {}
            }
        }
    }
    Some((row.unwrap_or([index; 2]), column.unwrap_or([index; 2])))
}
