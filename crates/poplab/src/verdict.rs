//! Verdicts: whether measurements are consistent with a paper's claim, by rules written down.
//!
//! Each rule returns a [`Judgement`]: a [`Verdict`] and the evidence, in words, that a report
//! prints next to it. The rules:
//! - [`exact_mean`]: a claimed exact expectation. Per point, a z-test of the sample mean against the
//!   claimed value with the sample's standard error, at family-wise level 0.001 (Bonferroni over
//!   the points). Any rejection: inconsistent; none: consistent.
//! - [`growth_at_most`]: a claimed upper bound `O(f(x))`. The growth exponent `e` of the measured
//!   values is fitted on log-log axes over all trials (least squares of `ln y` on `ln x`, with its
//!   95% interval), and compared with the local exponent `e_f` of `f` over the same `x` range, plus
//!   a tolerance of 0.1 for lower-order terms. Interval above `e_f + 0.1`: inconsistent; interval
//!   below it: consistent; straddling it: inconclusive. Any censored trial: inconclusive (a
//!   censored time is only a lower bound).
//! - [`all_trials`]: a claimed certainty (for example a correct output). Every trial must end as
//!   claimed: consistent; any other: inconsistent.
//! - [`increasing`]: a claim that a quantity grows with a parameter (holding times). Medians per
//!   point, a censored median counting as at least its horizon. Non-decreasing and the last at
//!   least twice the first: consistent; the last below half the first: inconsistent; otherwise
//!   inconclusive.

use crate::fit::{Form, fit_power, local_exponent};
use crate::stats;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// A verdict on one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The data agree with the claim.
    Consistent,
    /// The data contradict the claim.
    Inconsistent,
    /// The data cannot decide.
    Inconclusive,
}

impl Verdict {
    /// The word a report prints.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::Inconsistent => "inconsistent",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A verdict with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// The figures that decided it, in words.
    pub evidence: String,
}

fn judgement(verdict: Verdict, evidence: impl Into<String>) -> Judgement {
    Judgement { verdict, evidence: evidence.into() }
}

/// Measurements at one value of the swept variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The x value (n or a parameter).
    pub x: f64,
    /// The values of the trials that ended (converged or broke).
    pub values: Vec<f64>,
    /// Trials censored at `horizon`.
    pub censored: usize,
    /// The horizon of the censored values, in the unit of `values`.
    pub horizon: f64,
}

/// Rule for a claimed exact expectation `expected(x)`.
pub fn exact_mean(points: &[Point], expected: impl Fn(f64) -> f64) -> Judgement {
    if points.iter().any(|p| p.censored > 0) {
        return judgement(Verdict::Inconclusive, "some trials were censored before the safe set");
    }
    let critical = Normal::standard().inverse_cdf(1.0 - 0.0005 / points.len() as f64);
    let mut worst: Option<(f64, f64)> = None;
    for p in points {
        let se = stats::std_dev(&p.values) / (p.values.len() as f64).sqrt();
        let z = (stats::mean(&p.values) - expected(p.x)) / se;
        if worst.is_none_or(|(_, w)| z.abs() > w.abs()) {
            worst = Some((p.x, z));
        }
    }
    match worst {
        None => judgement(Verdict::Inconclusive, "no measurements"),
        Some((x, z)) if z.abs() >= critical => judgement(
            Verdict::Inconsistent,
            format!("at x = {x} the mean is {z:.2} standard errors from the claimed value (limit {critical:.2})"),
        ),
        Some((x, z)) => judgement(
            Verdict::Consistent,
            format!(
                "every mean within {critical:.2} standard errors of the claimed value (largest |z| = {:.2} at x = {x})",
                z.abs()
            ),
        ),
    }
}

/// The growth exponent fitted over all trials, with its interval.
pub fn trial_exponent(points: &[Point]) -> Option<(f64, [f64; 2])> {
    let (xs, ys): (Vec<f64>, Vec<f64>) =
        points.iter().flat_map(|p| p.values.iter().map(move |&v| (p.x, v))).filter(|&(_, v)| v > 0.0).unzip();
    let fit = fit_power(&xs, &ys)?;
    Some((fit.exponent, fit.exponent_ci95?))
}

/// Rule for a claimed upper bound `O(form(x))`.
pub fn growth_at_most(points: &[Point], form: Form) -> Judgement {
    let censored: usize = points.iter().map(|p| p.censored).sum();
    if censored > 0 {
        return judgement(
            Verdict::Inconclusive,
            format!("{censored} trials censored: their times are only lower bounds"),
        );
    }
    let xs: Vec<f64> = points.iter().map(|p| p.x).collect();
    let (Some((e, [lo, hi])), Some(claimed)) = (trial_exponent(points), local_exponent(form, &xs)) else {
        return judgement(Verdict::Inconclusive, "too few points to fit a growth exponent");
    };
    let limit = claimed + 0.1;
    let evidence = format!(
        "fitted exponent {e:.3} (95% CI [{lo:.3}, {hi:.3}]) against {claimed:.3} for {} on this range (+0.1 tolerance)",
        form.name()
    );
    let verdict = if lo > limit {
        Verdict::Inconsistent
    } else if hi <= limit {
        Verdict::Consistent
    } else {
        Verdict::Inconclusive
    };
    judgement(verdict, evidence)
}

