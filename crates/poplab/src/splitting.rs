//! Holding times beyond direct simulation: renewal (flux) decomposition plus generalized adaptive
//! multilevel splitting (gAMS).
//!
//! A holding run starts in a safe configuration `x0` and ends at the first interaction that
//! changes some agent's output (the *break*, `B`). Where the expected holding time is `10^10`
//! steps or more, direct simulation sees no break. This module estimates it instead from many
//! short pieces of simulation, with a 95% confidence interval.
//!
//! # The method
//!
//! The protocol supplies an integer score ([`Protocol::holding_score`]): 0 on a reference set `A`
//! containing `x0` (for `ls-timer`, `A` is `x0` itself), larger closer to the break.
//!
//! 1. **Renewal (flux) decomposition.** A *cycle* starts in `A` and runs until the chain is back in
//!    `A` (score 0, at least one interaction later) or breaks. If every cycle starts afresh (`A`
//!    is one configuration up to the symmetries of the dynamics), the holding time is the sum of
//!    the lengths of the cycles up to the first one that breaks, a geometric number of i.i.d.
//!    cycles, and Wald's identity gives exactly
//!    `E[T_hold] = E[cycle length] / P(break before return to A)`.
//!    This is the rate formula of forward flux sampling, Allen, Valeriani and ten Wolde,
//!    J. Phys.: Condens. Matter 21:463102 (2009), section 2 (`k_AB = Phi_A,0 * P(lambda_B |
//!    lambda_0)`: the flux of trajectories out of `A` times the probability that one of them
//!    reaches `B` before returning to `A`), with `1 / Phi` the mean cycle length. Stage one, the
//!    *flux run*, simulates cycles directly: it measures their mean length and collects the
//!    configurations in which they start. When `A` is a set rather than one configuration (`ppl`,
//!    whose individual timers are not reset), the cycles starting from those collected entries
//!    are only approximately independent and the formula is FFS's steady-state approximation,
//!    accurate when holding times are long against the mixing inside `A`.
//! 2. **gAMS for `p = P(break before return to A)`**, Bréhier, Gazeau, Goudenège, Lelièvre and
//!    Rousset, "Unbiasedness of some generalized adaptive multilevel splitting algorithms",
//!    Ann. Appl. Probab. 26(6):3559-3601 (2016), arXiv:1505.02674: the AMS algorithm for paths
//!    of a discrete-time Markov chain stopped at `min(tau_A, tau_B)` (their section 3), with
//!    `k = 1` and the rule that makes it unbiased with ties (their section 4). `R` replicas are
//!    cycles started from entries of the flux run; a replica's level is the largest score along
//!    its path (a break counts as the top level). Each iteration takes the smallest level `Z`,
//!    kills *every* replica at level `<= Z` (with integer scores there are always ties; killing
//!    only `k` of them is the biased naive splitting, see Walter, arXiv:1507.00919), and
//!    replaces each killed one by a copy of a survivor chosen uniformly, taken up to the
//!    survivor's first interaction with score `> Z` and continued from there with a fresh
//!    random stream. When every replica has broken, `p_hat = prod (1 - K_q / R)` over the
//!    iterations (`K_q` killed at iteration `q`), an unbiased estimator of `p` whatever `R` and
//!    the score; if all replicas are tied at some level, `p_hat = 0`.
//!
//! Why gAMS: the scores of population protocols are small integers, so ties are the rule, and
//! gAMS is the splitting method proved unbiased with ties for Markov chains, for any number of
//! replicas and any score; it places the levels itself (no interfaces to tune as in FFS).
//!
//! # The interval
//!
//! The estimator is repeated `M` times independently (each repetition a flux run of `C` cycles
//! and one gAMS run of `R` replicas). With `tau_m` the mean cycle length and `p_m` the gAMS
//! estimate of repetition `m`, the estimate is `mean(tau_m) / mean(p_m)` (a ratio of unbiased
//! means, so its bias falls as `1/M`), and its 95% interval comes from the delta method on the
//! logarithm, `log E +- t_{0.975, M-1} * se`, `se^2 = (var tau / tau^2 + var p / p^2 - 2 cov /
//! (tau p)) / M`.
//!
//! Simulation is exact, one interaction at a time on the agent-array engine (the score is read
//! after every interaction), so the cost is `O(n)` per interaction: meant for the small and
//! moderate populations where holding times are long.

