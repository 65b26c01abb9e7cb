//! Independent runs of a network to a time, in parallel, each fixed by its own seed (trial `i`
//! of master seed `s` has seed `trial_seed(s, i)`, whatever the thread count).

use super::{CrnEngine, CrnRun, CrnStop, Network};
use crate::error::{Error, Result};
use crate::rng::trial_seed;
use rayon::prelude::*;
use serde::Serialize;

/// One run's end: its seed, the counts per species at its end, when its stop held (if it had one
/// and it held before the horizon), the reactions fired and the engine that ran it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkTrial {
    /// The trial's seed.
    pub seed: u64,
    /// The counts at the end, one per species.
    pub counts: Vec<u64>,
    /// The time the stop first held; `None`: no stop, or it did not hold by the horizon (a
    /// censored run: its time is at least the horizon).
    pub stopped: Option<f64>,
    /// Reactions fired.
    pub reactions: u128,
    /// The counts at the times [`TrialPlan::every`] asks for, and at the end (empty without it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<(f64, Vec<u64>)>,
    /// `"direct"` or `"batched"`.
    pub engine: &'static str,
}

/// How a set of runs goes: the engine, the horizon, the stop, how many, the master seed and the
/// threads (`None`: one per core; the results do not depend on it).
#[derive(Clone, Copy, Debug)]
pub struct TrialPlan<'a> {
    /// The engine.
    pub engine: CrnEngine,
    /// The time each run goes to (its horizon, with a stop).
    pub until: f64,
    /// What ends a run before `until`, if anything.
    pub stop: Option<&'a CrnStop>,
    /// How many runs.
    pub trials: u64,
    /// The master seed: run `i` has seed `trial_seed(seed, i)`.
    pub seed: u64,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Record the counts every so much time (at `0, every, 2 every, ...` up to the end), into
    /// [`NetworkTrial::series`]; `None`: no series.
    pub every: Option<f64>,
}

/// The runs of `network` from `init` that `plan` says, in parallel.
///
/// ```
/// use poplab::crn::{CrnEngine, Network, TrialPlan, run_trials};
///
/// let decay = Network::parse(&[("A ->", 1.0)], 1.0)?;
/// let plan =
///     TrialPlan { engine: CrnEngine::Auto, until: 1.0, stop: None, trials: 8, seed: 7, threads: Some(1), every: None };
/// let one = run_trials(&decay, &[1000], &plan)?;
/// let many = run_trials(&decay, &[1000], &TrialPlan { threads: None, ..plan })?;
/// assert_eq!(one, many);
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn run_trials(network: &Network, init: &[u64], plan: &TrialPlan<'_>) -> Result<Vec<NetworkTrial>> {
    let TrialPlan { engine, until, stop, trials, seed, threads, every } = *plan;
    if let Some(every) = every.filter(|e| !(e.is_finite() && *e > 0.0)) {
        return Err(Error::Option { option: "every", value: every.to_string(), reason: "a time > 0".into() });
    }
    let one = |i: u64| -> Result<NetworkTrial> {
        let seed = trial_seed(seed, i);
        let mut run = CrnRun::new(network.clone(), init.to_vec(), engine, seed)?;
        let mut series = Vec::new();
        // The run goes from one recorded time to the next (exact at each), then to the end.
        let mut k = 0u64;
        let stopped = loop {
            let target = every.map_or(until, |e| (k as f64 * e).min(until));
            let stopped = match stop {
                Some(stop) => run.advance_until(target, stop)?,
                None => run.advance_to(target).map(|()| None)?,
            };
            if every.is_some() {
                series.push((run.time(), run.counts().to_vec()));
            }
            if stopped.is_some() || target >= until {
                break stopped;
            }
            k += 1;
        };
        let engine = CrnEngine::NAMED.iter().find(|(_, e)| *e == run.engine()).map_or("?", |(n, _)| n);
        Ok(NetworkTrial { seed, counts: run.counts().to_vec(), stopped, reactions: run.reactions(), engine, series })
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Io(format!("cannot start threads: {e}")))?;
    pool.install(|| (0..trials).into_par_iter().map(one).collect())
}
