//! The agent-array engine: one state per agent, any graph, exact step counts.
//!
//! The hot loop draws a pair, applies the transition, and only when a state changed writes it
//! back, updates the monitor and tests the safe set. Pairs are drawn in blocks of [`BLOCK`], one
//! block ahead of use; when the agent array is larger than the cache, the engine prefetches the
//! agents of pair `j` of the next block while it runs pair `j` of the current one, so the memory
//! latency of random access overlaps with the work of the interactions in between instead of
//! adding to it. Blocks are a private detail: the sequence of pairs, and so every result, is the
//! same whether a run stops mid-block, is split by observer events, or is observed at all.

use super::snapshot::{AgentSnapshot, EngineSnapshot, RunSnapshot, StateWriter, read_states, state_at, static_cause};
use super::{CensusReport, Drivable, Event, EventLog, Observer, Pause, Watch, steps_to};
use crate::error::{Error, Result};
use crate::graph::{Graph, Scheduler};
use crate::protocol::{Monitor, Protocol, StateHasher, tally};
use crate::rng::PopRng;
use std::collections::HashSet;
use std::hash::Hash;
use std::ops::Deref;

/// Pairs drawn ahead of use.
const BLOCK: usize = 64;

/// Agent arrays larger than this (bytes) are prefetched block by block.
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// A run in progress on the agent-array engine. It holds its protocol as `R`: `&P` borrows it
/// (trials, many runs of one protocol), `Box<P>` or `Arc<P>` owns it ([`LiveRun`](super::LiveRun)).
/// The graph it keeps is a clone (cheap: an arc list is shared).
///
/// ```
/// use poplab::engine::{AgentRun, Watch};
/// use poplab::graph::Graph;
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::angluin::Angluin;
/// use poplab::rng::TrialStreams;
///
/// let protocol = Angluin::new(100, &Params::default())?;
/// let graph = Graph::Complete;
/// let agents = protocol.initial_configuration(); // 100 leaders
/// let schedule = TrialStreams::new(7).schedule;
/// let mut run = AgentRun::new(&protocol, &graph, agents, graph.scheduler(100)?, schedule);
/// // 1000 steps, watching nothing: some leaders are gone.
/// assert!(!run.advance(1_000, Watch::Nothing));
/// assert_eq!(run.step(), 1_000);
/// let leaders = run.agents().iter().filter(|&&leader| leader).count();
/// assert!(leaders < 100 && leaders == run.monitor().leaders());
/// // On to the first step with one leader.
/// assert!(run.advance(1 << 40, Watch::SafeSet));
/// assert_eq!(run.agents().iter().filter(|&&leader| leader).count(), 1);
/// # Ok::<(), poplab::Error>(())
/// ```
pub struct AgentRun<P: Protocol, S: Scheduler, R: Deref<Target = P>> {
    protocol: R,
    /// For rebuilding the monitor.
    graph: Graph,
    agents: Vec<P::State>,
    monitor: P::Monitor,
    scheduler: S,
    rng: PopRng,
    /// The results of randomized transitions ([`crate::rng::outcome_stream`] of `rng`).
    outcomes: PopRng,
    /// Whether the protocol is [randomized](Protocol::randomized).
    randomized: bool,
    /// Steps taken so far; 64 bits suffice here (`2^64` single steps take centuries).
    step: u64,
    /// The block of pairs in use, `pairs[next_pair..pairs_len]` still to run.
    pairs: [(u32, u32); BLOCK],
    next_pair: usize,
    pairs_len: usize,
    /// The next block, `ahead[..ahead_len]`, drawn (and prefetched) while `pairs` runs.
    ahead: [(u32, u32); BLOCK],
    ahead_len: usize,
    prefetch: bool,
    census: Option<Census<P::State>>,
    /// The events since the driver last took them, when an event trace is kept.
    events: Option<EventLog<P::State>>,
    /// Asks the run to stop at the next block boundary (a checkpoint's safe point).
    pause: Pause,
}