use crate::engine::{AgentRun, Watch};
use crate::error::{Error, Result};
use crate::graph::{Graph, RandomScheduler};
use crate::protocol::{Monitor, Protocol};
use crate::rng::{PopRng, below_u64, trial_seed};
use crate::stats;
use rand_core::SeedableRng;
use rayon::prelude::*;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

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
    /// Refuse a cycle piece longer than this many interactions (a score that never returns to 0).
    pub max_cycle_steps: u64,
}

impl Default for SplittingSettings {
    fn default() -> Self {
        Self { replicas: 100, repetitions: 20, cycles: 1000, seed: 0, threads: None, max_cycle_steps: 1 << 40 }
    }
}

/// One repetition of the estimator.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Repetition {
    /// The mean cycle length of its flux run.
    pub mean_cycle_steps: f64,
    /// Cycles of its flux run that broke.
    pub flux_breaks: u64,
    /// Its gAMS estimate of `P(break before return to A)`.
    pub break_probability: f64,
    /// gAMS iterations.
    pub iterations: u64,
    /// The largest score reached by a replica that did not break.
    pub max_level: u64,
    /// Interactions simulated (flux run and gAMS).
    pub interactions: u128,
}

/// The levels gAMS placed, over the repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelsReport {
    /// The mean number of gAMS iterations (levels) per repetition.
    pub mean_iterations: f64,
    /// The largest score reached without breaking, over all repetitions.
    pub max_level: u64,
}

/// The estimate of the expected holding time, with its interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldingEstimate {
    /// The estimate of `E[T_hold]` in steps.
    pub mean_steps: f64,
    /// Its base-10 logarithm.
    pub log10_mean_steps: f64,
    /// The 95% confidence interval of `E[T_hold]` in steps.
    pub ci95: [f64; 2],
    /// The method, in words.
    pub method: String,
    /// The score used ([`Protocol::holding_score_name`]).
    pub score: String,
    /// Interactions simulated in all.
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
    /// The mean gAMS estimate of `P(break before return to A)`.
    pub break_probability: f64,
    /// Interactions direct simulation would need for the same relative precision, taking the
    /// holding time as exponential (relative standard error `1/sqrt(k)` after `k` breaks).
    pub direct_equivalent_interactions: f64,
    /// `direct_equivalent_interactions / interactions_simulated`.
    pub speedup: f64,
    /// Every repetition.
    pub runs: Vec<Repetition>,
}

/// A piece of simulation: the configuration and what it needs to go on.
struct Sim<'a, P: Protocol> {
    protocol: &'a P,
    graph: &'a Graph,
    scheduler: RandomScheduler,
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
    fn score(&self, agents: &[P::State]) -> Result<u64> {
        self.protocol.holding_score(agents).ok_or_else(|| no_score(self.protocol))
    }

    /// Runs from `agents` (score `level`, at least one interaction) until the score is 0 again or
    /// the run breaks; calls `rise` with each configuration where the running maximum rises.
    /// Returns the length and whether it broke, and the final configuration.
    fn piece(
        &mut self,
        agents: Vec<P::State>,
        mut level: u64,
        rng: PopRng,
        mut rise: impl FnMut(u64, &[P::State]),
    ) -> Result<(u64, bool, Vec<P::State>)> {
        let mut run = AgentRun::new(self.protocol, self.graph, agents, self.scheduler.clone(), rng);
        loop {
            let step = run.step();
            if step >= u128::from(self.max_cycle_steps) {
                return Err(Error::Setting(format!(
                    "a cycle of the splitting estimator ran {} interactions without its score ({}) returning to \
                     0 or a break; the score does not fit this protocol or start",
                    self.max_cycle_steps,
                    self.protocol.holding_score_name()
                )));
            }
            let broke = run.advance(step + 1, Watch::OutputChange);
            self.interactions += 1;
            if broke {
                return Ok((run.step() as u64, true, run.agents().to_vec()));
            }
            let score = self.score(run.agents())?;
            if score == 0 {
                return Ok((run.step() as u64, false, run.agents().to_vec()));
            }
            if score > level {
                level = score;
                rise(score, run.agents());
            }
        }
    }
}

