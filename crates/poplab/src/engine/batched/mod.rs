//! Batching for the count engine: many interactions at once, exactly (the batched engine).
//!
//! After the multibatching of Berenbrink, Hammer, Kaaser, Meyer, Penschuck and Tran ("Simulating
//! Population Protocols in Sub-Constant Time per Interaction", ESA 2020); the code is our own.
//!
//! **Idea.** Agents are exchangeable, so an agent's state need not be known until something depends
//! on it. A batch follows the scheduler's choices of *agents* (which needs no states) and keeps
//! three kinds of agents:
//! - *untouched*: not yet in an interaction of this batch;
//! - *delayed*: in exactly one interaction so far, with another agent that was untouched then;
//!   that interaction's pair type is not drawn yet;
//! - *taken*: drawn singly, with a known current state.
//!
//! The initial states of the untouched and delayed agents are a uniformly random arrangement of the
//! *urn*: the configuration at the batch's start minus the initial states of the taken agents.
//!
//! **A batch.**
//! 1. The number of interactions before the next one that involves a delayed or taken agent is
//!    drawn from its closed-form law (`collision_free_run`): with `u` untouched agents,
//!    `P(L >= k) = u (u - 1) ... (u - 2k + 1) / (n (n - 1))^k`. Its interactions make `2L` untouched
//!    agents delayed.
//! 2. The *collision* that ends the run is drawn exactly among the ordered pairs with at least one
//!    delayed or taken agent. A delayed agent it involves is first *resolved*: its interaction
//!    partner's and its own initial states are drawn from the urn, their interaction is applied, and
//!    both become taken. An untouched agent it involves is drawn from the urn. The collision is
//!    then applied and both agents are taken.
//! 3. Steps 1-2 repeat until the batch holds about `c sqrt(n)` interactions, `c` growing with the
//!    number of present states and how evenly they share the agents (see `BATCH_SQRT_N`), or
//!    reaches the caller's limit; then the delayed pairs left are drawn in bulk: their initiators'
//!    states (a multivariate hypergeometric draw from the urn), their responders' states, and how
//!    the two pair up: for each initiator state, its responders' states, drawn from those left,
//!    most numerous first. Only what changes the counts is drawn (`NullCells`): with the skip
//!    table at hand, an initiator state null with every responder state drawn comes last and
//!    takes the rest undrawn, and the responder states null with every initiator state are one
//!    colour. Where the rule is *order-free* for every pair of present states (`(a, b)` and `(b,
//!    a)` give the same multisets of results, in law: averaging, approximate majority), only
//!    unordered pairs change the counts, and the delayed pairs are a uniform perfect matching of
//!    their agents: drawn state by state as halves (`draw_unordered_pair_types`), about half the
//!    draws. A census then draws each such pair's roles from its own stream; an output-change
//!    watch, which reads roles, keeps the ordered table, and so do batches in which a present
//!    state is null with every present state (`has_null_lines`: the ordered table skips it).
//!    Where the rule is *monotone* on at least `MONOTONE_MIN_PEELED` present states (a pair's
//!    result depends only on its higher-ranked state and that state's role: max-propagation, an
//!    epidemic of the largest value), the pairing costs three draws per such state instead of a
//!    row (`monotone.rs`), and the lower partners are drawn only where something reads the pair
//!    types (a replay, a look, the census). The table is chosen per batch from the rule's
//!    structure on the present states, checked again only when they change.
//!
//! A batch thus costs at most `O(k^2)` draws in bulk, far fewer when a few states hold most
//! agents (a row of few initiators ends after a few draws; a hypergeometric draw of at most 16
//! items costs one uniform integer per item), plus `O(k)` per collision (about `2 c^2` of them).
//! The pairs' results come from the count engine's memo, so batches need no table of all pairs.
//!
//! **Exact first passage.** The batch is recorded into a copy of the monitor. If the watched event
//! happened in it (the safe set holds at its end — batches watch only closed safe sets, which
//! cannot be entered and left inside a batch — or some interaction changes an output), the batch's
//! effect is discarded and its interactions are replayed one at a time, in their order in time, from the
//! batch's start, checking after each. The order is drawn from its exact conditional law given
//! what the batch drew:
//! - the collisions come at the ends of their runs;
//! - a resolved pair's interaction was a uniformly chosen delayed pair when it was resolved, so its
//!   slot is uniform among the slots not yet given away in the runs before that collision;
//! - the bulk pairs are exchangeable, so they fill the remaining slots in a uniformly random order.
//!
//! The step found is the exact first-passage step and the configuration is the one at that step.
//!
//! **Looking inside a batch.** An observer that only looks (a time series,
//! [`Observer::only_looks`](super::Observer::only_looks)) must not change the run: if a batch
//! ended at its steps, how the random stream is used, and so the trajectory, would depend on how
//! often one looks. So batches end only at the horizon, at the steps of observers that act
//! (faults, which change the configuration and are part of the experiment) and where the watch
//! begins; an observer that only looks at a step inside a batch is shown the configuration at
//! exactly that step, drawn from its exact law given the batch's start and what the batch drew:
//! the batch's order in time is drawn as for a replay, but from a stream of the looks' own (the
//! census stream `2^192` draws on, so the run's stream gives no draw to it), and its first
//! interactions are applied to a copy of the counts. All the looks inside one batch come from one
//! such order, so together they follow the joint law of the configurations at their steps, and with
//! the run's trajectory (which continues from the batch's end) the law of a step-by-step run. A
//! batch in which the watch fires is replayed from the run's own stream as above whoever looks;
//! the looks inside the replayed part see the replay itself. (Alternatives: ending batches at the
//! looks is what made traces change the run; drawing the inside of each batch whether or not
//! anyone looks would cost every batch a walk through its interactions; a stream of the looks'
//! own drawn from the run's stream would have changed every batched run without looks.) Single
//! steps and null skips stop at the looks' steps, which changes no draw (a skip drawn is kept).
//!
//! **When to batch.** While a safe set that can be left is watched, never: it must be checked after
//! every interaction ([`EngineHints::safe_set_is_closed`](crate::protocol::EngineHints::safe_set_is_closed)). Otherwise the engine batches when a batch
//! is expected to beat single steps: while skipping null steps, when a batch is expected to hold
//! at least `max(16, k^2 / 8)` non-null interactions (`SKIP_BATCH_MIN_EVENTS`); while taking
//! plain steps (many states present, or most pairs non-null), when a batch aims at
//! `PLAIN_BATCH_MIN_PER_STATE`` k` interactions or more.
//! Every choice depends only on the current configuration and on counts of agents, never on
//! states drawn inside the batch, so mixing batches and single steps keeps the law exact.
//!
//! **Use.** [`CountRun::batch`](super::CountRun::batch) turns batching on for a count run.
//! angluin from `10^4` leaders, whose expected steps to one leader are exactly `(n - 1)^2`:
//! ```
//! use poplab::engine::{CountRun, Watch};
//! use poplab::protocol::{CountStart, Params};
//! use poplab::protocols::angluin::Angluin;
//! use poplab::rng::TrialStreams;
//!
//! let n = 10_000;
//! let protocol = Angluin::new(n, &Params::default())?;
//! let mut total = 0.0;
//! for seed in 0..200 {
//!     let schedule = TrialStreams::new(seed).schedule;
//!     let mut run = CountRun::from_counts(&protocol, &protocol.initial_counts(), schedule)?;
//!     run.batch();
//!     assert!(run.advance(1 << 60, Watch::SafeSet));
//!     assert_eq!(run.counts(), vec![(true, 1), (false, n as u64 - 1)]);
//!     assert!(run.steps_in_batches() > 0);
//!     total += run.step() as f64;
//! }
//! // 200 runs: the standard error of the mean is about 7%.
//! let expected = ((n - 1) * (n - 1)) as f64;
//! assert!((total / 200.0 / expected - 1.0).abs() < 0.25);
//! # Ok::<(), poplab::Error>(())
//! ```

