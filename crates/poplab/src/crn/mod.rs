//! Chemical reaction networks, simulated exactly: the law of Gillespie's direct method (the
//! chemical master equation under mass-action kinetics), for any network whose reactions have at
//! most two reactants, births and deaths included (`R -> 2R`, `F -> ∅`, `-> A`).
//!
//! Two engines, the same law:
//! - [`CrnEngine::Direct`]: Gillespie's direct method, one reaction at a time (small counts);
//! - [`CrnEngine::Batched`]: the network made uniform (a catalyst pads reactants to two, an inert
//!   waste pads products to `2 + g`) and run in collision-free batches of steps in a population
//!   that grows by `g` per step, with exact continuous time (large counts). See the `batched`
//!   and `clock` modules' documentation for the construction and why it is exact.
//!
//! Lotka-Volterra from 500 prey and 500 predators to time 1:
//! ```
//! use poplab::crn::{CrnEngine, CrnRun, Network};
//!
//! let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 1000.0)?;
//! let start = lv.counts(&[("R", 500), ("F", 500)])?;
//! for engine in [CrnEngine::Direct, CrnEngine::Batched] {
//!     let mut run = CrnRun::new(lv.clone(), start.clone(), engine, 1)?;
//!     run.advance_to(1.0)?;
//!     assert_eq!(run.time(), 1.0);
//!     assert!(run.reactions() > 0);
//! }
//! # Ok::<(), poplab::Error>(())
//! ```
//!
//! Randomness: the trial's streams ([`TrialStreams`] of the seed): the
//! schedule stream draws which molecules meet (batched), the outcome stream which reaction fires,
//! and the clock stream (the outcome stream one jump further) the time.

mod batched;
mod clock;
mod direct;
pub mod file;
mod inside;
mod network;
mod stop;
mod trials;

pub use batched::MAX_MOLECULES;
pub use clock::{beta_place, poisson_count};
pub use network::{MAX_PRODUCTS, MAX_REACTANTS, Network, Reaction};
pub use stop::CrnStop;
pub use trials::{NetworkTrial, TrialPlan, run_trials};

use crate::error::{Error, Result};
use crate::rng::TrialStreams;

/// Which engine runs a network (the same law either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrnEngine {
    /// The faster of the two for the network at its start, by a cost model (`auto_engine`:
    /// reactions per unit of time against batches per unit of time).
    Auto,
    /// Gillespie's direct method, one reaction at a time.
    Direct,
    /// Collision-free batches of steps of the uniform network.
    Batched,
}