fn no_score<P: Protocol>(protocol: &P) -> Error {
    Error::Setting(format!(
        "{} has no holding score (Protocol::holding_score), so the splitting estimator is not available for it; \
         use direct simulation (--estimator direct)",
        protocol.info().name
    ))
}

/// Hands out independent streams: each a jump (`2^128` draws) beyond the last.
struct Streams(PopRng);

impl Streams {
    fn next(&mut self) -> PopRng {
        let rng = self.0.clone();
        self.0.jump();
        rng
    }
}

/// One repetition: a flux run of `cycles` cycles from `start`, then gAMS with `replicas`.
fn repetition<P: Protocol>(
    protocol: &P,
    graph: &Graph,
    start: &[P::State],
    settings: &SplittingSettings,
    index: u64,
) -> Result<Repetition> {
    let mut sim = Sim {
        protocol,
        graph,
        scheduler: graph.scheduler(protocol.n())?,
        max_cycle_steps: settings.max_cycle_steps,
        interactions: 0,
    };
    let mut streams = Streams(PopRng::seed_from_u64(trial_seed(settings.seed, index)));
    let mut choose = streams.next();

    // Stage one: the flux run. Entries into A are kept (at most `ENTRIES` of them, by reservoir
    // sampling) as the starts of the gAMS replicas.
    const ENTRIES: usize = 4096;
    let mut entries: Vec<Vec<P::State>> = Vec::new();
    let (mut total, mut breaks, mut seen) = (0u128, 0u64, 0u64);
    let mut current = start.to_vec();
    for _ in 0..settings.cycles {
        let (length, broke, end) = sim.piece(current, 0, streams.next(), |_, _| {})?;
        total += u128::from(length);
        if broke {
            breaks += 1;
            current = start.to_vec();
        } else {
            seen += 1;
            if entries.len() < ENTRIES {
                entries.push(end.clone());
            } else {
                let slot = below_u64(&mut choose, seen) as usize;
                if slot < ENTRIES {
                    entries[slot] = end.clone();
                }
            }
            current = end;
        }
    }
    if entries.is_empty() {
        entries.push(start.to_vec());
    }
    let mean_cycle_steps = total as f64 / settings.cycles as f64;

    // Stage two: gAMS.
    let r = settings.replicas;
    let mut replicas: Vec<Replica<P::State>> = Vec::with_capacity(r);
    for _ in 0..r {
        let from = entries[below_u64(&mut choose, entries.len() as u64) as usize].clone();
        replicas.push(grow(&mut sim, Replica { records: Vec::new(), level: 0 }, from, 0, streams.next())?);
    }
    let (mut probability, mut iterations, mut max_level) = (1.0f64, 0u64, 0u64);
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
            probability = 0.0;
            break;
        }
        probability *= (r - killed.len()) as f64 / r as f64;
        for &i in &killed {
            let j = survivors[below_u64(&mut choose, survivors.len() as u64) as usize];
            // The survivor's first configuration with score > z (its records all lie above the
            // previous level; a broken survivor that never rose above z broke from below it).
            let at = replicas[j].records.iter().position(|(level, _)| *level > z);
            let replica = match at {
                Some(at) => {
                    let records: Vec<(u64, Vec<P::State>)> = replicas[j].records[at..=at].to_vec();
                    let (level, from) = records[0].clone();
                    grow(&mut sim, Replica { records, level }, from, level, streams.next())?
                }
                // It broke without its score rising above z: the copy is the broken path itself.
                None => Replica { records: Vec::new(), level: BROKE },
            };
            replicas[i] = replica;
        }
        // Records at or below z are never cloned again.
        for replica in replicas.iter_mut() {
            replica.records.retain(|(level, _)| *level > z);
        }
    }
    Ok(Repetition {
        mean_cycle_steps,
        flux_breaks: breaks,
        break_probability: probability,
        iterations,
        max_level: max_level.max(replicas.iter().flat_map(|x| x.records.iter().map(|r| r.0)).max().unwrap_or(0)),
        interactions: sim.interactions,
    })
}

