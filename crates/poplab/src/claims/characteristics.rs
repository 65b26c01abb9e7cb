//! The operating characteristics of the verdict rules: how often each says consistent and
//! inconsistent on synthetic data drawn from a claimed form (with lower-order terms and integer
//! steps, as protocols' constants make them) and from faster (or slower) forms, at a given number
//! of trials per size. `docs/verdicts.md` holds the table made by
//! `cargo run --release -p poplab --example operating_characteristics`; the test suite runs the
//! same cases with fewer repetitions (`tests/it/verdict_characteristics.rs`). It lives with the claims
//! because its laws borrow the protocols' constants.
//!
//! ```
//! use poplab::claims::characteristics::{CASES, rates};
//!
//! let case = CASES.iter().find(|c| c.name.starts_with("ls-timer")).unwrap();
//! let [consistent, inconsistent] = rates(case, 100, 50, 1);
//! assert!(consistent > 0.9 && inconsistent == 0.0);
//! ```

use crate::growth::{Bound, growth};
use crate::rng::PopRng;
use crate::verdict::{self, Moments, Point, Verdict, synthetic};
use rand_core::SeedableRng;
use rand_distr::{Distribution, Geometric};

/// How a case's trials are drawn at one x.
#[derive(Clone, Copy, Debug)]
pub enum Law {
    /// Gamma with the mean `mean(x)` and coefficient of variation `cv`.
    Gamma {
        /// The mean at x.
        mean: fn(f64) -> f64,
        /// The coefficient of variation of one trial.
        cv: f64,
    },
    /// P_LL's mixture: with probability 1/(2 ln 2) a fast run (QuickElimination, gamma with mean
    /// `fast(x)`, cv 0.2), else a slow one (gamma with mean `slow(x)`, cv 0.6).
    Mixture {
        /// The fast runs' mean at x.
        fast: fn(f64) -> f64,
        /// The slow runs' mean at x.
        slow: fn(f64) -> f64,
    },
    /// The steps of angluin's election at n = x: a sum of geometric variables (the exact law).
    Angluin,
}

/// What a case judges.
#[derive(Clone, Copy, Debug)]
pub enum Judged {
    /// `O(f)` or `Omega(f)` by the growth rule, plain means.
    Growth(Bound, fn(f64) -> f64),
    /// `O(f)`, the means post-stratified on the mixture's fast runs.
    Stratified(fn(f64) -> f64),
    /// `= f`, with the exact moments of angluin's law or (`false`) the sample variance.
    Exact(fn(f64) -> f64, bool),
    /// `Omega(e^(rate x))` from the log-means.
    Exponential(f64),
}

/// A synthetic case: sizes, law, claim, and whether the claim is true of the law.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// What it is, in words.
    pub name: &'static str,
    /// The sizes.
    pub xs: &'static [f64],
    /// How trials are drawn.
    pub law: Law,
    /// The claim judged.
    pub judged: Judged,
    /// Whether the claim holds for the law (then "inconsistent" is the error), or not (then
    /// "consistent" is).
    pub holds: bool,
}

