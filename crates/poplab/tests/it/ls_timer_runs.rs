//! `ls-timer` (000 section 4) on every step of small runs, its timeout, convergence and holding.

use crate::common;

use common::{leaders, params, summary};
use poplab::engine::{AgentRun, Measure, Outcome, Watch};
use poplab::experiment::{RunSettings, run_trials};
use poplab::graph::{Graph, Scheduler};
use poplab::init::InitSpec;
use poplab::protocol::Configurations;
use poplab::protocol::{Monitor, Params, Protocol};
use poplab::protocols::ls_timer::{LsState, LsTimer};
use poplab::rng::{PopRng, TrialStreams};

fn protocol(n: usize, settings: &[&str]) -> LsTimer {
    LsTimer::new(n, &params(settings)).unwrap()
}

/// Runs `steps` steps from `agents`, one at a time, drawing the same pairs as the engine from a
/// second scheduler on a copy of its stream, and checks every interaction:
/// - the engine applied exactly `transition` to exactly the drawn pair;
/// - every timer stays in `0..=s`;
/// - if either agent of the pair was a leader before the interaction or is one after it, both
///   agents leave it with timer `s` (rules 1, 2, 3);
/// - the number of leaders rises only by a timeout (rule 3: `((f,0),(f,0)) -> ((l,s),(f,s))`) and
///   falls only when two leaders meet (rule 1, the responder yields);
/// - the monitor agrees with the safe-set predicate.
///
/// Returns (timeouts, leader removals) seen.
fn check_every_step(p: &LsTimer, agents: Vec<LsState>, seed: u64, steps: u64) -> (u64, u64) {
    let graph = Graph::Complete;
    let n = p.n();
    let s = p.s();
    let stream = TrialStreams::new(seed).schedule;
    let mut twin: (_, PopRng) = (graph.scheduler(n).unwrap(), stream.clone());
    let mut run = AgentRun::new(p, &graph, agents, graph.scheduler(n).unwrap(), stream);
    let (mut timeouts, mut removals) = (0, 0);
    for step in 1..=steps {
        let before = run.agents().to_vec();
        let (u, v) = twin.0.next_pair(&mut twin.1);
        let (u, v) = (u as usize, v as usize);
        run.advance(step.into(), Watch::Nothing);
        let after = run.agents();
        let (a, b) = (before[u], before[v]);
        let (a2, b2) = (after[u], after[v]);
        assert_eq!((a2, b2), p.transition(a, b), "step {step}: the engine applied the transition to ({u}, {v})");
        for (i, (x, y)) in before.iter().zip(after).enumerate() {
            assert!(i == u || i == v || x == y, "step {step}: agent {i} outside the pair changed");
            assert!(y.timer <= s, "step {step}: timer {} above s = {s}", y.timer);
        }
        if a.leader || b.leader || a2.leader || b2.leader {
            assert_eq!((a2.timer, b2.timer), (s, s), "step {step}: {a:?} {b:?} -> {a2:?} {b2:?}");
        }
        let (l0, l1) = (leaders(&before), leaders(after));
        if l1 > l0 {
            assert_eq!(l1, l0 + 1, "step {step}");
            assert!(!a.leader && !b.leader && a.timer == 0 && b.timer == 0, "step {step}: no timeout, {a:?} {b:?}");
            assert_eq!((a2, b2), (LsState { leader: true, timer: s }, LsState { leader: false, timer: s }));
            timeouts += 1;
        }
        if l1 < l0 {
            assert_eq!(l1 + 1, l0, "step {step}");
            assert!(a.leader && b.leader && a2.leader && !b2.leader, "step {step}: {a:?} {b:?} -> {a2:?} {b2:?}");
            removals += 1;
        }
        assert_eq!(run.monitor().is_safe(), p.is_safe_configuration(after), "step {step}");
        assert_eq!(run.monitor().leaders(), l1);
    }
    (timeouts, removals)
}

