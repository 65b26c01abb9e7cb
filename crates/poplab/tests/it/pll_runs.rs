//! P_LL (paper 003 section 3) on whole runs: the invariants of Lemmas 5 and 11 on every step, the
//! law of the number of leaders that survive QuickElimination (Lemma 9, section 3.1.1), and
//! stabilisation through `run_trials`, for both `pll` and `pll-as-printed`.
//!
//! The measurements for the report are the example `pll_stabilisation`:
//! `cargo run --release -p poplab --example pll_stabilisation`.

use crate::common;

use common::{checked_run, leaders, summary};
use poplab::experiment::RunSettings;
use poplab::graph::{Graph, Scheduler};
use poplab::protocol::{Configurations, StateJson};
use poplab::protocol::{Params, Protocol};
use poplab::protocols::pll::PllProtocol;
use poplab::protocols::pll::{Group, Module, Pll, State, Status};
use poplab::rng::{TrialStreams, coin, trial_seed};
use rayon::prelude::*;
use std::collections::HashSet;

fn variants(n: usize) -> [Pll; 2] {
    [Pll::new(n, &Params::default()).unwrap(), Pll::as_printed(n, &Params::default()).unwrap()]
}

/// Runs `p` with [`checked_run`] and its checks of P_LL, and on every step:
/// - an agent's status never changes once assigned (it leaves X only);
/// - Lemma 5: once no agent has status X, |V_A| >= n/2 and |V_F| >= n/2.
///
/// Returns the module of the last elimination.
fn checked_pll_run(p: &Pll, seed: u64, max_steps: u128) -> Module {
    let n = p.n();
    let (_, module) = checked_run(p, seed, max_steps, |s| {
        for &i in s.changed {
            let (before, after) = (s.before[i], s.after[i]);
            assert!(
                before.status() == Status::X || after.status() == before.status(),
                "{}: status changed {before:?} -> {after:?}",
                (s.at)()
            );
        }
        if s.after.iter().all(|a| a.status() != Status::X) {
            let a = s.after.iter().filter(|a| a.status() == Status::A).count();
            let f = n - s.leaders;
            assert!(2 * a >= n && 2 * f >= n, "{}: |V_A| = {a}, |V_F| = {f}, n = {n}", (s.at)());
        }
    });
    module
}

#[test]
fn invariants_hold_on_every_step_of_small_runs() {
    let mut modules = HashSet::new();
    for n in [2, 3, 10, 23, 50] {
        for p in variants(n) {
            for seed in 1..=4 {
                modules.insert(checked_pll_run(&p, seed * 1000 + n as u64, 3_000_000));
            }
        }
    }
    assert!(modules.contains(&Module::QuickElimination), "{modules:?}");
}

/// The outcome of QuickElimination in one run.
#[derive(Clone, Copy, Debug)]
struct QuickOutcome {
    /// Players: agents that became leaders of status A by line 2 (X meets X).
    players: u64,
    /// Leaders when QuickElimination is over, or `None` if some agent entered epoch 2 first.
    survivors: Option<u64>,
}

