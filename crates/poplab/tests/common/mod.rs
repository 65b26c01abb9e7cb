//! Helpers shared by the integration tests (`tests/it`: `use crate::common;`) and by the examples
//! that measure what the tests check (`#[path = "../tests/common/mod.rs"] mod common;`). Each
//! example uses only part of them.
#![allow(dead_code)]

use poplab::engine::{AgentRun, Watch};
use poplab::experiment::{RunSettings, Summary, run_trials};
use poplab::graph::{Graph, Scheduler};
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::ls_timer::LsState;
use poplab::protocols::pll::{self, Module};
use poplab::protocols::pll_sym;
use poplab::protocols::ppl::PplState;
use poplab::protocols::prl::{Prl, PrlState};
use poplab::rng::TrialStreams;
use std::collections::HashSet;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// Parameters from `key=value` items.
pub fn params(items: &[&str]) -> Params {
    Params::parse(items).unwrap()
}

/// A state with a `leader` bit.
pub trait Leader: Copy {
    fn is_leader(self) -> bool;
}

impl Leader for pll::State {
    fn is_leader(self) -> bool {
        self.leader
    }
}

impl Leader for pll_sym::State {
    fn is_leader(self) -> bool {
        self.leader
    }
}

impl Leader for PplState {
    fn is_leader(self) -> bool {
        self.leader
    }
}

impl Leader for LsState {
    fn is_leader(self) -> bool {
        self.leader
    }
}

impl Leader for PrlState {
    fn is_leader(self) -> bool {
        self.leader
    }
}

/// The number of leaders in `agents`.
pub fn leaders<S: Leader>(agents: &[S]) -> usize {
    agents.iter().filter(|s| s.is_leader()).count()
}

/// The positions of the leaders in `agents`, in increasing order.
pub fn leader_positions<S: Leader>(agents: &[S]) -> Vec<usize> {
    (0..agents.len()).filter(|&i| agents[i].is_leader()).collect()
}

/// The summary of every trial of `settings`.
pub fn summary<P: Protocol>(p: &P, settings: &RunSettings) -> Summary {
    let records = run_trials(p, settings, &|| {}).unwrap();
    Summary::of(&records, p.n())
}

/// The variance of the number of steps to one leader of the 2-state election (`angluin`) from
/// `n` leaders: with `i` leaders a step removes one with probability `p_i = i (i - 1) / (n (n - 1))`,
/// so the steps are a sum of independent geometric variables, of variance `sum (1 - p_i) / p_i^2`.
pub fn angluin_exact_variance(n: usize) -> f64 {
    (2..=n).map(|i| (i * (i - 1)) as f64 / (n * (n - 1)) as f64).map(|p| (1.0 - p) / (p * p)).sum()
}

/// P_RL on `n` agents with the bound `N = big_n`.
pub fn prl(n: usize, big_n: impl Display) -> Prl {
    Prl::new(n, &Params::parse(&[format!("N={big_n}")]).unwrap()).unwrap()
}

/// Mean steps to S_RL from `init` for each (n, N) of `points` on the directed ring, with the
/// standard error of log(mean); every trial must converge. Prints one line per point.
pub fn prl_mean_steps(points: &[(usize, u32)], init: InitSpec, trials: u64, seed: u64) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|&(n, big_n)| {
            let p = prl(n, big_n);
            let settings = RunSettings {
                graph: Graph::DirectedRing,
                init: init.clone(),
                trials,
                seed,
                max_steps: 1_000_000_000,
                ..RunSettings::default()
            };
            let records = run_trials(&p, &settings, &|| {}).unwrap();
            let summary = Summary::of(&records, n);
            assert_eq!(summary.censored, 0, "n = {n}, N = {big_n}: censored trials");
            let steps: Vec<f64> = records.iter().map(|r| r.steps.0 as f64).collect();
            let mean = poplab::stats::mean(&steps);
            let se_log = poplab::stats::std_dev(&steps) / mean / (trials as f64).sqrt();
            eprintln!(
                "prl n = {n} N = {big_n} init = {} trials = {trials} seed = {seed}: mean {mean:.0} steps, \
                 median {:.0}, mean/(nN) = {:.2}",
                init.name(),
                summary.median_steps.unwrap(),
                mean / (n as f64 * f64::from(big_n))
            );
            (mean, se_log)
        })
        .collect()
}

