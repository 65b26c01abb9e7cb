//! The batched engine: the law of a batch, exact first passage inside a batch, conservation,
//! determinism.
//!
//! A batch takes about `2 sqrt(n)` interactions at once, with several collisions. If the engine
//! reported the end of the batch in which an event happened, first-passage steps would be rounded
//! up by up to a batch length; these tests put the event inside the first batches and compare its
//! step with the exact law, which would fail by a wide margin if it were rounded. In populations
//! of 6 to 8 agents a batch is all collisions, delayed pairs resolved by them and replays, so the
//! laws checked there exercise every path of a batch.

use poplab::engine::{CountRun, Engine, Outcome, TraceEvery, Watch};
use poplab::exact::{ExploreSettings, expected_steps};
use poplab::experiment::{RunSettings, run_trials};
use poplab::init::InitSpec;
use poplab::protocol::CountStart;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::approx_majority::{ApproxMajority, Opinion};
use poplab::protocols::pll::Pll;
use poplab::protocols::threshold::Threshold;
use poplab::rng::{PopRng, TrialStreams};
use poplab::stats::{ks_critical, ks_integer_sample, ks_two_sample};
use rand_core::SeedableRng;

/// A batching count run of `p` from `agents`.
fn batching<'p, P: Protocol>(p: &'p P, agents: &[P::State], seed: u64) -> CountRun<P, &'p P> {
    let mut run = CountRun::new(p, agents, PopRng::seed_from_u64(seed)).unwrap();
    run.batch_always();
    run
}

#[test]
fn the_first_interaction_of_a_batch_is_found_exactly() {
    // All leaders: the very first interaction demotes one, at step 1, inside a batch of ~600.
    let n = 1_000_000;
    let p = Angluin::new(n, &Params::default()).unwrap();
    let agents = vec![true; n];
    for seed in 0..20 {
        let mut run = batching(&p, &agents, seed);
        assert!(run.advance(u128::MAX, Watch::OutputChange));
        assert_eq!(run.step(), 1, "seed {seed}");
        assert_eq!(run.counts().iter().find(|(s, _)| *s).map(|&(_, c)| c), Some(n as u64 - 1));
    }
}

#[test]
fn the_first_output_change_has_the_geometric_law() {
    // 500 leaders among 1000: a step demotes a leader with probability q = 500 * 499 / (1000 * 999),
    // so the first demotion is geometric on {1, 2, ...} with mean ~4, well inside the first batch
    // (~20 interactions).
    let n = 1000;
    let p = Angluin::new(n, &Params::default()).unwrap();
    let agents: Vec<bool> = (0..n).map(|i| i < 500).collect();
    let q = (500.0 * 499.0) / (1000.0 * 999.0);
    assert_geometric(&first_passages(&p, &agents, Watch::OutputChange, 0), q);
}

/// The steps at which `watch` is first met in 5000 batching runs from `agents`.
fn first_passages<P: Protocol>(p: &P, agents: &[P::State], watch: Watch, first_seed: u64) -> Vec<u128> {
    first_passages_n(p, agents, watch, first_seed, 5000)
}

/// The steps at which `watch` is first met in `trials` batching runs from `agents`.
fn first_passages_n<P: Protocol>(p: &P, agents: &[P::State], watch: Watch, first_seed: u64, trials: u64) -> Vec<u128> {
    (first_seed..first_seed + trials)
        .map(|seed| {
            let mut run = batching(p, agents, seed);
            assert!(run.advance(u128::MAX, watch));
            run.step()
        })
        .collect()
}

/// KS test of `sample` against the geometric law on {1, 2, ...} with success probability `q`.
fn assert_geometric(sample: &[u128], q: f64) {
    let distance = ks_integer_sample(sample, |k| 1.0 - (1.0 - q).powi(k as i32));
    let critical = ks_critical(0.001, sample.len(), None);
    assert!(distance < critical, "KS {distance} >= {critical}");
}

#[test]
fn the_safe_set_entered_inside_a_batch_is_found_exactly() {
    // 99 agents in A and one undecided: consensus comes with the first interaction between the
    // undecided agent and an A (either order), probability q = 2 * 99 / (100 * 99) per step, so the
    // first passage is geometric on {1, 2, ...} with mean 50; batches hold ~20 interactions, and
    // reporting the end of the batch would shift the law by many steps.
    let p = ApproxMajority::new(100, &Params::default()).unwrap();
    let agents: Vec<Opinion> = (0..100).map(|i| if i == 0 { Opinion::U } else { Opinion::A }).collect();
    assert_geometric(&first_passages(&p, &agents, Watch::SafeSet, 1_000), 0.02);
}

