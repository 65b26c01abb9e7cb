//! The count engine: the configuration of the complete graph as counts over the states present.
//!
//! On the complete graph agents are exchangeable, so a configuration is its multiset of states.
//! States are interned as they appear (no enumeration of the state space) and kept as counts. Each
//! step draws an ordered pair of distinct agents uniformly: initiator state `i` with probability
//! `c_i / n`, responder state `j` with probability `(c_j - [i = j]) / (n - 1)`.
//!
//! **Null skipping.** While at most [`SKIP_MAX_STATES`] states are present, the engine keeps, for
//! every ordered pair of present states, whether the pair is *null* (its transition changes
//! nothing) and the total non-null weight `W = sum over non-null (i, j) of c_i (c_j - [i = j])`.
//! A step is then non-null with probability `p = W / (n (n - 1))`, independently of the past, so
//! the number of null steps before the next non-null one is geometric on `{0, 1, ...}` with
//! parameter `p`; the engine draws it by inversion, adds it to the step count, and draws the
//! non-null pair with probability proportional to its weight (the law of a step conditioned on
//! being non-null). Null steps change nothing, so the configuration after each non-null step and
//! its exact step number have the same law as in a step-by-step run; the safe set is checked after
//! every non-null step, so first-passage steps are exact. A skip that would cross a horizon or an
//! observer's step is kept (its remainder is used afterwards, which is exact and keeps the random
//! stream independent of observers that only look); a configuration changed from outside (a fault)
//! discards it, which is exact because the geometric law is memoryless.
//!
//! **Plain steps.** With more states present, or while more than half of the steps are non-null
//! (skipping then saves little, and keeping the table costs `O(k)` per change of a count), the
//! engine drops the table and takes plain steps: one pair per step, found by a Fenwick tree over
//! the counts, its result looked up in a memo of the transitions by state index. Every
//! `64 k^2` plain steps it rebuilds the table (`O(k^2)` transitions) to see whether skipping
//! pays again. The choice depends only on the configuration and the step count, so the law of
//! the run is the same either way; protocols with huge state spaces still run.

use super::batched::Batcher;
use super::fenwick::Fenwick;
use super::sampling::{below, below_wide, unit_open0};
use super::{CensusReport, Drivable, Observer, StateHasher, Watch};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{Monitor, Protocol, tally};
use crate::rng::PopRng;
use std::collections::HashMap;

/// Null skipping is used while at most this many states are present.
pub const SKIP_MAX_STATES: usize = 64;

/// The largest population the count engines take (counts and weights stay exact below it).
pub const MAX_AGENTS: u64 = 1 << 62;

/// Plain steps replace null skipping while more than this fraction of the steps are non-null.
const PLAIN_ABOVE: f64 = 0.5;

/// Transitions are memoised by state index for the first this many interned states (a table of
/// `MEMO_MAX_STATES^2` entries of 8 bytes).
const MEMO_MAX_STATES: usize = 1024;

const NONE: u32 = u32::MAX;
const K: usize = SKIP_MAX_STATES;

/// A geometric number of failures before the first success, `P(G = g) = (1 - p)^g p` on
/// `{0, 1, 2, ...}`, by inversion: `G = floor(ln U / ln(1 - p))` with `U` uniform on `(0, 1]`, so
/// `P(G >= g) = P(U <= (1 - p)^g) = (1 - p)^g`. `ln(1 - p)` is computed as `ln_1p(-p)`, accurate
/// for tiny `p`; `p >= 1` gives 0 and `p <= 0` gives `u128::MAX` (never). `U` has 53 random
/// bits and the quotient is a double, so the law is exact up to a relative error of about `2^-52`
/// (for skips beyond `2^53` steps, the last bits of the skip are those of a rounded double).
pub fn geometric_skip(rng: &mut PopRng, p: f64) -> u128 {
    if p >= 1.0 {
        return 0;
    }
    if p <= 0.0 || p.is_nan() {
        return u128::MAX;
    }
    let u = unit_open0(rng);
    // The ratio is >= 0, so truncation is the floor; `as` saturates.
    (u.ln() / (-p).ln_1p()) as u128
}

