//! Holding times beyond direct simulation: renewal (flux) decomposition plus generalized adaptive
//! multilevel splitting (gAMS).
//!
//! A holding run starts in a safe configuration `x0` and ends at the first interaction that
//! changes some agent's output (the *break*, `B`). Where the expected holding time is `10^10`
//! steps or more, direct simulation sees no break. This module estimates it instead from many
//! short pieces of simulation, with a 95% confidence interval.
//!
//! ```
//! use poplab::engine::Measure;
//! use poplab::exact::DEFAULT_MAX_CONFIGS;
//! use poplab::spec::{Estimator, RawSpec, RunSpec, SplittingOptions};
//!
//! // poplab run ls-timer --n 4 --set s=8 --measure holding --estimator splitting
//! //     --trials 20 --replicas 50 --cycles 200 --seed 1
//! let params = vec!["s=8".into()];
//! let options = SplittingOptions { replicas: 50, cycles: 200, ..SplittingOptions::default() };
//! let estimator = Estimator::Splitting(options);
//! let raw = RawSpec { params, measure: Measure::Holding, trials: 20, seed: 1, estimator, ..RawSpec::new("ls-timer", 4) };
//! let spec = RunSpec::resolve(&raw)?;
//! let estimate = spec.estimate(&|| {}, None)?.estimate;
//! // The exact value is 64,431.72 steps (poplab exact, the same spec).
//! let exact = spec.exact(DEFAULT_MAX_CONFIGS)?.expected_steps;
//! let [low, high] = estimate.ci95.unwrap();
//! assert!(low < exact && exact < high, "{low} {exact} {high}");
//! assert!((estimate.mean_steps.unwrap() / exact - 1.0).abs() < 0.2);
//! # Ok::<(), poplab::Error>(())
//! ```
//!
//! # The method
//!
//! The protocol supplies integer scores ([`HoldingScores::holding_scores`](crate::protocol::HoldingScores::holding_scores)), 0 at `x0` and larger
//! closer to the break. The reference set is `A = {score <= L}`.
//!
//! 1. **Renewal (flux) decomposition.** A *cycle* starts in `A`, runs until it leaves `A` (its
//!    *exit*, the first configuration with score above `L`) and then until it is back in `A` or
//!    breaks. If every cycle starts afresh (`A` is one configuration up to the symmetries of the
//!    dynamics, as `L = 0` gives for `ls-timer`), the holding time is the sum of the lengths of
//!    the cycles up to the first one that breaks, a geometric number of i.i.d. cycles, and Wald's
//!    identity gives exactly `E[T_hold] = E[cycle length] / P(a cycle breaks)`. This is the rate
//!    formula of forward flux sampling, Allen, Valeriani and ten Wolde, J. Phys.: Condens. Matter
//!    21:463102 (2009), section 2 (`k_AB = Phi_A,0 * P(lambda_B | lambda_0)`: the flux of
//!    trajectories out of `A` times the probability that one of them reaches `B` before
//!    returning to `A`), with `1 / Phi` the mean cycle length. Stage one, the *flux run*,
//!    simulates `C` cycles directly: it measures their mean length and keeps their exits (a
//!    cycle that broke before leaving `A` keeps a broken exit). When `A` is a set rather than one
//!    configuration, successive cycles are only approximately independent and the formula is
//!    FFS's steady-state approximation, accurate when holding times are long against the mixing
//!    inside `A` (tested against exact values in `tests/it/splitting_holding.rs`).
//! 2. **gAMS for `p = P(a cycle breaks)`**, Bréhier, Gazeau, Goudenège, Lelièvre and Rousset,
//!    "Unbiasedness of some generalized adaptive multilevel splitting algorithms", Ann. Appl.
//!    Probab. 26(6):3559-3601 (2016), arXiv:1505.02674: their AMS algorithm for paths of a
//!    discrete-time Markov chain stopped at `min(tau_A, tau_B)`, with the rule for ties under
//!    which their main result makes the estimator unbiased for any importance function and any
//!    number of replicas. `R` replicas start from exits drawn from the flux run's; a replica's
//!    level is the largest score along its path (a break counts as the top level). Each iteration
//!    takes the smallest level `Z`, kills *every* replica at level `<= Z` (with integer scores
//!    there are always ties; killing only `k` of them is the biased naive splitting, see Walter,
//!    arXiv:1507.00919), and replaces each killed one by a copy of a survivor chosen uniformly,
//!    taken up to the survivor's first interaction with score `> Z` and continued from there with
//!    a fresh random stream. When every replica has broken, `p_hat = prod (1 - K_q / R)` over the
//!    iterations (`K_q` killed at iteration `q`); if all replicas are tied at some level,
//!    `p_hat = 0`. The product is kept as a logarithm: `p` may lie far below the smallest `f64`.
//!
//! Why gAMS: the scores of population protocols are small integers, so ties are the rule, and
//! gAMS is the splitting method proved unbiased with ties for Markov chains, for any number of
//! replicas and any score; it places the levels itself (no interfaces to tune as in FFS).
//!
//! **The reference set.** `L` is given (`--base-level`) or chosen by a *pilot run* of 1000
//! parallel time from `x0` (restarted there after a break): the smallest `L` at or below which
//! the chain spends at least 1% of the pilot's interactions (its first tenth not counted). Where
//! `x0` recurs often (small `n`), that is `L = 0` and the renewal is exact; where it hardly ever
//! recurs, cycles from `x0` alone would be endless, and `L` grows with the typical score.
//!
//! # The interval
//!
//! The estimator is repeated `M` times independently (each repetition a flux run of `C` cycles
//! and one gAMS run of `R` replicas). With `tau_m` the mean cycle length and `p_m` the gAMS
//! estimate of repetition `m`, the estimate is `mean(tau_m) / mean(p_m)` (a ratio of unbiased
//! means, so its bias falls as `1/M`), and its 95% interval comes from the delta method on the
//! logarithm, `log E +- t_{0.975, M-1} * se`, `se^2 = (var tau / tau^2 + var p / p^2 - 2 cov /
//! (tau p)) / M`. Estimates beyond `10^300` steps are given by their logarithms only.
//!
//! The interval assumes `mean(p_m)` is near normal. When gAMS's relative variance per repetition
//! is large (many levels, each a large drop in probability, for too few replicas), the `p_m` are
//! skewed: most fall below their mean, which a few carry, so with few repetitions the estimate
//! tends to come out too high and the interval too narrow. Each repetition reports
//! `sum_q K_q / (R (R - K_q))`, the relative variance its estimate would have if the levels'
//! survival fractions were independent binomials (a lower bound; it falls as `1/R`), and the
//! command line warns when its mean exceeds 1.
//!
//! Simulation is exact, one interaction at a time on the agent-array engine (the score is read
//! after every interaction), so the cost is `O(n)` per interaction: meant for the small and
//! moderate populations where holding times are long.