/// The configuration after `t` steps of 50 000 runs from `agents`, as `key` of its counts, batching
/// whenever possible or never.
fn after_steps<P: Protocol>(
    p: &P,
    agents: &[P::State],
    t: u64,
    batch: bool,
    key: impl Fn(&[(P::State, u64)]) -> f64,
) -> Vec<f64> {
    (0..50_000)
        .map(|seed| {
            let mut run = CountRun::new(p, agents, PopRng::seed_from_u64(2 * seed + u64::from(batch))).unwrap();
            if batch {
                run.batch_always();
            }
            run.advance(t.into(), Watch::Nothing);
            key(&run.counts())
        })
        .collect()
}

#[test]
fn a_batch_has_the_law_of_single_steps() {
    // Six agents: each batch aims at 4 interactions, so it holds several collisions; the
    // configuration after t steps must have the law of t single steps (two-sample KS).
    let critical = ks_critical(0.001, 50_000, Some(50_000));
    let p = Angluin::new(6, &Params::default()).unwrap();
    let leaders = |c: &[(bool, u64)]| c.iter().find(|(s, _)| *s).map_or(0.0, |&(_, k)| k as f64);
    for t in [3, 7, 20] {
        let distance = ks_two_sample(
            &after_steps(&p, &[true; 6], t, true, leaders),
            &after_steps(&p, &[true; 6], t, false, leaders),
        );
        assert!(distance < critical, "angluin, t = {t}: KS {distance} >= {critical}");
    }
    let p = ApproxMajority::new(6, &Params::default()).unwrap();
    let agents = [Opinion::A, Opinion::A, Opinion::A, Opinion::B, Opinion::B, Opinion::U];
    let code = |c: &[(Opinion, u64)]| {
        let count = |o| c.iter().find(|(s, _)| *s == o).map_or(0.0, |&(_, k)| k as f64);
        10.0 * count(Opinion::A) + count(Opinion::B)
    };
    for t in [3, 7, 20] {
        let distance =
            ks_two_sample(&after_steps(&p, &agents, t, true, code), &after_steps(&p, &agents, t, false, code));
        assert!(distance < critical, "approx-majority, t = {t}: KS {distance} >= {critical}");
    }
}

#[test]
fn batched_first_passage_has_the_exact_mean() {
    // Mean steps to the safe set over 20 000 batching runs against the exact expectation of the
    // Markov chain, within 4 standard errors (from the exact variance).
    fn check<P: Protocol>(p: &P, agents: &[P::State], first_seed: u64) {
        let exact = expected_steps(p, agents, &ExploreSettings::default()).unwrap();
        let trials = 20_000;
        let sample = first_passages_n(p, agents, Watch::SafeSet, first_seed, trials);
        let mean = sample.iter().sum::<u128>() as f64 / trials as f64;
        let se = (exact.variance_steps / trials as f64).sqrt();
        let name = p.info().name;
        assert!((mean - exact.expected_steps).abs() < 4.0 * se, "{name}: {mean} vs exact {}", exact.expected_steps);
    }
    let p = ApproxMajority::new(8, &Params::default()).unwrap();
    check(&p, &[[Opinion::A; 2].as_slice(), &[Opinion::U; 6]].concat(), 10);
    let p = Threshold::new(8, &Params::parse(&["k=3", "f=4"]).unwrap()).unwrap();
    check(&p, &p.initial_configuration(), 20);
    let p = Angluin::new(8, &Params::default()).unwrap();
    check(&p, &[true; 8], 30);
}

#[test]
fn batches_conserve_n_and_keep_the_weight_in_sync() {
    let p = Threshold::new(300, &Params::parse(&["k=4", "f=40"]).unwrap()).unwrap();
    let mut streams = TrialStreams::new(8);
    let agents = InitSpec::Random.build(&p, &mut streams.init).unwrap();
    let mut run = batching(&p, &agents, 8);
    while run.step() < 20_000 {
        run.advance(run.step() + 50, Watch::Nothing);
        let counts = run.counts();
        assert!(counts.iter().all(|&(_, c)| c > 0), "a present state with count 0");
        assert_eq!(counts.iter().map(|&(_, c)| c).sum::<u64>(), 300, "n not conserved at step {}", run.step());
        let mut fresh = 0u64;
        for &(a, ca) in &counts {
            for &(b, cb) in &counts {
                if p.transition(a, b) != (a, b) {
                    fresh += ca * (cb - u64::from(a == b));
                }
            }
        }
        assert_eq!(run.non_null_weight(), Some(u128::from(fresh)), "weight out of sync at step {}", run.step());
    }
}

