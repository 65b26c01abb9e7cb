//! `pll-sym` (paper 003 section 4, Algorithm 6): symmetry of the transition function, the invariants
//! of section 4 and Lemma 11 on every step of small runs, fairness and independence of the coin flips
//! leaders read, and stabilisation through `run_trials`.
//!
//! The measurements for the report are the example `pll_sym_stabilisation`:
//! `cargo run --release -p poplab --example pll_sym_stabilisation`.

use crate::common;

use common::{checked_run, summary};
use poplab::experiment::RunSettings;
use poplab::graph::{Graph, Scheduler};
use poplab::protocol::{Params, Protocol};
use poplab::protocols::pll::Module;
use poplab::protocols::pll::PllProtocol;
use poplab::protocols::pll_sym::{Coin, Group, PllSym, State, Status};
use poplab::rng::{PopRng, TrialStreams, below_u64, trial_seed};
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::collections::HashSet;

fn sym(n: usize) -> PllSym {
    PllSym::new(n, &Params::default()).unwrap()
}

fn sym_m(n: usize, m: u64) -> PllSym {
    PllSym::new(n, &Params::parse(&[format!("m={m}")]).unwrap()).unwrap()
}

/// `T(p, q)` and `T(q, p)` agree up to the swap (for `p = q` this says `T(p, p) = (p', p')`).
fn assert_symmetric(p: &PllSym, x: State, y: State) -> (State, State) {
    let (a, b) = p.transition(x, y);
    let (b2, a2) = p.transition(y, x);
    assert!((a, b) == (a2, b2), "not symmetric: T({x:?}, {y:?}) = ({a:?}, {b:?}) but T(y, x) = ({b2:?}, {a2:?})");
    if x == y {
        assert_eq!(a, b, "T(p, p) must give equal states: {x:?}");
    }
    (a, b)
}

/// Every state that occurs in some execution from the initial configuration, for any population
/// size that has this `m` (the protocol depends on n only through m): the smallest set that
/// contains the initial state and `T(p, q)` for all its pairs. (A state of this set derives from
/// the initial state by a finite tree of interactions; with as many agents as the tree has leaves it
/// occurs in a real execution, and two such states occur together with twice as many agents. So
/// the set is exactly the union over n of the states reachable with n agents, and its pairs are the
/// pairs of states that can meet.) Computed breadth first over pairs, checking symmetry of every
/// unordered pair exactly once, equal pairs included. Returns the states and the pairs checked.
fn reachable_checking_symmetry(p: &PllSym) -> (Vec<State>, u64) {
    let mut states = vec![State::INITIAL];
    let mut known = vec![false; p.state_count() as usize];
    known[p.state_index(State::INITIAL) as usize] = true;
    let mut start = 0;
    let mut pairs = 0u64;
    while start < states.len() {
        let end = states.len();
        let found: Vec<State> = (start..end)
            .into_par_iter()
            .flat_map_iter(|i| {
                let x = states[i];
                let mut new = Vec::new();
                for &y in &states[..=i] {
                    let (a, b) = assert_symmetric(p, x, y);
                    for s in [a, b] {
                        if !known[p.state_index(s) as usize] {
                            new.push(s);
                        }
                    }
                }
                new
            })
            .collect();
        pairs += (start as u64 + 1..=end as u64).sum::<u64>();
        for s in found {
            let k = p.state_index(s) as usize;
            if !known[k] {
                known[k] = true;
                states.push(s);
            }
        }
        start = end;
    }
    (states, pairs)
}

