//! Independent runs of a network to a time, in parallel, each fixed by its own seed (trial `i`
//! of master seed `s` has seed `trial_seed(s, i)`, whatever the thread count).

use super::{CrnEngine, CrnRun, Network};
use crate::error::Result;
use crate::rng::trial_seed;
use rayon::prelude::*;
use serde::Serialize;

/// One run's end: its seed, the counts per species at the time, the reactions fired and the
/// engine that ran it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkTrial {
    /// The trial's seed.
    pub seed: u64,
    /// The counts at the end, one per species.
    pub counts: Vec<u64>,
    /// Reactions fired.
    pub reactions: u128,
    /// `"direct"` or `"batched"`.
    pub engine: &'static str,
}

/// `trials` runs of `network` from `init` to time `until`, on `threads` threads (`None`: all).
///
/// ```
/// use poplab::crn::{CrnEngine, Network, run_trials};
///
/// let decay = Network::parse(&[("A ->", 1.0)], 1.0)?;
/// let one = run_trials(&decay, &[1000], CrnEngine::Auto, 1.0, 8, 7, Some(1))?;
/// let many = run_trials(&decay, &[1000], CrnEngine::Auto, 1.0, 8, 7, None)?;
/// assert_eq!(one, many);
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn run_trials(
    network: &Network,
    init: &[u64],
    engine: CrnEngine,
    until: f64,
    trials: u64,
    seed: u64,
    threads: Option<usize>,
) -> Result<Vec<NetworkTrial>> {
    let one = |i: u64| -> Result<NetworkTrial> {
        let seed = trial_seed(seed, i);
        let mut run = CrnRun::new(network.clone(), init.to_vec(), engine, seed)?;
        run.advance_to(until)?;
        let engine = CrnEngine::NAMED.iter().find(|(_, e)| *e == run.engine()).map_or("?", |(n, _)| n);
        Ok(NetworkTrial { seed, counts: run.counts().to_vec(), reactions: run.reactions(), engine })
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| crate::error::Error::Io(format!("cannot start threads: {e}")))?;
    pool.install(|| (0..trials).into_par_iter().map(one).collect())
}
