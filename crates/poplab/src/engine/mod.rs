//! Engines: how a configuration evolves, step by step, until a stop rule holds.
//!
//! Time has two units and two types: [`Steps`] counts interactions exactly, [`ParallelTime`] is
//! steps divided by `n`. A run that reaches its horizon before its stop rule holds is
//! [`Outcome::Censored`]: its step count is a lower bound, never a measured value.

mod agents;
mod observer;

pub use agents::{AgentRun, Census, Measure, RunPlan, Watch, drive};
pub use observer::{Fault, FaultStates, Observer, TimeSeries, TracePoint};

use serde::Serialize;

/// A number of interactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Steps(pub u64);

/// Steps divided by the population size.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct ParallelTime(pub f64);

impl Steps {
    /// This many steps in parallel time for `n` agents.
    pub fn parallel_time(self, n: usize) -> ParallelTime {
        ParallelTime(self.0 as f64 / n as f64)
    }
}

/// How a trial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The safe set was entered at exactly the reported step.
    Converged,
    /// A holding run: the specification broke at exactly the reported step.
    Broken,
    /// The horizon was reached first: the reported step count is a lower bound on the measure.
    Censored,
}

/// The end of one run: how it ended and after how many steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub outcome: Outcome,
    pub steps: Steps,
}