use super::configuration::{Configuration, Effect};
use super::fenwick::Fenwick;
use super::sampling::{
    collision_free_run, hypergeometric, multivariate_hypergeometric, multivariate_hypergeometric_each,
};
use super::snapshot::BatcherSnapshot;
use super::{Lookers, steps_to};
use crate::protocol::{Monitor, Protocol};
use crate::rng::{PopRng, below_u64, below_u128};
use rand_core::{Rng, SeedableRng};
use std::ops::Deref;

/// A new present state joins the order-free clique (see [`Batcher::order_free`]) only while the
/// clique has at most this many absent members to check it against. With few states (P_LL's usual
/// 20 to 140) every state joins as before; in P_LL's BackUp, where states are met by the thousand,
/// checking each new one against every state ever seen cost 93% of the run, and a state left out
/// is only checked against the present ones when it is present.
const CLIQUE_EXTENSION_MAX_ABSENT: usize = 256;

mod monotone;
mod timeline;

use monotone::{MONOTONE_MIN_PEELED, Monotone};

/// A batch aims at `c sqrt(n)` interactions with `c = max(BATCH_SQRT_N, sqrt(k), min(k_eff /
/// BATCH_STATES_PER_SQRT_N, sqrt(n) / 8))` for `k` present states, of which about `k_eff = n^2 /
/// sum c_i^2` (the inverse Simpson index of the counts `c_i`) share the agents evenly: about `2
/// c^2` collisions (each `O(log k)` or less) per batch, whose bulk costs up to `O(k_eff^2)` draws
/// (a cell of the pairing table expected to be empty costs little), so evenly spread states call
/// for longer batches (the two costs balance for `c` proportional to `k_eff`), up to `n / 8`
/// interactions (beyond it collisions take over). `BATCH_SQRT_N` was tuned on approx-majority at
/// n = 10^6 to 10^10 (c from 1 to 8; 1.5 to 3 were within 10% of each other, 2 the fastest at 10^9
/// and 10^10); `sqrt(k)` on pll at n = 10^7 (about 90 states present; c from 2 to 32: 8 to 16 were
/// within 10% of each other and twice as fast as 2).
const BATCH_SQRT_N: f64 = 2.0;

/// See [`BATCH_SQRT_N`]; it matters above 16 present states that share the agents evenly (ppsim's
/// README averaging, whose 51 values spread out before they gather). With `k` in place of
/// `k_eff`, callgrind on that averaging at n = 10^7 (seed 1) gave, in 10^8 instructions per unit
/// of parallel time, 2.43 without the term, 2.06 with 5 states per `sqrt(n)`, 1.97 and 2.09 with 4
/// and 3.3, 2.31 with 2.5; but `k` lengthened the batches of pll-sym and pll-as-printed too, whose
/// many states hold few agents (at n = 10^5, 87 and 68 ns per step against 72 and 45). With
/// `k_eff`, the averaging twin (`examples/averaging.rs`, n = 10^8, seed 1, two runs each, wall
/// clock) took 2.48 and 2.71 s to time 17 with 4 states per `sqrt(n)`, 2.10 and 2.27 with 2, 1.84
/// and 1.97 with 2.5 (2.31 and 2.37 s to time 18 with `k / 4`), and pll's runs kept their draws.
const BATCH_STATES_PER_SQRT_N: f64 = 2.5;

/// While skipping null steps, the engine batches when a batch is expected to hold at least
/// `max(SKIP_BATCH_MIN_EVENTS, k^2 / SKIP_BATCH_CELLS_PER_EVENT)` non-null interactions: a batch
/// costs about as much as 16 null-skipping steps when few states are present, plus up to `k^2`
/// bulk draws, each far cheaper than a skipping step (which walks the `k` rows of the skip table
/// and updates the rows it touches). Tuned by callgrind: angluin to one leader at n = 10^8 (seed 1)
/// took 6.58, 5.58, 5.27, 5.58 and 6.58 x 10^9 instructions with a minimum of 4 (the old `k^2`),
/// 8, 16, 32 and 64 events; ppsim's README averaging at n = 10^6 (51 states, seed 1) 2.26 x 10^9
/// with `k^2` against 1.23 x 10^9 with any divisor from 4 to 64 (with `k^2` it took single
/// skipping steps, at about 400 ns each, through the middle of the run).
const SKIP_BATCH_MIN_EVENTS: f64 = 16.0;

/// See [`SKIP_BATCH_MIN_EVENTS`].
const SKIP_BATCH_CELLS_PER_EVENT: f64 = 8.0;

/// Without the skip table (more than [`super::SKIP_MAX_STATES`] states present, or most pairs
/// non-null), the engine batches when a batch aims at least at this many interactions per present
/// state, as decided without `k_eff`: with `c = sqrt(k)`, when `n >= 64 k`. A batch then costs
/// far fewer than `k^2` draws (few states hold most agents), and plain count steps are slow where
/// many states are present (a memo of megabytes). Tuned on pll against 16 and 32 per state and against batching whenever it
/// may (the stabilisation bench of the bench crate compares them).
const PLAIN_BATCH_MIN_PER_STATE: f64 = 8.0;

