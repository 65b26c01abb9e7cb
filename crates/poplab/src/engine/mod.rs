//! Engines: how a configuration evolves, step by step, until a stop rule holds.
//!
//! Time has two units and two types: [`Steps`] counts interactions exactly, [`ParallelTime`] is
//! steps divided by `n`. A run that reaches its horizon before its stop rule holds is
//! [`Outcome::Censored`]: its step count is a lower bound, never a measured value.
//!
//! Three engines run the same protocol code: the agent-array engine ([`AgentRun`], any graph), the
//! count engine ([`CountRun`], the complete graph only: counts over the states present, with exact
//! skipping of null interactions) and the batched engine (the count engine taking collision-free
//! runs of interactions in bulk, see [`batched`]). [`Engine`] chooses between them.
//!
//! The engines draw differently but follow the same law. angluin from 50 leaders takes exactly
//! `(n - 1)^2 = 2401` expected steps on each:
//! ```
//! use poplab::engine::Engine;
//! use poplab::spec::{RawSpec, RunSpec};
//!
//! for engine in [Engine::Agents, Engine::Counts, Engine::Batched] {
//!     let raw = RawSpec { engine, trials: 400, seed: 1, ..RawSpec::new("angluin", 50) };
//!     let result = RunSpec::resolve(&raw)?.run(&|| {})?;
//!     let mean = result.summary.mean_steps.unwrap();
//!     // 400 trials: the standard error is about 5% of the mean.
//!     assert!((mean / 2401.0 - 1.0).abs() < 0.15, "{}: {mean}", engine.name());
//! }
//! # Ok::<(), poplab::Error>(())
//! ```

mod agents;
pub mod batched;
mod configuration;
mod counts;
mod drive;
pub mod events;
mod fenwick;
mod live;
mod observer;
pub(crate) mod sampling;
pub mod snapshot;
mod spacetime;

pub use agents::{AgentRun, on_huge_pages, prefetch};
pub use configuration::{SKIP_MAX_STATES, geometric_skip};
pub use counts::CountRun;
pub use drive::{CensusReport, Drivable, Lookers, Measure, RunPlan, Watch, advance_stopping, drive, drive_pausing};
pub use events::{EventLog, EventTrace, Series, TraceEvery};
pub use live::{LiveRun, SampleSteps};
pub use observer::{
    Event, EventPoint, Fault, FaultStates, Observer, SeriesPosition, TimeSeries, TracePoint, TraceSink,
};
pub use spacetime::snapshots;

/// The largest population the count engines take (counts and weights stay exact below it).
pub const MAX_AGENTS: u64 = 1 << 62;

use crate::error::{Error, Result};
use crate::graph::Graph;

use serde::Serialize;

/// A number of interactions. 128 bits wide: angluin needs `(n-1)^2` expected steps, beyond `u64`
/// from `n` of about `4.3 * 10^9` on, and the count engines take up to `2^62` agents.
///
/// ```
/// use poplab::engine::{ParallelTime, Steps};
///
/// // 500 interactions among 100 agents: each agent took part in 10 on average.
/// assert_eq!(Steps(500).parallel_time(100), ParallelTime(5.0));
/// // angluin at n = 10^10 expects (n - 1)^2, about 10^20 steps: more than u64 holds.
/// let n: u128 = 10_000_000_000;
/// assert!(Steps((n - 1) * (n - 1)) > Steps(u64::MAX.into()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Steps(pub u128);

