//! The count engine's configuration: the counts of the states present, with everything kept in
//! step with them (interned states, a Fenwick tree, the table of non-null pairs, the monitor, the
//! census), and the step count. Single steps, null skipping and batches all change it through
//! these methods. Both count engines ([`CountRun`](crate::engine::CountRun) and the batched engine) run on
//! it.

mod laws;
mod memo;
mod skip;

pub use skip::geometric_skip;

use crate::engine::fenwick::Fenwick;
use crate::engine::sampling::u128_as_f64;
use crate::engine::snapshot::{CountSnapshot, static_cause};
use crate::engine::{Event, EventLog, Observer};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{Monitor, Protocol, StateHasher, tally};
use crate::rng::PopRng;
use crate::rng::below_u64;
use laws::Laws;
use memo::TransitionMemo;
use skip::{K, Next, SkipTable};
use std::collections::HashMap;
use std::ops::Deref;

/// Null skipping is used while at most this many states are present.
pub const SKIP_MAX_STATES: usize = 64;

/// Plain steps replace null skipping while more than this fraction of the steps are non-null.
const PLAIN_ABOVE: f64 = 0.5;

/// The slot of a state that is not present.
const ABSENT: u32 = u32::MAX;

/// A configuration of the complete graph as counts over interned states, and its run so far.
pub(in crate::engine) struct Configuration<P: Protocol, R: Deref<Target = P>> {
    /// The protocol, borrowed (`&P`) or owned (`Box<P>`).
    protocol: R,
    n: u64,
    /// `n (n - 1)`, the number of ordered pairs, rounded to `f64` once.
    pairs: f64,
    /// Interned states, by index; never removed, so their number is the distinct states visited.
    states: Vec<P::State>,
    index: HashMap<P::State, u32, StateHasher>,
    /// Agents per state index.
    counts: Vec<u64>,
    /// `counts` again, for picking agents by rank.
    fenwick: Fenwick,
    /// Indices of the states present (count > 0), in slot order, and each index's slot.
    present: Vec<u32>,
    slot: Vec<u32>,
    /// The non-null pairs of present states, kept while null skipping is used.
    skip: Option<Box<SkipTable<P::State>>>,
    /// While taking plain steps: the step at which to rebuild the skip table and see whether
    /// skipping pays again.
    skip_review: u128,
    memo: TransitionMemo,
    /// Whether the protocol is randomized: its pairs' results then come from `laws`, drawn from
    /// `outcomes` (`memo` keeps only the pairs that need no draw).
    randomized: bool,
    laws: Laws<P::State>,
    outcomes: PopRng,
    monitor: P::Monitor,
    step: u128,
    /// Whether the census is kept: the causes of demotions (interned states are kept anyway).
    census: bool,
    last_demotion: Option<&'static str>,
    /// The events since the driver last took them, when an event trace is kept.
    events: Option<EventLog<P::State>>,
}

impl<P: Protocol, R: Deref<Target = P>> Configuration<P, R> {
    /// The configuration with these (state, count) pairs (`n >= 2` agents in all), at step 0.
    /// Randomized transitions draw from `outcomes`.
    pub(super) fn new(protocol: R, counts: &[(P::State, u64)], n: u64, monitor: P::Monitor, outcomes: PopRng) -> Self {
        let mut configuration = Self {
            randomized: protocol.randomized().is_some(),
            protocol,
            n,
            pairs: (u128::from(n) * u128::from(n - 1)) as f64,
            states: Vec::new(),
            index: HashMap::default(),
            counts: Vec::new(),
            fenwick: Fenwick::default(),
            present: Vec::new(),
            slot: Vec::new(),
            skip: None,
            skip_review: 0,
            memo: TransitionMemo::default(),
            laws: Laws::default(),
            outcomes,
            monitor,
            step: 0,
            census: false,
            last_demotion: None,
            events: None,
        };
        configuration.load(counts);
        configuration
    }