/// Scratch space of the batched engine, reused across batches.
pub(super) struct Batcher {
    /// `sqrt(n)`: a batch aims at a multiple of it ([`Batcher::target`]).
    sqrt_n: f64,
    /// Batch whenever something can change, however few non-null interactions a batch holds.
    always: bool,
    /// Steps taken in batches so far (replays included).
    steps_in_batches: u128,
    /// Picks the last demotion inside a batch for the census (a stream of its own, so a census
    /// does not change the run).
    census_rng: PopRng,
    /// Draws the order in time of a batch inside which an observer that only looks looks (a
    /// stream of its own, so looking does not change the run).
    looks_rng: PopRng,
    /// The counts by state index at a step inside a batch, for those observers.
    look_counts: Vec<u64>,
    /// Per present slot: the initial states of the untouched and delayed agents.
    urn: Vec<u64>,
    /// The urn again, for drawing from it by rank.
    urn_ranks: Fenwick,
    initiators: Vec<u64>,
    responders: Vec<u64>,
    /// The responder states still unpaired (slot, agents), most numerous first.
    columns: Vec<(u32, u64)>,
    /// One initiator state's responders: (position in `columns`, how many).
    row: Vec<(usize, u64)>,
    /// The bulk pairs' types that change something: initiator, responder, multiplicity, result.
    pairs: Vec<PairType>,
    /// Taken agents by current state index.
    taken: Vec<(u32, u64)>,
    /// Interactions taken singly, in the order they were drawn.
    singles: Vec<Single>,
    /// The lengths of the collision-free runs; run `c` comes just before collision `c`.
    runs: Vec<u64>,
    /// The batch's net change to the counts.
    net: NetChange,
    /// The present states (indices) for which [`Batcher::order_free`] last looked, and what it
    /// found; a pair found not order-free then; by state index, whether the state is in the
    /// clique of states known pairwise order-free.
    order_free_for: Vec<u32>,
    order_free: bool,
    not_order_free: Option<(u32, u32)>,
    clique: Vec<bool>,
    /// The monotone table's ranking of the present states, and the batch's pairs over a lower
    /// partner when it drew them.
    monotone: Monotone,
}

#[derive(Clone, Copy)]
struct PairType {
    initiator: u32,
    responder: u32,
    times: u64,
    /// The result states' indices (not the pair's own: null pairs are not kept).
    result: [u32; 2],
    /// Drawn unordered ([`Batcher::draw_unordered_pair_types`]): each of these interactions had
    /// the responder's state as initiator with probability 1/2, with this result then (for a
    /// deterministic rule; `None` for a randomized one, whose census reads no roles).
    reversed: Option<[u32; 2]>,
}

/// An interaction taken singly: a resolved delayed pair or a collision (state indices).
#[derive(Clone, Copy)]
struct Single {
    before: [u32; 2],
    after: [u32; 2],
    collision: bool,
}

impl Single {
    fn is_null(&self) -> bool {
        self.before == self.after
    }
}

impl Batcher {
    /// What a checkpoint keeps of the batcher between batches ([`super::snapshot`]).
    pub(in crate::engine) fn snapshot(&self) -> BatcherSnapshot {
        BatcherSnapshot {
            always: self.always,
            steps_in_batches: self.steps_in_batches,
            census_rng: self.census_rng.clone(),
            looks_rng: self.looks_rng.clone(),
        }
    }

    /// The batcher a checkpoint kept, for `n` agents (its scratch space starts empty).
    pub(in crate::engine) fn restore(n: u64, saved: BatcherSnapshot) -> Self {
        let mut rng = PopRng::seed_from_u64(0);
        Self {
            always: saved.always,
            steps_in_batches: saved.steps_in_batches,
            census_rng: saved.census_rng,
            looks_rng: saved.looks_rng,
            ..Self::new(n, &mut rng)
        }
    }

    /// Interactions a batch aims at with `k` present states (it ends at the first collision after
    /// them).
    /// `spread` is `k_eff` (see [`BATCH_SQRT_N`]), or 0 where it is not computed.
    fn target(&self, k: usize, spread: f64) -> u64 {
        let per_state = (spread / BATCH_STATES_PER_SQRT_N).min(self.sqrt_n / 8.0);
        (BATCH_SQRT_N.max((k as f64).sqrt()).max(per_state) * self.sqrt_n) as u64
    }

    /// `k_eff = n^2 / sum c_i^2` over the counts in the urn (see [`BATCH_SQRT_N`]), or 0 (the term
    /// left out) with at most 16 states present, where batches keep `c = max(2, sqrt(k))`.
    fn spread(&self) -> f64 {
        if self.urn.len() <= 16 {
            return 0.0;
        }
        let (sum, squares) = self.urn.iter().fold((0.0, 0.0), |(s, q), &c| (s + c as f64, q + c as f64 * c as f64));
        sum * sum / squares
    }

