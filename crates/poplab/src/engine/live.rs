//! A run that lives between calls: advance it to a step, look at it on the way, read its
//! configuration, go on later. For interactive use (notebooks, the Python package's `Simulation`)
//! where one trial is driven piece by piece rather than run to its stop rule at once.
//!
//! Looking never changes the run: samples are taken by look-only observers
//! ([`Drivable::advance_looking`]), so the same seed gives the same trajectory whatever is sampled
//! and how often. Only where the caller stops matters (a batch ends at the step asked for), as
//! it does for the horizon of a trial.

use super::snapshot::{EngineSnapshot, RunSnapshot};
use super::{AgentRun, CountRun, Drivable, Engine, Lookers, Observer, Watch};
use crate::error::{Error, Result};
use crate::graph::{Graph, RandomScheduler};
use crate::init::Start;
use crate::protocol::{Monitor, Protocol, check_rules, tally};
use crate::rng::{PopRng, TrialStreams};

/// One trial of `P` on an engine, advanced by the caller. Its engine owns the protocol and the
/// graph.
///
/// ```
/// use poplab::engine::{Engine, LiveRun, SampleSteps};
/// use poplab::graph::Graph;
/// use poplab::protocol::{CountStart, Params};
/// use poplab::protocols::approx_majority::{ApproxMajority, Opinion};
///
/// let protocol = ApproxMajority::new(10_000, &Params::parse(&["a=0.6"])?)?;
/// let counts = protocol.initial_counts();
/// // The batched engine, trial seed 7.
/// let mut run = LiveRun::new(protocol, Graph::Complete, &counts, Engine::Batched, 7)?;
/// // 5 units of parallel time (50,000 steps), sampled every 10,000 steps.
/// let mut every = SampleSteps::new((1..).map(|k| k * 10_000));
/// let mut samples = Vec::new();
/// run.advance(50_000, false, &mut every, &mut |step, counts| samples.push((step, counts)))?;
/// assert_eq!(run.step(), 50_000);
/// let steps: Vec<u128> = samples.iter().map(|s| s.0).collect();
/// assert_eq!(steps, [10_000, 20_000, 30_000, 40_000, 50_000]);
/// assert!(samples.iter().all(|(_, c)| c.iter().map(|s| s.1).sum::<u64>() == 10_000));
/// // Later: on to consensus, looking no more.
/// assert!(run.advance(1 << 40, true, &mut SampleSteps::none(), &mut |_, _| {})?);
/// assert_eq!(run.counts(), vec![(Opinion::A, 10_000)]);
/// # Ok::<(), poplab::Error>(())
/// ```
pub struct LiveRun<P: Protocol> {
    run: Run<P>,
    /// Handed to samplers (which draw nothing from it).
    looks: PopRng,
    /// Set when a user rule failed inside [`LiveRun::advance`]: the run stopped somewhere inside
    /// a step or batch and cannot go on.
    failed: bool,
}

enum Run<P: Protocol> {
    Agents(Box<AgentRun<P, RandomScheduler, Box<P>>>),
    Counts(Box<CountRun<P, Box<P>>>),
}

/// The steps at which to sample a live run: an ascending sequence drawn on as the run goes (it may
/// be endless); the first step not reached by one [`LiveRun::advance`] waits for the next.
pub struct SampleSteps<I> {
    next: Option<u128>,
    rest: I,
}

impl<I: Iterator<Item = u128>> SampleSteps<I> {
    /// The steps of `steps`, ascending.
    pub fn new(mut steps: I) -> Self {
        Self { next: steps.next(), rest: steps }
    }

    /// The next step to sample at, if any.
    pub fn next_step(&self) -> Option<u128> {
        self.next
    }

    /// The steps not drawn yet.
    pub fn steps_mut(&mut self) -> &mut I {
        &mut self.rest
    }

    fn pop(&mut self) {
        self.next = self.rest.next();
    }
}

impl SampleSteps<std::iter::Empty<u128>> {
    /// No samples.
    pub fn none() -> Self {
        Self::new(std::iter::empty())
    }
}

/// Calls a closure with the configuration, as (state, count) pairs, at each of the steps `at`.
struct Sampler<'f, S, I> {
    at: &'f mut SampleSteps<I>,
    sample: &'f mut dyn FnMut(u128, Vec<(S, u64)>),
}