/// Which ordered pairs of present states are non-null, over the slots of the present states.
pub(super) struct SkipTable<S> {
    /// `row[r]` has bit `c` set iff the pair (slot `r`, slot `c`) is non-null.
    pub(super) row: [u64; K],
    /// `col[c]` has bit `r` set iff the pair (slot `r`, slot `c`) is non-null.
    col: [u64; K],
    /// The result states of each non-null pair, row-major with stride `K`.
    next: Vec<Option<(S, S)>>,
    /// Their interned indices, filled when the pair first fires.
    next_index: Vec<(u32, u32)>,
    /// `s[r] = sum over c in row r of (count(c) - [r = c])`; the row's weight is `count(r) s[r]`.
    s: [i64; K],
    /// The total non-null weight.
    pub(super) w: u128,
}

/// A run in progress on the count engine (complete graph only).
pub struct CountRun<'p, P: Protocol> {
    pub(super) protocol: &'p P,
    pub(super) n: u64,
    /// `n (n - 1)`: the number of ordered pairs.
    pub(super) pairs: u128,
    /// Interned states, by index; never removed, so their number is the distinct states visited.
    pub(super) states: Vec<P::State>,
    index: HashMap<P::State, u32, StateHasher>,
    pub(super) counts: Vec<u64>,
    /// `counts` again, for picking agents by rank.
    fenwick: Fenwick,
    /// Indices of the states present (count > 0), in slot order, and each index's slot.
    pub(super) present: Vec<u32>,
    slot: Vec<u32>,
    pub(super) skip: Option<Box<SkipTable<P::State>>>,
    /// While taking plain steps: the step at which to rebuild the skip table and see whether
    /// skipping pays again.
    skip_review: u128,
    /// `memo[i * memo_stride + j]` holds the result indices of the pair of state indices `(i, j)`
    /// packed as `(i2 << 32 | j2) + 1`, or 0 when not yet computed.
    memo: Vec<u64>,
    memo_stride: usize,
    /// Null steps still to take before the next non-null one, drawn for the current configuration.
    pub(super) pending: Option<u128>,
    pub(super) monitor: P::Monitor,
    pub(super) rng: PopRng,
    pub(super) step: u128,
    pub(super) census: bool,
    pub(super) last_demotion: Option<&'static str>,
    /// Present when batching ([`CountRun::batch`]).
    pub(super) batcher: Option<Box<Batcher>>,
}

impl<'p, P: Protocol> CountRun<'p, P> {
    /// A run of `protocol` on the complete graph from `agents`, pairs drawn from `rng`.
    pub fn new(protocol: &'p P, agents: &[P::State], rng: PopRng) -> Result<Self> {
        Self::start(protocol, &tally(agents), || protocol.monitor(agents, &Graph::Complete), rng)
    }

    /// A run of `protocol` on the complete graph from the configuration with these (state, count)
    /// pairs, without ever building an agent array (populations up to [`MAX_AGENTS`]).
    pub fn from_counts(protocol: &'p P, counts: &[(P::State, u64)], rng: PopRng) -> Result<Self> {
        Self::start(protocol, counts, || protocol.monitor_of_counts(counts), rng)
    }

    fn start(
        protocol: &'p P,
        counts: &[(P::State, u64)],
        monitor: impl FnOnce() -> P::Monitor,
        rng: PopRng,
    ) -> Result<Self> {
        let n = counts.iter().map(|&(_, c)| c).try_fold(0u64, u64::checked_add).unwrap_or(u64::MAX);
        if n < 2 {
            return Err(Error::PopulationSize { n, reason: "the count engines need at least 2 agents".into() });
        }
        if n > MAX_AGENTS {
            return Err(Error::PopulationSize { n, reason: "the count engines handle at most 2^62 agents".into() });
        }
        let mut run = Self {
            protocol,
            n,
            pairs: u128::from(n) * u128::from(n - 1),
            states: Vec::new(),
            index: HashMap::default(),
            counts: Vec::new(),
            fenwick: Fenwick::default(),
            present: Vec::new(),
            slot: Vec::new(),
            skip: None,
            skip_review: 0,
            memo: Vec::new(),
            memo_stride: 0,
            pending: None,
            monitor: monitor(),
            rng,
            step: 0,
            census: false,
            last_demotion: None,
            batcher: None,
        };
        run.load(counts);
        Ok(run)
    }

    /// Replaces the configuration by the one with these (state, count) pairs (same `n`): counts,
    /// present states, skip table.
    fn load(&mut self, counts: &[(P::State, u64)]) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.slot.iter_mut().for_each(|s| *s = NONE);
        self.present.clear();
        self.skip = None;
        self.pending = None;
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

    /// Takes many interactions at once where that pays (the batched engine; see
    /// [`super::batched`]).
    pub fn batch(&mut self) {
        self.batcher = Some(Box::new(Batcher::new(self.n, &mut self.rng)));
    }