    /// Scratch space for batches of `n` agents; the census stream is seeded from `rng`, and the
    /// looks' stream is the census stream `2^192` draws on (one draw from `rng` for both, as
    /// before looks had a stream, so runs without looks draw as they did).
    pub(super) fn new(n: u64, rng: &mut PopRng) -> Self {
        let census_rng = PopRng::seed_from_u64(rng.next_u64());
        let mut looks_rng = census_rng.clone();
        looks_rng.long_jump();
        Self {
            sqrt_n: (n as f64).sqrt(),
            always: false,
            steps_in_batches: 0,
            census_rng,
            looks_rng,
            look_counts: Vec::new(),
            urn: Vec::new(),
            urn_ranks: Fenwick::default(),
            initiators: Vec::new(),
            responders: Vec::new(),
            columns: Vec::new(),
            row: Vec::new(),
            pairs: Vec::new(),
            taken: Vec::new(),
            singles: Vec::new(),
            runs: Vec::new(),
            net: NetChange::default(),
            order_free_for: Vec::new(),
            order_free: false,
            not_order_free: None,
            clique: Vec::new(),
            monotone: Monotone::default(),
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

/// Net changes to the counts by state index, gathered densely: a batch can change every present
/// state, too many for a short list.
#[derive(Default)]
struct NetChange {
    /// By state index; `listed[i]` says whether `i` is in `changes`.
    by_index: Vec<i64>,
    listed: Vec<bool>,
    indices: Vec<u32>,
    /// The changes as (state index, change), each index once, after [`NetChange::gather`].
    changes: Vec<(u32, i64)>,
}

impl NetChange {
    fn clear(&mut self) {
        for &i in &self.indices {
            self.by_index[i as usize] = 0;
            self.listed[i as usize] = false;
        }
        self.indices.clear();
        self.changes.clear();
    }

    fn add(&mut self, index: u32, amount: i64) {
        let i = index as usize;
        if i >= self.by_index.len() {
            self.by_index.resize(i + 1, 0);
            self.listed.resize(i + 1, false);
        }
        if !self.listed[i] {
            self.listed[i] = true;
            self.indices.push(index);
        }
        self.by_index[i] += amount;
    }

    /// Lists the changes in `changes`.
    fn gather(&mut self) {
        self.changes.clear();
        self.changes.extend(self.indices.iter().map(|&i| (i, self.by_index[i as usize])));
    }
}

/// The index whose slice of the weights, laid end to end, holds `rank` (`rank` below their total).
fn index_of_rank(weights: impl IntoIterator<Item = u64>, mut rank: u64) -> usize {
    for (i, weight) in weights.into_iter().enumerate() {
        if rank < weight {
            return i;
        }
        rank -= weight;
    }
    unreachable!("the rank is below the total weight")
}

/// A batch's agents by kind (see the module docs); the urn holds `untouched + delayed` agents.
struct Kinds {
    untouched: u64,
    delayed: u64,
    taken: u64,
}

impl Batcher {
    /// Whether to batch now. The watch must be checkable per batch (not a safe set that can be
    /// left, see [`EngineHints::safe_set_is_closed`](crate::protocol::EngineHints::safe_set_is_closed)). While skipping null steps (`k` present states,
    /// non-null probability `p`), a batch must be expected to hold at least
    /// `max(SKIP_BATCH_MIN_EVENTS, k^2 / SKIP_BATCH_CELLS_PER_EVENT)` non-null interactions, so that
    /// it beats single null-skipping steps; while taking plain steps, it
    /// must aim at `PLAIN_BATCH_MIN_PER_STATE`` k` interactions or more.
    pub(super) fn pays<P: Protocol, R: Deref<Target = P>>(
        &self,
        configuration: &Configuration<P, R>,
        non_null_probability: Option<f64>,
        watching_safe_set: bool,
    ) -> bool {
        if watching_safe_set && !configuration.protocol().hints().safe_set_is_closed {
            return false;
        }
        let k = configuration.present_len();
        // Without `k_eff`, so that the choice costs O(1) per event while skipping.
        let (target, k) = (self.target(k, 0.0) as f64, k as f64);
        match non_null_probability {
            Some(p) => {
                p > 0.0 && (self.always || p * target >= SKIP_BATCH_MIN_EVENTS.max(k * k / SKIP_BATCH_CELLS_PER_EVENT))
            }
            None => self.always || target >= PLAIN_BATCH_MIN_PER_STATE * k,
        }
    }

    /// Batches whenever something may change, even where single steps would be faster (see
    /// [`CountRun::batch_always`](super::CountRun::batch_always)).
    pub(super) fn batch_always(&mut self) {
        self.always = true;
    }

    /// Steps taken in batches so far (replays included).
    pub(super) fn steps_in_batches(&self) -> u128 {
        self.steps_in_batches
    }

    /// One batch of `configuration`'s run, drawn from `rng`, not beyond step `until`; returns
    /// whether the watch was met (at exactly the current step). `lookers` (all due after the
    /// current step) look at their steps inside the batch, before its end and before the step
    /// where the watch is met; the batch is drawn the same whether they look or not.
    pub(super) fn batch_step<P: Protocol, R: Deref<Target = P>, const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        until: u128,
        lookers: Option<&mut Lookers<'_, P>>,
    ) -> bool {
        let len = self.draw_batch(configuration, rng, steps_to(configuration.step(), until), !OUTPUT_CHANGE);
        self.add_results_to_net(configuration);

        // Record the batch's net change into a copy of the monitor; replay the batch singly if the
        // watch fires inside.
        let mut monitor = configuration.monitor().clone();
        monitor.record_net(self.net.changes.iter().map(|&(index, delta)| (configuration.state(index), delta)));
        if (SAFE_SET && monitor.is_safe()) || (OUTPUT_CHANGE && self.changes_some_output(configuration)) {
            let start = configuration.step();
            // The replay reads pair types: the monotone table's lower partners, from the run's stream.
            if let Some(full) = self.monotone.fill_in(configuration, rng, &self.pairs) {
                self.pairs = full;
                self.monotone.tops.clear();
            }
            let met = self.replay::<P, R, SAFE_SET, OUTPUT_CHANGE>(configuration, rng, lookers);
            debug_assert!(met, "the replayed batch must meet the watch");
            self.steps_in_batches += configuration.step() - start;
            return met;
        }
        configuration.set_monitor(monitor);
        if configuration.keeps_census() {
            self.census_of_batch(configuration);
        }
        if let Some(lookers) = lookers
            && lookers.next_at().is_some_and(|at| at < configuration.step() + u128::from(len))
        {
            self.look_inside(configuration, len, lookers);
        }
        configuration.apply_deltas(&self.net.changes);
        configuration.count_steps(u128::from(len));
        self.steps_in_batches += u128::from(len);
        false
    }

    /// Completes the batch's net change (which holds the taken agents' initial states, negated):
    /// adds the bulk pairs' changes and the taken agents' current states, and lists it.
    fn add_results_to_net<P: Protocol, R: Deref<Target = P>>(&mut self, configuration: &Configuration<P, R>) {
        let Self { pairs, taken, net, monotone, .. } = self;
        monotone.add_tops_to_net(configuration, |index, delta| net.add(index, delta));
        for pair in pairs.iter() {
            let ([i2, j2], times) = (pair.result, pair.times as i64);
            for (index, delta) in [(pair.initiator, -times), (pair.responder, -times), (i2, times), (j2, times)] {
                net.add(index, delta);
            }
        }
        for &(index, count) in taken.iter() {
            net.add(index, count as i64);
        }
        net.gather();
    }

    /// Whether some interaction of the batch (a bulk pair type or a single) changes an output.
    fn changes_some_output<P: Protocol, R: Deref<Target = P>>(&self, configuration: &Configuration<P, R>) -> bool {
        let bulk = self.pairs.iter().map(|p| ([p.initiator, p.responder], p.result));
        let singles = self.singles.iter().filter(|s| !s.is_null()).map(|s| (s.before, s.after));
        bulk.chain(singles).any(|(before, after)| {
            configuration.changes_output(configuration.states_of(before), configuration.states_of(after))
        })
    }

    /// Draws a batch of at most `room` interactions (runs, singles, bulk pairs, and in `net` the
    /// initial states of the taken agents, negated); returns its length. `roles_unread`: nothing
    /// reads which agent of a bulk pair initiated (no output-change watch), so an order-free rule
    /// may draw its bulk pairs unordered.
    fn draw_batch<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        room: u64,
        roles_unread: bool,
    ) -> u64 {
        self.urn.clear();
        self.urn.extend(configuration.present().map(|(_, count)| count));
        self.urn_ranks.rebuild(&self.urn);
        self.taken.clear();
        self.singles.clear();
        self.runs.clear();
        self.net.clear();
        let n = configuration.n();
        let target = self.target(configuration.present_len(), self.spread());
        let mut kinds = Kinds { untouched: n, delayed: 0, taken: 0 };
        let mut len = 0;
        loop {
            let run = collision_free_run(rng, kinds.untouched, n).min(room - len);
            kinds.untouched -= 2 * run;
            kinds.delayed += 2 * run;
            len += run;
            self.runs.push(run);
            if len == room {
                break;
            }
            len += 1;
            self.collide(configuration, rng, &mut kinds);
            if len == room || len >= target {
                break;
            }
        }
        for ((index, count), &left) in configuration.present().zip(&self.urn) {
            let taken = count - left;
            if taken > 0 {
                self.net.add(index, -(taken as i64));
            }
        }
        let (total, pairs_len) = (kinds.untouched + kinds.delayed, kinds.delayed / 2);
        // The census reads the roles: of a deterministic rule's unordered pairs it draws them
        // (`census_of_batch`); a randomized protocol with a census keeps the ordered table.
        let census_needs_roles = configuration.randomized()
            && configuration.protocol().observables().is_some_and(|o| o.has_demotion_causes());
        self.monotone.tops.clear();
        let monotone = roles_unread
            && configuration.present_len() >= MONOTONE_MIN_PEELED
            && self.monotone.peeled(configuration) >= MONOTONE_MIN_PEELED;
        if !monotone
            && roles_unread
            && !census_needs_roles
            && !has_null_lines(configuration)
            && self.order_free(configuration)
        {
            self.draw_unordered_pair_types(configuration, rng, total, pairs_len);
        } else {
            self.draw_pair_types(configuration, rng, total, pairs_len, monotone);
        }
        len
    }

    /// Whether every pair of present states changes the counts alike in either order
    /// ([`Configuration::order_free`]): a function of the present states alone, found again only
    /// when they change, and then cheaply: the pair found not order-free last time is tried first,
    /// and only pairs with a state outside the *clique* are looked at, the states every pair of
    /// which is known order-free (a present state joins it once it is order-free with all of it,
    /// while it has at most [`CLIQUE_EXTENSION_MAX_ABSENT`] absent members).
    fn order_free<P: Protocol, R: Deref<Target = P>>(&mut self, configuration: &mut Configuration<P, R>) -> bool {
        if self.order_free_for.iter().copied().eq(configuration.present().map(|(i, _)| i)) {
            return self.order_free;
        }
        self.order_free_for.clear();
        self.order_free_for.extend(configuration.present().map(|(i, _)| i));
        self.order_free = self.present_pairs_order_free(configuration);
        self.order_free
    }

    /// See [`Batcher::order_free`]; the present states are `order_free_for`.
    fn present_pairs_order_free<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
    ) -> bool {
        let Self { order_free_for: present, not_order_free, clique, .. } = self;
        let size = present.iter().map(|&i| i as usize + 1).max().unwrap_or(0);
        if clique.len() < size {
            clique.resize(size, false);
        }
        if let Some((i, j)) = *not_order_free
            && present.contains(&i)
            && present.contains(&j)
        {
            return false;
        }
        *not_order_free = None;
        let (known, new): (Vec<u32>, Vec<u32>) = present.iter().partition(|&&i| clique[i as usize]);
        for (r, &a) in new.iter().enumerate() {
            for &b in known.iter().chain(&new[..r]) {
                if !configuration.order_free(a, b) {
                    *not_order_free = Some((a, b));
                    return false;
                }
            }
        }
        if new.is_empty() {
            return true;
        }
        // Every present pair is order-free. A new state joins the clique if it is order-free
        // with its absent members too (the new ones were just checked with each other).
        let absent: Vec<u32> =
            (0..clique.len() as u32).filter(|&c| clique[c as usize] && !known.contains(&c)).collect();
        for &a in &new {
            if absent.len() <= CLIQUE_EXTENSION_MAX_ABSENT && absent.iter().all(|&c| configuration.order_free(a, c)) {
                clique[a as usize] = true;
            }
        }
        true
    }