/// What the agent engine keeps for its [`CensusReport`], only when asked for (it costs a hash-set
/// insert per changed state).
#[derive(Clone, Debug)]
struct Census<S> {
    /// Every state some agent held at some step.
    visited: HashSet<S, StateHasher>,
    /// The cause ([`Observables::demotion_cause`](crate::protocol::Observables::demotion_cause)) of the last interaction that demoted a leader.
    last_demotion: Option<&'static str>,
}

impl<S: Copy + Eq + Hash> Census<S> {
    fn record<P: Protocol<State = S>>(&mut self, protocol: &P, before: [S; 2], after: [S; 2]) {
        self.visited.extend(after);
        if let Some(cause) = protocol.observables().and_then(|o| o.demotion_cause(before, after)) {
            self.last_demotion = Some(cause);
        }
    }
}

impl<P: Protocol, S: Scheduler, R: Deref<Target = P>> AgentRun<P, S, R> {
    /// A run of `protocol` (`&P` to borrow it, `Box<P>` to own it) on `graph` from `agents`, pairs
    /// chosen by `scheduler` drawing from `rng`.
    pub fn new(protocol: R, graph: &Graph, agents: Vec<P::State>, scheduler: S, rng: PopRng) -> Self {
        let monitor = protocol.monitor(&agents, graph);
        let prefetch = std::mem::size_of_val(agents.as_slice()) > PREFETCH_ABOVE_BYTES;
        let agents = on_huge_pages(agents);
        Self {
            randomized: protocol.randomized().is_some(),
            protocol,
            graph: graph.clone(),
            agents,
            monitor,
            scheduler,
            outcomes: crate::rng::outcome_stream(&rng),
            rng,
            step: 0,
            pairs: [(0, 0); BLOCK],
            next_pair: 0,
            pairs_len: 0,
            ahead: [(0, 0); BLOCK],
            ahead_len: 0,
            prefetch,
            census: None,
            events: None,
            pause: Pause::default(),
        }
    }

    /// The run at this safe point (a block boundary, or before the first block), its states
    /// written by the protocol ([`super::snapshot`]).
    pub fn snapshot(&self) -> Result<RunSnapshot> {
        let mut writer = StateWriter::new(&*self.protocol);
        let agents = self.agents.iter().map(|&s| writer.index(s)).collect::<Result<Vec<u32>>>()?;
        let census = match &self.census {
            None => None,
            Some(c) => Some((
                c.visited.iter().map(|&s| writer.index(s)).collect::<Result<Vec<u32>>>()?,
                c.last_demotion.map(String::from),
            )),
        };
        Ok(RunSnapshot {
            states: writer.into_states(),
            engine: EngineSnapshot::Agents(AgentSnapshot {
                agents,
                step: self.step,
                rng: self.rng.clone(),
                outcomes: self.outcomes.clone(),
                pairs: self.pairs[self.next_pair..self.pairs_len].to_vec(),
                ahead: self.ahead[..self.ahead_len].to_vec(),
                census,
            }),
        })
    }

    /// The run `snapshot` saved (of `protocol` on `graph`, pairs by `scheduler`): it goes on
    /// exactly as the saved one would have. The monitor is rebuilt from the agents.
    pub fn restore(protocol: R, graph: &Graph, scheduler: S, snapshot: RunSnapshot) -> Result<Self> {
        let EngineSnapshot::Agents(saved) = snapshot.engine else {
            return Err(Error::Snapshot {
                reason: "a checkpoint of the count engines given to the agent engine".into(),
            });
        };
        let states = read_states(&*protocol, &snapshot.states)?;
        let n = protocol.n();
        if saved.agents.len() != n {
            return Err(Error::Snapshot {
                reason: format!("its agent array holds {} agents, and the run has n = {n}", saved.agents.len()),
            });
        }
        for (what, block) in [("pairs", &saved.pairs), ("pairs drawn ahead", &saved.ahead)] {
            if block.len() > BLOCK {
                return Err(Error::Snapshot {
                    reason: format!("its block of {what} holds {} pairs, more than {BLOCK}", block.len()),
                });
            }
            if let Some(&(u, v)) = block.iter().find(|&&(u, v)| u == v || u as usize >= n || v as usize >= n) {
                return Err(Error::Snapshot {
                    reason: format!("its {what} hold the pair ({u}, {v}), which is not two distinct agents of 0..{n}"),
                });
            }
        }
        crate::rng::check_stream(&saved.rng, "its schedule stream")?;
        crate::rng::check_stream(&saved.outcomes, "its stream of randomized results")?;
        let agents = saved.agents.iter().map(|&i| state_at(&states, i)).collect::<Result<Vec<_>>>()?;
        let mut run = Self::new(protocol, graph, agents, scheduler, saved.rng);
        run.outcomes = saved.outcomes;
        run.step = saved.step;
        run.pairs[..saved.pairs.len()].copy_from_slice(&saved.pairs);
        run.pairs_len = saved.pairs.len();
        run.ahead[..saved.ahead.len()].copy_from_slice(&saved.ahead);
        run.ahead_len = saved.ahead.len();
        if let Some((visited, last)) = saved.census {
            let visited = visited.iter().map(|&i| state_at(&states, i)).collect::<Result<_>>()?;
            run.census = Some(Census { visited, last_demotion: static_cause(last) });
        }
        Ok(run)
    }

