//! The count engine: the configuration of the complete graph as counts over the states present.
//!
//! On the complete graph agents are exchangeable, so a configuration is its multiset of states.
//! States are interned as they appear (no enumeration of the state space) and kept as counts. Each
//! step draws an ordered pair of distinct agents uniformly: initiator state `i` with probability
//! `c_i / n`, responder state `j` with probability `(c_j - [i = j]) / (n - 1)`.
//!
//! **Null skipping.** While at most [`SKIP_MAX_STATES`](super::SKIP_MAX_STATES) states are present, the engine keeps, for
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
//! stream independent of observers that only look, which stop single steps and skips but not
//! batches); a configuration changed from outside (a fault)
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
use super::configuration::{Configuration, geometric_skip};
use super::snapshot::{EngineSnapshot, RunSnapshot, StateWriter, read_states};
use super::{CensusReport, Drivable, Engine, Lookers, MAX_AGENTS, Observer, Pause, Watch};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::init::Start;
use crate::protocol::{Protocol, tally};
use crate::rng::PopRng;
use std::ops::Deref;

/// A run in progress on the count engine (complete graph only). It holds its protocol as `R`, as
/// [`AgentRun`](super::AgentRun) does: `&P` borrows it, `Box<P>` or `Arc<P>` owns it.
///
/// ```
/// use poplab::engine::{CountRun, Watch};
/// use poplab::protocol::{CountStart, Params, Protocol};
/// use poplab::protocols::approx_majority::{ApproxMajority, Opinion};
/// use poplab::rng::TrialStreams;
///
/// // Approximate majority among 10^5 agents, 60% in A: counts, no agent array.
/// let protocol = ApproxMajority::new(100_000, &Params::parse(&["a=0.6"])?)?;
/// let schedule = TrialStreams::new(1).schedule;
/// let mut run = CountRun::from_counts(&protocol, &protocol.initial_counts(), schedule)?;
/// assert!(run.advance(1 << 40, Watch::SafeSet)); // consensus
/// assert_eq!(run.counts(), vec![(Opinion::A, 100_000)]);
/// # Ok::<(), poplab::Error>(())
/// ```
pub struct CountRun<P: Protocol, R: Deref<Target = P>> {
    configuration: Configuration<P, R>,
    rng: PopRng,
    /// Null steps still to take before the next non-null one, drawn for the current configuration.
    pending: Option<u128>,
    /// Present when batching ([`CountRun::batch`]).
    batcher: Option<Box<Batcher>>,
    /// Asks the run to stop before its next event (a checkpoint's safe point).
    pause: Pause,
}

impl<P: Protocol, R: Deref<Target = P>> CountRun<P, R> {
    /// A run of `protocol` (`&P` to borrow it, `Box<P>` to own it) on the complete graph from
    /// `agents`, pairs drawn from `rng`.
    pub fn new(protocol: R, agents: &[P::State], rng: PopRng) -> Result<Self> {
        Self::start(protocol, &tally(agents), |protocol| protocol.monitor(agents, &Graph::Complete), rng)
    }

    /// A run of `protocol` on the complete graph from the configuration with these (state, count)
    /// pairs, without ever building an agent array (populations up to `MAX_AGENTS`).
    pub fn from_counts(protocol: R, counts: &[(P::State, u64)], rng: PopRng) -> Result<Self> {
        Self::start(protocol, counts, |protocol| crate::protocol::monitor_of_counts(protocol, counts), rng)
    }

    /// A run of `protocol` from `start` on the count engine `engine`: [`Engine::Batched`] batches
    /// ([`CountRun::batch`]), [`Engine::Counts`] does not. Where both trials and live runs start a
    /// count engine.
    pub fn on_engine(engine: Engine, protocol: R, start: &Start<P::State>, rng: PopRng) -> Result<Self> {
        debug_assert!(matches!(engine, Engine::Counts | Engine::Batched), "{engine:?} is no count engine");
        let mut run = match start {
            Start::Counts(counts) => Self::from_counts(protocol, counts, rng)?,
            Start::Agents(agents) => Self::new(protocol, agents, rng)?,
        };
        if engine == Engine::Batched {
            run.batch();
        }
        Ok(run)
    }