/// Rule for a claimed certainty: `expected` trials out of `total` ended as claimed.
pub fn all_trials(as_claimed: u64, total: u64, what: &str) -> Judgement {
    if total == 0 {
        judgement(Verdict::Inconclusive, "no trials")
    } else if as_claimed == total {
        judgement(Verdict::Consistent, format!("all {total} trials {what}"))
    } else {
        judgement(Verdict::Inconsistent, format!("{} of {total} trials did not: {what}", total - as_claimed))
    }
}

/// The median of a point, a censored median counting as its horizon (a lower bound).
pub fn median_or_bound(p: &Point) -> (f64, bool) {
    match stats::censored_quantile(&p.values, p.censored, 0.5) {
        Some(m) => (m, false),
        None => (p.horizon, true),
    }
}

/// Rule for a claim that the measured value grows with `x`.
pub fn increasing(points: &[Point]) -> Judgement {
    if points.len() < 2 {
        return judgement(Verdict::Inconclusive, "fewer than two points");
    }
    let medians: Vec<(f64, bool)> = points.iter().map(median_or_bound).collect();
    let text = medians
        .iter()
        .zip(points)
        .map(|(&(m, bound), p)| format!("x = {}: {}{m:.4e}", p.x, if bound { ">= " } else { "" }))
        .collect::<Vec<_>>()
        .join("; ");
    let (first, last) = (medians[0].0, medians[medians.len() - 1].0);
    let monotone = medians.windows(2).all(|w| w[1].0 >= w[0].0 || w[0].1);
    let verdict = if monotone && last >= 2.0 * first {
        Verdict::Consistent
    } else if last < first / 2.0 {
        Verdict::Inconsistent
    } else {
        Verdict::Inconclusive
    };
    judgement(verdict, format!("medians {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f64, values: Vec<f64>) -> Point {
        Point { x, values, censored: 0, horizon: f64::INFINITY }
    }

    /// Deterministic samples with mean `mean` and spread `spread`.
    fn spread(mean: f64, spread: f64, count: usize) -> Vec<f64> {
        (0..count).map(|i| mean + spread * (((i * 7919) % count) as f64 / count as f64 - 0.5) * 3.46).collect()
    }

    #[test]
    fn exact_mean_accepts_the_truth_and_rejects_a_shift() {
        let good: Vec<Point> = [10.0, 20.0].iter().map(|&x| point(x, spread(x * x, x, 400))).collect();
        assert_eq!(exact_mean(&good, |x| x * x).verdict, Verdict::Consistent);
        let shifted: Vec<Point> = [10.0, 20.0].iter().map(|&x| point(x, spread(1.1 * x * x, x, 400))).collect();
        let j = exact_mean(&shifted, |x| x * x);
        assert_eq!(j.verdict, Verdict::Inconsistent, "{}", j.evidence);
        let mut censored = good.clone();
        censored[0].censored = 1;
        assert_eq!(exact_mean(&censored, |x| x * x).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn growth_rule_separates_log_from_linear() {
        let xs = [100.0, 1000.0, 10_000.0, 100_000.0];
        let log: Vec<Point> = xs.iter().map(|&x: &f64| point(x, spread(5.0 * x.ln(), 0.5, 50))).collect();
        assert_eq!(growth_at_most(&log, Form::Log).verdict, Verdict::Consistent);
        let linear: Vec<Point> = xs.iter().map(|&x| point(x, spread(x, x / 20.0, 50))).collect();
        let j = growth_at_most(&linear, Form::Log);
        assert_eq!(j.verdict, Verdict::Inconsistent, "{}", j.evidence);
        assert_eq!(growth_at_most(&linear, Form::Linear).verdict, Verdict::Consistent);
        // Two noisy points cannot tell: inconclusive.
        let noisy = vec![point(100.0, vec![1.0, 30.0, 2.0]), point(200.0, vec![1.0, 40.0, 3.0])];
        assert_eq!(growth_at_most(&noisy, Form::Log).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn certainty_and_increase_rules() {
        assert_eq!(all_trials(5, 5, "ended correct").verdict, Verdict::Consistent);
        assert_eq!(all_trials(4, 5, "ended correct").verdict, Verdict::Inconsistent);
        let rising = vec![point(4.0, vec![100.0, 120.0]), point(6.0, vec![900.0, 1000.0])];
        assert_eq!(increasing(&rising).verdict, Verdict::Consistent);
        let falling = vec![point(4.0, vec![900.0, 1000.0]), point(6.0, vec![100.0, 120.0])];
        assert_eq!(increasing(&falling).verdict, Verdict::Inconsistent);
        let flat = vec![point(4.0, vec![100.0]), point(6.0, vec![110.0])];
        assert_eq!(increasing(&flat).verdict, Verdict::Inconclusive);
        // A censored last point counts at its horizon.
        let censored = vec![point(4.0, vec![100.0]), Point { x: 6.0, values: vec![], censored: 3, horizon: 1e6 }];
        assert_eq!(increasing(&censored).verdict, Verdict::Consistent);
    }
}