    /// Counts distinct states from now on and the causes of demotions.
    pub fn keep_census(&mut self) {
        self.census = true;
    }

    /// The census so far, if [`CountRun::keep_census`] was called (every interned state was
    /// present at some step, so their number is the distinct states visited).
    pub fn census(&self) -> Option<CensusReport> {
        self.census
            .then(|| CensusReport { distinct_states: self.states.len() as u64, last_demotion: self.last_demotion })
    }

    /// Steps taken so far.
    pub fn step(&self) -> u128 {
        self.step
    }

    /// The safe-set monitor.
    pub fn monitor(&self) -> &P::Monitor {
        &self.monitor
    }

    /// The population size.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The present states with their counts (positive, summing to `n`), in slot order.
    pub fn counts(&self) -> Vec<(P::State, u64)> {
        self.present.iter().map(|&i| (self.states[i as usize], self.counts[i as usize])).collect()
    }

    /// Whether null skipping is active (at most [`SKIP_MAX_STATES`] states present).
    pub fn skipping(&self) -> bool {
        self.skip.is_some()
    }

    /// The total weight `W` of the non-null pairs kept by the skip table, or `None` when the engine
    /// is taking plain steps. (For tests: it must equal a fresh sum over the present states.)
    pub fn non_null_weight(&self) -> Option<u128> {
        self.skip.as_ref().map(|t| t.w)
    }

    /// The configuration as an agent array (present states in slot order); `O(n)`.
    pub fn agents(&self) -> Vec<P::State> {
        let mut agents = Vec::with_capacity(self.n as usize);
        for &i in &self.present {
            agents.extend(std::iter::repeat_n(self.states[i as usize], self.counts[i as usize] as usize));
        }
        agents
    }