#[test]
fn pll_batches_without_the_skip_table_in_large_populations_only() {
    // P_LL keeps nearly every pair non-null and often more than 64 states present, so the count
    // engine takes plain steps; it batches where a batch aims at 8 interactions per present state
    // or more: nearly always at n = 10^6, rarely at n = 1000 (only while few states are present).
    for (n, batched_share) in [(1_000, 0.0..=0.2), (1_000_000, 0.8..=1.0)] {
        let p = Pll::new(n, &Params::default()).unwrap();
        let mut run = CountRun::from_counts(&p, &p.initial_counts(), PopRng::seed_from_u64(n as u64)).unwrap();
        run.batch();
        run.advance(20 * n as u128, Watch::Nothing);
        assert_eq!(run.step(), 20 * n as u128);
        assert!(run.non_null_weight().is_none(), "n = {n}: no skip table");
        let share = run.steps_in_batches() as f64 / run.step() as f64;
        eprintln!("n = {n}: {share} of the steps in batches");
        assert!(batched_share.contains(&share), "n = {n}: {share} of the steps in batches");
        assert_eq!(run.counts().iter().map(|&(_, c)| c).sum::<u64>(), n as u64, "n = {n}: n not conserved");
    }
}

#[test]
fn batched_runs_are_deterministic_and_a_census_only_looks() {
    let p = Threshold::new(10_000, &Params::parse(&["k=6", "f=30"]).unwrap()).unwrap();
    let base = RunSettings { engine: Engine::Batched, trials: 8, seed: 17, ..RunSettings::default() };
    let one = run_trials(&p, &RunSettings { threads: Some(1), ..base.clone() }, &|| {}).unwrap();
    let two = run_trials(&p, &RunSettings { threads: Some(2), ..base.clone() }, &|| {}).unwrap();
    assert_eq!(one, two);
    assert!(one.iter().all(|r| r.outcome == Outcome::Converged));
    let census = run_trials(&p, &RunSettings { census: true, ..base.clone() }, &|| {}).unwrap();
    for (a, b) in one.iter().zip(&census) {
        assert_eq!((a.outcome, a.steps), (b.outcome, b.steps));
        assert!(b.distinct_states.is_some_and(|d| d >= 2));
    }
    // A trace only looks too: batches go past its steps, and the runs are the same with it.
    let traced = run_trials(&p, &RunSettings { trace_every: Some(TraceEvery::Steps(10_007)), ..base }, &|| {}).unwrap();
    for (a, b) in one.iter().zip(&traced) {
        assert_eq!((a.outcome, a.steps), (b.outcome, b.steps));
        assert_eq!(b.trace.last().unwrap().step, b.steps.0);
    }
}

#[test]
fn populations_beyond_32_bits_start_from_counts() {
    // 5e9 agents, all leaders, 10^9 steps (parallel time 0.2): no agent array is built, n is
    // conserved, and the leader fraction follows the mean field dx/dt = -x^2, x(0.2) = 1 / 1.2
    // (the standard deviation of the count is about sqrt(n), far below the 1% allowed).
    let n: u64 = 5_000_000_000;
    let p = Angluin::new(n as usize, &Params::default()).unwrap();
    let mut run = CountRun::from_counts(&p, &p.initial_counts(), PopRng::seed_from_u64(4)).unwrap();
    run.batch();
    assert!(!run.advance(1_000_000_000, Watch::SafeSet));
    assert_eq!(run.step(), 1_000_000_000);
    let counts = run.counts();
    assert_eq!(counts.iter().map(|&(_, c)| c).sum::<u64>(), n);
    let leaders = counts.iter().find(|(s, _)| *s).map_or(0, |&(_, c)| c) as f64;
    assert!((leaders / n as f64 * 1.2 - 1.0).abs() < 0.01, "leaders {leaders}");
}