    /// [`Batcher::draw_pair_types`] for a rule whose every present pair changes the counts alike
    /// in either order: only the unordered pairs matter, and the `2 pairs_len` agents of the
    /// delayed pairs (drawn from the urn at once) are a uniformly random perfect matching. State
    /// by state, most numerous first, with `m` of its agents among the `N` left: splitting the `N`
    /// into the pairs' first and second agents, `I ~ HG(N, m, N / 2)` of them are first; those
    /// meet a uniform `I` of the second agents, so `X ~ HG(N / 2, m - I, I)` pairs have the state
    /// twice; the `m - 2X` others meet a uniform set of the other agents left (a multivariate
    /// hypergeometric draw over the later states, which ends once they are all placed). About
    /// `k^2 / 2 + 3k` draws against `k^2 + 2k`. The pair types are kept as (lower slot, higher
    /// slot) with that order's result: the counts are the same either way.
    fn draw_unordered_pair_types<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        total: u64,
        pairs_len: u64,
    ) {
        let k = configuration.present_len();
        let Self { urn, initiators: agents, columns, row, pairs, .. } = self;
        pairs.clear();
        if pairs_len == 0 {
            return;
        }
        take_from_urn(rng, urn, total, 2 * pairs_len, agents, k);
        columns.clear();
        columns.extend((0..k).filter(|&c| agents[c] > 0).map(|c| (c as u32, agents[c])));
        columns.sort_unstable_by_key(|&(c, count)| (std::cmp::Reverse(count), c));
        let mut left = 2 * pairs_len;
        let mut record = |configuration: &mut Configuration<P, R>, a: u32, b: u32, times: u64| {
            let (i, j) = (configuration.index_at(a as usize), configuration.index_at(b as usize));
            push_pair_types(configuration, pairs, (i, j), times, true);
        };
        for at in 0..columns.len() {
            let (a, m) = columns[at];
            if m == 0 {
                continue;
            }
            let half = left / 2;
            let first = hypergeometric(rng, left, m, half);
            let twice = hypergeometric(rng, half, m - first, first);
            if twice > 0 {
                record(configuration, a, a, twice);
            }
            left -= m;
            let mut others = m - 2 * twice;
            if others == 0 {
                continue;
            }
            row.clear();
            let later = columns[at + 1..].iter().map(|column| column.1);
            multivariate_hypergeometric_each(rng, later, left, others, |position, times| {
                row.push((at + 1 + position, times));
            });
            for &(position, times) in row.iter() {
                let b = columns[position].0;
                columns[position].1 -= times;
                let (low, high) = if a < b { (a, b) } else { (b, a) };
                record(configuration, low, high, times);
                others -= times;
            }
            debug_assert_eq!(others, 0);
            left -= m - 2 * twice;
        }
    }

    /// The interaction that ends a run: an ordered pair with at least one of the `t` delayed or
    /// taken agents, drawn uniformly among such pairs, applied and recorded.
    fn collide<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        kinds: &mut Kinds,
    ) {
        let t = u128::from(kinds.delayed + kinds.taken);
        let u = u128::from(kinds.untouched);
        let x = below_u128(rng, t * (t - 1) + 2 * t * u);
        let (i, j) = if x < t * (t - 1) {
            let i = self.take_touched(configuration, rng, kinds);
            (i, self.take_touched(configuration, rng, kinds))
        } else if x < t * (t - 1) + t * u {
            (self.take_touched(configuration, rng, kinds), self.take_untouched(configuration, rng, kinds))
        } else {
            let i = self.take_untouched(configuration, rng, kinds);
            (i, self.take_touched(configuration, rng, kinds))
        };
        let (i2, j2) = configuration.transition_of(i, j);
        self.singles.push(Single { before: [i, j], after: [i2, j2], collision: true });
        add_to(&mut self.taken, i2, 1);
        add_to(&mut self.taken, j2, 1);
        kinds.taken += 2;
    }

    /// Takes a uniformly chosen delayed or taken agent out of its kind; returns its state index.
    /// A delayed agent's pair is resolved first (its partner becomes taken).
    fn take_touched<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        kinds: &mut Kinds,
    ) -> u32 {
        let y = below_u64(rng, kinds.delayed + kinds.taken);
        if y < kinds.delayed {
            let i = self.draw_from_urn(configuration, rng, kinds);
            kinds.delayed -= 1;
            let j = self.draw_from_urn(configuration, rng, kinds);
            kinds.delayed -= 1;
            let (i2, j2) = configuration.transition_of(i, j);
            self.singles.push(Single { before: [i, j], after: [i2, j2], collision: false });
            // Delayed agents are initiators and responders in equal numbers: the parity of y picks.
            let (mine, partner) = if y.is_multiple_of(2) { (i2, j2) } else { (j2, i2) };
            add_to(&mut self.taken, partner, 1);
            kinds.taken += 1;
            return mine;
        }
        kinds.taken -= 1;
        let at = index_of_rank(self.taken.iter().map(|e| e.1), y - kinds.delayed);
        self.taken[at].1 -= 1;
        self.taken[at].0
    }

    /// Takes a uniformly chosen untouched agent; returns its state index.
    fn take_untouched<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &Configuration<P, R>,
        rng: &mut PopRng,
        kinds: &mut Kinds,
    ) -> u32 {
        let i = self.draw_from_urn(configuration, rng, kinds);
        kinds.untouched -= 1;
        i
    }

    /// Draws one initial state from the urn, which holds `kinds.untouched + kinds.delayed` agents.
    fn draw_from_urn<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &Configuration<P, R>,
        rng: &mut PopRng,
        kinds: &Kinds,
    ) -> u32 {
        let r = self.urn_ranks.find(below_u64(rng, kinds.untouched + kinds.delayed));
        self.urn[r] -= 1;
        self.urn_ranks.add(r, -1);
        configuration.index_at(r)
    }

    /// Draws the pair types of `pairs_len` interactions between distinct agents drawn from the urn
    /// (`total` agents) into `self.pairs`: the initiators' states, the responders' states, then
    /// each initiator state's responders from those left. Only what can change the counts is
    /// drawn and kept (see [`NullCells`]): rows that are null with every responder state drawn
    /// come last and take the responders left without a draw, and the responder states that are
    /// null with every initiator state drawn are one colour. The responder states are visited most
    /// numerous first, so a row with few initiators ends after a few draws: the pairing costs far
    /// fewer than `k^2` draws when a few states hold most agents. With `monotone` (a rule monotone
    /// on at least [`MONOTONE_MIN_PEELED`] present states), the pairing is the monotone table's
    /// instead ([`monotone`]): three draws per peeled state instead of a row.
    fn draw_pair_types<P: Protocol, R: Deref<Target = P>>(
        &mut self,
        configuration: &mut Configuration<P, R>,
        rng: &mut PopRng,
        total: u64,
        pairs_len: u64,
        monotone: bool,
    ) {
        let k = configuration.present_len();
        let Self { urn, initiators, responders, columns, row, pairs, monotone: ranking, .. } = self;
        pairs.clear();
        if pairs_len == 0 {
            return;
        }
        take_from_urn(rng, urn, total, pairs_len, initiators, k);
        responders.resize(k, 0);
        multivariate_hypergeometric(rng, urn, total - pairs_len, pairs_len, responders);
        if monotone {
            ranking.draw(configuration, rng, initiators, responders, pairs_len, pairs, (columns, row));
        } else {
            pair_up(configuration, rng, initiators, responders, pairs_len, pairs, (columns, row));
        }
    }
}