    /// Lets `observer` act now on the expanded configuration; reloads it if the observer changed it.
    pub fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        let mut agents = self.agents();
        if observer.observe(self.step, self.protocol, &mut agents, faults_rng) {
            self.monitor = self.protocol.monitor(&agents, &Graph::Complete);
            self.load(&tally(&agents));
        }
    }

    fn intern(&mut self, state: P::State) -> u32 {
        if let Some(&i) = self.index.get(&state) {
            return i;
        }
        let i = self.states.len() as u32;
        self.states.push(state);
        self.index.insert(state, i);
        self.counts.push(0);
        self.slot.push(NONE);
        if self.states.len() > self.fenwick.capacity() {
            self.fenwick.rebuild(&self.counts);
        }
        if self.states.len() > self.memo_stride && self.memo_stride < MEMO_MAX_STATES {
            self.grow_memo();
        }
        i
    }

    /// The memo's cell of the pair of state indices `(i, j)`, if the memo covers both.
    fn memo_cell(&self, i: u32, j: u32) -> Option<usize> {
        let (i, j) = (i as usize, j as usize);
        (i < self.memo_stride && j < self.memo_stride).then(|| i * self.memo_stride + j)
    }

    /// Doubles the memo's stride (at least 16), keeping the results already known.
    fn grow_memo(&mut self) {
        let stride = (2 * self.memo_stride).clamp(16, MEMO_MAX_STATES);
        let mut memo = vec![0; stride * stride];
        for i in 0..self.memo_stride {
            let row = i * self.memo_stride;
            memo[i * stride..i * stride + self.memo_stride].copy_from_slice(&self.memo[row..row + self.memo_stride]);
        }
        self.memo = memo;
        self.memo_stride = stride;
    }

    /// Builds the skip table for the present states (`O(k^2)` transitions).
    fn rebuild_skip(&mut self) {
        let k = self.present.len();
        debug_assert!(k <= K);
        let mut table = Box::new(SkipTable {
            row: [0; K],
            col: [0; K],
            next: vec![None; K * K],
            next_index: vec![(NONE, NONE); K * K],
            s: [0; K],
            w: 0,
        });
        for r in 0..k {
            for c in 0..k {
                self.fill_pair(&mut table, r, c);
            }
        }
        for r in 0..k {
            table.s[r] = self.row_sum(&table, r);
        }
        table.w = self.weight_of(&table);
        self.skip = Some(table);
    }

    fn row_sum(&self, table: &SkipTable<P::State>, r: usize) -> i64 {
        let mut bits = table.row[r];
        let mut sum = 0i64;
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            sum += self.counts[self.present[c] as usize] as i64 - i64::from(c == r);
        }
        sum
    }

    fn fill_pair(&self, table: &mut SkipTable<P::State>, r: usize, c: usize) {
        let (a, b) = (self.states[self.present[r] as usize], self.states[self.present[c] as usize]);
        let (a2, b2) = self.protocol.transition(a, b);
        let cell = r * K + c;
        table.next_index[cell] = (NONE, NONE);
        if a2 != a || b2 != b {
            table.row[r] |= 1 << c;
            table.col[c] |= 1 << r;
            table.next[cell] = Some((a2, b2));
        } else {
            table.row[r] &= !(1 << c);
            table.col[c] &= !(1 << r);
            table.next[cell] = None;
        }
    }

    /// `W` summed afresh over the present states, from the table's row sums.
    fn weight_of(&self, table: &SkipTable<P::State>) -> u128 {
        // Each term is at most c_r (n - 1) and they sum to at most n (n - 1) < 2^124.
        let mut w: u128 = 0;
        for (r, &i) in self.present.iter().enumerate() {
            let c = self.counts[i as usize];
            if c > 0 {
                w += u128::from(c) * table.s[r] as u128;
            }
        }
        w
    }

    /// The probability `p = W / (n (n - 1))` that a step is non-null, while the skip table is kept.
    pub(super) fn non_null_probability(&self) -> Option<f64> {
        self.skip.as_deref().map(|table| table.w as f64 / self.pairs as f64)
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
            table.s[new_slot] = self.row_sum(&table, new_slot);
            self.skip = Some(table);
        }
    }

    /// Removes state `i` (count 0) from the present states.
    fn remove_present(&mut self, i: u32) {
        let gone = self.slot[i as usize] as usize;
        let last = self.present.len() - 1;
        if let Some(table) = &mut self.skip
            && gone != last
        {
            let move_bit = |mask: &mut u64| {
                let set = (*mask >> last) & 1;
                *mask = (*mask & !(1 << gone) & !(1 << last)) | (set << gone);
            };
            for r in 0..=last {
                move_bit(&mut table.row[r]);
                move_bit(&mut table.col[r]);
                table.next[r * K + gone] = table.next[r * K + last];
                table.next_index[r * K + gone] = table.next_index[r * K + last];
            }
            table.row[gone] = table.row[last];
            table.col[gone] = table.col[last];
            for c in 0..=last {
                table.next[gone * K + c] = table.next[last * K + c];
                table.next_index[gone * K + c] = table.next_index[last * K + c];
            }
            // A removed state has count 0: it contributed nothing to the other rows' sums.
            table.s[gone] = table.s[last];
        }
        if let Some(table) = &mut self.skip {
            table.row[last] = 0;
            table.col[last] = 0;
            for r in 0..K {
                table.row[r] &= !(1 << last);
                table.col[r] &= !(1 << last);
            }
            table.s[last] = 0;
        }
        self.present.swap_remove(gone);
        if gone < self.present.len() {
            self.slot[self.present[gone] as usize] = gone as u32;
        }
        self.slot[i as usize] = NONE;
    }

    /// Adds `delta` to the count of the present state `i`, keeping the Fenwick tree, the row sums
    /// and the non-null weight `W = sum over r of c_r s_r` in step (`O(1 + non-null pairs into i)`).
    fn change_count(&mut self, i: u32, delta: i64) {
        let old = self.counts[i as usize];
        self.counts[i as usize] = old.wrapping_add_signed(delta);
        self.fenwick.add(i as usize, delta);
        if let Some(table) = &mut self.skip {
            // Every row r with a non-null pair (r, i) gains delta in s_r, so c_r delta in W; row i
            // itself also changes its count.
            let own = self.slot[i as usize] as usize;
            let mut rows = table.col[own];
            let mut w_change: i128 = -i128::from(old) * i128::from(table.s[own]);
            while rows != 0 {
                let r = rows.trailing_zeros() as usize;
                rows &= rows - 1;
                table.s[r] += delta;
                if r != own {
                    w_change += i128::from(self.counts[self.present[r] as usize]) * i128::from(delta);
                }
            }
            w_change += i128::from(self.counts[i as usize]) * i128::from(table.s[own]);
            table.w = table.w.wrapping_add_signed(w_change);
        }
    }

    /// Applies an interaction that turned the states with indices `before` into `after`.
    fn apply(&mut self, before: [u32; 2], after: [u32; 2]) {
        let mut deltas: [(u32, i64); 4] = [(NONE, 0); 4];
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
    pub(super) fn apply_deltas(&mut self, deltas: &[(u32, i64)]) {
        for &(i, d) in deltas {
            if d > 0 && self.slot[i as usize] == NONE {
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
        debug_assert_eq!(self.non_null_weight(), self.skip.as_deref().map(|t| self.weight_of(t)), "W kept in step");
    }

    /// Records a non-null interaction `before -> after` and tells whether `watch` is met.
    #[inline]
    fn event<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        before: [P::State; 2],
        after: [P::State; 2],
    ) -> bool {
        self.monitor.record(before, after);
        if self.census
            && let Some(cause) = self.protocol.demotion_cause(before, after)
        {
            self.last_demotion = Some(cause);
        }
        (SAFE_SET && self.monitor.is_safe())
            || (OUTPUT_CHANGE
                && (self.protocol.output(after[0]) != self.protocol.output(before[0])
                    || self.protocol.output(after[1]) != self.protocol.output(before[1])))
    }

    /// Runs until `until` steps have been taken or what `watch` looks for happens; returns whether
    /// it happened (at exactly the current step).
    pub fn advance(&mut self, until: u128, watch: Watch) -> bool {
        match watch {
            Watch::Nothing => self.advance_watching::<false, false>(until),
            Watch::SafeSet => self.advance_watching::<true, false>(until),
            Watch::OutputChange => self.advance_watching::<false, true>(until),
        }
    }

    #[inline(never)]
    fn advance_watching<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, until: u128) -> bool {
        while self.step < until {
            // Computed once per event: the three choices below all read it.
            let p = self.non_null_probability();
            let met = if self.batch_pays(p, SAFE_SET) {
                self.batch_step::<SAFE_SET, OUTPUT_CHANGE>(until)
            } else if let Some(p) = self.review_skip(p) {
                match self.skip_step::<SAFE_SET, OUTPUT_CHANGE>(p, until) {
                    Some(met) => met,
                    None => return false,
                }
            } else {
                self.plain_step::<SAFE_SET, OUTPUT_CHANGE>()
            };
            if met {
                return true;
            }
        }
        false
    }

    /// Whether to skip null steps now (see the module docs), given the current non-null
    /// probability `p`: keeps the skip table while `p` is at most [`PLAIN_ABOVE`], else drops it;
    /// rebuilds it when a review of plain steps is due and few enough states are present. Returns
    /// `p` when skipping.
    fn review_skip(&mut self, mut p: Option<f64>) -> Option<f64> {
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

    /// One step without skipping (a skip already drawn is dropped: exact, the law is memoryless).
    #[inline]
    fn plain_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self) -> bool {
        self.pending = None;
        self.step += 1;
        let u = below(&mut self.rng, self.n);
        let v = below(&mut self.rng, self.n - 1);
        let v = if v >= u { v + 1 } else { v };
        self.interact::<SAFE_SET, OUTPUT_CHANGE>(self.fenwick.find(u) as u32, self.fenwick.find(v) as u32)
    }

    /// An interaction between agents in the states with indices `i` (initiator) and `j`; tells
    /// whether `watch` is met.
    #[inline]
    fn interact<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, i: u32, j: u32) -> bool {
        let after = self.transition_of(i, j);
        after != (i, j) && self.take::<SAFE_SET, OUTPUT_CHANGE>([i, j], [after.0, after.1])
    }

    /// The result states' indices of an interaction between the states with indices `i` and `j`:
    /// from the skip table when both are present in it, else from the memo, else by the transition
    /// (results interned only when the pair is non-null, then memoised).
    #[inline]
    pub(super) fn transition_of(&mut self, i: u32, j: u32) -> (u32, u32) {
        let (r, c) = (self.slot[i as usize], self.slot[j as usize]);
        if let Some(table) = self.skip.as_deref()
            && r != NONE
            && c != NONE
        {
            return if table.row[r as usize] >> c & 1 == 1 { self.result_of(r as usize, c as usize) } else { (i, j) };
        }
        if let Some(cell) = self.memo_cell(i, j)
            && self.memo[cell] != 0
        {
            let packed = self.memo[cell] - 1;
            return ((packed >> 32) as u32, packed as u32);
        }
        let (a, b) = (self.states[i as usize], self.states[j as usize]);
        let (a2, b2) = self.protocol.transition(a, b);
        let result = if a2 == a && b2 == b { (i, j) } else { (self.intern(a2), self.intern(b2)) };
        // Interning may have grown the memo: its cell is looked up afresh.
        if let Some(cell) = self.memo_cell(i, j) {
            self.memo[cell] = ((u64::from(result.0) << 32) | u64::from(result.1)) + 1;
        }
        result
    }

    /// Takes a non-null interaction that turned the states with indices `before` into `after`:
    /// applies it, records it and tells whether `watch` is met.
    #[inline]
    pub(super) fn take<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        before: [u32; 2],
        after: [u32; 2],
    ) -> bool {
        let states = |s: [u32; 2]| [self.states[s[0] as usize], self.states[s[1] as usize]];
        let (a, b) = (states(before), states(after));
        self.apply(before, after);
        self.event::<SAFE_SET, OUTPUT_CHANGE>(a, b)
    }

    /// Skips the null steps before the next non-null one and takes it, if it comes before `until`;
    /// returns whether the watch was met, or `None` when `until` was reached first.
    #[inline]
    fn skip_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, p: f64, until: u128) -> Option<bool> {
        let table = self.skip.as_deref().expect("skip table");
        if table.w == 0 {
            // No pair changes anything: the configuration is silent for good.
            self.step = until;
            return None;
        }
        let nulls = match self.pending.take() {
            Some(nulls) => nulls,
            None => geometric_skip(&mut self.rng, p),
        };
        let room = until - self.step;
        if nulls >= room {
            self.pending = Some(nulls - room);
            self.step = until;
            return None;
        }
        self.step += nulls + 1;
        // The non-null pair, with probability proportional to c_r (c_c - [r = c]).
        let table = self.skip.as_deref().expect("skip table");
        let mut x = below_wide(&mut self.rng, table.w);
        let k = self.present.len();
        let mut r = 0;
        loop {
            let count = self.counts[self.present[r] as usize];
            let weight = if count == 0 { 0 } else { u128::from(count) * table.s[r] as u128 };
            if x < weight {
                // Given the row, the responder is independent of which initiator agent it was.
                x = u128::from(below(&mut self.rng, table.s[r] as u64));
                break;
            }
            x -= weight;
            r += 1;
            debug_assert!(r < k, "non-null weight out of sync");
        }
        let mut bits = table.row[r];
        let c = loop {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let weight = u128::from(self.counts[self.present[c] as usize] - u64::from(c == r));
            if x < weight {
                break c;
            }
            x -= weight;
        };
        let (i2, j2) = self.result_of(r, c);
        Some(self.take::<SAFE_SET, OUTPUT_CHANGE>([self.present[r], self.present[c]], [i2, j2]))
    }

    /// The state indices the non-null pair of slots `(r, c)` turns into (interned on first use).
    pub(super) fn result_of(&mut self, r: usize, c: usize) -> (u32, u32) {
        let cell = r * K + c;
        let table = self.skip.as_deref().expect("skip table");
        let (i2, j2) = table.next_index[cell];
        if i2 != NONE {
            return (i2, j2);
        }
        let (a2, b2) = table.next[cell].expect("a non-null pair has a result");
        let result = (self.intern(a2), self.intern(b2));
        if let Some(table) = &mut self.skip {
            table.next_index[cell] = result;
        }
        result
    }
}