/// A state of the P_LL family (`pll`, `pll-as-printed`, `pll-sym`): an epoch from 1 to 3, an
/// `init` that follows it, and leaders eliminated by one of the modules.
pub trait Epochs: Leader + Eq + Hash + Debug {
    fn epoch(self) -> u8;
    fn init(self) -> u8;
    /// The protocol's `eliminations`: the module that removed each agent's leadership.
    fn eliminations(before: [Self; 2], after: [Self; 2]) -> [Option<Module>; 2];
}

impl Epochs for pll::State {
    fn epoch(self) -> u8 {
        pll::State::epoch(self)
    }
    fn init(self) -> u8 {
        self.init
    }
    fn eliminations(before: [Self; 2], after: [Self; 2]) -> [Option<Module>; 2] {
        pll::eliminations(before, after)
    }
}

impl Epochs for pll_sym::State {
    fn epoch(self) -> u8 {
        pll_sym::State::epoch(self)
    }
    fn init(self) -> u8 {
        self.init
    }
    fn eliminations(before: [Self; 2], after: [Self; 2]) -> [Option<Module>; 2] {
        pll_sym::eliminations(before, after)
    }
}

/// One step of a [`checked_run`], for the protocol's own checks.
pub struct CheckedStep<'a, S> {
    /// The configuration before the step.
    pub before: &'a [S],
    /// The configuration after it.
    pub after: &'a [S],
    /// The agents whose state changed (at most two).
    pub changed: &'a [usize],
    /// Leaders after the step.
    pub leaders: usize,
    /// Where the run is, for messages: protocol, n, seed and step.
    pub at: &'a dyn Fn() -> String,
}