use crate::engine::{AgentRun, Watch};
use crate::error::{Error, Result};
use crate::files::fnv1a64;
use crate::graph::{Graph, RandomScheduler};
use crate::protocol::{Monitor, Protocol, state_to_json};
use crate::rng::{PopRng, below_u64, trial_seed};
use crate::run::journal::Journal;
use crate::stats;
use rand_core::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::path::Path;

/// How the splitting estimator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplittingSettings {
    /// gAMS replicas per repetition (`R`).
    pub replicas: usize,
    /// Independent repetitions of the whole estimator (`M`, at least 2 for an interval).
    pub repetitions: u64,
    /// Cycles of the flux run per repetition (`C`).
    pub cycles: u64,
    /// The master seed; repetition `m` uses [`trial_seed`]`(seed, m)`.
    pub seed: u64,
    /// Worker threads (`None`: one per core). Results do not depend on it.
    pub threads: Option<usize>,
    /// Refuse a piece of simulation longer than this many interactions (a score that never
    /// leaves or never returns to the reference set).
    pub max_cycle_steps: u64,
    /// Which of the protocol's holding scores (an index into [`HoldingScores::holding_scores`](crate::protocol::HoldingScores::holding_scores)).
    pub score: usize,
    /// The reference set is `A = {score <= base_level}`; `None`: chosen by the pilot run.
    pub base_level: Option<u64>,
}

impl Default for SplittingSettings {
    fn default() -> Self {
        Self {
            replicas: 200,
            repetitions: 100,
            cycles: 1000,
            seed: 0,
            threads: None,
            max_cycle_steps: 1 << 40,
            score: 0,
            base_level: None,
        }
    }
}

/// One repetition of the estimator.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repetition {
    /// The mean cycle length of its flux run.
    pub mean_cycle_steps: f64,
    /// Cycles of its flux run that broke.
    pub flux_breaks: u64,
    /// The base-10 logarithm of its gAMS estimate of `P(break before return to A)` (`None`: no
    /// replica broke, the estimate is 0).
    pub log10_break_probability: Option<f64>,
    /// gAMS iterations.
    pub iterations: u64,
    /// `sum_q K_q / (R (R - K_q))` over its iterations: the relative variance its estimate of `P`
    /// would have if the levels' survival fractions were independent binomials, a lower bound on
    /// the true one (cloning adds correlation). Above about 1 the estimate is skewed: most
    /// repetitions fall below the mean, which a few large ones carry.
    pub binomial_relative_variance: f64,
    /// The largest score reached by a replica that did not break.
    pub max_level: u64,
    /// Interactions simulated (flux run and gAMS).
    pub interactions: u128,
    /// gAMS replicas that broke before any splitting (from their first exit, unbranched): when
    /// these carry the estimate, the score does not see the path that breaks.
    #[serde(default)]
    pub initial_breaks: u64,
}

