//! The record of one trial: what a run, a checkpoint and a sweep keep of each trial (public as
//! [`crate::experiment::TrialRecord`]).

use crate::engine::{EventPoint, Outcome, ParallelTime, Series, Steps, TracePoint};
use serde::{Deserialize, Serialize};

/// The result of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// The trial's index in its run.
    pub index: u64,
    /// The trial's own seed.
    pub seed: u64,
    /// How it ended.
    pub outcome: Outcome,
    /// Steps from the start to the end of the trial (exact; a lower bound if censored).
    pub steps: Steps,
    /// `steps / n`.
    pub parallel_time: ParallelTime,
    /// With faults: steps from the last fault to the end of the trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_steps: Option<Steps>,
    /// With a census: the number of distinct states some agent held during the trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_states: Option<u64>,
    /// With a census: what demoted the last leader to be demoted
    /// ([`Observables::demotion_cause`](crate::protocol::Observables::demotion_cause)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_demotion: Option<String>,
    /// The time series, when one was recorded in memory.
    #[serde(skip, default)]
    pub trace: Vec<TracePoint>,
    /// The event trace, when one was recorded in memory.
    #[serde(skip, default)]
    pub events: Vec<EventPoint>,
}

impl TrialRecord {
    /// This record with the rows `series` kept in memory.
    pub fn with_series(self, series: Series) -> Self {
        Self { trace: series.points, events: series.events, ..self }
    }

    /// The CSV columns of [`TrialRecord::outcome_fields`].
    pub const OUTCOME_COLUMNS: [&str; 5] = ["trial", "trial_seed", "outcome", "steps", "parallel_time"];
    /// The CSV columns of [`TrialRecord::census_fields`].
    pub const CENSUS_COLUMNS: [&str; 2] = ["distinct_states", "last_demotion"];

    /// `index, seed, outcome, steps, parallel_time` as CSV fields (exact integers).
    pub fn outcome_fields(&self) -> [String; 5] {
        [
            self.index.to_string(),
            self.seed.to_string(),
            self.outcome.name().to_string(),
            self.steps.0.to_string(),
            self.parallel_time.0.to_string(),
        ]
    }

    /// `distinct_states, last_demotion` as CSV fields (empty without a census).
    pub fn census_fields(&self) -> [String; 2] {
        [
            self.distinct_states.map(|d| d.to_string()).unwrap_or_default(),
            self.last_demotion.clone().unwrap_or_default(),
        ]
    }
}