#[test]
fn symmetric_on_every_pair_of_reachable_states() {
    // m = 2 is the default for n = 3, 4; m = 3 for n = 5..8: every state reachable with n <= 6
    // agents (and with n <= 8) is in one of these sets, and every pair of them is checked.
    for (n, m) in [(3, 2), (6, 3)] {
        let p = sym_m(n, m);
        let (states, pairs) = reachable_checking_symmetry(&p);
        for &s in &states {
            assert_eq!(p.check_state(s), Ok(s));
        }
        // The search reached every part of the protocol.
        let has = |f: &dyn Fn(&State) -> bool| states.iter().any(f);
        assert!(has(&|s| s.status() == Status::Y));
        assert!(has(&|s| s.coin_status() == Some(Coin::F1) && s.status() == Status::B));
        assert!(has(&|s| s.coin_status() == Some(Coin::K)));
        assert!(has(&|s| matches!(s.group, Group::A3 { ready: true, .. }) && s.status_l == 1));
        assert!(has(&|s| matches!(s.group, Group::A2 { rand } if rand == p.rand_max()) && s.leader));
        assert!(has(&|s| matches!(s.group, Group::A3 { level_b, .. } if level_b == p.c_max())));
        // Unreachable: X or Y followers, leaders of status B, X or Y out of epoch 1 or colour 0.
        assert!(!has(&|s| matches!(s.status(), Status::X | Status::Y) && (!s.leader || s.epoch() > 1 || s.color > 0)));
        assert!(!has(&|s| s.status() == Status::B && s.leader));
        eprintln!(
            "m = {m}: {} reachable states of {}, {pairs} unordered pairs symmetric",
            states.len(),
            p.state_count()
        );
    }
}

/// The distinct states visited by one run from the initial configuration, up to the step where it
/// is stabilised and every agent is in epoch 3, plus `extra` steps.
fn visited_states(p: &PllSym, seed: u64, extra: u64) -> Vec<State> {
    let n = p.n();
    let mut agents = p.initial_configuration();
    let mut scheduler = Graph::Complete.scheduler(n).unwrap();
    let mut rng = TrialStreams::new(seed).schedule;
    let mut seen = HashSet::from([State::INITIAL]);
    let (mut leaders, mut in_epoch3) = (n, 0);
    let mut stop_at = None;
    let mut step = 0u64;
    while stop_at.is_none_or(|s| step < s) {
        step += 1;
        let (u, v) = scheduler.next_pair(&mut rng);
        let (u, v) = (u as usize, v as usize);
        let before = [agents[u], agents[v]];
        let (a, b) = p.transition(before[0], before[1]);
        (agents[u], agents[v]) = (a, b);
        seen.insert(a);
        seen.insert(b);
        leaders = leaders + usize::from(a.leader) + usize::from(b.leader);
        leaders -= usize::from(before[0].leader) + usize::from(before[1].leader);
        in_epoch3 += [a, b].iter().filter(|s| s.epoch() == 3).count();
        in_epoch3 -= before.iter().filter(|s| s.epoch() == 3).count();
        if stop_at.is_none() && leaders == 1 && in_epoch3 == n {
            stop_at = Some(step + extra);
        }
    }
    seen.into_iter().collect()
}

#[test]
fn symmetric_on_a_million_sampled_pairs_at_larger_n() {
    for (n, pairs) in [(1000, 1_000_000u64), (10_000, 1_000_000)] {
        let p = sym(n);
        // Reachable pairs: states visited by two runs (drawn uniformly from their union).
        let mut states: Vec<State> =
            (0..2).into_par_iter().flat_map_iter(|i| visited_states(&p, trial_seed(77, i), 20 * n as u64)).collect();
        states.sort_by_key(|&s| p.state_index(s));
        states.dedup();
        let mut rng = PopRng::seed_from_u64(n as u64);
        for _ in 0..pairs {
            let x = states[below_u64(&mut rng, states.len() as u64) as usize];
            let y = states[below_u64(&mut rng, states.len() as u64) as usize];
            assert_symmetric(&p, x, y);
        }
        // Equal pairs of every visited state.
        for &s in &states {
            assert_symmetric(&p, s, s);
        }
        // The whole state space, reachable or not: the transition is symmetric everywhere.
        for _ in 0..pairs {
            let (x, y) = (p.random_state(&mut rng), p.random_state(&mut rng));
            let (a, b) = assert_symmetric(&p, x, y);
            assert_eq!(p.check_state(a), Ok(a));
            assert_eq!(p.check_state(b), Ok(b));
            assert_symmetric(&p, x, x);
        }
        eprintln!("n = {n}: {pairs} pairs of {} visited states and {pairs} random pairs symmetric", states.len());
    }
}