    /// Stops [`AgentRun::advance`] at the next block boundary once `pause` is raised.
    pub fn pause_on(&mut self, pause: Pause) {
        self.pause = pause;
    }

    /// Goes on with `protocol` in place of the run's: a protocol with the same states, rules and
    /// outputs, whose safe set may differ (a user protocol [`with_stop`]). The monitor is rebuilt
    /// for the current agents; nothing else changes, so the trajectory goes on as it would have.
    ///
    /// [`with_stop`]: crate::protocols::custom::Custom::with_stop
    pub fn retarget(&mut self, protocol: R) {
        debug_assert_eq!(protocol.randomized().is_some(), self.randomized, "a retarget keeps the rules");
        self.monitor = protocol.monitor(&self.agents, &self.graph);
        self.protocol = protocol;
    }

    /// The protocol.
    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Starts counting the distinct states visited and the causes of demotions (see
    /// [`CensusReport`]).
    pub fn keep_census(&mut self) {
        self.census = Some(Census { visited: self.agents.iter().copied().collect(), last_demotion: None });
    }

    /// The census so far, if [`AgentRun::keep_census`] was called.
    pub fn census(&self) -> Option<CensusReport> {
        self.census
            .as_ref()
            .map(|c| CensusReport { distinct_states: c.visited.len() as u64, last_demotion: c.last_demotion })
    }

    /// Steps taken so far.
    pub fn step(&self) -> u128 {
        u128::from(self.step)
    }

    /// The current configuration.
    pub fn agents(&self) -> &[P::State] {
        &self.agents
    }

    /// The safe-set monitor.
    pub fn monitor(&self) -> &P::Monitor {
        &self.monitor
    }

    /// How many more pairs the run can take, counting drawn ones: what a limited scheduler (a
    /// replayed schedule) has left, else what the 64-bit step counter has left, so a driver's
    /// horizon never asks for more than the run can count.
    pub fn pairs_left(&self) -> u128 {
        let buffered = (self.pairs_len - self.next_pair + self.ahead_len) as u128;
        let counter_left = u128::from(u64::MAX - self.step);
        self.scheduler.limit().map_or(counter_left, |left| u128::from(left) + buffered)
    }

    /// Lets `observer` act now; rebuilds the monitor if it changed agents.
    pub fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        if observer.observe(self.step(), &*self.protocol, &mut self.agents, faults_rng) {
            self.monitor = self.protocol.monitor(&self.agents, &self.graph);
            if let Some(census) = &mut self.census {
                census.visited.extend(self.agents.iter().copied());
            }
        }
    }

    /// Moves the block drawn ahead into use and draws the next one (both on the first call).
    fn refill(&mut self) {
        if self.ahead_len == 0 {
            self.draw_ahead();
        }
        std::mem::swap(&mut self.pairs, &mut self.ahead);
        self.pairs_len = std::mem::take(&mut self.ahead_len);
        self.next_pair = 0;
        self.draw_ahead();
    }