/// Runs a protocol of the P_LL family from the initial configuration on the agent-array engine
/// (complete graph), one step at a time, checking on every step:
/// - Lemma 11: the number of leaders never rises and never reaches 0;
/// - at most two agents change;
/// - every agent's epoch never decreases and `init = epoch` (the variables are initialised on
///   every epoch change);
/// - `eliminations` accounts for every lost leader;
/// - whatever `check` asserts about the step.
///
/// Runs until one leader is left and every agent is in epoch 3, then `200 n` more steps (the
/// leader count must stay 1), and fails if that takes `max_steps` steps or more. Returns the step
/// of stabilisation and the module of the last elimination.
pub fn checked_run<P>(
    p: &P,
    seed: u64,
    max_steps: u128,
    mut check: impl FnMut(&CheckedStep<'_, P::State>),
) -> (u128, Module)
where
    P: Protocol,
    P::State: Epochs,
{
    let n = p.n();
    let graph = Graph::Complete;
    let streams = TrialStreams::new(seed);
    let mut run = AgentRun::new(p, &graph, p.initial_configuration(), graph.scheduler(n).unwrap(), streams.schedule);
    let mut prev = run.agents().to_vec();
    let mut prev_leaders = leaders(&prev);
    let mut stabilised_at = None;
    let mut last_module = None;
    let mut end = max_steps;
    let name = p.info().name;
    while run.step() < end {
        run.advance(run.step() + 1, Watch::Nothing);
        let step = run.step();
        let agents = run.agents();
        let at = || format!("{name} n = {n} seed {seed} step {step}");
        let count = leaders(agents);
        assert!(count <= prev_leaders, "{}: leaders rose {prev_leaders} -> {count}", at());
        assert!(count >= 1, "{}: no leader left (Lemma 11)", at());
        let changed: Vec<usize> = (0..n).filter(|&i| agents[i] != prev[i]).collect();
        assert!(changed.len() <= 2, "{}: {} agents changed", at(), changed.len());
        let mut lost = 0;
        for &i in &changed {
            let (before, after) = (prev[i], agents[i]);
            assert!(after.epoch() >= before.epoch(), "{}: epoch fell {before:?} -> {after:?}", at());
            assert_eq!(after.init(), after.epoch(), "{}: {after:?}", at());
            // `eliminations` looks at each agent alone (its status before, its epoch after).
            if let Some(module) = P::State::eliminations([before; 2], [after; 2])[0] {
                lost += 1;
                last_module = Some(module);
            }
        }
        assert_eq!(lost, prev_leaders - count, "{}: eliminations() missed a loss", at());
        check(&CheckedStep { before: &prev, after: agents, changed: &changed, leaders: count, at: &at });
        if count == 1 && stabilised_at.is_none() {
            stabilised_at = Some(step);
        }
        if end == max_steps && stabilised_at.is_some() && agents.iter().all(|s| s.epoch() == 3) {
            end = step + 200 * n as u128;
        }
        prev.copy_from_slice(agents);
        prev_leaders = count;
    }
    assert!(
        end < max_steps,
        "{name} n = {n} seed {seed}: not stabilised with every agent in epoch 3 within {max_steps} steps"
    );
    (stabilised_at.unwrap(), last_module.unwrap_or(Module::StatusAssignment))
}

/// What [`observed_run`] saw.
#[derive(Clone, Copy, Debug)]
pub struct Observed {
    /// The step at which one leader was left.
    pub steps: u64,
    /// The module of the last elimination.
    pub module: Module,
    /// With `count_states`, the distinct states visited up to the step where the run was
    /// stabilised and every agent in epoch 3 (the initial states included); else 0.
    pub states: usize,
}

/// Steps to stabilisation, the module of the last elimination and the number of distinct states
/// visited in one run of a protocol of the P_LL family from its initial configuration, by a plain
/// loop that sees every interaction (complete graph). With `count_states`, the run goes on until it
/// is stabilised and every agent is in epoch 3 (so all three modules were used), and the states
/// visited up to then are counted.
pub fn observed_run<P>(p: &P, seed: u64, count_states: bool) -> Observed
where
    P: Protocol,
    P::State: Epochs,
{
    let n = p.n();
    let mut agents = p.initial_configuration();
    let mut scheduler = Graph::Complete.scheduler(n).unwrap();
    let mut rng = TrialStreams::new(seed).schedule;
    let mut count = leaders(&agents);
    let mut in_epoch3 = agents.iter().filter(|s| s.epoch() == 3).count();
    let mut stabilised_at = None;
    let mut module = Module::StatusAssignment;
    let mut states: HashSet<P::State> = agents.iter().copied().collect();
    let mut step = 0u64;
    loop {
        step += 1;
        let (u, v) = scheduler.next_pair(&mut rng);
        let (u, v) = (u as usize, v as usize);
        let before = [agents[u], agents[v]];
        let (a, b) = p.transition(before[0], before[1]);
        if [a, b] == before {
            continue;
        }
        (agents[u], agents[v]) = (a, b);
        for m in P::State::eliminations(before, [a, b]).into_iter().flatten() {
            module = m;
        }
        count = count + leaders(&[a, b]) - leaders(&before);
        if count == 1 && stabilised_at.is_none() {
            stabilised_at = Some(step);
            if !count_states {
                return Observed { steps: step, module, states: 0 };
            }
        }
        if count_states {
            states.insert(a);
            states.insert(b);
            in_epoch3 += [a, b].iter().filter(|s| s.epoch() == 3).count();
            in_epoch3 -= before.iter().filter(|s| s.epoch() == 3).count();
            if let Some(at) = stabilised_at.filter(|_| in_epoch3 == n) {
                return Observed { steps: at, module, states: states.len() };
            }
        }
    }
}

/// The number in the environment variable `var`, or `default` if it is unset or not a number.
pub fn env_number(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The comma-separated population sizes in the environment variable `var`, or `default` (in the
/// same form) if it is unset.
pub fn env_sizes(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{var}: a comma-separated list of population sizes")))
        .collect()
}
