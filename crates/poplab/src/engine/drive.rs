//! Driving a run of any engine: observers, the stop rule, the horizon.
//!
//! **Looking never changes the run.** A run stops at the steps of the observers that act (faults)
//! and at its horizon, never at those of the observers that only look ([`Observer::only_looks`]:
//! a time series). These are handed to the engine ([`Drivable::advance_looking`]), which shows
//! each the configuration at exactly its step without changing what it draws: the agent and count
//! engines draw the same whether they stop or not, so they simply stop there; the batched engine
//! does not end a batch there, and shows the configuration inside a batch from the batch's exact
//! law given what it drew (see [`super::batched`]). So the same seed gives the same trajectory and
//! the same result with any time series, or none.

use super::snapshot::RunSnapshot;
use super::{Ending, Observer, Outcome, Pause, Steps};
use crate::error::{Error, Result};
use crate::protocol::{Monitor, Protocol, check_rules};
use crate::rng::PopRng;

/// What ends an engine's advance before its step limit ([`AgentRun::advance`](super::AgentRun::advance),
/// [`CountRun::advance`](super::CountRun::advance)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watch {
    /// Nothing: run to the limit.
    Nothing,
    /// The first step inside the safe set.
    SafeSet,
    /// The first interaction that changes some agent's output. From a safe configuration of an
    /// election this is exactly when the specification breaks: the leader count leaves 1, or the
    /// leadership moves to another agent.
    OutputChange,
}

/// What a run measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Measure {
    /// Steps until the safe set is first entered (after the last fault, if any).
    #[default]
    Convergence,
    /// Steps from a safe configuration until the specification breaks (some output changes).
    Holding,
}

impl Measure {
    /// Both measures, in the order the command line lists them.
    pub const ALL: [Measure; 2] = [Measure::Convergence, Measure::Holding];

    /// The name used on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Convergence => "convergence",
            Measure::Holding => "holding",
        }
    }
}

impl std::str::FromStr for Measure {
    type Err = Error;

    /// `convergence` or `holding`.
    fn from_str(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name).ok_or_else(|| Error::UnknownName {
            kind: "measure",
            name: name.into(),
            choices: "convergence or holding".into(),
        })
    }
}

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunPlan {
    /// What the run measures: its stop rule.
    pub measure: Measure,
    /// The horizon: the run is censored after this many steps.
    pub max_steps: u128,
    /// The stop rule is only watched from this step on (after the last fault).
    pub watch_from: u128,
}

/// Per-trial facts beyond the step count, the same for every engine; kept only when asked for
/// (`keep_census` on the run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CensusReport {
    /// Distinct states some agent held at some step.
    pub distinct_states: u64,
    /// The cause ([`Observables::demotion_cause`](crate::protocol::Observables::demotion_cause)) of the last interaction that demoted a leader.
    pub last_demotion: Option<&'static str>,
}

/// A run in progress of some engine, as [`drive`] sees it: every engine steps the same protocol
/// code, and this is what the driver needs of it.
pub trait Drivable<P: Protocol> {
    /// Steps taken so far.
    fn step(&self) -> u128;

    /// The protocol it runs.
    fn protocol(&self) -> &P;

    /// The safe-set monitor.
    fn monitor(&self) -> &P::Monitor;

    /// How many more steps the run can take (`u128::MAX`: unlimited; a replayed schedule ends, and
    /// the agent engine counts its steps in 64 bits); the horizon never goes beyond it.
    fn pairs_left(&self) -> u128 {
        u128::MAX
    }

    /// Lets `observer` act now (a fault may change the configuration).
    fn observe(&mut self, observer: &mut dyn Observer<P>, faults_rng: &mut PopRng);

    /// Runs until `until` steps have been taken or what `watch` looks for happens; returns whether
    /// it happened (at exactly the current step).
    fn advance(&mut self, until: u128, watch: Watch) -> bool;

    /// As [`Drivable::advance`], letting `lookers` (all due after the current step) look on the
    /// way, each at exactly its steps before `until` and at the configuration of that step, without
    /// changing what the run draws: the run goes the same way with or without them. (Those due at
    /// `until` or at the step where `watch` is met are the caller's.) By default the run stops
    /// at their steps ([`advance_stopping`]), which is right for engines whose draws do not depend
    /// on where they stop.
    fn advance_looking(&mut self, until: u128, watch: Watch, lookers: &mut Lookers<'_, P>) -> bool {
        advance_stopping(self, until, watch, lookers)
    }