    fn draw_ahead(&mut self) {
        let len = self.scheduler.limit().map_or(BLOCK, |left| (left as usize).min(BLOCK));
        self.scheduler.fill(&mut self.rng, &mut self.ahead[..len]);
        self.ahead_len = len;
    }

    /// Prefetches the agents of pair `j` of the block drawn ahead.
    #[inline(always)]
    fn prefetch_ahead(&self, j: usize) {
        if self.prefetch && j < self.ahead_len {
            let (u, v) = self.ahead[j];
            prefetch(self.agents.as_ptr().wrapping_add(u as usize));
            prefetch(self.agents.as_ptr().wrapping_add(v as usize));
        }
    }

    /// Runs until `until` steps have been taken or what `watch` looks for happens; returns whether
    /// it happened (at exactly the current step). The caller keeps `until <= step + pairs_left()`.
    /// A raised [`Pause`] stops it earlier, at a block boundary.
    pub fn advance(&mut self, until: u128, watch: Watch) -> bool {
        let until = self.step.saturating_add(steps_to(self.step(), until));
        match (watch, self.randomized) {
            (Watch::Nothing, false) => self.advance_watching::<false, false, false>(until),
            (Watch::SafeSet, false) => self.advance_watching::<true, false, false>(until),
            (Watch::OutputChange, false) => self.advance_watching::<false, true, false>(until),
            (Watch::Nothing, true) => self.advance_watching::<false, false, true>(until),
            (Watch::SafeSet, true) => self.advance_watching::<true, false, true>(until),
            (Watch::OutputChange, true) => self.advance_watching::<false, true, true>(until),
        }
    }

    #[inline(never)]
    fn advance_watching<const SAFE_SET: bool, const OUTPUT_CHANGE: bool, const RANDOMIZED: bool>(
        &mut self,
        until: u64,
    ) -> bool {
        while self.step < until {
            if self.next_pair == self.pairs_len {
                // A failed user rule (never for built-in protocols: a constant `None`) stops the
                // run here; the driver reports it. A full event log is handed over.
                if self.pause.raised()
                    || self.protocol.failure().is_some()
                    || self.events.as_ref().is_some_and(EventLog::full)
                {
                    return false;
                }
                self.refill();
            }
            let (u, v) = self.pairs[self.next_pair];
            self.prefetch_ahead(self.next_pair);
            self.next_pair += 1;
            self.step += 1;
            let (u, v) = (u as usize, v as usize);
            let (a, b) = (self.agents[u], self.agents[v]);
            let (a2, b2) = if RANDOMIZED && let Some(rules) = self.protocol.randomized() {
                rules.draw(a, b, &mut self.outcomes)
            } else {
                self.protocol.transition(a, b)
            };
            if a2 != a || b2 != b {
                self.agents[u] = a2;
                self.agents[v] = b2;
                self.monitor.record_at(&self.agents, (u, v), [a, b]);
                if let Some(census) = &mut self.census {
                    census.record(&*self.protocol, [a, b], [a2, b2]);
                }
                if let Some(log) = &mut self.events {
                    log.push(Event { step: u128::from(self.step), before: [a, b], after: [a2, b2] });
                }
                if SAFE_SET && self.monitor.is_safe() {
                    return true;
                }
                if OUTPUT_CHANGE
                    && (self.protocol.output(a2) != self.protocol.output(a)
                        || self.protocol.output(b2) != self.protocol.output(b))
                {
                    return true;
                }
            }
        }
        false
    }
}

/// Agent arrays larger than this (bytes) are moved to memory that asks for huge pages.
const HUGE_PAGES_ABOVE_BYTES: usize = 64 << 20;

