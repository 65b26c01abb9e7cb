//! The count and batched engines against the agent engine and against exact laws.
//!
//! All engines run the same protocol code under the same scheduler law, so the distribution of
//! steps to the safe set must agree (two-sample Kolmogorov-Smirnov at alpha = 0.001), including the
//! batched engine forced to batch in small populations; the count engines' mean for the 2-state
//! election must match `(n - 1)^2`; the geometric skips must have the geometric law; the count
//! engine must conserve `n` and keep its non-null weight in sync with the counts; and it must be
//! deterministic per seed for any thread count.

use crate::common;

use common::{angluin_exact_variance, params};
use poplab::engine::{CountRun, Engine, Measure, Outcome, RunPlan, TraceEvery, Watch, drive, geometric_skip};
use poplab::experiment::{RunSettings, TrialRecord, run_trials};
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::protocols::ppl::Ppl;
use poplab::protocols::threshold::Threshold;
use poplab::rng::{PopRng, TrialStreams, trial_seed};
use poplab::stats::{ks_critical, ks_two_sample, mean};
use rand_core::SeedableRng;
use rayon::prelude::*;

const TRIALS: u64 = 2000;

fn steps<P: Protocol>(p: &P, settings: &RunSettings) -> Vec<f64> {
    let records: Vec<TrialRecord> = run_trials(p, settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome != Outcome::Censored), "a trial was censored");
    records.iter().map(|r| r.steps.0 as f64).collect()
}

/// Steps to the plan's event of every trial of `settings` on the count engine batching whenever it
/// can ([`CountRun::batch_always`]), so that batches happen even in small populations; trials are
/// seeded as `run_trial` seeds them.
fn forced_batch_steps<P: Protocol>(p: &P, settings: &RunSettings) -> Vec<f64> {
    (0..settings.trials)
        .into_par_iter()
        .map(|i| {
            let mut streams = TrialStreams::new(trial_seed(settings.seed, i));
            let agents = settings.init.build(p, &mut streams.init).unwrap();
            let mut run = CountRun::new(p, &agents, streams.schedule).unwrap();
            run.batch_always();
            let plan = RunPlan { measure: settings.measure, max_steps: settings.max_steps, watch_from: 0 };
            let ending = drive(&mut run, plan, &mut [], &mut streams.faults).unwrap();
            assert_ne!(ending.outcome, Outcome::Censored, "a trial was censored");
            ending.steps.0 as f64
        })
        .collect()
}

/// Two-sample KS tests of the steps of the agent engine against the count engine, the batched
/// engine as `auto` would run it, and the batched engine batching whenever it can (different
/// seeds, so independent samples).
fn engines_agree<P: Protocol>(label: &str, p: &P, base: RunSettings) {
    let agents = steps(p, &RunSettings { engine: Engine::Agents, trials: TRIALS, ..base.clone() });
    let with =
        |engine, seed_offset| RunSettings { engine, trials: TRIALS, seed: base.seed + seed_offset, ..base.clone() };
    let others = [
        ("counts", steps(p, &with(Engine::Counts, 1))),
        ("batched", steps(p, &with(Engine::Batched, 2))),
        ("batched, forced", forced_batch_steps(p, &with(Engine::Batched, 3))),
    ];
    for (name, other) in others {
        let distance = ks_two_sample(&agents, &other);
        let critical = ks_critical(0.001, agents.len(), Some(other.len()));
        eprintln!(
            "{label}: mean agents {:.1}, {name} {:.1}, KS {distance:.4} (critical {critical:.4})",
            mean(&agents),
            mean(&other)
        );
        assert!(distance < critical, "{label}, {name}: KS distance {distance} >= critical {critical}");
    }
}

#[test]
fn angluin_engines_agree_ks() {
    for (n, seed) in [(50, 500), (200, 2000)] {
        let p = Angluin::new(n, &Params::default()).unwrap();
        engines_agree(&format!("angluin n = {n}"), &p, RunSettings { seed, ..RunSettings::default() });
    }
}