impl<S, I: Iterator<Item = u128>> Sampler<'_, S, I> {
    fn take(&mut self, step: u128, counts: Vec<(S, u64)>) {
        (self.sample)(step, counts);
        self.at.pop();
    }
}

impl<P: Protocol, I: Iterator<Item = u128>> Observer<P> for Sampler<'_, P::State, I> {
    fn next_at(&self) -> Option<u128> {
        self.at.next
    }

    fn observe(&mut self, step: u128, _protocol: &P, agents: &mut [P::State], _rng: &mut PopRng) -> bool {
        self.take(step, tally(agents));
        false
    }

    fn only_looks(&self) -> bool {
        true
    }

    fn look_at_counts(&mut self, step: u128, _protocol: &P, counts: &[(P::State, u64)]) -> bool {
        self.take(step, counts.to_vec());
        true
    }
}

impl<P: Protocol> LiveRun<P> {
    /// A run of `protocol` on `graph` from the configuration `counts` ((state, count) pairs),
    /// with the streams of trial seed `seed`, on `engine` (the agent engine puts the agents in the
    /// order of `counts`; [`Engine::Auto`] is the batched engine on the complete graph and the agent
    /// engine elsewhere; the count engines refuse other graphs, see [`Engine::resolve`]).
    pub fn new(protocol: P, graph: Graph, counts: &[(P::State, u64)], engine: Engine, seed: u64) -> Result<Self> {
        let engine = engine.resolve(&graph, false, true)?;
        let TrialStreams { schedule, faults, .. } = TrialStreams::new(seed);
        let run = if engine == Engine::Agents {
            let agents: Vec<P::State> = counts.iter().flat_map(|&(s, c)| std::iter::repeat_n(s, c as usize)).collect();
            let scheduler = graph.scheduler(protocol.n())?;
            Run::Agents(Box::new(AgentRun::new(Box::new(protocol), &graph, agents, scheduler, schedule)))
        } else {
            let start = Start::Counts(counts.to_vec());
            Run::Counts(Box::new(CountRun::on_engine(engine, Box::new(protocol), &start, schedule)?))
        };
        let live = Self { run, looks: faults, failed: false };
        // Building the monitor may call a user rule, which may fail.
        check_rules(live.protocol())?;
        Ok(live)
    }

    /// The run as it stands, for [`LiveRun::restore`] (in this process or another): between two
    /// calls of [`LiveRun::advance`] every engine is at a safe point ([`super::snapshot`]). A run
    /// stopped by a failing rule has no snapshot.
    pub fn snapshot(&self) -> Result<RunSnapshot> {
        if self.failed {
            return Err(Error::RunStopped);
        }
        match &self.run {
            Run::Agents(run) => run.snapshot(),
            Run::Counts(run) => run.snapshot(),
        }
    }

    /// The run `snapshot` saved, of `protocol` on `graph` (those it ran with): it goes on on the
    /// same trajectory as the saved one, on the same engine.
    ///
    /// ```
    /// use poplab::engine::{Engine, LiveRun, SampleSteps};
    /// use poplab::graph::Graph;
    /// use poplab::protocol::{CountStart, Params};
    /// use poplab::protocols::approx_majority::ApproxMajority;
    ///
    /// let protocol = ApproxMajority::new(1000, &Params::parse(&["a=0.6"])?)?;
    /// let counts = protocol.initial_counts();
    /// let start = || LiveRun::new(protocol.clone(), Graph::Complete, &counts, Engine::Agents, 7);
    /// let (mut whole, mut first) = (start()?, start()?);
    /// whole.advance(3000, false, &mut SampleSteps::none(), &mut |_, _| {})?;
    /// first.advance(1234, false, &mut SampleSteps::none(), &mut |_, _| {})?;
    /// let mut second = LiveRun::restore(protocol.clone(), Graph::Complete, first.snapshot()?)?;
    /// second.advance(3000, false, &mut SampleSteps::none(), &mut |_, _| {})?;
    /// assert_eq!(second.agents(), whole.agents());
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn restore(protocol: P, graph: Graph, snapshot: RunSnapshot) -> Result<Self> {
        let run = match &snapshot.engine {
            EngineSnapshot::Agents(_) => {
                let scheduler = graph.scheduler(protocol.n())?;
                Run::Agents(Box::new(AgentRun::restore(Box::new(protocol), &graph, scheduler, snapshot)?))
            }
            EngineSnapshot::Counts(_) if graph == Graph::Complete => {
                Run::Counts(Box::new(CountRun::restore(Box::new(protocol), snapshot)?))
            }
            EngineSnapshot::Counts(_) => {
                return Err(Error::Snapshot {
                    reason: "a snapshot of the count engines restored on another graph than complete".into(),
                });
            }
        };
        // The samplers' stream: they draw nothing from it.
        let live = Self { run, looks: TrialStreams::new(0).faults, failed: false };
        // Rebuilding the monitor may call a user rule, which may fail.
        check_rules(live.protocol())?;
        Ok(live)
    }