/// Runs P_LL until QuickElimination is over for everybody, observed exactly: no agent of status
/// X is left, every agent of status A has `done` and all of them hold the same `level_q`. From
/// then on no coin is flipped and no level changes in epoch 1, so the leaders at that step are
/// exactly the winners of the game of section 3.1.1 (the agents `v` with `s_v = s_max`). (Lemma 9
/// looks at step floor(21 n ln n), when this has happened with high probability; observing the
/// exact end of the game removes the O(1/n) error terms.) If some agent enters epoch 2 before,
/// the run is reported as incomplete.
fn quick_elimination(p: &Pll, seed: u64) -> QuickOutcome {
    let n = p.n();
    let mut agents = p.initial_configuration();
    let mut scheduler = Graph::Complete.scheduler(n).unwrap();
    let mut rng = TrialStreams::new(seed).schedule;
    let c_max = usize::from(p.c_max());
    // Counters kept per interaction: status X, players still flipping, done agents of V_A ∩ V_1
    // per level_q (and how many levels are present), agents in epoch 2 or 3, leaders.
    let mut x = n as i64;
    let mut flipping = 0i64;
    let mut per_level = vec![0i64; c_max + 1];
    let mut levels = 0i64;
    let mut later_epoch = 0i64;
    let mut leader_count = n as i64;
    let mut players = 0;
    let mut account = |s: State, sign: i64, per_level: &mut Vec<i64>| {
        x += sign * i64::from(s.status() == Status::X);
        later_epoch += sign * i64::from(s.epoch() >= 2);
        leader_count += sign * i64::from(s.leader);
        match s.group {
            Group::A1 { done: false, .. } => flipping += sign,
            Group::A1 { level_q, done: true } => {
                let slot = &mut per_level[usize::from(level_q)];
                if sign > 0 && *slot == 0 {
                    levels += 1;
                }
                *slot += sign;
                if sign < 0 && *slot == 0 {
                    levels -= 1;
                }
            }
            _ => {}
        }
        (x, flipping, levels, later_epoch, leader_count)
    };
    loop {
        let (u, v) = scheduler.next_pair(&mut rng);
        let (u, v) = (u as usize, v as usize);
        let (a, b) = (agents[u], agents[v]);
        if a.status() == Status::X && b.status() == Status::X {
            players += 1;
        }
        let (a2, b2) = p.transition(a, b);
        if (a2, b2) == (a, b) {
            continue;
        }
        agents[u] = a2;
        agents[v] = b2;
        account(a, -1, &mut per_level);
        account(b, -1, &mut per_level);
        account(a2, 1, &mut per_level);
        let (x, flipping, levels, later_epoch, leader_count) = account(b2, 1, &mut per_level);
        if later_epoch > 0 {
            return QuickOutcome { players, survivors: None };
        }
        if x == 0 && flipping == 0 && levels == 1 {
            debug_assert_eq!(leader_count as usize, leaders(&agents));
            return QuickOutcome { players, survivors: Some(leader_count as u64) };
        }
    }
}

/// The game of section 3.1.1 played directly: each of `players` agents flips a fair coin until
/// the first tail; the winners are those with the most heads. Returns the number of winners.
fn play_game(players: u64, rng: &mut poplab::rng::PopRng) -> u64 {
    let mut best = 0;
    let mut winners = 0;
    for _ in 0..players {
        let mut heads = 0;
        while coin(rng) {
            heads += 1;
        }
        if heads > best || winners == 0 {
            (best, winners) = (heads, 1);
        } else if heads == best {
            winners += 1;
        }
    }
    winners
}

/// P(exactly `w` winners) in the game with `k` players:
/// `C(k, w) sum_{j >= 0} 2^{-(j+1) w} (1 - 2^{-j})^{k-w}` (all `w` winners at `j` heads, the others
/// fewer).
fn game_law(k: u64, w: u64) -> f64 {
    if w > k || w == 0 {
        return 0.0;
    }
    let binomial: f64 = (0..w).map(|i| (k - i) as f64 / (i + 1) as f64).product();
    let mut sum = 0.0;
    for j in 0..400 {
        let at_j = 0.5f64.powi(((j + 1) * w) as i32);
        let below = (1.0 - 0.5f64.powi(j as i32)).powi((k - w) as i32);
        sum += at_j * below;
    }
    binomial * sum
}

/// Cells: 1, 2, 3, 4, 5 or more winners.
const CELLS: usize = 5;

fn cell(w: u64) -> usize {
    (w.min(CELLS as u64) - 1) as usize
}

/// chi-square with 4 degrees of freedom, alpha = 0.001.
const CHI2_4_0001: f64 = 18.467;