#[test]
fn invariants_hold_on_every_step_from_random_and_family_starts() {
    let (mut timeouts, mut removals) = (0, 0);
    // s = N = 8 (timeouts frequent even with a leader around) and the paper's s = 96 N.
    for settings in [&["timer_factor=1"][..], &[][..]] {
        let p = protocol(8, settings);
        for seed in 0..4u64 {
            let mut init = TrialStreams::new(seed).init;
            let random = InitSpec::Random.build(&p, &mut init).unwrap();
            let (t, r) = check_every_step(&p, random, seed, 20_000);
            timeouts += t;
            removals += r;
            for family in ["no-leader", "all-leaders", "safe"] {
                let agents = InitSpec::Family(family.into()).build(&p, &mut init).unwrap();
                let (t, r) = check_every_step(&p, agents, seed + 100, 20_000);
                timeouts += t;
                removals += r;
            }
        }
    }
    // The checks above must have seen both kinds of events.
    assert!(timeouts > 10 && removals > 10, "timeouts {timeouts}, removals {removals}");
}

/// From `no-leader` the first leader is created by a timeout. Without a leader the largest timer
/// `M` never grows, and every interaction that involves an agent holding `M` leaves both agents
/// with `M - 1` (rule 4). With `k` agents holding `M`, a step involves one of them with probability
/// `P_k = 1 - (n-k)(n-k-1) / (n(n-1))`, so `M` drops within `sum_{k=1..n} 1/P_k` expected steps,
/// and after `s` drops every timer is 0 and the next step is a timeout:
/// `E[T] <= B = s * sum_{k=1..n} 1/P_k + 1`, and by Markov `P(T > B / q) <= q`.
/// Lower bound, deterministic: an agent's timer falls by at most one per interaction it takes part
/// in, so a timeout needs two agents with `s` interactions each: `T >= s + 1`.
#[test]
fn from_no_leader_a_timeout_comes_within_the_timeout_bound() {
    let n = 10;
    let p = protocol(n, &[]); // N = n = 10, s = 960
    let s = u64::from(p.s());
    let nf = n as f64;
    let per_level: f64 = (1..=n)
        .map(|k| {
            let k = k as f64;
            1.0 - (nf - k) * (nf - k - 1.0) / (nf * (nf - 1.0))
        })
        .map(|pk| 1.0 / pk)
        .sum();
    let bound = s as f64 * per_level + 1.0;
    let graph = Graph::Complete;
    let trials = 1_000u64;
    let mut times = Vec::new();
    for trial in 0..trials {
        let streams = TrialStreams::new(poplab::rng::trial_seed(2024, trial));
        let agents = p.family_configuration("no-leader", &mut streams.init.clone()).unwrap();
        let mut run = AgentRun::new(&p, &graph, agents, graph.scheduler(n).unwrap(), streams.schedule);
        let mut step = 0;
        while run.monitor().leaders() == 0 {
            step += 1;
            assert!(step <= 100 * bound as u64, "no timeout after {step} steps");
            run.advance(step.into(), Watch::Nothing);
        }
        assert_eq!(run.monitor().leaders(), 1);
        times.push(step);
    }
    let mean = times.iter().sum::<u64>() as f64 / trials as f64;
    let min = *times.iter().min().unwrap();
    let mut sorted = times.clone();
    sorted.sort_unstable();
    let q90 = sorted[(0.9 * trials as f64) as usize] as f64;
    eprintln!("first timeout, n = N = 10, s = 960: mean {mean:.0} steps, min {min}, q90 {q90}, bound B = {bound:.0}");
    assert!(min > s, "a timeout after {min} <= s steps is impossible");
    assert!(mean <= bound, "mean {mean} above the bound {bound}");
    // Markov with q = 1/2 at the 90% quantile would allow 10 B; the timer argument gives far more.
    assert!(q90 <= 2.0 * bound, "90% quantile {q90} above 2 B = {}", 2.0 * bound);
    // The mean cannot be far below the bound either: the largest timer needs at least one step per
    // level, and in practice about n H_n / 2 of them; a rule-4 bug that lets the maximum fall
    // faster (for example min instead of max) would drive the mean towards s.
    assert!(mean >= 0.25 * bound, "mean {mean} far below the bound {bound}: timers fall too fast");
}