/// The levels gAMS placed, over the repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelsReport {
    /// The reference set `A = {score <= base}`.
    pub base: u64,
    /// Whether `base` was chosen by the pilot run (rather than given).
    pub base_from_pilot: bool,
    /// The mean number of gAMS iterations (levels) per repetition.
    pub mean_iterations: f64,
    /// The mean of [`Repetition::binomial_relative_variance`]: above about 1, the repetitions'
    /// estimates are skewed and the interval, which assumes their mean is near normal, may be too
    /// narrow and the estimate too high; more replicas (variance falls as `1/R`) or a finer score
    /// help.
    pub binomial_relative_variance: f64,
    /// The largest score reached without breaking, over all repetitions.
    pub max_level: u64,
}

/// What shows that a score misses a way to break: the spread of the repetitions' estimates of
/// `log10 P` and the share of breaks found without splitting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// The standard deviation of the repetitions' `log10 P` (those with a break). Near
    /// `sqrt(binomial relative variance) / ln 10` or below when the score follows the breaks; far
    /// above it (decades) when some repetitions find a path the others miss.
    pub log10_break_probability_sd: f64,
    /// The smallest and largest `log10 P` over the repetitions (those with a break).
    pub log10_break_probability_range: [f64; 2],
    /// Repetitions in which no replica broke (their estimate of `P` is 0).
    pub repetitions_without_break: u64,
    /// The share of the flux runs' cycles that broke (breaks found by direct simulation).
    pub flux_break_share: f64,
    /// The share of gAMS replicas that broke before any splitting.
    pub initial_break_share: f64,
}

/// Values beyond this many steps are given in log10 only.
pub const LOG10_ONLY_ABOVE: f64 = 300.0;

/// The estimate of the expected holding time, with its interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HoldingEstimate {
    /// The estimate of `E[T_hold]` in steps (`None` beyond `10^300`: see `log10_mean_steps`).
    pub mean_steps: Option<f64>,
    /// Its base-10 logarithm.
    pub log10_mean_steps: f64,
    /// The 95% confidence interval of `E[T_hold]` in steps (`None` when its upper end is beyond
    /// `10^300`: see `log10_ci95`).
    pub ci95: Option<[f64; 2]>,
    /// The base-10 logarithms of the interval's ends.
    pub log10_ci95: [f64; 2],
    /// The standard error of `log10_mean_steps` (delta method).
    pub log10_standard_error: f64,
    /// The method, in words.
    pub method: String,
    /// The score used (one of [`HoldingScores::holding_scores`](crate::protocol::HoldingScores::holding_scores)).
    pub score: String,
    /// Interactions simulated in all (pilot, flux runs and gAMS).
    pub interactions_simulated: u128,
    /// The levels gAMS placed.
    pub levels: LevelsReport,
    /// `R`.
    pub replicas: usize,
    /// `M`.
    pub repetitions: u64,
    /// `C`.
    pub cycles: u64,
    /// The mean cycle length (over all repetitions).
    pub mean_cycle_steps: f64,
    /// The base-10 logarithm of the mean gAMS estimate of `P(break before return to A)`.
    pub log10_break_probability: f64,
    /// The base-10 logarithm of the interactions direct simulation would need for the same
    /// relative precision, taking the holding time as exponential (relative standard error
    /// `1/sqrt(k)` after `k` breaks).
    pub log10_direct_equivalent_interactions: f64,
    /// `log10(direct equivalent / interactions simulated)`.
    pub log10_speedup: f64,
    /// The spread of the repetitions and the breaks found without splitting.
    #[serde(default)]
    pub diagnostics: Diagnostics,
    /// Every repetition.
    pub runs: Vec<Repetition>,
}

/// Simulation for the estimator: what every piece needs.
struct Sim<'a, P: Protocol> {
    protocol: &'a P,
    graph: &'a Graph,
    scheduler: RandomScheduler,
    score: usize,
    max_cycle_steps: u64,
    interactions: u128,
}

/// A replica of gAMS: the configurations at which its running maximum of the score rose (levels
/// increasing; those at or below the current level are dropped), and its level (`u64::MAX`:
/// broke).
struct Replica<S> {
    records: Vec<(u64, Vec<S>)>,
    level: u64,
}

