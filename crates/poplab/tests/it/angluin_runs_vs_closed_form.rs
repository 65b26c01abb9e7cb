//! Simulated runs of the 2-state election (`angluin`, 000 section 3) against its closed-form law:
//! the engines' steps to one leader, sampled, must match the mean `(n - 1)^2` (z-test) and the
//! exact distribution (KS), also past 64 bits. (The exact solver's own answer for the same law is
//! checked in `exact_solver_closed_forms.rs`.)
//!
//! With `i` leaders a step removes one with probability `p_i = i (i - 1) / (n (n - 1))`, so the
//! number of steps to one leader is a sum of independent geometric variables: mean `(n - 1)^2`,
//! variance `sum (1 - p_i) / p_i^2`, and a distribution computable exactly.

use crate::common;

use common::angluin_exact_variance;
use poplab::experiment::{RunSettings, run_trials};
use poplab::protocol::Params;
use poplab::protocols::angluin::Angluin;
use poplab::stats::{ks_critical, ks_integer_sample, mean};

fn removal_probability(n: usize, leaders: usize) -> f64 {
    (leaders * (leaders - 1)) as f64 / (n * (n - 1)) as f64
}

fn steps_to_one_leader(n: usize, trials: u64, seed: u64) -> Vec<u128> {
    let protocol = Angluin::new(n, &Params::default()).unwrap();
    let settings = RunSettings { trials, seed, ..RunSettings::default() };
    let records = run_trials(&protocol, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == poplab::engine::Outcome::Converged));
    records.iter().map(|r| r.steps.0).collect()
}

/// z-test of the mean against `(n - 1)^2` at alpha = 0.001 (|z| < 3.29), with enough trials that
/// the acceptance region is at most +-2.5% of the mean: a scheduler whose pair probabilities are
/// off by 5% shifts the mean by about 5% and fails this test with probability above 0.999.
fn check_mean(n: usize, seed: u64) {
    let exact_mean = ((n - 1) * (n - 1)) as f64;
    let sd = angluin_exact_variance(n).sqrt();
    let trials = ((3.29 * sd / (0.025 * exact_mean)).powi(2)).ceil() as u64;
    let samples: Vec<f64> = steps_to_one_leader(n, trials, seed).iter().map(|&s| s as f64).collect();
    let z = (mean(&samples) - exact_mean) / (sd / (trials as f64).sqrt());
    assert!(z.abs() < 3.29, "n = {n}, {trials} trials: mean {} vs exact {exact_mean}, z = {z}", mean(&samples));
}

#[test]
fn mean_steps_match_n_minus_one_squared_at_n_50() {
    check_mean(50, 50);
}

#[test]
fn mean_steps_match_n_minus_one_squared_at_n_200() {
    check_mean(200, 200);
}

/// The exact distribution function of the number of steps to one leader, up to `t_max`.
fn exact_cdf(n: usize, t_max: usize) -> Vec<f64> {
    // probability[i] = P(i leaders after t steps)
    let mut probability = vec![0.0; n + 1];
    probability[n] = 1.0;
    let mut cdf = Vec::with_capacity(t_max + 1);
    cdf.push(probability[1]);
    for _ in 0..t_max {
        for i in 2..=n {
            let moved = probability[i] * removal_probability(n, i);
            probability[i] -= moved;
            probability[i - 1] += moved;
        }
        cdf.push(probability[1]);
    }
    cdf
}

#[test]
fn distribution_of_steps_matches_the_exact_law_ks() {
    let n = 20;
    let trials = 20_000;
    let samples = steps_to_one_leader(n, trials, 2020);
    let t_max = *samples.iter().max().unwrap() as usize;
    let cdf = exact_cdf(n, t_max);
    let distance = ks_integer_sample(&samples, |t| cdf[t as usize]);
    let critical = ks_critical(0.001, trials as usize, None);
    assert!(distance < critical, "KS distance {distance} >= critical {critical}");
}

#[test]
fn exact_cdf_has_the_closed_form_mean() {
    // Sanity check of the reference itself: sum of P(T > t) = E[T] = (n - 1)^2.
    let cdf = exact_cdf(10, 20_000);
    let expectation: f64 = cdf.iter().map(|f| 1.0 - f).sum();
    assert!((expectation - 81.0).abs() < 1e-6, "{expectation}");
}

/// Step counts beyond 64 bits: with two leaders among `n = 2^33` agents the last meeting takes a
/// geometric number of steps with mean `n (n - 1) / 2`, about `3.7 * 10^19`, so most runs end past
/// `u64::MAX` (a 64-bit counter would cap or wrap them). The count engine's steps follow the law
/// `P(T <= t) = 1 - (1 - p)^t`, `p = 2 / (n (n - 1))` (KS at alpha = 0.001).
#[test]
fn the_last_meeting_is_counted_beyond_64_bits() {
    use poplab::engine::{CountRun, Measure, RunPlan, drive};
    use poplab::rng::TrialStreams;
    let n: u64 = 1 << 33;
    let protocol = Angluin::new(n as usize, &Params::default()).unwrap();
    let plan = RunPlan { measure: Measure::Convergence, max_steps: u128::MAX, watch_from: 0 };
    let trials = 2000;
    let samples: Vec<u128> = (0..trials)
        .map(|seed| {
            let mut streams = TrialStreams::new(seed);
            let mut run = CountRun::from_counts(&protocol, &[(true, 2), (false, n - 2)], streams.schedule).unwrap();
            let ending = drive(&mut run, plan, &mut [], &mut streams.faults).unwrap();
            assert_eq!(ending.outcome, poplab::engine::Outcome::Converged);
            ending.steps.0
        })
        .collect();
    let p = 2.0 / (n as f64 * (n - 1) as f64);
    let distance = ks_integer_sample(&samples, |t| -(t as f64 * (-p).ln_1p()).exp_m1());
    let critical = ks_critical(0.001, trials as usize, None);
    assert!(distance < critical, "KS distance {distance} >= critical {critical}");
    let beyond = samples.iter().filter(|&&s| s > u128::from(u64::MAX)).count();
    assert!(beyond > trials as usize / 2, "only {beyond} of {trials} runs ended past u64::MAX");
}