    fn start(
        protocol: R,
        counts: &[(P::State, u64)],
        monitor: impl FnOnce(&P) -> P::Monitor,
        rng: PopRng,
    ) -> Result<Self> {
        let n = counts.iter().map(|&(_, c)| c).try_fold(0u64, u64::checked_add).unwrap_or(u64::MAX);
        if n < 2 {
            return Err(Error::PopulationSize { n, reason: "the count engines need at least 2 agents".into() });
        }
        if n > MAX_AGENTS {
            return Err(Error::PopulationSize { n, reason: "the count engines handle at most 2^62 agents".into() });
        }
        let outcomes = crate::rng::outcome_stream(&rng);
        let monitor = monitor(&protocol);
        let configuration = Configuration::new(protocol, counts, n, monitor, outcomes);
        Ok(Self { configuration, rng, pending: None, batcher: None, pause: Pause::default() })
    }

    /// The run at this safe point (between two events: no batch half taken; a skip drawn before
    /// is saved as what is left of it), its states written by the protocol ([`super::snapshot`]).
    pub fn snapshot(&self) -> Result<RunSnapshot> {
        let mut writer = StateWriter::new(self.configuration.protocol());
        for i in 0..self.configuration.distinct_states() as u32 {
            // The interning order is the table's: index i is state i.
            writer.index(self.configuration.state(i))?;
        }
        let mut saved = self.configuration.snapshot(self.rng.clone());
        saved.pending = self.pending;
        saved.batcher = self.batcher.as_deref().map(Batcher::snapshot);
        Ok(RunSnapshot { states: writer.into_states(), engine: EngineSnapshot::Counts(saved) })
    }

    /// The run `snapshot` saved, of `protocol`: it goes on exactly as the saved one would have.
    /// The Fenwick tree, the skip table and the monitor are rebuilt from the counts.
    pub fn restore(protocol: R, snapshot: RunSnapshot) -> Result<Self> {
        let EngineSnapshot::Counts(saved) = snapshot.engine else {
            return Err(Error::Snapshot {
                reason: "a checkpoint of the agent engine given to the count engines".into(),
            });
        };
        let states = read_states(&*protocol, &snapshot.states)?;
        if saved.counts.len() != states.len() {
            return Err(Error::Snapshot {
                reason: format!("it has {} counts for {} states", saved.counts.len(), states.len()),
            });
        }
        // Summed without wrapping: counts that reach n only modulo 2^64 are refused.
        let sum: u128 = saved.counts.iter().map(|&c| u128::from(c)).sum();
        let n = protocol.n() as u64;
        if sum != u128::from(n) {
            return Err(Error::Snapshot { reason: format!("its counts sum to {sum} agents, and the run has n = {n}") });
        }
        crate::rng::check_stream(&saved.rng, "its schedule stream")?;
        crate::rng::check_stream(&saved.outcomes, "its stream of randomized results")?;
        if let Some(batcher) = &saved.batcher {
            crate::rng::check_stream(&batcher.census_rng, "its batches' census stream")?;
            crate::rng::check_stream(&batcher.looks_rng, "its batches' looks stream")?;
        }
        let rng = saved.rng.clone();
        let pending = saved.pending;
        let batcher = saved.batcher.clone().map(|b| Box::new(Batcher::restore(n, b)));
        let configuration = Configuration::restore(protocol, states, saved)?;
        Ok(Self { configuration, rng, pending, batcher, pause: Pause::default() })
    }

    /// Stops [`CountRun::advance`] before its next event once `pause` is raised.
    pub fn pause_on(&mut self, pause: Pause) {
        self.pause = pause;
    }

    /// Goes on with `protocol` (same states, rules and outputs; see
    /// [`AgentRun::retarget`](super::AgentRun::retarget)): the monitor is rebuilt.
    pub fn retarget(&mut self, protocol: R) {
        self.configuration.retarget(protocol);
    }

    /// The protocol.
    pub fn protocol(&self) -> &P {
        self.configuration.protocol()
    }

    /// Takes many interactions at once where that pays (the batched engine; see
    /// [`super::batched`]).
    pub fn batch(&mut self) {
        self.batcher = Some(Box::new(Batcher::new(self.configuration.n(), &mut self.rng)));
    }

    /// Batches whenever something may change (any step while taking plain steps; while skipping,
    /// whenever some pair is non-null), even where single steps would be faster: for tests of
    /// exactness, which need batches in small populations.
    pub fn batch_always(&mut self) {
        let n = self.configuration.n();
        self.batcher.get_or_insert_with(|| Box::new(Batcher::new(n, &mut self.rng))).batch_always();
    }

    /// Steps taken in batches so far (0 unless batching): the rest were single steps.
    pub fn steps_in_batches(&self) -> u128 {
        self.batcher.as_deref().map_or(0, Batcher::steps_in_batches)
    }