const LS_TIMER: [f64; 6] = [16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
const PLL: [f64; 5] = [128.0, 2048.0, 32768.0, 524_288.0, 8_388_608.0];
const PPL: [f64; 4] = [100.0, 300.0, 1000.0, 3000.0];
const DECADES: [f64; 5] = [1e2, 1e3, 1e4, 1e5, 1e6];
const SMALL: [f64; 3] = [5.0, 10.0, 20.0];
const HOLDING: [f64; 5] = [4.0, 5.0, 6.0, 7.0, 8.0];

fn lg_ceil(x: f64) -> f64 {
    x.log2().ceil()
}

/// The cases of `docs/verdicts.md`.
pub const CASES: &[Case] = &[
    Case {
        name: "ls-timer-like: 124.65 x - 74.6 x^0.556 against O(x)",
        xs: &LS_TIMER,
        law: Law::Gamma { mean: |x| 124.65 * x - 74.6 * x.powf(0.556), cv: 0.3 },
        judged: Judged::Growth(Bound::AtMost, |x| x),
        holds: true,
    },
    Case {
        name: "faster: x ln x against O(x)",
        xs: &LS_TIMER,
        law: Law::Gamma { mean: |x| 100.0 * x * x.ln(), cv: 0.3 },
        judged: Judged::Growth(Bound::AtMost, |x| x),
        holds: false,
    },
    Case {
        name: "P_LL-like mixture, slow runs 18.4 ceil(lg x), against O(log x), stratified",
        xs: &PLL,
        law: Law::Mixture { fast: |x| 1.4 * x.ln(), slow: |x| 18.4 * lg_ceil(x) },
        judged: Judged::Stratified(f64::ln),
        holds: true,
    },
    Case {
        name: "P_LL-like mixture against O(log x), plain means",
        xs: &PLL,
        law: Law::Mixture { fast: |x| 1.4 * x.ln(), slow: |x| 18.4 * lg_ceil(x) },
        judged: Judged::Growth(Bound::AtMost, f64::ln),
        holds: true,
    },
    Case {
        name: "faster: mixture with slow runs 2 ceil(lg x)^2 against O(log x), stratified",
        xs: &PLL,
        law: Law::Mixture { fast: |x| 1.4 * x.ln(), slow: |x| 2.0 * lg_ceil(x).powi(2) },
        judged: Judged::Stratified(f64::ln),
        holds: false,
    },
    Case {
        name: "P_PL-like: ln x ceil(ln x)^2 steps against O(log^3 x)",
        xs: &PPL,
        law: Law::Gamma { mean: |x| 400.0 * x.ln() * x.ln().ceil().powi(2), cv: 0.2 },
        judged: Judged::Growth(Bound::AtMost, |x| x.ln().powi(3)),
        holds: true,
    },
    Case {
        name: "faster: ln^3 x * x^0.1 against O(log^3 x)",
        xs: &PPL,
        law: Law::Gamma { mean: |x| 400.0 * x.ln().powi(3) * x.powf(0.1), cv: 0.2 },
        judged: Judged::Growth(Bound::AtMost, |x| x.ln().powi(3)),
        holds: false,
    },
    Case {
        name: "20 ln x + 7 against O(log x), decades",
        xs: &DECADES,
        law: Law::Gamma { mean: |x| 20.0 * x.ln() + 7.0, cv: 1.0 },
        judged: Judged::Growth(Bound::AtMost, f64::ln),
        holds: true,
    },
    Case {
        name: "faster: ln^2 x against O(log x), decades",
        xs: &DECADES,
        law: Law::Gamma { mean: |x| 3.0 * x.ln().powi(2), cv: 1.0 },
        judged: Judged::Growth(Bound::AtMost, f64::ln),
        holds: false,
    },
    Case {
        name: "3 x^2 - 20 x against Omega(x^2)",
        xs: &LS_TIMER,
        law: Law::Gamma { mean: |x| 3.0 * x * x - 20.0 * x, cv: 0.5 },
        judged: Judged::Growth(Bound::AtLeast, |x| x * x),
        holds: true,
    },
    Case {
        name: "slower: x^2 / ln x against Omega(x^2)",
        xs: &LS_TIMER,
        law: Law::Gamma { mean: |x| x * x / x.ln(), cv: 0.5 },
        judged: Judged::Growth(Bound::AtLeast, |x| x * x),
        holds: false,
    },
    Case {
        name: "angluin's law against = (n-1)^2, exact moments",
        xs: &SMALL,
        law: Law::Angluin,
        judged: Judged::Exact(|n| (n - 1.0).powi(2), true),
        holds: true,
    },
    Case {
        name: "angluin's law against = (n-1)^2, sample variance",
        xs: &SMALL,
        law: Law::Angluin,
        judged: Judged::Exact(|n| (n - 1.0).powi(2), false),
        holds: true,
    },
    Case {
        name: "angluin's law against = 1.1 (n-1)^2, exact moments",
        xs: &SMALL,
        law: Law::Angluin,
        judged: Judged::Exact(|n| 1.1 * (n - 1.0).powi(2), true),
        holds: false,
    },
    Case {
        name: "e^(2x), cv 1, against Omega(e^x)",
        xs: &HOLDING,
        law: Law::Gamma { mean: |x| (2.0 * x).exp(), cv: 1.0 },
        judged: Judged::Exponential(1.0),
        holds: true,
    },
    Case {
        name: "slower: e^(0.8 x), cv 1, against Omega(e^x)",
        xs: &HOLDING,
        law: Law::Gamma { mean: |x| (0.8 * x).exp(), cv: 1.0 },
        judged: Judged::Exponential(1.0),
        holds: false,
    },
];

/// One synthetic experiment of `case` with `trials` trials per size: its verdict.
pub fn judge_once(case: &Case, trials: usize, rng: &mut PopRng) -> Verdict {
    let mut points = Vec::new();
    let mut strata = Vec::new();
    for &x in case.xs {
        let (values, fast) = draw(case.law, x, trials, rng);
        points.push(Point { x, values: values.clone(), censored: 0, horizon: f64::INFINITY });
        strata.push((x, values, fast));
    }
    match case.judged {
        Judged::Growth(bound, f) => match verdict::estimates(&points) {
            Ok(estimates) => growth(&estimates, bound, &f, "f").verdict,
            Err(j) => j.verdict,
        },
        Judged::Stratified(f) => {
            let estimates: Option<Vec<_>> = strata
                .iter()
                .map(|(x, values, fast)| {
                    let part = |quick: bool| -> Vec<f64> {
                        values.iter().zip(fast).filter(|(_, f)| **f == quick).map(|(v, _)| *v).collect()
                    };
                    let (a, b) = (part(true), part(false));
                    crate::growth::Estimate::post_stratified(*x, &a, &b, crate::protocols::pll::QUICK_ELIMINATION_ENDS)
                })
                .collect();
            match estimates {
                Some(estimates) => growth(&estimates, Bound::AtMost, &f, "f").verdict,
                None => Verdict::Inconclusive,
            }
        }
        Judged::Exact(f, exact) => {
            let moments = |n: f64| -> Moments { crate::protocols::angluin::election_cumulants(n) };
            verdict::exact_mean(&points, f, exact.then_some(&moments as &dyn Fn(f64) -> Moments)).verdict
        }
        Judged::Exponential(rate) => match verdict::log_points(&points) {
            Some(log_points) => verdict::exponential_at_least(&log_points, rate).verdict,
            None => Verdict::Inconclusive,
        },
    }
}

/// `trials` values of `law` at `x`, and per value whether it is a fast run (mixtures).
fn draw(law: Law, x: f64, trials: usize, rng: &mut PopRng) -> (Vec<f64>, Vec<bool>) {
    match law {
        Law::Gamma { mean, cv } => (synthetic(mean(x), cv, trials, rng), vec![false; trials]),
        Law::Mixture { fast, slow } => (0..trials)
            .map(|_| {
                let quick = rand_distr::Distribution::<f64>::sample(&rand_distr::StandardUniform, rng)
                    < crate::protocols::pll::QUICK_ELIMINATION_ENDS;
                let value = if quick { synthetic(fast(x), 0.2, 1, rng)[0] } else { synthetic(slow(x), 0.6, 1, rng)[0] };
                (value, quick)
            })
            .unzip(),
        Law::Angluin => {
            let n = x as u64;
            let pairs = (n * (n - 1)) as f64;
            let values = (0..trials)
                .map(|_| {
                    (2..=n)
                        .map(|i| {
                            let p = (i * (i - 1)) as f64 / pairs;
                            // rand_distr's Geometric counts failures; a step count is trials.
                            1.0 + Geometric::new(p).expect("0 < p <= 1").sample(rng) as f64
                        })
                        .sum()
                })
                .collect();
            (values, vec![false; trials])
        }
    }
}

/// The shares of `repetitions` synthetic experiments of `case` (`trials` trials per size, seeded
/// by `seed`) called consistent and inconsistent.
pub fn rates(case: &Case, trials: usize, repetitions: usize, seed: u64) -> [f64; 2] {
    let mut rng = PopRng::seed_from_u64(seed);
    let mut counts = [0usize; 2];
    for _ in 0..repetitions {
        match judge_once(case, trials, &mut rng) {
            Verdict::Consistent => counts[0] += 1,
            Verdict::Inconsistent => counts[1] += 1,
            Verdict::Inconclusive => {}
        }
    }
    counts.map(|c| c as f64 / repetitions as f64)
}