const BROKE: u64 = u64::MAX;

impl<'a, P: Protocol> Sim<'a, P> {
    fn new(protocol: &'a P, graph: &'a Graph, settings: &SplittingSettings) -> Result<Self> {
        Ok(Self {
            protocol,
            graph,
            scheduler: graph.scheduler(protocol.n())?,
            score: settings.score,
            max_cycle_steps: settings.max_cycle_steps,
            interactions: 0,
        })
    }

    fn score(&self, agents: &[P::State]) -> Result<u64> {
        self.protocol.holding().and_then(|h| h.holding_score(self.score, agents)).ok_or_else(|| no_score(self.protocol))
    }

    /// Runs from `agents`, one interaction at a time, until `done(score, agents)` says so or the
    /// run breaks. Returns the interactions taken and the final configuration (`None`: broke).
    fn walk(
        &mut self,
        agents: Vec<P::State>,
        rng: PopRng,
        mut done: impl FnMut(u64, &[P::State]) -> bool,
    ) -> Result<(u64, Option<Vec<P::State>>)> {
        let mut run = AgentRun::new(self.protocol, self.graph, agents, self.scheduler.clone(), rng);
        loop {
            let step = run.step();
            if step >= u128::from(self.max_cycle_steps) {
                return Err(Error::Limit {
                    reason: format!(
                        "a piece of the splitting estimator ran {} interactions without its score ({}) leaving or \
                         returning to the reference set, or a break; give another --base-level or --score",
                        self.max_cycle_steps,
                        crate::protocol::holding_scores(self.protocol)[self.score]
                    ),
                });
            }
            let broke = run.advance(step + 1, Watch::OutputChange);
            self.interactions += 1;
            if broke {
                return Ok((step as u64 + 1, None));
            }
            if done(self.score(run.agents())?, run.agents()) {
                return Ok((step as u64 + 1, Some(run.agents().to_vec())));
            }
        }
    }
}

fn no_score<P: Protocol>(protocol: &P) -> Error {
    Error::Conflict {
        reason: format!(
            "{} has no holding score (HoldingScores), so the splitting estimator is not available for it; use direct \
             simulation (--estimator direct)",
            protocol.info().name
        ),
    }
}

/// Hands out independent streams: each a jump (`2^128` draws) beyond the last.
struct Streams(PopRng);

impl Streams {
    fn new(seed: u64) -> Self {
        Self(PopRng::seed_from_u64(seed))
    }

    fn next(&mut self) -> PopRng {
        let rng = self.0.clone();
        self.0.jump();
        rng
    }
}

/// The pilot run's length in parallel time, and the share of it the reference set must hold.
const PILOT_PARALLEL_TIME: u64 = 1000;
const BASE_SHARE: f64 = 0.01;

/// The pilot run: `PILOT_PARALLEL_TIME` from `start` (restarting there after a break); the base
/// level is the smallest `L` with the score at most `L` after at least `BASE_SHARE` of its
/// interactions (the first tenth not counted).
fn pilot_base<P: Protocol>(sim: &mut Sim<'_, P>, start: &[P::State], seed: u64) -> Result<u64> {
    let total = PILOT_PARALLEL_TIME * sim.protocol.n() as u64;
    let skip = total / 10;
    let mut streams = Streams::new(trial_seed(seed, u64::MAX));
    let mut histogram: Vec<u64> = Vec::new();
    let mut taken = 0u64;
    while taken < total {
        sim.walk(start.to_vec(), streams.next(), |score, _| {
            taken += 1;
            if taken > skip {
                let level = score as usize;
                if histogram.len() <= level {
                    histogram.resize(level + 1, 0);
                }
                histogram[level] += 1;
            }
            taken >= total
        })?;
    }
    let counted: u64 = histogram.iter().sum();
    let mut below = 0u64;
    for (level, count) in histogram.iter().enumerate() {
        below += count;
        if below as f64 >= BASE_SHARE * counted as f64 {
            return Ok(level as u64);
        }
    }
    Ok(0)
}

/// An exit from the reference set: the first configuration with score above the base (`None`:
/// the run broke before leaving it).
type Exit<S> = Option<Vec<S>>;