    /// Counts distinct states from now on and the causes of demotions.
    pub fn keep_census(&mut self) {
        self.configuration.keep_census();
    }

    /// The census so far, if [`CountRun::keep_census`] was called (every interned state was
    /// present at some step, so their number is the distinct states visited).
    pub fn census(&self) -> Option<CensusReport> {
        self.configuration.keeps_census().then(|| CensusReport {
            distinct_states: self.configuration.distinct_states(),
            last_demotion: self.configuration.last_demotion(),
        })
    }

    /// Steps taken so far.
    pub fn step(&self) -> u128 {
        self.configuration.step()
    }

    /// The safe-set monitor.
    pub fn monitor(&self) -> &P::Monitor {
        self.configuration.monitor()
    }

    /// The population size.
    pub fn n(&self) -> u64 {
        self.configuration.n()
    }

    /// The present states with their counts (positive, summing to `n`), in slot order.
    pub fn counts(&self) -> Vec<(P::State, u64)> {
        self.configuration.present().map(|(i, count)| (self.configuration.state(i), count)).collect()
    }

    /// Whether null skipping is active (at most [`SKIP_MAX_STATES`](super::SKIP_MAX_STATES) states present).
    pub fn skipping(&self) -> bool {
        self.configuration.non_null_weight().is_some()
    }

    /// The total weight `W` of the non-null pairs kept by the skip table, or `None` when the engine
    /// is taking plain steps. (For tests: it must equal a fresh sum over the present states.)
    pub fn non_null_weight(&self) -> Option<u128> {
        self.configuration.non_null_weight()
    }

    /// The configuration as an agent array (present states in slot order); `O(n)`.
    pub fn agents(&self) -> Vec<P::State> {
        self.configuration.agents()
    }

    /// Lets `observer` act now on the expanded configuration; reloads it if the observer changed it
    /// (a skip already drawn is dropped: exact, the law is memoryless).
    pub fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        if self.configuration.observe(observer, faults_rng) {
            self.pending = None;
        }
    }

    /// Runs until `until` steps have been taken or what `watch` looks for happens; returns whether
    /// it happened (at exactly the current step).
    pub fn advance(&mut self, until: u128, watch: Watch) -> bool {
        match watch {
            Watch::Nothing => self.advance_watching::<false, false>(until, None),
            Watch::SafeSet => self.advance_watching::<true, false>(until, None),
            Watch::OutputChange => self.advance_watching::<false, true>(until, None),
        }
    }

    /// As [`CountRun::advance`], letting `lookers` look on the way without changing what the run
    /// draws (see [`Drivable::advance_looking`]): single steps and skips stop at their steps (a
    /// skip already drawn is kept), batches do not (the batched engine shows them the
    /// configuration inside a batch).
    pub fn advance_looking(&mut self, until: u128, watch: Watch, lookers: &mut Lookers<'_, P>) -> bool {
        match watch {
            Watch::Nothing => self.advance_watching::<false, false>(until, Some(lookers)),
            Watch::SafeSet => self.advance_watching::<true, false>(until, Some(lookers)),
            Watch::OutputChange => self.advance_watching::<false, true>(until, Some(lookers)),
        }
    }

    #[inline(never)]
    fn advance_watching<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        until: u128,
        mut lookers: Option<&mut Lookers<'_, P>>,
    ) -> bool {
        // Single steps and skips stop at the next step where someone looks; batches go past it.
        let next_look = |lookers: &Option<&mut Lookers<'_, P>>| {
            lookers.as_ref().and_then(|l| l.next_at()).map_or(until, |at| at.min(until))
        };
        let mut look = next_look(&lookers);
        while self.configuration.step() < until {
            // A failed user rule (never for built-in protocols: a constant `None`) stops the run
            // here; the driver reports it. A full event log is handed over.
            if self.pause.raised()
                || self.configuration.protocol().failure().is_some()
                || self.configuration.events_full()
            {
                return false;
            }
            // Computed once per event: the three choices below all read it.
            let p = self.configuration.non_null_probability();
            let met = if self.batch_pays(p, SAFE_SET) {
                self.batch_step::<SAFE_SET, OUTPUT_CHANGE>(until, lookers.as_deref_mut())
            } else if let Some(p) = self.configuration.review_skip(p) {
                // `None`: the skip reached `look` (its remainder is kept) or `until`.
                self.skip_step::<SAFE_SET, OUTPUT_CHANGE>(p, look).unwrap_or(false)
            } else {
                self.plain_step::<SAFE_SET, OUTPUT_CHANGE>()
            };
            if met {
                return true;
            }
            let step = self.configuration.step();
            if step >= look
                && let Some(lookers) = lookers.as_deref_mut()
            {
                // Those due at `until` are the caller's.
                if step < until && lookers.due(step) {
                    lookers.look_counts(step, self.configuration.protocol(), &self.counts());
                }
                look = next_look(&Some(lookers));
            }
        }
        false
    }

    /// Whether to batch now (see [`Batcher::pays`]).
    #[inline]
    fn batch_pays(&self, non_null_probability: Option<f64>, watching_safe_set: bool) -> bool {
        self.batcher.as_deref().is_some_and(|b| b.pays(&self.configuration, non_null_probability, watching_safe_set))
    }

    /// One batch, not beyond step `until`, `lookers` looking inside it; returns whether the watch
    /// was met.
    fn batch_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(
        &mut self,
        until: u128,
        lookers: Option<&mut Lookers<'_, P>>,
    ) -> bool {
        self.pending = None;
        let batcher = self.batcher.as_deref_mut().expect("batched engine");
        batcher.batch_step::<P, R, SAFE_SET, OUTPUT_CHANGE>(&mut self.configuration, &mut self.rng, until, lookers)
    }

    /// One step without skipping (a skip already drawn is dropped: exact, the law is memoryless).
    #[inline]
    fn plain_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self) -> bool {
        self.pending = None;
        self.configuration.count_steps(1);
        let (i, j) = self.configuration.draw_pair(&mut self.rng);
        self.configuration.interact::<SAFE_SET, OUTPUT_CHANGE>(i, j)
    }

    /// Skips the null steps before the next non-null one (non-null probability `p`) and takes it,
    /// if it comes before `until`; returns whether the watch was met, or `None` when `until` was
    /// reached first.
    #[inline]
    fn skip_step<const SAFE_SET: bool, const OUTPUT_CHANGE: bool>(&mut self, p: f64, until: u128) -> Option<bool> {
        let room = until - self.configuration.step();
        if self.configuration.non_null_weight() == Some(0) {
            // No pair changes anything: the configuration is silent for good.
            self.configuration.count_steps(room);
            return None;
        }
        let nulls = match self.pending.take() {
            Some(nulls) => nulls,
            None => geometric_skip(&mut self.rng, p),
        };
        if nulls >= room {
            self.pending = Some(nulls - room);
            self.configuration.count_steps(room);
            return None;
        }
        self.configuration.count_steps(nulls + 1);
        Some(self.configuration.take_non_null::<SAFE_SET, OUTPUT_CHANGE>(&mut self.rng))
    }
}