/// The pairing table's scratch space: the responder states still unpaired, and one row.
type PairingScratch<'a> = (&'a mut Vec<(u32, u64)>, &'a mut Vec<(usize, u64)>);

/// Pairs up `pairs_len` interactions whose initiators' and responders' states (by slot) are
/// `initiators` and `responders`, uniformly, and keeps their pair types in `pairs` (see
/// [`Batcher::draw_pair_types`]): each initiator state's responders from those left, most
/// numerous first, null rows last and undrawn, null columns lumped.
fn pair_up<P: Protocol, R: Deref<Target = P>>(
    configuration: &mut Configuration<P, R>,
    rng: &mut PopRng,
    initiators: &[u64],
    responders: &[u64],
    pairs_len: u64,
    pairs: &mut Vec<PairType>,
    (columns, row): PairingScratch<'_>,
) {
    let k = initiators.len();
    let null = NullCells::of(configuration, initiators, responders);
    columns.clear();
    columns.extend((0..k).filter(|&c| responders[c] > 0 && !null.column(c)).map(|c| (c as u32, responders[c])));
    let lumped: u64 = (0..k).filter(|&c| null.column(c)).map(|c| responders[c]).sum();
    if lumped > 0 {
        columns.push((LUMPED, lumped));
    }
    columns.sort_unstable_by_key(|&(c, count)| (std::cmp::Reverse(count), c));
    let mut responders_left = pairs_len;
    for (r, &a) in initiators.iter().enumerate() {
        if a == 0 || null.row(r) {
            continue;
        }
        row.clear();
        let counts = columns.iter().map(|column| column.1);
        multivariate_hypergeometric_each(rng, counts, responders_left, a, |at, times| {
            row.push((at, times));
        });
        let mut emptied = false;
        for &(at, times) in row.iter() {
            let column = &mut columns[at];
            column.1 -= times;
            emptied |= column.1 == 0;
            if column.0 == LUMPED {
                continue;
            }
            let (i, j) = (configuration.index_at(r), configuration.index_at(column.0 as usize));
            push_pair_types(configuration, pairs, (i, j), times, false);
        }
        responders_left -= a;
        if emptied {
            columns.retain(|column| column.1 > 0);
        }
    }
}

/// Whether some present state is null with every present state as initiator or as responder
/// (known while the skip table is kept): the ordered table then leaves its row undrawn or lumps its
/// column ([`NullCells`]), which the unordered table cannot; protocols with many such states
/// (pll-sym) run faster on the ordered table.
fn has_null_lines<P: Protocol, R: Deref<Target = P>>(configuration: &Configuration<P, R>) -> bool {
    let Some((rows, columns)) = configuration.non_null_bits() else { return false };
    let k = configuration.present_len();
    let present = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    (0..k.min(64)).any(|slot| rows[slot] & present == 0 || columns[slot] & present == 0)
}

/// Draws the states of `draws` agents from the urn (`total` agents, `k` states) into `out`, and
/// takes them out of it.
fn take_from_urn(rng: &mut PopRng, urn: &mut [u64], total: u64, draws: u64, out: &mut Vec<u64>, k: usize) {
    out.resize(k, 0);
    multivariate_hypergeometric(rng, urn, total, draws, out);
    for (c, a) in urn.iter_mut().zip(out.iter()) {
        *c -= a;
    }
}