    /// Goes on with `protocol` in place of the run's: one with the same states, rules and outputs
    /// whose safe set may differ (a user protocol [`with_stop`]), so that the next
    /// [`LiveRun::advance`] stops at another condition. The trajectory goes on unchanged.
    ///
    /// [`with_stop`]: crate::protocols::custom::Custom::with_stop
    /// Rebuilding the monitor may call a user rule: if it fails, this is [`Error::RuleFailed`] and
    /// the run refuses to go on.
    pub fn set_protocol(&mut self, protocol: P) -> Result<()> {
        let protocol = Box::new(protocol);
        match &mut self.run {
            Run::Agents(run) => run.retarget(protocol),
            Run::Counts(run) => run.retarget(protocol),
        }
        let result = check_rules(self.protocol());
        self.failed |= result.is_err();
        result
    }

    fn drivable(&mut self) -> &mut dyn Drivable<P> {
        match &mut self.run {
            Run::Agents(run) => &mut **run,
            Run::Counts(run) => &mut **run,
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> &P {
        match &self.run {
            Run::Agents(run) => run.protocol(),
            Run::Counts(run) => run.protocol(),
        }
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        match &self.run {
            Run::Agents(run) => run.graph(),
            Run::Counts(_) => &Graph::Complete,
        }
    }

    /// Steps taken so far.
    pub fn step(&self) -> u128 {
        match &self.run {
            Run::Agents(run) => run.step(),
            Run::Counts(run) => run.step(),
        }
    }

    /// Whether the configuration is in the protocol's safe set (its stop rule holds).
    pub fn is_safe(&self) -> bool {
        match &self.run {
            Run::Agents(run) => run.monitor().is_safe(),
            Run::Counts(run) => run.monitor().is_safe(),
        }
    }

    /// The configuration as (state, count) pairs.
    pub fn counts(&self) -> Vec<(P::State, u64)> {
        match &self.run {
            Run::Agents(run) => tally(run.agents()),
            Run::Counts(run) => run.counts(),
        }
    }

    /// The configuration agent by agent, on the agent engine (`None` on the count engines).
    pub fn agents(&self) -> Option<&[P::State]> {
        match &self.run {
            Run::Agents(run) => Some(run.agents()),
            Run::Counts(_) => None,
        }
    }

    /// Runs to step `until`, or until the safe set holds when `stop_when_safe` (checked from the
    /// current configuration on, at exactly the step it is entered); calls `sample` with the
    /// configuration at each step of `at` after the current step (earlier ones are dropped), up to
    /// `until` (not after the step where the safe set stopped the run). Returns whether it stopped in the safe
    /// set. A user rule that fails inside is [`Error::RuleFailed`] (the run stopped at the engine's
    /// next safe point after it, samples up to there taken), after which the run refuses to go on.
    pub fn advance<I: Iterator<Item = u128>>(
        &mut self,
        until: u128,
        stop_when_safe: bool,
        at: &mut SampleSteps<I>,
        sample: &mut dyn FnMut(u128, Vec<(P::State, u64)>),
    ) -> Result<bool> {
        if self.failed {
            return Err(Error::RunStopped);
        }
        let met = self.advance_unguarded(until, stop_when_safe, at, sample);
        let result = check_rules(self.protocol()).map(|()| met);
        self.failed = result.is_err();
        result
    }

    fn advance_unguarded<I: Iterator<Item = u128>>(
        &mut self,
        until: u128,
        stop_when_safe: bool,
        at: &mut SampleSteps<I>,
        sample: &mut dyn FnMut(u128, Vec<(P::State, u64)>),
    ) -> bool {
        if stop_when_safe && self.is_safe() {
            return true;
        }
        let watch = if stop_when_safe { Watch::SafeSet } else { Watch::Nothing };
        let now = self.step();
        while at.next.is_some_and(|step| step <= now) {
            at.pop();
        }
        if at.next.is_none_or(|step| step > until) {
            return self.drivable().advance(until, watch);
        }
        let mut sampler = Sampler { at, sample };
        let mut looks = std::mem::replace(&mut self.looks, TrialStreams::new(0).faults);
        let met = {
            let mut lookers = Lookers::new(vec![&mut sampler as &mut dyn Observer<P>], &mut looks);
            self.drivable().advance_looking(until, watch, &mut lookers)
        };
        self.looks = looks;
        // A sample at `until` itself is taken here, once the run has reached it.
        if !met && self.step() == until && sampler.at.next == Some(until) {
            let counts = self.counts();
            sampler.take(until, counts);
        }
        met
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CountStart, Params};
    use crate::protocols::approx_majority::ApproxMajority;

    fn run(engine: Engine) -> LiveRun<ApproxMajority> {
        let p = ApproxMajority::new(10_000, &Params::parse(&["a=0.6"]).unwrap()).unwrap();
        let counts = p.initial_counts();
        LiveRun::new(p, Graph::Complete, &counts, engine, 7).unwrap()
    }

    #[test]
    fn samples_do_not_change_the_run_and_pieces_add_up() {
        for engine in [Engine::Agents, Engine::Counts, Engine::Batched] {
            let mut plain = run(engine);
            let mut looked = run(engine);
            let mut rows = Vec::new();
            let mut grid = SampleSteps::new((1..).map(|k| k * 3_000));
            for until in [50_000, 120_000, 400_000] {
                plain.advance(until, false, &mut SampleSteps::none(), &mut |_, _| {}).unwrap();
                looked
                    .advance(until, false, &mut grid, &mut |step, counts| {
                        assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), 10_000);
                        rows.push(step);
                    })
                    .unwrap();
                assert_eq!(plain.step(), until);
                let sorted = |mut c: Vec<(_, u64)>| {
                    c.sort_by_key(|x: &(crate::protocols::approx_majority::Opinion, u64)| x.0);
                    c
                };
                assert_eq!(sorted(plain.counts()), sorted(looked.counts()), "{engine:?}");
            }
            assert_eq!(rows, (1..=133).map(|k| k * 3_000).collect::<Vec<u128>>());
            let met = plain.advance(u128::MAX >> 1, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap();
            assert!(met && plain.is_safe());
        }
    }

    /// A run restored from a snapshot taken between two advances (mid-block, mid-skip) goes on as
    /// the run never saved, advanced by the same pieces, on every engine, with samples on the way.
    #[test]
    fn restored_runs_go_on_on_the_same_trajectory() {
        let sorted = |mut c: Vec<(crate::protocols::approx_majority::Opinion, u64)>| {
            c.sort_by_key(|x| x.0);
            c
        };
        for engine in [Engine::Agents, Engine::Counts, Engine::Batched] {
            let mut whole = run(engine);
            let mut first = run(engine);
            let (mut rows, mut rows_whole) = (Vec::new(), Vec::new());
            let mut grid = SampleSteps::new((1..).map(|k| k * 777));
            let mut grid_whole = SampleSteps::new((1..).map(|k| k * 777));
            // The same pieces: where a piece ends is part of the batched engine's trajectory.
            for until in [31_337, 90_001] {
                whole
                    .advance(until, false, &mut grid_whole, &mut |step, c| rows_whole.push((step, sorted(c))))
                    .unwrap();
            }
            first.advance(31_337, false, &mut grid, &mut |step, c| rows.push((step, sorted(c)))).unwrap();
            let snapshot = first.snapshot().unwrap();
            let json = serde_json::to_string(&snapshot).unwrap();
            let mut second =
                LiveRun::restore(first.protocol().clone(), Graph::Complete, serde_json::from_str(&json).unwrap())
                    .unwrap();
            second.advance(90_001, false, &mut grid, &mut |step, c| rows.push((step, sorted(c)))).unwrap();
            assert_eq!(second.step(), whole.step());
            assert_eq!(sorted(second.counts()), sorted(whole.counts()), "{}", engine.name());
            assert_eq!(second.agents(), whole.agents());
            assert_eq!(rows, rows_whole, "{}", engine.name());
            let until = u128::MAX >> 1;
            let met = whole.advance(until, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap();
            assert!(met && second.advance(until, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap());
            assert_eq!(second.step(), whole.step());
        }
    }
}