fn count_coin(agents: &[State], coin: Coin) -> usize {
    agents.iter().filter(|s| s.coin_status() == Some(coin)).count()
}

/// Runs `p` with [`checked_run`] (Lemma 11: the number of leaders never rises and never reaches 0,
/// and [`eliminations`](poplab::protocols::pll_sym::eliminations) accounts for every lost leader;
/// epochs never decrease; `init = epoch`) and checks on every step:
/// - section 4: #F0 = #F1; a follower's coin status changes only by `J,J -> K,K`, `K,K -> J,J`,
///   `J,K -> F0,F1` (F0 and F1 never change); a leader that becomes a follower starts at J;
/// - statuses change only X <-> Y and X, Y -> A, B.
///
/// Returns the module of the last elimination.
fn checked_sym_run(p: &PllSym, seed: u64, max_steps: u128) -> Module {
    let (_, module) = checked_run(p, seed, max_steps, |s| {
        let at = s.at;
        assert_eq!(count_coin(s.after, Coin::F0), count_coin(s.after, Coin::F1), "{}: #F0 != #F1", at());
        for &i in s.changed {
            let (b, a) = (s.before[i], s.after[i]);
            let ok_status = match (b.status(), a.status()) {
                (x, y) if x == y => true,
                (Status::X, Status::Y) | (Status::Y, Status::X) => true,
                (Status::X | Status::Y, Status::A | Status::B) => true,
                _ => false,
            };
            assert!(ok_status, "{}: status {b:?} -> {a:?}", at());
            match (b.coin_status(), a.coin_status()) {
                (Some(x), Some(y)) if x != y => assert!(
                    matches!((x, y), (Coin::J, Coin::K | Coin::F0) | (Coin::K, Coin::J | Coin::F1)),
                    "{}: coin {x:?} -> {y:?}",
                    at()
                ),
                (None, Some(y)) => assert_eq!(y, Coin::J, "{}: a new follower", at()),
                (Some(_), None) => panic!("{}: a follower became a leader", at()),
                _ => {}
            }
        }
    });
    module
}

#[test]
fn coins_balance_and_leaders_never_rise_or_vanish_on_every_step() {
    let mut modules = HashSet::new();
    for n in [3, 4, 5, 6, 10, 23, 50] {
        for seed in 1..=4 {
            modules.insert(checked_sym_run(&sym(n), seed * 1000 + n as u64, 20_000_000));
        }
    }
    assert!(modules.contains(&Module::QuickElimination), "{modules:?}");
}

/// Coin flips observed in runs.
#[derive(Clone, Debug, Default)]
struct Flips {
    /// Heads and tails per module: QuickElimination, Tournament, BackUp.
    counts: [[u64; 2]; 3],
    /// Consecutive flips of the same leader in the same module: [previous][current], head = 0.
    same_leader: [[u64; 2]; 2],
    /// Consecutive flips in the whole run (any leaders): [previous][current].
    consecutive: [[u64; 2]; 2],
    /// Tournament: the nonce of each leader that finished one, minus 2^ceil(lg m).
    nonces: Vec<u16>,
}