#[test]
fn threshold_engines_agree_ks() {
    let p = Threshold::new(60, &params(&["k=5", "f=5"])).unwrap();
    engines_agree("threshold n = 60 k = 5 f = 5", &p, RunSettings { seed: 60, ..RunSettings::default() });
}

#[test]
fn ls_timer_engines_agree_ks() {
    let p = LsTimer::new(6, &params(&["N=6", "timer_factor=1"])).unwrap();
    let base = RunSettings { seed: 6, init: InitSpec::Family("no-leader".into()), ..RunSettings::default() };
    engines_agree("ls-timer n = N = 6, timer_factor 1, no-leader", &p, base);
}

#[test]
fn pll_engines_agree_ks() {
    let p = Pll::new(30, &Params::default()).unwrap();
    engines_agree("pll n = 30", &p, RunSettings { seed: 30, ..RunSettings::default() });
}

#[test]
fn holding_times_agree_ks() {
    // ls-timer with s = N = n = 4 breaks within a few hundred steps of a safe start.
    let p = LsTimer::new(4, &params(&["s=4"])).unwrap();
    let base = RunSettings {
        measure: Measure::Holding,
        init: InitSpec::Family("safe".into()),
        seed: 44,
        max_steps: 10_000_000,
        ..RunSettings::default()
    };
    engines_agree("ls-timer holding, n = N = s = 4", &p, base);
}

#[test]
fn angluin_count_engines_mean_is_n_minus_one_squared() {
    for ((n, seed), engine) in
        [(50, 5), (200, 7), (2000, 9)].into_iter().flat_map(|c| [(c, Engine::Counts), (c, Engine::Batched)])
    {
        let p = Angluin::new(n, &Params::default()).unwrap();
        let exact_mean = ((n - 1) * (n - 1)) as f64;
        let sd = angluin_exact_variance(n).sqrt();
        // Acceptance region at most +-1% of the mean.
        let trials = ((3.29 * sd / (0.01 * exact_mean)).powi(2)).ceil() as u64;
        let settings = RunSettings { engine, trials, seed, ..RunSettings::default() };
        let samples = steps(&p, &settings);
        let z = (mean(&samples) - exact_mean) / (sd / (trials as f64).sqrt());
        let name = engine.name();
        eprintln!("angluin {name} n = {n}, {trials} trials: mean {} vs {exact_mean}, z = {z:.2}", mean(&samples));
        assert!(z.abs() < 3.29, "n = {n}: mean {} vs exact {exact_mean}, z = {z}", mean(&samples));
    }
}

#[test]
fn angluin_at_a_million_agents_is_exact_in_steps() {
    let p = Angluin::new(1_000_000, &Params::default()).unwrap();
    for engine in [Engine::Counts, Engine::Batched] {
        let settings = RunSettings { engine, trials: 1, seed: 3, max_steps: 1 << 50, ..RunSettings::default() };
        let records = run_trials(&p, &settings, &|| {}).unwrap();
        assert_eq!(records[0].outcome, Outcome::Converged);
        // The law has mean (n-1)^2 ~ 1e12 and standard deviation ~ 0.58 (n-1)^2 (dominated by the
        // last two leaders): a step count far outside would mean the skips are wrong.
        let ratio = records[0].steps.0 as f64 / 1e12;
        assert!((0.05..8.0).contains(&ratio), "{}: steps / (n-1)^2 = {ratio}", engine.name());
    }
}