    /// Hands the final configuration to the observers.
    fn finish(&self, observers: &mut [&mut dyn Observer<P>]);

    /// Starts keeping a log of every interaction that changes a state (an event trace, see
    /// [`super::events`]); [`Drivable::advance`] then also returns early, short of `until`,
    /// whenever the log is full.
    fn keep_events(&mut self);

    /// Hands the events logged since the last call to those of `observers` that want them;
    /// returns whether the log was full (the reason [`Drivable::advance`] returned early).
    fn hand_events(&mut self, observers: &mut [&mut dyn Observer<P>]) -> bool;

    /// Starts keeping a census of the states visited and the causes of demotions.
    fn keep_census(&mut self);

    /// The census so far, if the run keeps one.
    fn census(&self) -> Option<CensusReport>;

    /// Stops [`Drivable::advance`] at the engine's next safe point once `pause` is raised.
    fn pause_on(&mut self, pause: Pause);

    /// The run at this safe point, to go on from later ([`super::snapshot`]).
    fn snapshot(&self) -> Result<RunSnapshot>;
}

/// The observers of a run that only look ([`Observer::only_looks`]), with the stream they are
/// handed (the faults' stream, from which they draw nothing).
pub struct Lookers<'a, P: Protocol> {
    observers: Vec<&'a mut dyn Observer<P>>,
    rng: &'a mut PopRng,
}

impl<'a, P: Protocol> Lookers<'a, P> {
    /// `observers`, each of which only looks, handed `rng`.
    pub fn new(observers: Vec<&'a mut dyn Observer<P>>, rng: &'a mut PopRng) -> Self {
        debug_assert!(observers.iter().all(|o| o.only_looks()), "an observer that acts among those that look");
        Self { observers, rng }
    }

    /// The next step at which one of them looks (`None`: never again).
    pub fn next_at(&self) -> Option<u128> {
        self.observers.iter().filter_map(|o| o.next_at()).min()
    }

    /// Whether one of them looks at `step` or before.
    pub fn due(&self, step: u128) -> bool {
        self.next_at().is_some_and(|at| at <= step)
    }

    /// Lets each one due at `step` (or before) look, through `observe`.
    pub fn look_with(&mut self, step: u128, mut observe: impl FnMut(&mut dyn Observer<P>, &mut PopRng)) {
        for observer in self.observers.iter_mut() {
            while observer.next_at().is_some_and(|at| at <= step) {
                observe(&mut **observer, self.rng);
            }
        }
    }

    /// Shows `agents`, the configuration at exactly `step`, to each one due then.
    pub fn look(&mut self, step: u128, protocol: &P, agents: &mut [P::State]) {
        self.look_with(step, |observer, rng| {
            let changed = observer.observe(step, protocol, agents, rng);
            debug_assert!(!changed, "an observer that only looks changed the configuration");
        });
    }

    /// Shows `counts`, the configuration at exactly `step` as (state, count) pairs, to each one
    /// due then: as counts to those that take them ([`Observer::look_at_counts`]), as an agent
    /// array (built once) to the others.
    pub fn look_counts(&mut self, step: u128, protocol: &P, counts: &[(P::State, u64)]) {
        let mut agents: Option<Vec<P::State>> = None;
        self.look_with(step, |observer, rng| {
            if !observer.look_at_counts(step, protocol, counts) {
                let agents = agents.get_or_insert_with(|| {
                    counts.iter().flat_map(|&(s, c)| std::iter::repeat_n(s, c as usize)).collect()
                });
                let changed = observer.observe(step, protocol, agents, rng);
                debug_assert!(!changed, "an observer that only looks changed the configuration");
            }
        });
    }
}

/// [`Drivable::advance_looking`] by stopping at each step where one of `lookers` looks: for engines
/// whose draws do not depend on where the run stops (the agent and count engines).
pub fn advance_stopping<P: Protocol, R: Drivable<P> + ?Sized>(
    run: &mut R,
    until: u128,
    watch: Watch,
    lookers: &mut Lookers<'_, P>,
) -> bool {
    loop {
        let stop = lookers.next_at().map_or(until, |at| at.min(until));
        if run.advance(stop, watch) {
            return true;
        }
        if run.step() >= until || run.step() < stop {
            return false;
        }
        lookers.look_with(run.step(), |observer, rng| run.observe(observer, rng));
    }
}