    /// Replaces the configuration by the one with these (state, count) pairs (same `n`): counts,
    /// present states, skip table.
    fn load(&mut self, counts: &[(P::State, u64)]) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.slot.iter_mut().for_each(|s| *s = ABSENT);
        self.present.clear();
        self.skip = None;
        for &(state, count) in counts {
            let i = self.intern(state);
            self.counts[i as usize] += count;
        }
        for i in 0..self.counts.len() {
            if self.counts[i] > 0 {
                self.slot[i] = self.present.len() as u32;
                self.present.push(i as u32);
            }
        }
        self.fenwick.rebuild(&self.counts);
        if self.present.len() <= SKIP_MAX_STATES {
            self.rebuild_skip();
        }
    }

    /// What a snapshot keeps of the configuration (the interned states are written by the
    /// caller, in index order); `rng` is the schedule stream. The pending skip and the batcher are
    /// the caller's.
    pub(super) fn snapshot(&self, rng: PopRng) -> CountSnapshot {
        CountSnapshot {
            counts: self.counts.clone(),
            present: self.present.clone(),
            step: self.step,
            rng,
            outcomes: self.outcomes.clone(),
            pending: None,
            skipping: self.skip.is_some(),
            skip_review: self.skip_review,
            census: self.census,
            last_demotion: self.last_demotion.map(String::from),
            batcher: None,
        }
    }

    /// The configuration a snapshot kept, with its interned `states` in index order: the present
    /// states in their slot order, the skip table rebuilt if it was kept; the monitor from the
    /// counts. The memo and the laws are caches and start empty.
    pub(super) fn restore(protocol: R, states: Vec<P::State>, saved: CountSnapshot) -> Result<Self> {
        let damaged = || Error::Snapshot { reason: "its present states do not match its counts".into() };
        let mut slot = vec![ABSENT; states.len()];
        for (r, &i) in saved.present.iter().enumerate() {
            let entry = slot.get_mut(i as usize).ok_or_else(damaged)?;
            if *entry != ABSENT || saved.counts[i as usize] == 0 {
                return Err(damaged());
            }
            *entry = r as u32;
        }
        if saved.counts.iter().filter(|&&c| c > 0).count() != saved.present.len()
            || (saved.skipping && saved.present.len() > SKIP_MAX_STATES)
        {
            return Err(damaged());
        }
        let n: u64 = saved.counts.iter().sum();
        let pairs: Vec<(P::State, u64)> =
            saved.present.iter().map(|&i| (states[i as usize], saved.counts[i as usize])).collect();
        let index = states.iter().enumerate().map(|(i, &s)| (s, i as u32)).collect();
        let mut memo = TransitionMemo::default();
        memo.cover(states.len());
        let mut fenwick = Fenwick::default();
        fenwick.rebuild(&saved.counts);
        let mut configuration = Self {
            randomized: protocol.randomized().is_some(),
            monitor: crate::protocol::monitor_of_counts(&*protocol, &pairs),
            protocol,
            n,
            pairs: (u128::from(n) * u128::from(n - 1)) as f64,
            states,
            index,
            counts: saved.counts,
            fenwick,
            present: saved.present,
            slot,
            skip: None,
            skip_review: saved.skip_review,
            memo,
            laws: Laws::default(),
            outcomes: saved.outcomes,
            step: saved.step,
            census: saved.census,
            last_demotion: static_cause(saved.last_demotion),
            events: None,
        };
        if saved.skipping {
            configuration.rebuild_skip();
        }
        Ok(configuration)
    }

    /// Lets `observer` act now: one that only looks and takes counts sees the states present;
    /// another acts on the expanded configuration, which is reloaded if it changed. Tells whether
    /// the configuration changed.
    pub(super) fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) -> bool {
        if observer.only_looks() {
            let counts: Vec<(P::State, u64)> = self.present().map(|(i, count)| (self.state(i), count)).collect();
            if observer.look_at_counts(self.step, &*self.protocol, &counts) {
                return false;
            }
        }
        let mut agents = self.agents();
        let changed = observer.observe(self.step, &*self.protocol, &mut agents, faults_rng);
        if changed {
            self.monitor = self.protocol.monitor(&agents, &Graph::Complete);
            self.load(&tally(&agents));
        }
        changed
    }

    /// Goes on with `protocol` (same states, rules and outputs; see
    /// [`AgentRun::retarget`](crate::engine::AgentRun::retarget)): the monitor is rebuilt.
    pub(super) fn retarget(&mut self, protocol: R) {
        debug_assert_eq!(protocol.randomized().is_some(), self.randomized, "a retarget keeps the rules");
        let counts: Vec<(P::State, u64)> = self.present().map(|(i, count)| (self.state(i), count)).collect();
        self.monitor = crate::protocol::monitor_of_counts(&*protocol, &counts);
        self.protocol = protocol;
    }

    /// Whether the protocol has randomized rules.
    pub(in crate::engine) fn randomized(&self) -> bool {
        self.randomized
    }

    /// The protocol.
    pub(in crate::engine) fn protocol(&self) -> &P {
        &self.protocol
    }

    /// The population size.
    pub(in crate::engine) fn n(&self) -> u64 {
        self.n
    }

    /// Steps taken so far.
    pub(in crate::engine) fn step(&self) -> u128 {
        self.step
    }

    /// Counts `steps` more steps taken (whatever they did is applied separately).
    #[inline]
    pub(in crate::engine) fn count_steps(&mut self, steps: u128) {
        self.step += steps;
    }

    /// The safe-set monitor.
    pub(in crate::engine) fn monitor(&self) -> &P::Monitor {
        &self.monitor
    }

    /// Replaces the monitor by one that recorded what was applied since (a batch).
    pub(in crate::engine) fn set_monitor(&mut self, monitor: P::Monitor) {
        self.monitor = monitor;
    }

    /// Starts keeping a log of the events (see [`crate::engine::events`]).
    pub(super) fn keep_events(&mut self) {
        self.events.get_or_insert_with(EventLog::new);
    }

    /// Whether the event log is full (the engine then hands it over).
    #[inline]
    pub(super) fn events_full(&self) -> bool {
        self.events.as_ref().is_some_and(EventLog::full)
    }

    /// Hands the events logged to those of `observers` that want them; returns whether the log
    /// was full.
    pub(super) fn hand_events(&mut self, observers: &mut [&mut dyn Observer<P>]) -> bool {
        self.events.as_mut().is_some_and(|log| log.hand_over(&*self.protocol, observers))
    }

    /// Starts recording the causes of demotions.
    pub(super) fn keep_census(&mut self) {
        self.census = true;
    }

    /// Whether the causes of demotions are recorded.
    pub(in crate::engine) fn keeps_census(&self) -> bool {
        self.census
    }

    /// Records `cause` as that of the last demotion (a batch's, found by its census).
    pub(in crate::engine) fn note_demotion(&mut self, cause: &'static str) {
        self.last_demotion = Some(cause);
    }

    /// The cause of the last demotion recorded.
    pub(super) fn last_demotion(&self) -> Option<&'static str> {
        self.last_demotion
    }

    /// How many states were interned: every one was present at some step.
    pub(super) fn distinct_states(&self) -> u64 {
        self.states.len() as u64
    }

    /// The number of states present.
    #[inline]
    pub(in crate::engine) fn present_len(&self) -> usize {
        self.present.len()
    }

    /// The index of the state in slot `slot`.
    #[inline]
    pub(in crate::engine) fn index_at(&self, slot: usize) -> u32 {
        self.present[slot]
    }

    /// The present states' (index, count), in slot order.
    pub(in crate::engine) fn present(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.present.iter().map(|&i| (i, self.counts[i as usize]))
    }

    /// The state with index `i`.
    #[inline]
    pub(in crate::engine) fn state(&self, i: u32) -> P::State {
        self.states[i as usize]
    }

    /// The states with the indices of a pair.
    #[inline]
    pub(in crate::engine) fn states_of(&self, pair: [u32; 2]) -> [P::State; 2] {
        [self.state(pair[0]), self.state(pair[1])]
    }

    /// The configuration as an agent array (present states in slot order); `O(n)`.
    pub(super) fn agents(&self) -> Vec<P::State> {
        let mut agents = Vec::with_capacity(self.n as usize);
        for (i, count) in self.present() {
            agents.extend(std::iter::repeat_n(self.state(i), count as usize));
        }
        agents
    }

    /// The total non-null weight `W` kept by the skip table, if kept.
    pub(super) fn non_null_weight(&self) -> Option<u128> {
        self.skip.as_deref().map(SkipTable::weight)
    }

    /// While the skip table is kept (at most 64 present states): per slot, the slots it forms a
    /// non-null pair with as initiator (bit `c` of `rows[r]`) and as responder (bit `r` of
    /// `cols[c]`). A pair that may change something (a randomized one) counts as non-null.
    pub(in crate::engine) fn non_null_bits(&self) -> Option<(&[u64; SKIP_MAX_STATES], &[u64; SKIP_MAX_STATES])> {
        self.skip.as_deref().map(SkipTable::non_null_bits)
    }

    /// The probability `p = W / (n (n - 1))` that a step is non-null, while the skip table is kept.
    #[inline]
    pub(super) fn non_null_probability(&self) -> Option<f64> {
        self.skip.as_deref().map(|table| u128_as_f64(table.weight()) / self.pairs)
    }

    /// Whether to skip null steps now (see the module docs), given the current non-null
    /// probability `p`: keeps the skip table while `p` is at most [`PLAIN_ABOVE`], else drops it;
    /// rebuilds it when a review of plain steps is due and few enough states are present. Returns
    /// `p` when skipping.
    pub(super) fn review_skip(&mut self, mut p: Option<f64>) -> Option<f64> {
        if self.skip.is_none() && self.step >= self.skip_review && self.present.len() <= SKIP_MAX_STATES {
            self.rebuild_skip();
            p = self.non_null_probability();
        }
        let p = p?;
        if p <= PLAIN_ABOVE {
            return Some(p);
        }
        self.drop_skip();
        None
    }

    /// Takes plain steps from now on, until a review in `64 k^2` steps (`k` states present): a
    /// rebuild costs `O(k^2)` transitions, so reviews cost a small fraction of the plain steps.
    fn drop_skip(&mut self) {
        self.skip = None;
        let k = self.present.len() as u128;
        self.skip_review = self.step + 64 * (k * k).max(16);
    }

    /// Builds the skip table for the present states (`O(k^2)` transitions).
    fn rebuild_skip(&mut self) {
        let k = self.present.len();
        debug_assert!(k <= K);
        let mut table = SkipTable::new();
        for r in 0..k {
            for c in 0..k {
                self.fill_pair(&mut table, r, c);
            }
        }
        for r in 0..k {
            table.refresh_row_sum(r, &self.present, &self.counts);
        }
        table.refresh_weight(&self.present, &self.counts);
        self.skip = Some(table);
    }

    /// Enters the pair of slots `(r, c)` into `table`, by its transition (if randomized, its law,
    /// or its result when that needs no draw).
    fn fill_pair(&mut self, table: &mut SkipTable<P::State>, r: usize, c: usize) {
        let (i, j) = (self.present[r], self.present[c]);
        let (a, b) = (self.state(i), self.state(j));
        let next = if self.randomized {
            match self.randomized_effect(i, j) {
                Effect::To(i2, j2) => ((i2, j2) != (i, j)).then(|| Next::To(self.state(i2), self.state(j2))),
                Effect::Law(id) => Some(Next::Law(id)),
            }
        } else {
            let (a2, b2) = self.protocol.transition(a, b);
            (a2 != a || b2 != b).then_some(Next::To(a2, b2))
        };
        table.set_pair(r, c, next);
    }

    /// The id of the law of the pair of state indices `(i, j)` (randomized protocols), `None` when
    /// it changes nothing.
    fn law_id(&mut self, i: u32, j: u32) -> Option<u32> {
        let (a, b) = (self.state(i), self.state(j));
        let protocol = &*self.protocol;
        self.laws.id((i, j), (a, b), || crate::protocol::law(protocol, a, b))
    }

    /// Draws a result of the law `id` from the outcome stream: the result states' indices
    /// (interned on first draw), or the pair's own when nothing changes.
    fn draw_law(&mut self, id: u32) -> (u32, u32) {
        let law = self.laws.get(id);
        let Some(k) = law.draw(&mut self.outcomes) else { return law.before };
        self.interned_result(id, k)
    }

    /// The state indices of result `k` of the law `id`, interned on first use.
    pub(in crate::engine) fn interned_result(&mut self, id: u32, k: usize) -> (u32, u32) {
        let law = self.laws.get(id);
        if let Some(result) = law.interned[k] {
            return result;
        }
        let (a2, b2) = law.results[k];
        let result = (self.intern(a2), self.intern(b2));
        self.laws.get_mut(id).interned[k] = Some(result);
        result
    }

    /// Splits `times` interactions of the pair whose law is `id` across the law's results, by a
    /// multinomial draw from the outcome stream (conditional binomials); calls `each` with every
    /// result that some of them take (state indices, interned now) and how many. The rest change
    /// nothing.
    pub(in crate::engine) fn split_law(&mut self, id: u32, times: u64, mut each: impl FnMut((u32, u32), u64)) {
        let (mut left, mut mass) = (times, 1.0f64);
        for k in 0..self.laws.get(id).probabilities.len() {
            if left == 0 {
                break;
            }
            let p = self.laws.get(id).probabilities[k];
            let share = if mass <= p { 1.0 } else { (p / mass).clamp(0.0, 1.0) };
            mass -= p;
            let taken = crate::engine::sampling::binomial(&mut self.outcomes, left, share);
            if taken > 0 {
                left -= taken;
                each(self.interned_result(id, k), taken);
            }
        }
    }

    /// The index of `state`, interned now if new.
    fn intern(&mut self, state: P::State) -> u32 {
        if let Some(&i) = self.index.get(&state) {
            return i;
        }
        let i = self.states.len() as u32;
        self.states.push(state);
        self.index.insert(state, i);
        self.counts.push(0);
        self.slot.push(ABSENT);
        if self.states.len() > self.fenwick.capacity() {
            self.fenwick.rebuild(&self.counts);
        }
        self.memo.cover(self.states.len());
        i
    }

    /// Makes state `i` (count 0) present.
    fn add_present(&mut self, i: u32) {
        let new_slot = self.present.len();
        self.slot[i as usize] = new_slot as u32;
        self.present.push(i);
        if new_slot >= K {
            self.drop_skip();
            return;
        }
        if let Some(mut table) = self.skip.take() {
            for other in 0..=new_slot {
                self.fill_pair(&mut table, new_slot, other);
                self.fill_pair(&mut table, other, new_slot);
            }
            // The new state has count 0, so the other rows' sums do not change.
            table.refresh_row_sum(new_slot, &self.present, &self.counts);
            self.skip = Some(table);
        }
    }

    /// Removes state `i` (count 0) from the present states.
    fn remove_present(&mut self, i: u32) {
        let gone = self.slot[i as usize] as usize;
        let last = self.present.len() - 1;
        if let Some(table) = &mut self.skip {
            table.remove_slot(gone, last);
        }
        self.present.swap_remove(gone);
        if gone < self.present.len() {
            self.slot[self.present[gone] as usize] = gone as u32;
        }
        self.slot[i as usize] = ABSENT;
    }

    /// Adds `delta` to the count of the present state `i`, keeping the Fenwick tree and the skip
    /// table's weights in step.
    #[inline]
    fn change_count(&mut self, i: u32, delta: i64) {
        let old = self.counts[i as usize];
        self.counts[i as usize] = old.wrapping_add_signed(delta);
        self.fenwick.add(i as usize, delta);
        if let Some(table) = &mut self.skip {
            let own = self.slot[i as usize] as usize;
            table.count_changed(own, old, delta, &self.present, &self.counts);
        }
    }

    /// Applies an interaction that turned the states with indices `before` into `after`.
    fn apply(&mut self, before: [u32; 2], after: [u32; 2]) {
        let mut deltas: [(u32, i64); 4] = [(ABSENT, 0); 4];
        let mut len = 0;
        for (i, d) in [(before[0], -1), (before[1], -1), (after[0], 1), (after[1], 1)] {
            match deltas[..len].iter_mut().find(|(j, _)| *j == i) {
                Some(entry) => entry.1 += d,
                None => {
                    deltas[len] = (i, d);
                    len += 1;
                }
            }
        }
        self.apply_deltas(&deltas[..len]);
    }

    /// Adds `delta` to the count of each state index listed (each index at most once).
    pub(in crate::engine) fn apply_deltas(&mut self, deltas: &[(u32, i64)]) {
        for &(i, d) in deltas {
            if d > 0 && self.slot[i as usize] == ABSENT {
                self.add_present(i);
            }
        }
        for &(i, d) in deltas {
            if d != 0 {
                self.change_count(i, d);
            }
        }
        // States come and go with count 0, which adds nothing to W.
        for &(i, d) in deltas {
            if d < 0 && self.counts[i as usize] == 0 {
                self.remove_present(i);
            }
        }
        debug_assert_eq!(
            self.non_null_weight(),
            self.skip.as_deref().map(|t| t.weight_from_rows(&self.present, &self.counts)),
            "W kept in step"
        );
    }

    /// Draws an ordered pair of distinct agents uniformly; returns their state indices.
    #[inline]
    pub(super) fn draw_pair(&self, rng: &mut PopRng) -> (u32, u32) {
        let u = below_u64(rng, self.n);
        let v = below_u64(rng, self.n - 1);
        let v = if v >= u { v + 1 } else { v };
        (self.fenwick.find(u) as u32, self.fenwick.find(v) as u32)
    }

    /// Whether an interaction `before -> after` changes some agent's output.
    #[inline]
    pub(in crate::engine) fn changes_output(&self, before: [P::State; 2], after: [P::State; 2]) -> bool {
        self.protocol.output(after[0]) != self.protocol.output(before[0])
            || self.protocol.output(after[1]) != self.protocol.output(before[1])
    }

    /// Records a non-null interaction `before -> after` and tells whether `watch` is met.
    #[inline]
    fn event<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        before: [P::State; 2],
        after: [P::State; 2],
    ) -> bool {
        self.monitor.record(before, after);
        if let Some(log) = &mut self.events {
            log.push(Event { step: self.step, before, after });
        }
        if self.census
            && let Some(cause) = self.protocol.observables().and_then(|o| o.demotion_cause(before, after))
        {
            self.last_demotion = Some(cause);
        }
        (SAFE_SET && self.monitor.is_safe()) || (OUTPUT_CHANGE && self.changes_output(before, after))
    }

    /// An interaction between agents in the states with indices `i` (initiator) and `j`; tells
    /// whether `watch` is met.
    #[inline]
    pub(super) fn interact<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, i: u32, j: u32) -> bool {
        let after = self.transition_of(i, j);
        after != (i, j) && self.take::<SAFE_SET, OUTPUT_CHANGE>([i, j], [after.0, after.1])
    }

    /// Takes a non-null interaction that turned the states with indices `before` into `after`:
    /// applies it, records it and tells whether `watch` is met.
    #[inline]
    pub(in crate::engine) fn take<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        before: [u32; 2],
        after: [u32; 2],
    ) -> bool {
        let (a, b) = (self.states_of(before), self.states_of(after));
        self.apply(before, after);
        self.event::<SAFE_SET, OUTPUT_CHANGE>(a, b)
    }

    /// Draws a non-null pair from the skip table (with probability proportional to its weight)
    /// and takes it; tells whether `watch` is met. Needs the table, with `W > 0`. (A randomized
    /// pair's draw may change nothing: then the step was null.)
    pub(super) fn take_non_null<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, rng: &mut PopRng) -> bool {
        let table = self.skip.as_deref().expect("skip table");
        let (r, c) = table.draw_non_null(rng, &self.present, &self.counts);
        let before = [self.present[r], self.present[c]];
        let (i2, j2) = self.result_of(r, c);
        [i2, j2] != before && self.take::<SAFE_SET, OUTPUT_CHANGE>(before, [i2, j2])
    }

    /// What an interaction between the states with indices `i` and `j` does, without drawing:
    /// a known result (the pair's own indices when null) or, for a randomized protocol, a law.
    pub(in crate::engine) fn effect_of(&mut self, i: u32, j: u32) -> Effect {
        if !self.randomized {
            let (i2, j2) = self.transition_of(i, j);
            return Effect::To(i2, j2);
        }
        self.randomized_effect(i, j)
    }

    /// Whether an interaction of the states with indices `i` and `j` changes the counts alike in
    /// either order, in law: the results of `(i, j)` and of `(j, i)` are the same multisets of two
    /// states with the same probabilities, those that change no count (`{i, j}` itself) left out.
    /// Then only unordered pairs matter to the counts (the batched engine's unordered table).
    pub(in crate::engine) fn order_free(&mut self, i: u32, j: u32) -> bool {
        if !self.randomized {
            // One result each way (indices: a state has one index): the same multiset, or neither
            // changes a count. The transitions are found (and their results interned) in the
            // order the laws' path below finds them.
            let (forward, backward) = (self.transition_of(i, j), self.transition_of(j, i));
            let changes = |pair| !same_multiset(pair, (i, j));
            return match (changes(forward), changes(backward)) {
                (false, false) => true,
                (true, true) => same_multiset(forward, backward),
                _ => false,
            };
        }
        let forward = self.results_in_law(i, j);
        let backward = self.results_in_law(j, i);
        forward.len() == backward.len()
            && forward.iter().all(|&(pair, p)| {
                backward.iter().any(|&(other, q)| same_multiset(pair, other) && (p - q).abs() <= 1e-12 * p.max(q))
            })
    }

    /// The results of `(i, j)` in law, as states, each multiset once with its probability, those
    /// that change no count left out.
    fn results_in_law(&mut self, i: u32, j: u32) -> Vec<ResultInLaw<P::State>> {
        let before = (self.state(i), self.state(j));
        let listed: Vec<ResultInLaw<P::State>> = match self.effect_of(i, j) {
            Effect::To(i2, j2) => vec![((self.state(i2), self.state(j2)), 1.0)],
            Effect::Law(id) => {
                let law = self.laws.get(id);
                law.results.iter().copied().zip(law.probabilities.iter().copied()).collect()
            }
        };
        let mut merged: Vec<ResultInLaw<P::State>> = Vec::new();
        for (pair, p) in listed.into_iter().filter(|&(pair, _)| !same_multiset(pair, before)) {
            match merged.iter_mut().find(|(other, _)| same_multiset(pair, *other)) {
                Some(entry) => entry.1 += p,
                None => merged.push((pair, p)),
            }
        }
        merged
    }

    /// [`Configuration::effect_of`] for a randomized protocol. A pair whose result needs no draw
    /// (it is null, or its law is one result with probability 1 and that result is interned) is
    /// memoised, so later interactions of the pair skip the law's hash lookup and split; this
    /// draws nothing that the law would not have drawn (a certain law draws nothing).
    #[inline]
    fn randomized_effect(&mut self, i: u32, j: u32) -> Effect {
        if let Some((i2, j2)) = self.memo.get(i, j) {
            return Effect::To(i2, j2);
        }
        let Some(id) = self.law_id(i, j) else {
            self.memo.set(i, j, (i, j));
            return Effect::To(i, j);
        };
        match self.laws.get(id).certain_result() {
            Some((i2, j2)) => {
                self.memo.set(i, j, (i2, j2));
                Effect::To(i2, j2)
            }
            None => Effect::Law(id),
        }
    }

    /// The result states' indices of one interaction between the states with indices `i` and
    /// `j`: from the skip table when both are present in it, else from the memo, else by the
    /// transition (results interned only when the pair is non-null, then memoised); a randomized
    /// protocol's result is drawn from the pair's law.
    #[inline]
    pub(in crate::engine) fn transition_of(&mut self, i: u32, j: u32) -> (u32, u32) {
        let (r, c) = (self.slot[i as usize], self.slot[j as usize]);
        if let Some(table) = self.skip.as_deref()
            && r != ABSENT
            && c != ABSENT
        {
            return if table.is_non_null(r as usize, c as usize) {
                self.result_of(r as usize, c as usize)
            } else {
                (i, j)
            };
        }
        if self.randomized {
            return match self.randomized_effect(i, j) {
                Effect::To(i2, j2) => (i2, j2),
                Effect::Law(id) => self.draw_law(id),
            };
        }
        if let Some(result) = self.memo.get(i, j) {
            return result;
        }
        let (a, b) = (self.state(i), self.state(j));
        let (a2, b2) = self.protocol.transition(a, b);
        let result = if a2 == a && b2 == b { (i, j) } else { (self.intern(a2), self.intern(b2)) };
        // Interning may have grown the memo: it covers the pair now if it ever will.
        self.memo.set(i, j, result);
        result
    }

    /// The state indices the non-null pair of slots `(r, c)` turns into (interned on first use),
    /// drawn from its law for a randomized pair.
    fn result_of(&mut self, r: usize, c: usize) -> (u32, u32) {
        let table = self.skip.as_deref().expect("skip table");
        if let Some(result) = table.interned_result(r, c) {
            return result;
        }
        let (a2, b2) = match table.result_states(r, c) {
            Next::To(a2, b2) => (a2, b2),
            Next::Law(id) => return self.draw_law(id),
        };
        let result = (self.intern(a2), self.intern(b2));
        if let Some(table) = &mut self.skip {
            table.set_interned_result(r, c, result);
        }
        result
    }
}

/// A result of an interaction (the two states) and its probability.
type ResultInLaw<S> = ((S, S), f64);

/// Whether two pairs of states are the same multiset.
fn same_multiset<S: PartialEq>((a, b): (S, S), (c, d): (S, S)) -> bool {
    (a == c && b == d) || (a == d && b == c)
}

/// What an interaction of a pair does, as [`Configuration::effect_of`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::engine) enum Effect {
    /// The result states' indices (the pair's own when null).
    To(u32, u32),
    /// A randomized pair: the id of its law.
    Law(u32),
}