/// Keeps in `pairs` what `times` interactions of initiator state `i` and responder state `j` do
/// (indices), unless it changes no count: a known result as one pair type, a randomized pair's
/// interactions split multinomially across its results, one pair type per result taken (the rest
/// are null). `unordered`: the pairs were drawn unordered (a swap of the pair changes no count
/// either, and the result with the roles the other way round is kept for the census).
fn push_pair_types<P: Protocol, R: Deref<Target = P>>(
    configuration: &mut Configuration<P, R>,
    pairs: &mut Vec<PairType>,
    (i, j): (u32, u32),
    times: u64,
    unordered: bool,
) {
    match configuration.effect_of(i, j) {
        Effect::To(i2, j2) => {
            if (i2, j2) == (i, j) || (unordered && (j2, i2) == (i, j)) {
                return;
            }
            let reversed = match (unordered && i != j).then(|| configuration.effect_of(j, i)) {
                Some(Effect::To(j3, i3)) => Some([j3, i3]),
                _ => None,
            };
            pairs.push(PairType { initiator: i, responder: j, times, result: [i2, j2], reversed });
        }
        Effect::Law(id) => configuration.split_law(id, times, |result, times| {
            pairs.push(PairType { initiator: i, responder: j, times, result: result.into(), reversed: None });
        }),
    }
}

/// The column of a batch's pairing table that stands for all the responder states that are null
/// with every initiator state of the batch.
const LUMPED: u32 = u32::MAX;

/// The rows and columns of a batch's pairing table (initiator and responder states, by slot) whose
/// every cell is null, known while the skip table is kept (at most 64 present states); none
/// otherwise.
///
/// Exact: the table's law (a multivariate hypergeometric table given its margins) does not depend
/// on the order in which rows are drawn, so the null rows may come last, where they take the
/// responders left, and what they take changes nothing, so it is not drawn. A responder state that
/// is null with every row changes nothing wherever it goes, so only how many of the lumped states'
/// responders each row takes matters: one colour. Null pairs are not kept (nothing reads them).
struct NullCells {
    rows: u64,
    columns: u64,
}

impl NullCells {
    fn of<P: Protocol, R: Deref<Target = P>>(
        configuration: &Configuration<P, R>,
        initiators: &[u64],
        responders: &[u64],
    ) -> Self {
        let Some((non_null_rows, non_null_columns)) = configuration.non_null_bits() else {
            return Self { rows: 0, columns: 0 };
        };
        let bits = |counts: &[u64]| counts.iter().enumerate().filter(|e| *e.1 > 0).fold(0_u64, |m, (i, _)| m | 1 << i);
        let (with_initiators, with_responders) = (bits(initiators), bits(responders));
        let null_among = |non_null: &[u64], present: u64, others: u64| {
            (0..initiators.len())
                .filter(|&i| has_bit(present, i) && non_null[i] & others == 0)
                .fold(0, |m, i| m | 1 << i)
        };
        Self {
            rows: null_among(non_null_rows, with_initiators, with_responders),
            columns: null_among(non_null_columns, with_responders, with_initiators),
        }
    }

    fn row(&self, slot: usize) -> bool {
        has_bit(self.rows, slot)
    }

    fn column(&self, slot: usize) -> bool {
        has_bit(self.columns, slot)
    }
}

