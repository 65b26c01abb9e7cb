//! Driving a run of any engine: observers, the stop rule, the horizon.

use super::{Ending, Observer, Outcome, Steps, Watch};
use crate::error::{Error, Result};
use crate::protocol::{Monitor, Protocol};
use crate::rng::PopRng;

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
        Self::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| Error::Setting(format!("unknown measure '{name}'; use convergence or holding")))
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
    /// The cause ([`Protocol::demotion_cause`]) of the last interaction that demoted a leader.
    pub last_demotion: Option<&'static str>,
}

/// A run in progress of some engine, as [`drive`] sees it: every engine steps the same protocol
/// code, and this is what the driver needs of it.
pub trait Drivable<P: Protocol> {
    /// Steps taken so far.
    fn step(&self) -> u128;

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

    /// Hands the final configuration to the observers.
    fn finish(&self, observers: &mut [&mut dyn Observer<P>]);

    /// The census so far, if the run keeps one.
    fn census(&self) -> Option<CensusReport>;
}

/// Runs `run` with its `observers` until the plan's measure is met at or after `plan.watch_from`,
/// or the horizon (or the end of a replayed schedule) is reached. A holding run must start in the
/// safe set; otherwise it is refused.
pub fn drive<P: Protocol>(
    run: &mut impl Drivable<P>,
    plan: RunPlan,
    observers: &mut [&mut dyn Observer<P>],
    faults_rng: &mut PopRng,
) -> Result<Ending> {
    if plan.measure == Measure::Holding && !run.monitor().is_safe() {
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
    let outcome = loop {
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
        let next_event = observers.iter().filter_map(|o| o.next_at()).min().unwrap_or(u128::MAX);
        let until = horizon.min(next_event);
        let happened =
            if watching { run.advance(until, watch) } else { run.advance(until.min(plan.watch_from), Watch::Nothing) };
        if happened {
            break met;
        }
    };
    run.finish(observers);
    Ok(Ending { outcome, steps: Steps(run.step()) })
}