/// Continues `replica` from `from` (score `level`) to the end of its cycle, recording each rise.
fn grow<P: Protocol>(
    sim: &mut Sim<'_, P>,
    mut replica: Replica<P::State>,
    from: Vec<P::State>,
    level: u64,
    rng: PopRng,
) -> Result<Replica<P::State>> {
    let mut records = std::mem::take(&mut replica.records);
    let (_, broke, _) = sim.piece(from, level, rng, |score, agents| records.push((score, agents.to_vec())))?;
    let top = records.last().map_or(level, |r| r.0);
    Ok(Replica { records, level: if broke { BROKE } else { top } })
}

/// Estimates the expected holding time of `protocol` from the safe configuration `start` on
/// `graph` (see the module docs).
pub fn estimate_holding<P: Protocol>(
    protocol: &P,
    graph: &Graph,
    start: &[P::State],
    settings: &SplittingSettings,
) -> Result<HoldingEstimate> {
    if settings.replicas < 2 {
        return Err(Error::Setting(format!("--replicas {}: give at least 2 replicas", settings.replicas)));
    }
    if settings.repetitions < 2 {
        return Err(Error::Setting(format!(
            "--trials {}: the splitting estimator needs at least 2 independent repetitions for its interval",
            settings.repetitions
        )));
    }
    if settings.cycles == 0 {
        return Err(Error::Setting("--cycles must be at least 1".into()));
    }
    match protocol.holding_score(start) {
        None => return Err(no_score(protocol)),
        Some(0) => {}
        Some(score) => {
            return Err(Error::Init(format!(
                "the splitting estimator starts from a configuration of holding score 0 (the reference set), and \
                 this start scores {score} on {}; start from the safe family",
                protocol.holding_score_name()
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
    let runs: Vec<Repetition> = crate::experiment::pool(settings.threads)?.install(|| {
        (0..settings.repetitions)
            .into_par_iter()
            .map(|index| repetition(protocol, graph, start, settings, index))
            .collect::<Result<Vec<_>>>()
    })?;
    combine(protocol.holding_score_name(), settings, runs)
}

/// Combines independent repetitions into the estimate and its delta-method interval.
pub fn combine(score: &str, settings: &SplittingSettings, runs: Vec<Repetition>) -> Result<HoldingEstimate> {
    let taus: Vec<f64> = runs.iter().map(|r| r.mean_cycle_steps).collect();
    let ps: Vec<f64> = runs.iter().map(|r| r.break_probability).collect();
    let (tau, p) = (stats::mean(&taus), stats::mean(&ps));
    let interactions: u128 = runs.iter().map(|r| r.interactions).sum();
    if p <= 0.0 {
        return Err(Error::Setting(format!(
            "no gAMS replica broke in any of the {} repetitions (the estimate of P(break) is 0); raise --replicas",
            runs.len()
        )));
    }
    let m = runs.len() as f64;
    let cov = taus.iter().zip(&ps).map(|(t, q)| (t - tau) * (q - p)).sum::<f64>() / (m - 1.0);
    let (sd_tau, sd_p) = (stats::std_dev(&taus), stats::std_dev(&ps));
    let var_log = ((sd_tau / tau).powi(2) + (sd_p / p).powi(2) - 2.0 * cov / (tau * p)).max(0.0) / m;
    let t = StudentsT::new(0.0, 1.0, m - 1.0).map(|d| d.inverse_cdf(0.975)).unwrap_or(1.96);
    let mean = tau / p;
    let half = t * var_log.sqrt();
    let relative_se = var_log.sqrt().max(f64::MIN_POSITIVE);
    let direct = mean / (relative_se * relative_se);
    Ok(HoldingEstimate {
        mean_steps: mean,
        log10_mean_steps: mean.log10(),
        ci95: [mean * (-half).exp(), mean * half.exp()],
        method: "renewal (flux) decomposition E[T] = E[cycle] / P(break before return), P by gAMS \
                 (Brehier et al. 2016), interval by the delta method over independent repetitions"
            .into(),
        score: score.to_string(),
        interactions_simulated: interactions,
        levels: LevelsReport {
            mean_iterations: stats::mean(&runs.iter().map(|r| r.iterations as f64).collect::<Vec<_>>()),
            max_level: runs.iter().map(|r| r.max_level).max().unwrap_or(0),
        },
        replicas: settings.replicas,
        repetitions: runs.len() as u64,
        cycles: settings.cycles,
        mean_cycle_steps: tau,
        break_probability: p,
        direct_equivalent_interactions: direct,
        speedup: direct / interactions.max(1) as f64,
        runs,
    })
}