/// One repetition: a flux run of `cycles` cycles from `start`, then gAMS with `replicas`.
fn repetition<P: Protocol>(
    sim: &mut Sim<'_, P>,
    start: &[P::State],
    base: u64,
    settings: &SplittingSettings,
    index: u64,
) -> Result<Repetition> {
    let mut streams = Streams::new(trial_seed(settings.seed, index));
    let mut choose = streams.next();

    // Stage one: the flux run. Each cycle starts in A, leaves it and ends back in A or broken;
    // its exit is kept (at most `EXITS` of them, by reservoir sampling) as a start of gAMS.
    const EXITS: usize = 4096;
    let mut exits: Vec<Exit<P::State>> = Vec::new();
    let (mut total, mut breaks) = (0u128, 0u64);
    let mut current = start.to_vec();
    for cycle in 0..settings.cycles {
        let mut exit: Option<Vec<P::State>> = None;
        let (length, end) = sim.walk(current, streams.next(), |score, agents| match exit {
            None => {
                if score > base {
                    exit = Some(agents.to_vec());
                }
                false
            }
            Some(_) => score <= base,
        })?;
        total += u128::from(length);
        if exits.len() < EXITS {
            exits.push(exit);
        } else {
            let slot = below_u64(&mut choose, cycle + 1) as usize;
            if slot < EXITS {
                exits[slot] = exit;
            }
        }
        current = end.unwrap_or_else(|| {
            breaks += 1;
            start.to_vec()
        });
    }
    let mean_cycle_steps = total as f64 / settings.cycles as f64;

    // Stage two: gAMS, from exits drawn from the flux run's.
    let r = settings.replicas;
    let mut replicas: Vec<Replica<P::State>> = Vec::with_capacity(r);
    let mut initial_breaks = 0u64;
    for _ in 0..r {
        let replica = match &exits[below_u64(&mut choose, exits.len() as u64) as usize] {
            Some(from) => {
                let level = sim.score(from)?;
                grow(sim, base, vec![(level, from.clone())], streams.next())?
            }
            None => Replica { records: Vec::new(), level: BROKE },
        };
        initial_breaks += u64::from(replica.level == BROKE);
        replicas.push(replica);
    }
    let (mut log_probability, mut iterations, mut max_level, mut variance) = (0.0f64, 0u64, 0u64, 0.0f64);
    loop {
        let z = replicas.iter().map(|x| x.level).min().unwrap_or(BROKE);
        if z == BROKE {
            break;
        }
        max_level = max_level.max(z);
        let killed: Vec<usize> = (0..r).filter(|&i| replicas[i].level <= z).collect();
        let survivors: Vec<usize> = (0..r).filter(|&i| replicas[i].level > z).collect();
        iterations += 1;
        if survivors.is_empty() {
            log_probability = f64::NEG_INFINITY;
            break;
        }
        log_probability += ((r - killed.len()) as f64 / r as f64).ln();
        variance += killed.len() as f64 / (r as f64 * (r - killed.len()) as f64);
        for &i in &killed {
            let j = survivors[below_u64(&mut choose, survivors.len() as u64) as usize];
            // The survivor's first configuration with score > z (its records all lie above the
            // previous level; a broken survivor that never rose above z broke from below it).
            replicas[i] = match replicas[j].records.iter().find(|(level, _)| *level > z) {
                Some(record) => grow(sim, base, vec![record.clone()], streams.next())?,
                // It broke without its score rising above z: the copy is the broken path itself.
                None => Replica { records: Vec::new(), level: BROKE },
            };
        }
        // Records at or below z are never cloned again.
        for replica in replicas.iter_mut() {
            replica.records.retain(|(level, _)| *level > z);
        }
    }
    Ok(Repetition {
        mean_cycle_steps,
        flux_breaks: breaks,
        log10_break_probability: (log_probability > f64::NEG_INFINITY)
            .then(|| log_probability / std::f64::consts::LN_10),
        iterations,
        binomial_relative_variance: variance,
        max_level: max_level.max(replicas.iter().flat_map(|x| x.records.iter().map(|r| r.0)).max().unwrap_or(0)),
        interactions: sim.interactions,
        initial_breaks,
    })
}

/// Continues a replica whose path so far ends in its last record to the end of its excursion
/// (back in `A = {score <= base}`, or broken), recording each rise of its running maximum.
fn grow<P: Protocol>(
    sim: &mut Sim<'_, P>,
    base: u64,
    mut records: Vec<(u64, Vec<P::State>)>,
    rng: PopRng,
) -> Result<Replica<P::State>> {
    let (mut top, from) = records.last().cloned().expect("a replica starts from a record");
    let (_, end) = sim.walk(from, rng, |score, agents| {
        if score > top {
            top = score;
            records.push((score, agents.to_vec()));
        }
        score <= base
    })?;
    Ok(Replica { records, level: if end.is_none() { BROKE } else { top } })
}

/// The most cycles an estimate simulates directly, over all its repetitions.
pub const MAX_CYCLES: u128 = 10_000_000_000;