impl<P: Protocol> Drivable<P> for CountRun<'_, P> {
    fn step(&self) -> u128 {
        self.step
    }

    fn monitor(&self) -> &P::Monitor {
        &self.monitor
    }

    fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        CountRun::observe(self, observer, faults_rng);
    }

    fn advance(&mut self, until: u128, watch: Watch) -> bool {
        CountRun::advance(self, until, watch)
    }

    /// Expands the configuration into an agent array only when some observer needs it.
    fn finish(&self, observers: &mut [&mut dyn Observer<P>]) {
        if !observers.is_empty() {
            let agents = self.agents();
            for observer in observers.iter_mut() {
                observer.finish(self.step, self.protocol, &agents);
            }
        }
    }

    fn census(&self) -> Option<CensusReport> {
        CountRun::census(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    #[test]
    fn geometric_skip_edges() {
        let mut rng = PopRng::seed_from_u64(1);
        assert_eq!(geometric_skip(&mut rng, 1.0), 0);
        assert_eq!(geometric_skip(&mut rng, 0.0), u128::MAX);
        assert!((0..1000).all(|_| geometric_skip(&mut rng, 1.0 - 1e-15) <= 1));
        let tiny: f64 = (0..2000).map(|_| geometric_skip(&mut rng, 1e-15) as f64).sum::<f64>() / 2000.0;
        assert!((tiny / 1e15 - 1.0).abs() < 0.15, "{tiny}");
    }
}