impl CrnEngine {
    /// Every engine with its name, as the command line and Python take it.
    pub const NAMED: [(&'static str, CrnEngine); 3] =
        [("auto", CrnEngine::Auto), ("direct", CrnEngine::Direct), ("batched", CrnEngine::Batched)];

    /// The network engine that the protocols' `engine` stands for: `auto`, `counts` (the direct
    /// method: counts, one reaction at a time) or `batched`; a network has no agent array.
    pub fn of_engine(engine: crate::engine::Engine) -> Result<Self> {
        use crate::engine::Engine;
        match engine {
            Engine::Auto => Ok(CrnEngine::Auto),
            Engine::Counts => Ok(CrnEngine::Direct),
            Engine::Batched => Ok(CrnEngine::Batched),
            other => Err(Error::Conflict {
                reason: format!(
                    "--engine {}: a reaction network runs on counts: --engine auto, counts (Gillespie's direct method) or \
                     batched",
                    other.name()
                ),
            }),
        }
    }

    /// The engine named `name`.
    pub fn parse(name: &str) -> Result<Self> {
        Self::NAMED.iter().find(|(n, _)| *n == name).map(|&(_, e)| e).ok_or_else(|| Error::Option {
            option: "engine",
            value: name.into(),
            reason: "'auto' (the default), 'direct' (Gillespie's method, small counts) or 'batched' \
                     (collision-free batches, large counts)"
                .into(),
        })
    }
}

/// What [`CrnEngine::Auto`] weighs: the processor time of one reaction of the direct method and
/// of one batch of the batched engine, in seconds. From `cargo bench -p poplab-bench --bench crn`
/// (2026-11-29, best of 3): the direct method's 1.36 * 10^9 reactions of Lotka-Volterra at 10^9
/// took 60.5 s (45 ns each, 55 ns at 10^5); the batched engine's batches there took about 7 us
/// each (0.52 s).
pub const REACTION_SECONDS: f64 = 55e-9;
/// See [`REACTION_SECONDS`].
pub const BATCH_SECONDS: f64 = 7e-6;

/// [`CrnEngine::Auto`]'s choice at the start: the engine whose expected time for one unit of
/// the network's time is smaller: the direct method's reactions (the total propensity) against
/// the batched engine's batches (its steps per unit of time over the typical length of a batch,
/// `sqrt(n / (2 + g))`). Lotka-Volterra at 10^5 molecules batches; dimerization there does not.
fn auto_engine(network: &Network, counts: &[u64], batched: &batched::Batched) -> CrnEngine {
    let reactions: f64 = (0..network.reactions.len()).map(|r| network.propensity(r, counts)).sum();
    let (steps, n) = batched.step_rate(counts);
    let batch = (n as f64 / (2 + network.generativity()) as f64).sqrt().max(1.0);
    if steps / batch * BATCH_SECONDS < reactions * REACTION_SECONDS { CrnEngine::Batched } else { CrnEngine::Direct }
}

/// A network's run: counts per species and the time, advanced by the caller.
#[derive(Clone, Debug)]
pub struct CrnRun {
    network: Network,
    counts: Vec<u64>,
    time: f64,
    reactions: u128,
    engine: Running,
}

#[derive(Clone, Debug)]
enum Running {
    Direct(direct::Direct),
    Batched(Box<batched::Batched>),
}

impl CrnRun {
    /// A run of `network` from `counts` (one per species, in the network's order) at time 0,
    /// on `engine`, with the streams of `seed`.
    pub fn new(network: Network, counts: Vec<u64>, engine: CrnEngine, seed: u64) -> Result<Self> {
        if counts.len() != network.species.len() {
            return Err(Error::Option {
                option: "counts",
                value: format!("{counts:?}"),
                reason: format!("one count per species: {}", network.species.join(", ")),
            });
        }
        let total = counts.iter().try_fold(0u64, |sum, &c| sum.checked_add(c));
        if total.is_none_or(|t| t > MAX_MOLECULES) {
            return Err(Error::Option {
                option: "counts",
                value: format!("{counts:?}"),
                reason: "at most 2^61 molecules in all".into(),
            });
        }
        let streams = TrialStreams::new(seed);
        let mut clock = streams.outcomes.clone();
        clock.jump();
        let batched = || {
            batched::Batched::new(&network, &counts, streams.schedule.clone(), streams.outcomes.clone(), clock.clone())
        };
        let engine = match engine {
            CrnEngine::Auto => {
                let candidate = batched();
                match auto_engine(&network, &counts, &candidate) {
                    CrnEngine::Batched => Running::Batched(Box::new(candidate)),
                    _ => Running::Direct(direct::Direct::new(&network, streams.outcomes.clone(), clock.clone())),
                }
            }
            CrnEngine::Direct => {
                Running::Direct(direct::Direct::new(&network, streams.outcomes.clone(), clock.clone()))
            }
            CrnEngine::Batched => Running::Batched(Box::new(batched())),
        };
        Ok(CrnRun { network, counts, time: 0.0, reactions: 0, engine })
    }

    /// Runs on to time `until` (a finite time; nothing happens if the run is already there): the
    /// counts are then those of the network at `until`, exactly in law.
    pub fn advance_to(&mut self, until: f64) -> Result<()> {
        self.advance(until, None).map(|_| ())
    }

    /// Runs on to the first time `stop` holds (returned; the run stays there) or to `until`
    /// (`None`: it did not hold by then, a censored run), exactly in law: the time is that of the
    /// reaction that made it hold (or the run's time if it holds already).
    ///
    /// ```
    /// use poplab::crn::{CrnEngine, CrnRun, CrnStop, Network};
    ///
    /// let decay = Network::parse(&[("A ->", 1.0)], 1.0)?;
    /// let mut run = CrnRun::new(decay.clone(), vec![1000], CrnEngine::Batched, 3)?;
    /// let gone = run.advance_until(100.0, &CrnStop::AtMost(0, 0))?.expect("extinct long before 100");
    /// assert_eq!((run.counts(), run.time()), (&[0u64][..], gone));
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn advance_until(&mut self, until: f64, stop: &CrnStop) -> Result<Option<f64>> {
        self.advance(until, Some(stop))
    }

    fn advance(&mut self, until: f64, stop: Option<&CrnStop>) -> Result<Option<f64>> {
        if !until.is_finite() {
            return Err(Error::Option {
                option: "time",
                value: until.to_string(),
                reason: "a finite time to run to".into(),
            });
        }
        if until <= self.time {
            return Ok(stop.filter(|s| s.holds(&self.network, &self.counts)).map(|_| self.time));
        }
        let (fired, stopped) = match &mut self.engine {
            Running::Direct(direct) => direct.advance(&self.network, &mut self.counts, &mut self.time, until, stop),
            Running::Batched(batched) => {
                batched.advance(&self.network, &mut self.counts, &mut self.time, until, stop)?
            }
        };
        self.reactions += u128::from(fired);
        Ok(stopped)
    }

    /// Whether no reaction can happen any more (every propensity is 0).
    pub fn silent(&self) -> bool {
        (0..self.network.reactions.len()).all(|r| self.network.propensity(r, &self.counts) == 0.0)
    }

    /// The engine that runs it (never `Auto`).
    pub fn engine(&self) -> CrnEngine {
        match self.engine {
            Running::Direct(_) => CrnEngine::Direct,
            Running::Batched(_) => CrnEngine::Batched,
        }
    }

    /// The counts, one per species in the network's order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The time reached.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// How many reactions fired so far.
    pub fn reactions(&self) -> u128 {
        self.reactions
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_batches_where_reactions_outnumber_batches() {
        let lv = |n: u64| Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], n as f64).unwrap();
        let dimer = |n: u64| Network::parse(&[("2A -> D", 1.0), ("D -> 2A", 1.0)], n as f64).unwrap();
        let engine =
            |network: Network, counts: Vec<u64>| CrnRun::new(network, counts, CrnEngine::Auto, 1).unwrap().engine();
        // The bench's measurements: Lotka-Volterra batches faster from 10^5, dimerization from 10^6.
        assert_eq!(engine(lv(1000), vec![500, 500]), CrnEngine::Direct);
        assert_eq!(engine(lv(100_000), vec![50_000, 50_000]), CrnEngine::Batched);
        assert_eq!(engine(dimer(100_000), vec![100_000, 0]), CrnEngine::Direct);
        assert_eq!(engine(dimer(10_000_000), vec![10_000_000, 0]), CrnEngine::Batched);
    }
}