/// Refuses an estimate whose replicas (each at least one configuration of `n` agents) and kept
/// exits cannot fit in memory, for the repetitions running at once.
fn check_memory<P: Protocol>(protocol: &P, settings: &SplittingSettings) -> Result<()> {
    const EXITS: u128 = 4096;
    let configuration = (protocol.n() * std::mem::size_of::<P::State>()) as u128 + 64;
    let threads = settings.threads.unwrap_or_else(rayon::current_num_threads) as u128;
    let at_once = threads.min(u128::from(settings.repetitions)).max(1);
    let per_repetition = settings.replicas as u128 * (configuration + std::mem::size_of::<Replica<P::State>>() as u128)
        + u128::from(settings.cycles).min(EXITS) * configuration;
    crate::files::check_memory(
        per_repetition * at_once,
        &format!(
            "the splitting estimator with --replicas {} (each at least a configuration of n = {} agents, {at_once} \
             repetition{} at a time)",
            settings.replicas,
            protocol.n(),
            if at_once == 1 { "" } else { "s" }
        ),
        "lower --replicas, n or --threads",
    )
}

/// Estimates the expected holding time of `protocol` from the safe configuration `start` on
/// `graph` (see the module docs). `done` is called as each repetition finishes. With a `journal`
/// (a file), each repetition is written there as it finishes, and an estimate run again with it
/// reads them back instead of running them: a kill loses only the repetitions that were running,
/// and the estimate is the same.
pub fn estimate_holding<P: Protocol>(
    protocol: &P,
    graph: &Graph,
    start: &[P::State],
    settings: &SplittingSettings,
    done: &(dyn Fn() + Sync),
    journal: Option<&Path>,
) -> Result<HoldingEstimate> {
    if settings.replicas < 2 {
        return Err(Error::Option {
            option: "--replicas",
            value: settings.replicas.to_string(),
            reason: "give at least 2 replicas".into(),
        });
    }
    if settings.repetitions < 2 {
        return Err(Error::Option {
            option: "--trials",
            value: settings.repetitions.to_string(),
            reason: "the splitting estimator needs at least 2 independent repetitions for its interval".into(),
        });
    }
    if settings.cycles == 0 {
        return Err(Error::Option { option: "--cycles", value: "0".into(), reason: "give at least 1".into() });
    }
    let all_cycles = u128::from(settings.cycles) * u128::from(settings.repetitions);
    if all_cycles > MAX_CYCLES {
        return Err(Error::Option {
            option: "--cycles",
            value: settings.cycles.to_string(),
            reason: format!(
                "over {} repetitions simulates {all_cycles} cycles, more than the {MAX_CYCLES} an estimate runs (each \
                 takes at least one interaction of O(n) work: days); lower --cycles or --trials",
                settings.repetitions
            ),
        });
    }
    check_memory(protocol, settings)?;
    let scores = crate::protocol::holding_scores(protocol);
    let Some(score_name) = scores.get(settings.score) else {
        return Err(if scores.is_empty() {
            no_score(protocol)
        } else {
            Error::Option {
                option: "SplittingSettings::score",
                value: settings.score.to_string(),
                reason: format!("{} has {} holding scores, numbered from 0", protocol.info().name, scores.len()),
            }
        });
    };
    let mut sim = Sim::new(protocol, graph, settings)?;
    match sim.score(start)? {
        0 => {}
        score => {
            return Err(Error::Init(format!(
                "the splitting estimator starts from a configuration of holding score 0, and this start scores \
                 {score} on {score_name}; start from the safe family"
            )));
        }
    }
    if !protocol.monitor(start, graph).is_safe() {
        return Err(Error::Init(
            "a holding-time estimate starts from a safe configuration and this one is not safe; give a safe start \
             with --init"
                .into(),
        ));
    }
    let base = match settings.base_level {
        Some(base) => base,
        None => pilot_base(&mut sim, start, settings.seed)?,
    };
    let pilot_interactions = sim.interactions;
    let journal = match journal {
        Some(path) => Journal::open(path, &journal_identity(protocol, graph, start, settings, base), parse_repetition)?,
        None => Journal::none(),
    };
    let runs: Vec<Repetition> = crate::experiment::pool(settings.threads)?.install(|| {
        (0..settings.repetitions)
            .into_par_iter()
            .map(|index| {
                if let Some(run) = journal.get(&index) {
                    done();
                    return Ok(run);
                }
                let mut sim = Sim::new(protocol, graph, settings)?;
                let run = repetition(&mut sim, start, base, settings, index)?;
                journal.record(&repetition_line(index, &run))?;
                done();
                Ok(run)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let levels = LevelsReport {
        base,
        base_from_pilot: settings.base_level.is_none(),
        mean_iterations: stats::mean(&runs.iter().map(|r| r.iterations as f64).collect::<Vec<_>>()),
        binomial_relative_variance: stats::mean(&runs.iter().map(|r| r.binomial_relative_variance).collect::<Vec<_>>()),
        max_level: runs.iter().map(|r| r.max_level).max().unwrap_or(0),
    };
    combine(score_name, settings, levels, pilot_interactions, runs)
}

/// What names an estimate in its journal: everything its repetitions depend on.
fn journal_identity<P: Protocol>(
    protocol: &P,
    graph: &Graph,
    start: &[P::State],
    settings: &SplittingSettings,
    base: u64,
) -> String {
    let states: Vec<String> =
        start.iter().map(|&s| serde_json::Value::from(state_to_json(protocol, s)).to_string()).collect();
    format!(
        "splitting estimate of {} n={} graph={} start={:016x} seed={:016x} replicas={} cycles={} score={} base={base} \
         max_cycle_steps={}",
        protocol.info().name,
        protocol.n(),
        graph.name(),
        fnv1a64(states.join(",").as_bytes()),
        settings.seed,
        settings.replicas,
        settings.cycles,
        settings.score,
        settings.max_cycle_steps
    )
}

/// A repetition's journal line: its index and fields, numbers as Rust writes them (so that
/// they read back exactly; JSON's float parsing need not).
fn repetition_line(index: u64, run: &Repetition) -> String {
    let p = run.log10_break_probability.map_or("none".to_string(), |p| p.to_string());
    format!(
        "{index} {} {} {p} {} {} {} {} {}",
        run.mean_cycle_steps,
        run.flux_breaks,
        run.iterations,
        run.binomial_relative_variance,
        run.max_level,
        run.interactions,
        run.initial_breaks
    )
}

/// Reads [`repetition_line`]'s line back.
fn parse_repetition(line: &str) -> Option<(u64, Repetition)> {
    let words: Vec<&str> = line.split(' ').collect();
    let [index, mean_cycle_steps, flux_breaks, p, iterations, variance, max_level, interactions, initial_breaks] =
        words[..]
    else {
        return None;
    };
    let finite = |word: &str| word.parse::<f64>().ok().filter(|x| x.is_finite());
    let run = Repetition {
        mean_cycle_steps: finite(mean_cycle_steps)?,
        flux_breaks: flux_breaks.parse().ok()?,
        log10_break_probability: if p == "none" { None } else { Some(finite(p)?) },
        iterations: iterations.parse().ok()?,
        binomial_relative_variance: finite(variance)?,
        max_level: max_level.parse().ok()?,
        interactions: interactions.parse().ok()?,
        initial_breaks: initial_breaks.parse().ok()?,
    };
    Some((index.parse().ok()?, run))
}

/// Combines independent repetitions into the estimate and its delta-method interval, in
/// logarithms (break probabilities may lie far below the smallest `f64`).
pub fn combine(
    score: &str,
    settings: &SplittingSettings,
    levels: LevelsReport,
    pilot_interactions: u128,
    runs: Vec<Repetition>,
) -> Result<HoldingEstimate> {
    let ln10 = std::f64::consts::LN_10;
    let taus: Vec<f64> = runs.iter().map(|r| r.mean_cycle_steps).collect();
    let log10_ps: Vec<f64> = runs.iter().map(|r| r.log10_break_probability.unwrap_or(f64::NEG_INFINITY)).collect();
    let top = log10_ps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return Err(Error::Limit {
            reason: format!(
                "no gAMS replica broke in any of the {} repetitions (the estimate of P(break) is 0); raise --replicas",
                runs.len()
            ),
        });
    }
    // The break probabilities scaled by 10^-top, so the largest is 1.
    let qs: Vec<f64> = log10_ps.iter().map(|lp| ((lp - top) * ln10).exp()).collect();
    let (tau, q) = (stats::mean(&taus), stats::mean(&qs));
    let m = runs.len() as f64;
    let cov = taus.iter().zip(&qs).map(|(t, x)| (t - tau) * (x - q)).sum::<f64>() / (m - 1.0);
    let (sd_tau, sd_q) = (stats::std_dev(&taus), stats::std_dev(&qs));
    let var_ln = ((sd_tau / tau).powi(2) + (sd_q / q).powi(2) - 2.0 * cov / (tau * q)).max(0.0) / m;
    let t = StudentsT::new(0.0, 1.0, m - 1.0).map(|d| d.inverse_cdf(0.975)).unwrap_or(1.96);
    let log10_break_probability = top + q.log10();
    let log10_mean = tau.log10() - log10_break_probability;
    let half = t * var_ln.sqrt() / ln10;
    let log10_ci95 = [log10_mean - half, log10_mean + half];
    let plain = |log10: f64| (log10 <= LOG10_ONLY_ABOVE).then(|| 10f64.powf(log10));
    let interactions: u128 = pilot_interactions + runs.iter().map(|r| r.interactions).sum::<u128>();
    let diagnostics = diagnose(settings, &log10_ps, &runs);
    // Direct simulation needs 1 / se^2 breaks for a relative standard error se.
    let log10_direct = log10_mean - var_ln.sqrt().max(f64::MIN_POSITIVE).log10() * 2.0;
    Ok(HoldingEstimate {
        mean_steps: plain(log10_mean),
        log10_mean_steps: log10_mean,
        ci95: plain(log10_ci95[1]).map(|hi| [10f64.powf(log10_ci95[0]), hi]),
        log10_ci95,
        log10_standard_error: var_ln.sqrt() / ln10,
        method: "renewal (flux) decomposition E[T] = E[cycle] / P(break before return), P by gAMS \
                 (Brehier et al. 2016), interval by the delta method over independent repetitions"
            .into(),
        score: score.to_string(),
        interactions_simulated: interactions,
        levels,
        replicas: settings.replicas,
        repetitions: runs.len() as u64,
        cycles: settings.cycles,
        mean_cycle_steps: tau,
        log10_break_probability,
        log10_direct_equivalent_interactions: log10_direct,
        log10_speedup: log10_direct - (interactions.max(1) as f64).log10(),
        diagnostics,
        runs,
    })
}

fn diagnose(settings: &SplittingSettings, log10_ps: &[f64], runs: &[Repetition]) -> Diagnostics {
    let found: Vec<f64> = log10_ps.iter().copied().filter(|p| p.is_finite()).collect();
    let range =
        [found.iter().copied().fold(f64::INFINITY, f64::min), found.iter().copied().fold(f64::NEG_INFINITY, f64::max)];
    let m = runs.len() as f64;
    Diagnostics {
        log10_break_probability_sd: if found.len() > 1 { stats::std_dev(&found) } else { 0.0 },
        log10_break_probability_range: range,
        repetitions_without_break: (log10_ps.len() - found.len()) as u64,
        flux_break_share: runs.iter().map(|r| r.flux_breaks).sum::<u64>() as f64 / (settings.cycles as f64 * m),
        initial_break_share: runs.iter().map(|r| r.initial_breaks).sum::<u64>() as f64 / (settings.replicas as f64 * m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repetition(mean_cycle_steps: f64, log10_break_probability: Option<f64>) -> Repetition {
        Repetition {
            mean_cycle_steps,
            flux_breaks: 0,
            log10_break_probability,
            iterations: 10,
            binomial_relative_variance: 0.1,
            max_level: 10,
            interactions: 1000,
            initial_breaks: 0,
        }
    }

    fn levels() -> LevelsReport {
        LevelsReport {
            base: 0,
            base_from_pilot: false,
            mean_iterations: 10.0,
            binomial_relative_variance: 0.1,
            max_level: 10,
        }
    }

    #[test]
    fn combines_far_below_the_smallest_float() {
        let settings = SplittingSettings::default();
        // P = 10^-400 and 10^-401 (mean 5.5e-401), cycles of 10 and 12 steps (mean 11).
        let runs = vec![repetition(10.0, Some(-400.0)), repetition(12.0, Some(-401.0))];
        let e = combine("s", &settings, levels(), 0, runs).unwrap();
        let expected = 11f64.log10() - 5.5f64.log10() + 401.0;
        assert!((e.log10_mean_steps - expected).abs() < 1e-9, "{}", e.log10_mean_steps);
        assert_eq!((e.mean_steps, e.ci95), (None, None));
        assert!(e.log10_ci95[0] < expected && expected < e.log10_ci95[1]);
        // The same values scaled into range give plain numbers and the same interval.
        let runs = vec![repetition(10.0, Some(-4.0)), repetition(12.0, Some(-5.0))];
        let small = combine("s", &settings, levels(), 0, runs).unwrap();
        assert!((small.mean_steps.unwrap() - 11.0 / 5.5e-5).abs() < 1e-6);
        assert!((small.log10_standard_error - e.log10_standard_error).abs() < 1e-9);
        // A repetition in which nothing broke counts as P = 0; all of them: refused.
        let runs = vec![repetition(10.0, Some(-4.0)), repetition(10.0, None)];
        let half = combine("s", &settings, levels(), 0, runs).unwrap();
        assert!((half.log10_mean_steps - (10.0 / 0.5e-4f64).log10()).abs() < 1e-9);
        assert!(combine("s", &settings, levels(), 0, vec![repetition(1.0, None), repetition(1.0, None)]).is_err());
    }
}