/// Whether bit `slot` of `bits` is set (slots beyond 63 never are).
fn has_bit(bits: u64, slot: usize) -> bool {
    u32::try_from(slot).ok().and_then(|s| bits.checked_shr(s)).is_some_and(|b| b & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Law, Output};
    use crate::protocols::custom::{Amount, Custom, StopRule};
    use crate::stats::{ks_critical, ks_two_sample};

    /// Averaging over the values 0 to 8 (an order-free rule): `(a, b)` becomes `(floor, ceil)` of
    /// their mean, with probability `p` (a randomized rule below 1).
    fn averaging(p: f64, n: usize) -> Custom {
        let rule = move |a: &str, b: &str| -> std::result::Result<Option<Law<String>>, String> {
            let (a, b): (u32, u32) = (a.parse().map_err(|_| "a number")?, b.parse().map_err(|_| "a number")?);
            let (lo, hi) = ((a + b) / 2, (a + b).div_ceil(2));
            Ok(Some(vec![((lo.to_string(), hi.to_string()), p)]))
        };
        let states: Vec<(String, Output)> = (0..9).map(|v| (v.to_string(), Output::No)).collect();
        let init = [("0".to_string(), Amount::Count(n as u64))];
        let output = |_: &str| -> std::result::Result<Output, String> { Ok(Output::No) };
        Custom::from_fn("averaging", &states, Box::new(rule), Box::new(output), &init, StopRule::Silent, true, n)
            .unwrap()
    }

    /// The configuration of `protocol` (whose states are named 0, 1, ...) with `counts[v]` agents
    /// in state `v`.
    fn configuration_of<'p>(protocol: &'p Custom, counts: &[u64]) -> Configuration<Custom, &'p Custom> {
        let start: Vec<_> =
            counts.iter().enumerate().map(|(v, &c)| (protocol.state(&v.to_string()).unwrap(), c)).collect();
        let monitor = crate::protocol::monitor_of_counts(protocol, &start);
        Configuration::new(protocol, &start, counts.iter().sum(), monitor, PopRng::seed_from_u64(1))
    }

    /// The net change of the counts by the bulk pairs of `batcher`, at state index `index`.
    fn net_at(batcher: &Batcher, index: u32) -> f64 {
        let mut net = 0i64;
        for p in &batcher.pairs {
            let times = p.times as i64;
            net -= times * ([p.initiator, p.responder].iter().filter(|&&i| i == index).count() as i64);
            net += times * (p.result.iter().filter(|&&i| i == index).count() as i64);
        }
        net as f64
    }

    /// Values 0 to 11: a pair whose larger value `m` is 3 or more becomes `(m - 1, m - 1)`
    /// (max-propagation, monotone), a pair of values up to 2 takes floor and ceil of its mean
    /// (averaging: 0, 1 and 2 are the core).
    fn max_propagation_over_a_core(n: usize) -> Custom {
        let rule = move |a: &str, b: &str| -> std::result::Result<Option<Law<String>>, String> {
            let (a, b): (u32, u32) = (a.parse().map_err(|_| "a number")?, b.parse().map_err(|_| "a number")?);
            let m = a.max(b);
            let (x, y) = if m >= 3 { (m - 1, m - 1) } else { ((a + b) / 2, (a + b).div_ceil(2)) };
            Ok(Some(vec![((x.to_string(), y.to_string()), 1.0)]))
        };
        let states: Vec<(String, Output)> = (0..12).map(|v| (v.to_string(), Output::No)).collect();
        let init = [("0".to_string(), Amount::Count(n as u64))];
        let output = |_: &str| -> std::result::Result<Output, String> { Ok(Output::No) };
        Custom::from_fn("max-propagation", &states, Box::new(rule), Box::new(output), &init, StopRule::Silent, false, n)
            .unwrap()
    }

    #[test]
    fn the_monotone_table_and_its_partners_have_the_ordered_tables_law() {
        // 2000 tables of 400 pairs from 4000 agents over 12 values, drawn by the ordered table and
        // by the monotone one (its lower partners then filled in): the net change of three values'
        // counts and the number of three pair types (a peeled state over a peeled one, over a core
        // one as initiator, and with itself), two-sample KS at alpha = 0.001 / 6 each.
        let counts: [u64; 12] = [300, 200, 250, 100, 400, 150, 350, 200, 300, 250, 500, 1000];
        let (n, pairs_len, tables) = (4000u64, 400u64, 2000usize);
        let protocol = max_propagation_over_a_core(n as usize);
        let mut configuration = configuration_of(&protocol, &counts);
        let mut rng = PopRng::seed_from_u64(2);
        let mut batcher = Batcher::new(n, &mut rng);
        assert_eq!(batcher.monotone.peeled(&mut configuration), 9, "values 3 to 11 peel, 0 to 2 are the core");
        let index = |v: usize| configuration.index_at(v);
        let watched_net = [index(0), index(4), index(11)];
        let watched_pairs = [(index(7), index(4)), (index(1), index(9)), (index(10), index(10))];
        let mut samples = vec![[Vec::new(), Vec::new()]; 6];
        for _ in 0..tables {
            for monotone in [false, true] {
                batcher.urn.clear();
                batcher.urn.extend(configuration.present().map(|(_, c)| c));
                batcher.monotone.tops.clear();
                batcher.draw_pair_types(&mut configuration, &mut rng, n, pairs_len, monotone);
                batcher.net.clear();
                batcher.add_results_to_net(&configuration);
                let full = batcher.monotone.fill_in(&mut configuration, &mut rng, &batcher.pairs);
                assert_eq!(full.is_some(), monotone);
                let pairs = full.unwrap_or_else(|| batcher.pairs.clone());
                for (w, &i) in watched_net.iter().enumerate() {
                    let net = batcher.net.changes.iter().find(|c| c.0 == i).map_or(0, |c| c.1);
                    samples[w][usize::from(monotone)].push(net as f64);
                }
                for (w, &(i, j)) in watched_pairs.iter().enumerate() {
                    let times: u64 =
                        pairs.iter().filter(|p| (p.initiator, p.responder) == (i, j)).map(|p| p.times).sum();
                    samples[3 + w][usize::from(monotone)].push(times as f64);
                }
            }
        }
        let critical = ks_critical(0.001 / 6.0, tables, Some(tables));
        for (w, [ordered, monotone]) in samples.iter().enumerate() {
            let d = ks_two_sample(ordered, monotone);
            assert!(d < critical, "statistic {w}: KS {d:.4} >= {critical:.4}");
            // The statistic moves, so the test could fail.
            assert!(ordered.iter().any(|&x| x != ordered[0]), "statistic {w} never changes");
        }
    }

    #[test]
    fn a_rule_is_order_free_when_both_orders_change_the_counts_alike() {
        // Values 0 to 3: 1 and 2 become 2 and 2 in either order; 3 and 0 swap (which changes no
        // count) and 0 and 3 is null; 3 and 2 become 2 and 2; otherwise the smaller value takes
        // the larger when it is the initiator, and the other order is null.
        let rule = |a: &str, b: &str| -> std::result::Result<Option<Law<String>>, String> {
            let (a, b): (u32, u32) = (a.parse().map_err(|_| "a number")?, b.parse().map_err(|_| "a number")?);
            let (x, y) = match (a, b) {
                (1, 2) | (2, 1) => (2, 2),
                (3, 0) | (0, 3) => (0, 3),
                (3, 2) => (2, 2),
                (a, b) if a < b => (b, b),
                _ => (a, b),
            };
            Ok(Some(vec![((x.to_string(), y.to_string()), 1.0)]))
        };
        let states: Vec<(String, Output)> = (0..4).map(|v| (v.to_string(), Output::No)).collect();
        let init = [("0".to_string(), Amount::Count(10))];
        let output = |_: &str| -> std::result::Result<Output, String> { Ok(Output::No) };
        // Declared deterministic (results compared directly) and randomized (laws compared).
        for randomized in [false, true] {
            let protocol = Custom::from_fn(
                "copy-up",
                &states,
                Box::new(rule),
                Box::new(output),
                &init,
                StopRule::Silent,
                randomized,
                10,
            )
            .unwrap();
            for (counts, free) in [
                ([10, 0, 0, 0], true), // one state: every pair is null
                ([5, 0, 0, 5], true),  // a swap and a null pair: no count changes
                ([0, 5, 5, 0], true),  // (1, 2) and (2, 1) both become (2, 2)
                ([5, 5, 0, 0], false), // (0, 1) -> (1, 1), (1, 0) null
                ([0, 5, 0, 5], false), // (1, 3) -> (3, 3), (3, 1) null
                ([0, 0, 5, 5], false), // (2, 3) -> (3, 3), (3, 2) -> (2, 2)
            ] {
                let mut configuration = configuration_of(&protocol, &counts);
                let mut rng = PopRng::seed_from_u64(1);
                let mut batcher = Batcher::new(10, &mut rng);
                let found = batcher.order_free(&mut configuration);
                assert_eq!(found, free, "counts {counts:?}, randomized {randomized}");
            }
        }
    }

    #[test]
    fn the_unordered_table_has_the_ordered_tables_law() {
        // 2000 tables of 400 pairs from 4000 agents spread over 9 values, drawn both ways; the net
        // change of three values' counts, two-sample KS at alpha = 0.001 / 3 each; once with a
        // deterministic rule (memoised results) and once with a randomized one (split laws).
        let counts: [u64; 9] = [900, 200, 400, 300, 500, 250, 350, 600, 500];
        let (n, pairs_len, tables) = (4000u64, 400u64, 2000usize);
        for p in [1.0, 0.7] {
            let protocol = averaging(p, n as usize);
            let mut configuration = configuration_of(&protocol, &counts);
            let mut rng = PopRng::seed_from_u64(2);
            let mut batcher = Batcher::new(n, &mut rng);
            assert!(batcher.order_free(&mut configuration), "averaging is order-free (p = {p})");
            let indices: Vec<u32> = configuration.present().map(|(i, _)| i).collect();
            let watched = [indices[0], indices[4], indices[7]];
            let mut samples = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
            for _ in 0..tables {
                for unordered in [false, true] {
                    batcher.urn.clear();
                    batcher.urn.extend(configuration.present().map(|(_, c)| c));
                    if unordered {
                        batcher.draw_unordered_pair_types(&mut configuration, &mut rng, n, pairs_len);
                    } else {
                        batcher.draw_pair_types(&mut configuration, &mut rng, n, pairs_len, false);
                    }
                    for (w, &index) in watched.iter().enumerate() {
                        samples[w][usize::from(unordered)].push(net_at(&batcher, index));
                    }
                }
            }
            let critical = ks_critical(0.001 / 3.0, tables, Some(tables));
            for (w, [ordered, unordered]) in samples.iter().enumerate() {
                let d = ks_two_sample(ordered, unordered);
                assert!(d < critical, "p = {p}, value {}: KS {d:.4} >= {critical:.4}", [0, 4, 7][w]);
                // The statistic moves, so the test could fail.
                assert!(ordered.iter().any(|&x| x != ordered[0]), "value {} never changes", [0, 4, 7][w]);
            }
        }
    }
}