/// Mean and variance of the skip sampler against `1/p - 1` and `(1 - p)/p^2` (z-tests), and its
/// small values against the geometric probabilities (chi-square).
#[test]
fn geometric_skip_has_the_geometric_law() {
    let mut rng = PopRng::seed_from_u64(12);
    let draws = 200_000;
    for p in [0.999, 0.5, 0.3, 0.01, 1e-6, 1e-12] {
        let samples: Vec<f64> = (0..draws).map(|_| geometric_skip(&mut rng, p) as f64).collect();
        let m = (1.0 - p) / p;
        let var = (1.0 - p) / (p * p);
        let sample_mean = mean(&samples);
        let z = (sample_mean - m) / (var / draws as f64).sqrt();
        assert!(z.abs() < 4.0, "p = {p}: mean {sample_mean} vs {m}, z = {z}");
        // Variance: the sample variance of a geometric law has variance about var^2 (2 + kurtosis)
        // / draws; a loose 10% check is enough to catch a wrong law (e.g. off by a factor 1 - p).
        let sample_var = samples.iter().map(|x| (x - sample_mean).powi(2)).sum::<f64>() / (draws - 1) as f64;
        assert!((sample_var / var - 1.0).abs() < 0.1 || var < 1e-3, "p = {p}: variance {sample_var} vs {var}");
    }
    // Chi-square on 0..=9 and the tail, p = 0.3: 10 degrees of freedom, critical 29.59 at 0.001.
    let p: f64 = 0.3;
    let mut cells = [0u64; 11];
    for _ in 0..draws {
        cells[(geometric_skip(&mut rng, p) as usize).min(10)] += 1;
    }
    let chi2: f64 = (0..11)
        .map(|g| {
            let prob = if g < 10 { (1.0 - p).powi(g as i32) * p } else { (1.0 - p).powi(10) };
            let expected = prob * draws as f64;
            (cells[g] as f64 - expected).powi(2) / expected
        })
        .sum();
    assert!(chi2 < 29.59, "chi2 = {chi2}, cells {cells:?}");
}

/// Runs a count engine event by event and checks, after every step it stops at, that the counts
/// are positive and sum to `n` and that the skip table's non-null weight equals a fresh sum.
fn check_conservation<P: Protocol>(p: &P, init: InitSpec, seed: u64, steps: u64) -> (u64, bool, bool) {
    let mut streams = TrialStreams::new(seed);
    let agents = init.build(p, &mut streams.init).unwrap();
    let n = agents.len() as u64;
    let mut run = CountRun::new(p, &agents, streams.schedule).unwrap();
    let (mut events, mut skipped, mut plain) = (0u64, false, false);
    let mut last = run.counts();
    while run.step() < u128::from(steps) {
        run.advance(run.step() + 1, Watch::Nothing);
        let counts = run.counts();
        assert!(counts.iter().all(|&(_, c)| c > 0), "a present state with count 0");
        assert_eq!(counts.iter().map(|&(_, c)| c).sum::<u64>(), n, "n not conserved at step {}", run.step());
        match run.non_null_weight() {
            Some(w) => {
                skipped = true;
                let mut fresh = 0u64;
                for &(a, ca) in &counts {
                    for &(b, cb) in &counts {
                        if p.transition(a, b) != (a, b) {
                            fresh += ca * (cb - u64::from(a == b));
                        }
                    }
                }
                assert_eq!(w, u128::from(fresh), "non-null weight out of sync at step {}", run.step());
            }
            None => plain = true,
        }
        if counts != last {
            events += 1;
            last = counts;
        }
    }
    (events, skipped, plain)
}

#[test]
fn counts_conserve_n_and_the_weight_stays_in_sync() {
    let t = Threshold::new(20, &params(&["k=4", "f=6"])).unwrap();
    let (events, skipped, _) = check_conservation(&t, InitSpec::Random, 1, 2_000);
    assert!(events > 5 && skipped, "threshold: {events} events");
    // ls-timer's timers make most steps non-null: plain steps.
    let l = LsTimer::new(8, &params(&["timer_factor=1"])).unwrap();
    let (events, _, plain) = check_conservation(&l, InitSpec::Random, 2, 20_000);
    assert!(events > 100 && plain, "ls-timer: {events} events");
    let pll = Pll::new(40, &Params::default()).unwrap();
    let (events, _, plain) = check_conservation(&pll, InitSpec::Default, 3, 20_000);
    assert!(events > 100 && plain, "pll: {events} events");
    // angluin from all leaders: every pair is non-null at first (plain steps), then fewer than
    // half (the table is rebuilt at a review and kept).
    let angluin = Angluin::new(60, &Params::default()).unwrap();
    let (events, skipped, plain) = check_conservation(&angluin, InitSpec::Default, 5, 20_000);
    assert!(events > 50 && skipped && plain, "angluin: {events} events, skipped {skipped}, plain {plain}");
    // ppl from random states at n = 100: more than 64 states present, so plain steps, until the
    // population settles into fewer states and skipping resumes.
    let ppl = Ppl::new(100, &Params::default()).unwrap();
    let (events, _, plain) = check_conservation(&ppl, InitSpec::Random, 4, 20_000);
    assert!(events > 100 && plain, "ppl: {events} events");
}