/// `agents`, put (above `HUGE_PAGES_ABOVE_BYTES`, on Linux) on transparent huge pages in place:
/// the memory is advised to use them and collapsed into them now (`MADV_COLLAPSE`, Linux 6.1+).
/// Random access to a large array misses the TLB on nearly every access with 4 KiB pages; with
/// 2 MiB pages the page tables of the array fit the caches. Where the kernel declines, the array
/// stays as it was (the advice still lets the kernel collapse it later). Nothing is copied, so the
/// peak memory does not grow. Public for the benches' memory floor.
pub fn on_huge_pages<T: Copy>(agents: Vec<T>) -> Vec<T> {
    let bytes = std::mem::size_of_val(agents.as_slice());
    #[cfg(target_os = "linux")]
    if bytes > HUGE_PAGES_ABOVE_BYTES {
        const PAGE: usize = 4096;
        let start = agents.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let end = (start + bytes) / PAGE * PAGE;
        // SAFETY: the range lies inside `agents`' allocation; the advice keeps the contents (a
        // collapse copies them into huge pages) and its result is only a hint.
        unsafe {
            let range = aligned as *mut libc::c_void;
            libc::madvise(range, end - aligned, libc::MADV_HUGEPAGE);
            libc::madvise(range, end - aligned, libc::MADV_COLLAPSE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
    agents
}

/// Asks the CPU to bring the cache line at `ptr` into its L2 cache (a hint: no effect on results,
/// and no fault even for an address outside any allocation). L2 rather than L1: a line prefetched
/// a block ahead waits there for its turn without crowding the transitions' working set out of
/// L1 (measured with `examples/hot.rs` of the bench crate; figures in README.md, Engines). Public
/// for the benches' memory floor.
#[inline(always)]
pub fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, even for an address outside the array.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(ptr.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

impl<P: Protocol, S: Scheduler, R: Deref<Target = P>> Drivable<P> for AgentRun<P, S, R> {
    fn step(&self) -> u128 {
        AgentRun::step(self)
    }

    fn protocol(&self) -> &P {
        &self.protocol
    }

    fn monitor(&self) -> &P::Monitor {
        &self.monitor
    }

    fn pairs_left(&self) -> u128 {
        AgentRun::pairs_left(self)
    }

    fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng) {
        AgentRun::observe(self, observer, faults_rng);
    }

    fn advance(&mut self, until: u128, watch: Watch) -> bool {
        AgentRun::advance(self, until, watch)
    }

    fn finish(&self, observers: &mut [&mut dyn Observer<P>]) {
        if !observers.is_empty() {
            let counts = tally(&self.agents);
            for observer in observers.iter_mut() {
                observer.finish(self.step(), &*self.protocol, &counts);
            }
        }
    }

    fn census(&self) -> Option<CensusReport> {
        AgentRun::census(self)
    }

    fn keep_census(&mut self) {
        AgentRun::keep_census(self);
    }

    fn pause_on(&mut self, pause: Pause) {
        AgentRun::pause_on(self, pause);
    }

    fn snapshot(&self) -> Result<RunSnapshot> {
        AgentRun::snapshot(self)
    }

    fn keep_events(&mut self) {
        self.events.get_or_insert_with(EventLog::new);
    }

    fn hand_events(&mut self, observers: &mut [&mut dyn Observer<P>]) -> bool {
        self.events.as_mut().is_some_and(|log| log.hand_over(&*self.protocol, observers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlimited_run_can_take_what_its_step_counter_has_left() {
        use crate::protocol::Params;
        use crate::protocols::angluin::Angluin;
        use rand_core::SeedableRng;
        let (p, graph) = (Angluin::new(10, &Params::default()).unwrap(), Graph::Complete);
        let scheduler = graph.scheduler(10).unwrap();
        let mut run = AgentRun::new(&p, &graph, p.initial_configuration(), scheduler, PopRng::seed_from_u64(1));
        assert_eq!(run.pairs_left(), u128::from(u64::MAX));
        run.advance(10, Watch::Nothing);
        assert_eq!(run.pairs_left(), u128::from(u64::MAX - 10));
    }

    #[test]
    fn moving_to_huge_pages_keeps_the_agents() {
        let small: Vec<u16> = (0..1000).collect();
        assert_eq!(on_huge_pages(small.clone()), small);
        let large: Vec<u32> =
            (0..(HUGE_PAGES_ABOVE_BYTES / 4 + 12_345) as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        assert_eq!(on_huge_pages(large.clone()), large);
    }
}