#[test]
fn converges_from_random_and_adversarial_starts() {
    let p = protocol(10, &[]); // n = N = 10, s = 960
    for init in [InitSpec::Random, InitSpec::Family("no-leader".into()), InitSpec::Default] {
        let settings =
            RunSettings { init: init.clone(), trials: 200, seed: 7, max_steps: 10_000_000, ..RunSettings::default() };
        let summary = summary(&p, &settings);
        eprintln!("ls-timer n = N = 10, s = 960, init {}: {summary:?}", init.name());
        assert_eq!(summary.converged, 200, "{}: {summary:?}", init.name());
    }
    // A safe start is safe at step 0.
    let settings = RunSettings { init: InitSpec::Family("safe".into()), trials: 3, ..RunSettings::default() };
    assert_eq!(summary(&p, &settings).max_steps, Some(0));
}

#[test]
fn holding_runs_break_with_short_timers_and_are_censored_with_the_papers() {
    // s = N = n = 4: a timeout while the leader exists comes within a few hundred steps.
    let p = protocol(4, &["s=4"]);
    let settings = RunSettings {
        measure: Measure::Holding,
        init: InitSpec::Family("safe".into()),
        trials: 200,
        seed: 11,
        max_steps: 1_000_000,
        ..RunSettings::default()
    };
    let records = run_trials(&p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Broken), "every short-timer holding run breaks");
    let mean = records.iter().map(|r| r.steps.0 as f64).sum::<f64>() / records.len() as f64;
    eprintln!("ls-timer holding, n = N = s = 4: mean {mean:.1} steps over 200 trials");
    assert!((20.0..5_000.0).contains(&mean), "mean holding {mean} steps");

    // The paper's s = 96 N: no break within 10^6 steps.
    for n in [4, 10] {
        let p = protocol(n, &[]);
        let settings = RunSettings { trials: 4, ..settings.clone() };
        let records = run_trials(&p, &settings, &|| {}).unwrap();
        assert!(
            records.iter().all(|r| r.outcome == Outcome::Censored && r.steps.0 == 1_000_000),
            "n = {n}: {records:?}"
        );
    }

    // A holding run refuses a start outside the safe set.
    let settings = RunSettings { init: InitSpec::Family("no-leader".into()), ..settings };
    assert!(run_trials(&p, &settings, &|| {}).is_err());
}

#[test]
fn monitor_matches_a_fresh_count_after_runs() {
    let p = protocol(6, &["timer_factor=2"]);
    let graph = Graph::Complete;
    for seed in 0..5 {
        let mut streams = TrialStreams::new(seed);
        let agents = InitSpec::Random.build(&p, &mut streams.init).unwrap();
        let mut run = AgentRun::new(&p, &graph, agents, graph.scheduler(6).unwrap(), streams.schedule);
        run.advance(5_000, Watch::Nothing);
        let fresh = p.monitor(run.agents(), &graph);
        assert_eq!((fresh.leaders(), fresh.low_timers()), (run.monitor().leaders(), run.monitor().low_timers()));
    }
}

#[test]
fn state_space_lists_every_state_once() {
    let p = LsTimer::new(3, &Params::parse(&["s=5"]).unwrap()).unwrap();
    let states = p.state_space().unwrap();
    assert_eq!(states.len(), 12);
    assert_eq!(states.iter().collect::<std::collections::HashSet<_>>().len(), 12);
    assert!(LsTimer::new(3, &Params::parse(&["s=10000000"]).unwrap()).unwrap().state_space().is_none());
}