/// Runs `run` with its `observers` until the plan's measure is met at or after `plan.watch_from`,
/// or the horizon (or the end of a replayed schedule) is reached. A holding run must start in the
/// safe set; otherwise it is refused. A user rule that failed on the way (the engines stop at
/// their next safe point once [`Protocol::failure`] says so) ends it with [`Error::RuleFailed`].
pub fn drive<P: Protocol, R: Drivable<P>>(
    run: &mut R,
    plan: RunPlan,
    observers: &mut [&mut dyn Observer<P>],
    faults_rng: &mut PopRng,
) -> Result<Ending> {
    drive_pausing(run, plan, observers, faults_rng, false, &mut |_, _, _| Ok(()))
}

/// What [`drive_pausing`] hands a paused run to: the run, the faults' stream, the observers.
pub type OnPause<'a, P, R> = dyn FnMut(&R, &PopRng, &mut [&mut dyn Observer<P>]) -> Result<()> + 'a;

/// As [`drive`], for a run whose engine may pause at a safe point (its
/// [`Pause`](super::Pause) raised, see [`super::snapshot`]): `on_pause` is then handed the run,
/// the faults' stream and the observers, after the observers due at that step have acted (so the
/// faults done are exactly those at or before its step), and the run goes on as if it had never
/// paused.
/// `resumed`: the run was restored from a snapshot taken on the way, so a holding run is not
/// asked to start safe again.
pub fn drive_pausing<P: Protocol, R: Drivable<P>>(
    run: &mut R,
    plan: RunPlan,
    observers: &mut [&mut dyn Observer<P>],
    faults_rng: &mut PopRng,
    resumed: bool,
    on_pause: &mut OnPause<'_, P, R>,
) -> Result<Ending> {
    check_rules(run.protocol())?;
    if !resumed && plan.measure == Measure::Holding && !run.monitor().is_safe() {
        return Err(Error::Init(
            "a holding-time run starts from a safe configuration and this one is not safe; give a safe start with --init"
                .into(),
        ));
    }
    let horizon = plan.max_steps.min(run.step().saturating_add(run.pairs_left()));
    let (watch, met) = match plan.measure {
        Measure::Convergence => (Watch::SafeSet, Outcome::Converged),
        Measure::Holding => (Watch::OutputChange, Outcome::Broken),
    };
    let events = observers.iter().any(|o| o.wants_events());
    if events {
        run.keep_events();
    }
    let mut paused = false;
    let outcome = loop {
        check_rules(run.protocol())?;
        for observer in observers.iter_mut() {
            while observer.next_at().is_some_and(|at| at <= run.step()) {
                run.observe(&mut **observer, faults_rng);
            }
        }
        let watching = run.step() >= plan.watch_from;
        if watching && plan.measure == Measure::Convergence && run.monitor().is_safe() {
            break met;
        }
        if run.step() >= horizon {
            break Outcome::Censored;
        }
        if std::mem::take(&mut paused) {
            on_pause(run, faults_rng, observers)?;
        }
        // Only the observers that act end a stretch; those that only look are shown it on the way.
        let next_act = observers.iter().filter(|o| !o.only_looks()).filter_map(|o| o.next_at()).min();
        let until = horizon.min(next_act.unwrap_or(u128::MAX));
        let (until, watch) = if watching { (until, watch) } else { (until.min(plan.watch_from), Watch::Nothing) };
        let lookers: Vec<&mut dyn Observer<P>> =
            observers.iter_mut().filter(|o| o.only_looks()).map(|o| &mut **o as &mut dyn Observer<P>).collect();
        let happened = if lookers.is_empty() {
            run.advance(until, watch)
        } else {
            run.advance_looking(until, watch, &mut Lookers::new(lookers, faults_rng))
        };
        let handed_full_log = events && run.hand_events(observers);
        if happened {
            break met;
        }
        // Short of `until` without a reason: the engine paused at a safe point. (Short of it
        // with a full event log: a raised pause stops the next stretch at once.)
        paused = run.step() < until && !handed_full_log;
    };
    check_rules(run.protocol())?;
    run.finish(observers);
    Ok(Ending { outcome, steps: Steps(run.step()) })
}