/// Runs `pll-sym` from the initial configuration until every agent has been in epoch 3 for
/// `3 c_max n` steps (about three ticks), recording every coin flip a leader reads. A flip is
/// recognised from the states alone (section 4): a leader of status A that is still flipping (epoch
/// 1: `done = false`; epoch 2: `rand < 2^ceil(lg m)`; epoch 3: `ready` and no tick raised in this
/// interaction) meets a follower of coin status F0 (head) or F1 (tail). Each flip's effect on the
/// leader is checked against Algorithms 3, 4 and 6.
fn record_flips(p: &PllSym, seed: u64) -> Flips {
    let n = p.n();
    let s = p.nonce_start();
    let mut agents = p.initial_configuration();
    let mut scheduler = Graph::Complete.scheduler(n).unwrap();
    let mut rng = TrialStreams::new(seed).schedule;
    let mut flips = Flips::default();
    let mut last: Vec<Option<(usize, bool)>> = vec![None; n];
    let mut previous: Option<bool> = None;
    let mut in_epoch3 = 0;
    let mut stop_at = None;
    let mut step = 0u64;
    while stop_at.is_none_or(|at| step < at) {
        step += 1;
        let (u, v) = scheduler.next_pair(&mut rng);
        let (u, v) = (u as usize, v as usize);
        let before = [agents[u], agents[v]];
        let after = p.transition(before[0], before[1]);
        let after = [after.0, after.1];
        for i in 0..2 {
            let (b, a, partner) = (before[i], after[i], before[1 - i]);
            let Some(head) = partner.coin_status().and_then(Coin::flip) else { continue };
            if !b.leader || b.status() != Status::A {
                continue;
            }
            // The module of the flip, and whether it happened.
            let module = match (b.group, a.group) {
                (Group::A1 { level_q, done: false }, Group::A1 { level_q: l2, done }) => {
                    if head {
                        assert!(!done && l2 == (level_q + 1).min(p.c_max()), "{b:?} {a:?}");
                    } else {
                        assert!(done, "{b:?} {a:?}");
                    }
                    0
                }
                (Group::A1 { .. } | Group::A2 { .. }, Group::A2 { rand: r2 }) => {
                    let r = if let Group::A2 { rand } = b.group { rand } else { 1 };
                    if r >= s {
                        continue;
                    }
                    let expected = 2 * r + u16::from(!head);
                    assert!(r2 == expected || (!a.leader && r2 > expected), "{b:?} {a:?}");
                    if expected >= s {
                        flips.nonces.push(expected - s);
                    }
                    1
                }
                (Group::A3 { level_b, ready: true }, Group::A3 { level_b: l2, ready }) if !a.tick => {
                    assert!(!ready || !a.leader, "{b:?} {a:?}");
                    let expected = if head { (level_b + 1).min(p.c_max()) } else { level_b };
                    assert!(l2 == expected || (!a.leader && l2 > expected), "{b:?} {a:?}");
                    2
                }
                _ => continue,
            };
            flips.counts[module][usize::from(!head)] += 1;
            let agent = if i == 0 { u } else { v };
            if let Some((m, prev_head)) = last[agent]
                && m == module
            {
                flips.same_leader[usize::from(!prev_head)][usize::from(!head)] += 1;
            }
            last[agent] = Some((module, head));
            if let Some(prev_head) = previous {
                flips.consecutive[usize::from(!prev_head)][usize::from(!head)] += 1;
            }
            previous = Some(head);
        }
        (agents[u], agents[v]) = (after[0], after[1]);
        in_epoch3 += after.iter().filter(|s| s.epoch() == 3).count();
        in_epoch3 -= before.iter().filter(|s| s.epoch() == 3).count();
        if stop_at.is_none() && in_epoch3 == n {
            stop_at = Some(step + 3 * u64::from(p.c_max()) * n as u64);
        }
    }
    flips
}

/// Critical values of chi-square at alpha = 0.001 for 1, 3 and 7 degrees of freedom.
const CHI2_1: f64 = 10.828;
const CHI2_3: f64 = 16.266;
const CHI2_7: f64 = 24.322;