/// A request to pause a run at its next safe point (see [`snapshot`]), raised by whoever wants a
/// checkpoint and lowered by the run's driver once it took its snapshot. The default is never
/// raised and costs one branch per block (agent engine) or event (count engines).
#[derive(Clone, Debug, Default)]
pub struct Pause(Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl Pause {
    /// A pause raised through `flag`.
    pub fn new(flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        Self(Some(flag))
    }

    /// Whether the run should pause now.
    #[inline(always)]
    pub fn raised(&self) -> bool {
        self.0.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Raises it (a pause made by [`Pause::new`]; the default is never raised).
    pub fn raise(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Lowers it: the snapshot is taken.
    pub fn lower(&self) {
        if let Some(flag) = &self.0 {
            flag.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Steps divided by the population size.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ParallelTime(pub f64);

impl Steps {
    /// This many steps in parallel time for `n` agents.
    pub fn parallel_time(self, n: usize) -> ParallelTime {
        ParallelTime(self.0 as f64 / n as f64)
    }
}

/// The steps from `step` to `until`, capped at `u64::MAX`: what an engine that counts a stretch of
/// steps in 64 bits (an agent array, one batch) may take before `until`.
pub(crate) fn steps_to(step: u128, until: u128) -> u64 {
    u64::try_from(until.saturating_sub(step)).unwrap_or(u64::MAX)
}

/// How a trial ended.
///
/// ```
/// use poplab::engine::Outcome;
/// use poplab::spec::{RawSpec, RunSpec};
///
/// // angluin on a directed ring: leaders never move, so leaders that are not neighbours never
/// // meet, and every trial reaches its horizon.
/// let ring = Some("ring".to_string());
/// let raw = RawSpec { graph: ring, max_steps: 10_000, trials: 5, ..RawSpec::new("angluin", 50) };
/// let result = RunSpec::resolve(&raw)?.run(&|| {})?;
/// assert!(result.records.iter().all(|r| r.outcome == Outcome::Censored && r.steps.0 == 10_000));
/// // A censored step count is only a lower bound: no mean, only a lower bound on it.
/// assert_eq!(result.summary.mean_steps, None);
/// assert_eq!(result.summary.mean_steps_lower_bound, Some(10_000.0));
/// assert_eq!("censored".parse::<Outcome>()?.name(), "censored");
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The safe set was entered at exactly the reported step.
    Converged,
    /// A holding run: the specification broke at exactly the reported step.
    Broken,
    /// The horizon was reached first: the reported step count is a lower bound on the measure.
    Censored,
}

impl Outcome {
    /// The name used in outputs: `converged`, `broken` or `censored`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Converged => "converged",
            Outcome::Broken => "broken",
            Outcome::Censored => "censored",
        }
    }
}

impl std::str::FromStr for Outcome {
    type Err = Error;

    /// `converged`, `broken` or `censored`.
    fn from_str(name: &str) -> Result<Self> {
        [Outcome::Converged, Outcome::Broken, Outcome::Censored].into_iter().find(|o| o.name() == name).ok_or_else(
            || Error::UnknownName {
                kind: "outcome",
                name: name.into(),
                choices: "converged, broken or censored".into(),
            },
        )
    }
}

/// The end of one run: how it ended and after how many steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// How the run ended.
    pub outcome: Outcome,
    /// Steps taken from the start (a lower bound on the measure if censored).
    pub steps: Steps,
}

impl std::str::FromStr for Engine {
    type Err = Error;

    /// `auto`, `agents`, `counts` or `batched`.
    fn from_str(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name).ok_or_else(|| Error::UnknownName {
            kind: "engine",
            name: name.into(),
            choices: "auto, agents, counts or batched".into(),
        })
    }
}

/// Which engine runs a trial. A closed set: [`Engine::Auto`] resolves to one of the others.
///
/// ```
/// use poplab::engine::Engine;
/// use poplab::graph::Graph;
///
/// let auto: Engine = "auto".parse()?;
/// // The complete graph, no faults, a protocol whose batches pay: batched.
/// assert_eq!(auto.resolve(&Graph::Complete, false, true)?, Engine::Batched);
/// // Faults overwrite agents by position: the agent array.
/// assert_eq!(auto.resolve(&Graph::Complete, true, true)?, Engine::Agents);
/// // The count engines keep no positions, so they refuse a ring.
/// assert!(Engine::Counts.resolve(&Graph::DirectedRing, false, true).is_err());
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// The batched engine on the complete graph without faults where the protocol says it pays
    /// ([`EngineHints::auto_batches`](crate::protocol::EngineHints::auto_batches)), else the agent
    /// engine.
    #[default]
    Auto,
    /// The agent-array engine: one state per agent, any graph.
    Agents,
    /// The count engine: counts over the states present, one interaction (or one skip of null
    /// interactions) at a time; complete graph only.
    Counts,
    /// The count engine taking collision-free runs of interactions in bulk where that pays;
    /// complete graph only.
    Batched,
}

impl Engine {
    /// Every engine, in the order the command line lists them.
    pub const ALL: [Engine; 4] = [Engine::Auto, Engine::Agents, Engine::Counts, Engine::Batched];

    /// The name used on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Agents => "agents",
            Engine::Counts => "counts",
            Engine::Batched => "batched",
        }
    }

    /// The engine that actually runs on `graph`, with or without faults, for a protocol that
    /// says whether batches pay for it (its
    /// [`EngineHints::auto_batches`](crate::protocol::EngineHints::auto_batches)): `auto` picks the
    /// batched engine on the complete graph without faults where they pay, and the agent engine
    /// otherwise (a fault's family states are given per agent position; with many states present
    /// the agent array is faster). `counts` and `batched` on another graph are refused.
    pub fn resolve(self, graph: &Graph, faults: bool, batches_pay: bool) -> Result<Engine> {
        match (self, graph) {
            (Engine::Auto, Graph::Complete) if !faults && batches_pay => Ok(Engine::Batched),
            (Engine::Auto, _) => Ok(Engine::Agents),
            (engine, Graph::Complete) => Ok(engine),
            (Engine::Agents, _) => Ok(Engine::Agents),
            (engine, other) => Err(Error::Conflict {
                reason: format!(
                    "--engine {} runs on the complete graph only (it keeps counts, not positions), not on {}; use \
                     --engine agents or auto",
                    engine.name(),
                    other.name()
                ),
            }),
        }
    }
}