#[test]
fn count_engine_is_deterministic_across_thread_counts_and_observers() {
    let p = Pll::new(100, &Params::default()).unwrap();
    let base = RunSettings { engine: Engine::Counts, trials: 12, seed: 99, census: true, ..RunSettings::default() };
    let one = run_trials(&p, &RunSettings { threads: Some(1), ..base.clone() }, &|| {}).unwrap();
    let two = run_trials(&p, &RunSettings { threads: Some(2), ..base.clone() }, &|| {}).unwrap();
    let three = run_trials(&p, &RunSettings { threads: Some(3), ..base.clone() }, &|| {}).unwrap();
    assert_eq!(one, two);
    assert_eq!(one, three);
    assert!(one.iter().all(|r| r.distinct_states.is_some_and(|d| d > 1) && r.last_demotion.is_some()));
    // A trace only looks: the results are the same with it.
    let traced =
        run_trials(&p, &RunSettings { trace_every: Some(TraceEvery::Steps(37)), ..base.clone() }, &|| {}).unwrap();
    for (a, b) in one.iter().zip(&traced) {
        assert_eq!((a.outcome, a.steps), (b.outcome, b.steps));
        let last = b.trace.last().unwrap();
        assert_eq!(last.step, b.steps.0);
        assert_eq!(last.leaders, 1);
    }
    // Auto keeps the agent array for P_LL in small populations and batches it in large ones.
    let auto = RunSettings { engine: Engine::Auto, ..base };
    assert_eq!(auto.engine_used(&p).unwrap(), Engine::Agents);
    let large = Pll::new(poplab::protocols::pll::AUTO_BATCHED_MIN_N as usize, &Params::default()).unwrap();
    assert_eq!(auto.engine_used(&large).unwrap(), Engine::Batched);
    let below = Pll::new(poplab::protocols::pll::AUTO_BATCHED_MIN_N as usize - 1, &Params::default()).unwrap();
    assert_eq!(auto.engine_used(&below).unwrap(), Engine::Agents);
    let angluin = poplab::protocols::angluin::Angluin::new(100, &Params::default()).unwrap();
    assert_eq!(auto.engine_used(&angluin).unwrap(), Engine::Batched, "two states: batched");
}

#[test]
fn faults_and_horizons_in_the_count_engine() {
    let p = Threshold::new(100, &params(&["k=5", "f=8"])).unwrap();
    let settings = RunSettings {
        engine: Engine::Counts,
        trials: 20,
        seed: 5,
        faults: vec![poplab::engine::Fault::new(5_000, 10, poplab::engine::FaultStates::Random)],
        ..RunSettings::default()
    };
    let records = run_trials(&p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Converged && r.steps.0 >= 5_000));
    assert_eq!(Engine::Auto.resolve(&poplab::graph::Graph::Complete, true, true).unwrap(), Engine::Agents);
    // A horizon censors at exactly the horizon.
    let p = Angluin::new(1000, &Params::default()).unwrap();
    let settings = RunSettings { engine: Engine::Counts, trials: 3, max_steps: 1000, ..RunSettings::default() };
    let records = run_trials(&p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Censored && r.steps.0 == 1000));
    // Counts on a ring is refused.
    let ring = RunSettings { engine: Engine::Counts, graph: poplab::graph::Graph::DirectedRing, ..settings };
    assert!(run_trials(&p, &ring, &|| {}).unwrap_err().to_string().contains("complete graph"));
}