#[test]
fn survivors_of_quick_elimination_follow_the_coin_flip_game() {
    // n = 1000; 3000 runs (`PLL_QE_RUNS` changes it) take a few seconds in the optimised test profile.
    let n = 1000;
    let runs: u64 = std::env::var("PLL_QE_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let [p, printed] = variants(n);
    // The variants differ only from epoch 2 on: QuickElimination is the same run for both.
    for i in 0..100 {
        let (a, b) = (quick_elimination(&p, trial_seed(2024, i)), quick_elimination(&printed, trial_seed(2024, i)));
        assert_eq!((a.players, a.survivors), (b.players, b.survivors));
    }
    {
        let name = p.info().name;
        let outcomes: Vec<(QuickOutcome, u64)> = (0..runs)
            .into_par_iter()
            .map(|i| {
                let seed = trial_seed(2024, i);
                let outcome = quick_elimination(&p, seed);
                let mut game_rng = TrialStreams::new(seed).faults;
                (outcome, play_game(outcome.players, &mut game_rng))
            })
            .collect();
        let incomplete = outcomes.iter().filter(|(o, _)| o.survivors.is_none()).count();
        assert_eq!(incomplete, 0, "{name}: an agent entered epoch 2 before QuickElimination was over");

        let mut observed = [0f64; CELLS];
        let mut direct = [0f64; CELLS];
        let mut expected = [0f64; CELLS];
        for (o, game) in &outcomes {
            let w = o.survivors.unwrap();
            assert!(w >= 1 && w <= o.players, "{name}: {o:?}");
            observed[cell(w)] += 1.0;
            direct[cell(*game)] += 1.0;
            let law: Vec<f64> = (1..CELLS as u64).map(|w| game_law(o.players, w)).collect();
            for (c, p) in law.iter().enumerate() {
                expected[c] += p;
            }
            expected[CELLS - 1] += 1.0 - law.iter().sum::<f64>();
        }
        let r = runs as f64;

        // Lemma 9: P(exactly i leaders survive) <= 2^{1-i}, plus sampling error (one-sided,
        // 3.09 standard errors: alpha = 0.001).
        for i in 2..=4 {
            let bound = 0.5f64.powi(i as i32 - 1);
            let freq = observed[i - 1] / r;
            let slack = 3.09 * (bound * (1.0 - bound) / r).sqrt();
            assert!(freq <= bound + slack, "{name}: P({i} survive) = {freq} > 2^(1-{i}) = {bound}");
        }

        // Goodness of fit against the exact law of the game, given each run's number of players.
        let chi2_law: f64 = observed.iter().zip(&expected).map(|(o, e)| (o - e).powi(2) / e).sum();
        // Homogeneity against the game played directly with the same numbers of players.
        let chi2_direct: f64 = (0..CELLS)
            .map(|c| {
                let total = observed[c] + direct[c];
                let e = total / 2.0;
                (observed[c] - e).powi(2) / e + (direct[c] - e).powi(2) / e
            })
            .sum();
        let mean_players = outcomes.iter().map(|(o, _)| o.players as f64).sum::<f64>() / r;
        eprintln!(
            "{name}: n = {n}, {runs} runs, mean players {mean_players:.1}; survivors 1/2/3/4/5+: observed \
             {observed:?}, direct game {direct:?}, exact law {expected:.1?}; chi2 law {chi2_law:.2}, chi2 \
             direct {chi2_direct:.2} (critical {CHI2_4_0001}, df 4)"
        );
        assert!(expected.iter().all(|&e| e >= 5.0), "{expected:?}");
        assert!(chi2_law < CHI2_4_0001, "{name}: chi2 against the exact law = {chi2_law}");
        assert!(chi2_direct < CHI2_4_0001, "{name}: chi2 against the direct game = {chi2_direct}");
    }
}

#[test]
fn the_game_law_sums_to_one_and_matches_the_paper() {
    for k in [1u64, 2, 5, 50, 500] {
        let total: f64 = (1..=k).map(|w| game_law(k, w)).sum();
        assert!((total - 1.0).abs() < 1e-9, "k = {k}: {total}");
        for w in 2..=k.min(10) {
            assert!(game_law(k, w) <= 0.5f64.powi(w as i32 - 1), "k = {k}, w = {w}");
        }
    }
    // Two players: both win iff equal geometric counts, probability sum 4^{-(j+1)} = 1/3.
    assert!((game_law(2, 2) - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn both_variants_stabilise_through_run_trials() {
    for n in [2, 3, 10, 60] {
        for p in variants(n) {
            let settings = RunSettings { trials: 24, seed: 7, max_steps: 50_000_000, ..RunSettings::default() };
            let summary = summary(&p, &settings);
            assert_eq!(summary.converged, 24, "{} n = {n}: {summary:?}", p.info().name);
            assert!(summary.min_steps.unwrap() >= 1);
            if n == 2 {
                // Two agents: the first interaction (X meets X) leaves exactly one leader.
                assert_eq!(summary.max_steps, Some(1));
            }
        }
    }
}

#[test]
fn state_space_lists_every_state_once_and_round_trips_through_json() {
    let p = Pll::new(10, &Params::default()).unwrap();
    let states = p.state_space().unwrap();
    assert_eq!(states.len() as u64, p.state_count());
    assert_eq!(states.iter().collect::<std::collections::HashSet<_>>().len(), states.len());
    for &s in states.iter().step_by(97) {
        assert_eq!(p.state_from_json(&p.state_to_json(s)), Ok(s));
    }
}