fn chi2_uniform(observed: &[u64]) -> f64 {
    let total: u64 = observed.iter().sum();
    let e = total as f64 / observed.len() as f64;
    observed.iter().map(|&o| (o as f64 - e).powi(2) / e).sum()
}

#[test]
fn coin_flips_read_by_leaders_are_fair_and_independent() {
    // n = 200: m = 8, nonces of 3 flips in 8..=15.
    let n = 200;
    let runs: u64 = std::env::var("PLL_SYM_FLIP_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(800);
    let p = sym(n);
    assert_eq!(p.nonce_start(), 8);
    let all =
        (0..runs).into_par_iter().map(|i| record_flips(&p, trial_seed(4242, i))).reduce(Flips::default, |a, b| {
            let mut c = a;
            for m in 0..3 {
                for h in 0..2 {
                    c.counts[m][h] += b.counts[m][h];
                }
            }
            for x in 0..2 {
                for y in 0..2 {
                    c.same_leader[x][y] += b.same_leader[x][y];
                    c.consecutive[x][y] += b.consecutive[x][y];
                }
            }
            c.nonces.extend(b.nonces);
            c
        });
    let names = ["QuickElimination", "Tournament", "BackUp"];
    for (m, name) in names.iter().enumerate() {
        let chi2 = chi2_uniform(&all.counts[m]);
        eprintln!("{name}: heads/tails {:?}, chi2 {chi2:.2} (critical {CHI2_1}, df 1)", all.counts[m]);
        assert!(all.counts[m].iter().sum::<u64>() >= 1000, "{name}: too few flips {:?}", all.counts[m]);
        assert!(chi2 < CHI2_1, "{name}: flips not fair: {:?}", all.counts[m]);
    }
    // Given a leader's previous flip in the same module, its next flip is fair (a row each; the rows
    // differ in size because a tail ends QuickElimination's flipping).
    let same = all.same_leader;
    let consecutive: Vec<u64> = all.consecutive.iter().flatten().copied().collect();
    let mut nonce_cells = vec![0u64; 8];
    for &v in &all.nonces {
        nonce_cells[usize::from(v)] += 1;
    }
    let (c_after_h, c_after_t) = (chi2_uniform(&same[0]), chi2_uniform(&same[1]));
    let (c_cons, c_nonce) = (chi2_uniform(&consecutive), chi2_uniform(&nonce_cells));
    eprintln!(
        "{runs} runs at n = {n}: next flip of one leader after a head {:?} chi2 {c_after_h:.2}, after a tail {:?} \
         chi2 {c_after_t:.2} (critical {CHI2_1}, df 1); consecutive flips of the run HH/HT/TH/TT {consecutive:?} \
         chi2 {c_cons:.2} (critical {CHI2_3}, df 3); Tournament nonces - 8 {nonce_cells:?} chi2 {c_nonce:.2} \
         (critical {CHI2_7}, df 7)",
        same[0], same[1]
    );
    assert!(same[1].iter().sum::<u64>() >= 1000, "{same:?}");
    assert!(c_after_h < CHI2_1 && c_after_t < CHI2_1, "flips of one leader not independent: {same:?}");
    assert!(c_cons < CHI2_3, "consecutive flips not independent: {consecutive:?}");
    assert!(nonce_cells.iter().all(|&c| c >= 40), "{nonce_cells:?}");
    assert!(c_nonce < CHI2_7, "nonces not uniform: {nonce_cells:?}");
}

#[test]
fn stabilises_through_run_trials() {
    for n in [3, 4, 10, 60] {
        let p = sym(n);
        let settings = RunSettings { trials: 24, seed: 7, max_steps: 50_000_000, ..RunSettings::default() };
        let summary = summary(&p, &settings);
        assert_eq!(summary.converged, 24, "n = {n}: {summary:?}");
    }
    // Two agents stay in equal states for ever: refused.
    assert!(PllSym::new(2, &Params::default()).is_err());
}