impl<P: Protocol, R: Deref<Target = P>> Drivable<P> for CountRun<P, R> {
    fn step(&self) -> u128 {
        CountRun::step(self)
    }

    fn protocol(&self) -> &P {
        self.configuration.protocol()
    }

    fn monitor(&self) -> &P::Monitor {
        CountRun::monitor(self)
    }

    fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        CountRun::observe(self, observer, faults_rng);
    }

    fn advance(&mut self, until: u128, watch: Watch) -> bool {
        CountRun::advance(self, until, watch)
    }

    fn advance_looking(&mut self, until: u128, watch: Watch, lookers: &mut Lookers<'_, P>) -> bool {
        CountRun::advance_looking(self, until, watch, lookers)
    }

    /// Expands the configuration into an agent array only when some observer needs it.
    fn finish(&self, observers: &mut [&mut dyn Observer<P>]) {
        if !observers.is_empty() {
            let counts = self.counts();
            for observer in observers.iter_mut() {
                observer.finish(self.step(), self.configuration.protocol(), &counts);
            }
        }
    }

    fn census(&self) -> Option<CensusReport> {
        CountRun::census(self)
    }

    fn keep_census(&mut self) {
        CountRun::keep_census(self);
    }

    fn pause_on(&mut self, pause: Pause) {
        CountRun::pause_on(self, pause);
    }

    fn snapshot(&self) -> Result<RunSnapshot> {
        CountRun::snapshot(self)
    }

    /// An event needs its own step: the batched engine stops batching (the count engine's law is
    /// the same).
    fn keep_events(&mut self) {
        self.batcher = None;
        self.configuration.keep_events();
    }

    fn hand_events(&mut self, observers: &mut [&mut dyn Observer<P>]) -> bool {
        self.configuration.hand_events(observers)
    }
}
