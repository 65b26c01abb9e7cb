//! The growth rules: whether measured means grow at most (`O(f)`) or at least (`Omega(f)`) like a
//! claimed `f`, by a rule whose power grows with the data.
//!
//! The rule looks at the ratio `r(x) = E(x) / f(x)` of the mean to the claimed bound. Under an
//! `O(f)` claim `r` stays bounded; lower-order terms and integer steps in a protocol's constants
//! make it wander, but not grow without end. The *next faster* growth, `g = f ln x`, makes
//! `ln r` rise with local slope `d ln(g/f) / d ln x = 1 / ln x` against `ln x`. So the rule fits
//! `ln r` against `ln x` by weighted least squares (weights from the means' standard errors,
//! carried to the logarithm as `se / mean`) and compares the slope `b` with the *margin*
//! `MARGIN = 1/2` of the next faster form's slope over the same points, `m = MARGIN * s_g` (`s_g`
//! the weighted slope of `ln ln x` against `ln x`): the ratio may grow at most like
//! `(ln x)^(1/2)`, half way between `f` and `f ln x` in local exponent.
//! - `b + t se(b) < m`: **consistent**, the ratio grows detectably slower than the margin;
//! - `b - t se(b) > m`: **inconsistent**, it grows detectably faster;
//! - otherwise **inconclusive**, with the number of trials that would decide.
//!
//! `t` is the one-sided 0.999 quantile of Student's t with the smallest degrees of freedom of the
//! points' errors (the normal quantile for exact errors), so each wrong decision has probability
//! at most 0.001 whenever the slope is on the other side of the margin. Since `se(b)` shrinks like
//! one over the square root of the trials, any slope off the margin is decided with enough trials:
//! data growing like `f ln x` (slope `s_g > m`) are never called consistent, data growing like
//! `f` up to lower-order terms that fade faster than the margin (slope below `m`) are called
//! consistent with a probability that tends to 1. `Omega(f)` is the mirror image: the next slower
//! form `f / ln x`, margin `-m`.
//!
//! The operating characteristics of the rules on synthetic data are in `docs/verdicts.md`, made by
//! `cargo run --release -p poplab --example operating_characteristics`; the test suite checks the
//! same cases at CI's size (`evidence::growth::tests`).
//!
//! ```
//! use poplab::growth::{Bound, Estimate, growth};
//! use poplab::verdict::Verdict;
//!
//! // Means growing like 10 x - 3 sqrt(x), known to 1%, at x = 10^2 .. 10^6.
//! let estimates: Vec<Estimate> = [1e2, 1e3, 1e4, 1e5, 1e6]
//!     .into_iter()
//!     .map(|x: f64| {
//!         let mean = 10.0 * x - 3.0 * x.sqrt();
//!         Estimate { x, mean, se: 0.01 * mean, df: f64::INFINITY }
//!     })
//!     .collect();
//! let linear = |x: f64| x;
//! assert_eq!(growth(&estimates, Bound::AtMost, &linear, "x").verdict, Verdict::Consistent);
//! assert_eq!(growth(&estimates, Bound::AtMost, &|x: f64| x.sqrt(), "x^0.5").verdict, Verdict::Inconsistent);
//! assert_eq!(growth(&estimates, Bound::AtLeast, &linear, "x").verdict, Verdict::Consistent);
//! ```

pub use crate::judgement::Bound;
use crate::judgement::{Judgement, Verdict, critical, decide};
use crate::stats;

/// The share of the next faster form's slope the ratio `E / f` may grow by (see the module docs).
pub const MARGIN: f64 = 0.5;

/// A mean measured at one `x`, with its standard error.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The value of the swept variable.
    pub x: f64,
    /// The estimated mean.
    pub mean: f64,
    /// Its standard error.
    pub se: f64,
    /// The degrees of freedom of the standard error (`f64::INFINITY` when it is exact).
    pub df: f64,
}

impl Estimate {
    /// The plain estimate from trials: the sample mean, its standard error `sd / sqrt(k)` and
    /// `k - 1` degrees of freedom; `None` with fewer than two values.
    pub fn of_values(x: f64, values: &[f64]) -> Option<Self> {
        let k = values.len();
        (k >= 2).then(|| Estimate {
            x,
            mean: stats::mean(values),
            se: stats::std_dev(values) / (k as f64).sqrt(),
            df: (k - 1) as f64,
        })
    }

    /// The post-stratified estimate from trials split into two strata whose probabilities are
    /// known exactly: `p mean(a) + (1 - p) mean(b)`, unbiased whatever share of the trials fell
    /// in each, with variance `p^2 var(a) / |a| + (1 - p)^2 var(b) / |b|` and Welch-Satterthwaite
    /// degrees of freedom; `None` unless each stratum has two trials or more.
    ///
    /// ```
    /// use poplab::growth::Estimate;
    ///
    /// // Two strata, probability 0.75 and 0.25, sampled as 2 and 3 trials.
    /// let e = Estimate::post_stratified(1.0, &[1.0, 3.0], &[10.0, 20.0, 30.0], 0.75).unwrap();
    /// assert_eq!(e.mean, 0.75 * 2.0 + 0.25 * 20.0);
    /// ```
    pub fn post_stratified(x: f64, a: &[f64], b: &[f64], p: f64) -> Option<Self> {
        if a.len() < 2 || b.len() < 2 {
            return None;
        }
        let part = |values: &[f64], weight: f64| {
            let k = values.len() as f64;
            (weight * stats::mean(values), (weight * stats::std_dev(values)).powi(2) / k, k - 1.0)
        };
        let ((mean_a, var_a, df_a), (mean_b, var_b, df_b)) = (part(a, p), part(b, 1.0 - p));
        let variance = var_a + var_b;
        let df = variance * variance / (var_a * var_a / df_a + var_b * var_b / df_b);
        Some(Estimate {
            x,
            mean: mean_a + mean_b,
            se: variance.sqrt(),
            df: if df.is_finite() { df } else { df_a.min(df_b) },
        })
    }
}

/// The growth rule (see the module docs): `estimates` against the claimed `O(f)` or `Omega(f)`,
/// `name` being how the report writes `f`.
pub fn growth(estimates: &[Estimate], bound: Bound, f: &dyn Fn(f64) -> f64, name: &str) -> Judgement {
    let claim = format!("{}({name})", bound.symbol());
    if estimates.len() < 3 {
        return Judgement::new(Verdict::Inconclusive, "fewer than three points: no trend to judge");
    }
    // Exact values (every error 0, like a protocol's state count) weigh alike.
    let exact = estimates.iter().all(|e| e.se == 0.0);
    let mut us = Vec::new();
    let mut ys = Vec::new();
    let mut ws = Vec::new();
    let mut gs = Vec::new();
    for e in estimates {
        let fx = f(e.x);
        if !(e.x > 1.0 && fx > 0.0 && fx.is_finite() && e.mean > 0.0 && (exact || e.se > 0.0) && e.se.is_finite()) {
            return Judgement::new(
                Verdict::Inconclusive,
                format!(
                    "at x = {} the rule needs x > 1, a positive claimed bound ({fx}), and a positive mean with an error \
                     ({} +- {})",
                    e.x, e.mean, e.se
                ),
            );
        }
        us.push(e.x.ln());
        ys.push((e.mean / fx).ln());
        ws.push(if exact { 1.0 } else { (e.mean / e.se).powi(2) });
        gs.push(e.x.ln().ln());
    }
    let Some(Line { slope, se, .. }) =
        weighted_line(&us, &ys, &ws).map(|line| if exact { Line { se: 0.0, ..line } } else { line })
    else {
        return Judgement::new(Verdict::Inconclusive, "the points have one x: no trend");
    };
    let next = weighted_line(&us, &gs, &ws).map_or(0.0, |line| line.slope);
    let margin = match bound {
        Bound::AtMost => MARGIN * next,
        Bound::AtLeast => -MARGIN * next,
    };
    let df = estimates.iter().map(|e| e.df).fold(f64::INFINITY, f64::min);
    let t = critical(df);
    let (verdict, power) = decide(slope, se, margin, t, bound);
    let (ratio_first, ratio_last) = (ys[0].exp(), ys[ys.len() - 1].exp());
    let figures = format!(
        "mean/({name}) from {ratio_first:.4} to {ratio_last:.4} over x = {}..{}; slope of ln(mean/({name})) on ln x \
         {slope:.4} +- {se:.4}, margin {margin:.4} (half the slope of the next {} form), t = {t:.2}",
        short(estimates[0].x),
        short(estimates[estimates.len() - 1].x),
        if bound == Bound::AtMost { "faster" } else { "slower" },
    );
    let said = match (verdict, bound) {
        (Verdict::Consistent, _) => format!("consistent with {claim}: the ratio stays within the margin"),
        (Verdict::Inconsistent, Bound::AtMost) => format!("grows faster than {claim} allows"),
        (Verdict::Inconsistent, Bound::AtLeast) => format!("grows more slowly than {claim} requires"),
        (Verdict::Inconclusive, _) => "the slope is within its error of the margin".to_string(),
    };
    Judgement { power: Some(power), ..Judgement::new(verdict, format!("{said}; {figures}")) }
}

/// `x` as a report writes it: plain up to 10^7, else with an exponent (`1.072e301`).
fn short(x: f64) -> String {
    if x.abs() < 1e7 { format!("{x}") } else { format!("{x:.4e}") }
}

/// A straight line fitted by weighted least squares: its slope, the slope's standard error from
/// the weights, and `chi^2 / (points - 2)` (`None` with two points).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    pub slope: f64,
    pub se: f64,
    pub reduced_chi2: Option<f64>,
}

/// The weighted least-squares line of `ys` on `us` (weights `ws`); `None` with one distinct `u`.
pub(crate) fn weighted_line(us: &[f64], ys: &[f64], ws: &[f64]) -> Option<Line> {
    let sw: f64 = ws.iter().sum();
    let mu = ws.iter().zip(us).map(|(w, u)| w * u).sum::<f64>() / sw;
    let my = ws.iter().zip(ys).map(|(w, y)| w * y).sum::<f64>() / sw;
    let suu: f64 = ws.iter().zip(us).map(|(w, u)| w * (u - mu).powi(2)).sum();
    if suu.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let slope = ws.iter().zip(us.iter().zip(ys)).map(|(w, (u, y))| w * (u - mu) * (y - my)).sum::<f64>() / suu;
    let chi2: f64 = ws.iter().zip(us.iter().zip(ys)).map(|(w, (u, y))| w * (y - my - slope * (u - mu)).powi(2)).sum();
    let reduced_chi2 = (us.len() > 2).then(|| chi2 / (us.len() - 2) as f64);
    Some(Line { slope, se: 1.0 / suu.sqrt(), reduced_chi2 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::PopRng;
    use rand_core::SeedableRng;

    fn estimates(xs: &[f64], mean: impl Fn(f64) -> f64, relative_se: f64) -> Vec<Estimate> {
        xs.iter().map(|&x| Estimate { x, mean: mean(x), se: relative_se * mean(x), df: f64::INFINITY }).collect()
    }

    #[test]
    fn exact_forms_decide_both_ways() {
        let xs = [1e2, 1e3, 1e4, 1e5, 1e6];
        let log = |x: f64| x.ln();
        let j = growth(&estimates(&xs, |x| 20.0 * x.ln() + 7.0, 0.01), Bound::AtMost, &log, "log x");
        assert_eq!(j.verdict, Verdict::Consistent, "{}", j.evidence);
        let j = growth(&estimates(&xs, |x| x.ln().powi(2), 0.01), Bound::AtMost, &log, "log x");
        assert_eq!(j.verdict, Verdict::Inconsistent, "{}", j.evidence);
        // Noise too large to tell: inconclusive, with the trials that would decide.
        let j = growth(&estimates(&xs, |x| x.ln() * x.ln().powf(0.2), 0.3), Bound::AtMost, &log, "log x");
        assert_eq!(j.verdict, Verdict::Inconclusive, "{}", j.evidence);
        assert!(j.power.unwrap().trials_factor.unwrap() > 1.0);
        // Growth exactly at the margin, (log x)^1.5: no number of trials decides.
        let j = growth(&estimates(&xs, |x| x.ln().powf(1.5), 0.3), Bound::AtMost, &log, "log x");
        assert_eq!(j.power.unwrap().trials_factor, None, "{}", j.evidence);
        // Omega: linear data are Omega(x^0.5) and not Omega(x^2).
        let data = estimates(&xs, |x| 3.0 * x, 0.01);
        assert_eq!(growth(&data, Bound::AtLeast, &|x: f64| x.sqrt(), "x^0.5").verdict, Verdict::Consistent);
        assert_eq!(growth(&data, Bound::AtLeast, &|x: f64| x * x, "x^2").verdict, Verdict::Inconsistent);
    }

    #[test]
    fn too_few_points_or_bad_values_are_inconclusive() {
        let two = estimates(&[10.0, 100.0], |x| x, 0.01);
        assert_eq!(growth(&two, Bound::AtMost, &|x| x, "x").verdict, Verdict::Inconclusive);
        let zero = estimates(&[1.0, 10.0, 100.0], |x| x, 0.01);
        assert_eq!(growth(&zero, Bound::AtMost, &|x| x, "x").verdict, Verdict::Inconclusive);
    }

    #[test]
    fn power_grows_with_the_trials() {
        // A true O(x) claim with a lower-order term: the share decided grows with the trials.
        let mut rng = PopRng::seed_from_u64(44);
        let xs = [16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
        let mean = |x: f64| 124.65 * x - 74.6 * x.powf(0.556);
        let share = |trials: usize, rng: &mut PopRng| {
            let decided = (0..200)
                .filter(|_| {
                    let e: Vec<Estimate> = xs
                        .iter()
                        .map(|&x| {
                            Estimate::of_values(x, &crate::verdict::synthetic(mean(x), 0.5, trials, rng)).unwrap()
                        })
                        .collect();
                    growth(&e, Bound::AtMost, &|x| x, "x").verdict == Verdict::Consistent
                })
                .count();
            decided as f64 / 200.0
        };
        let (few, many) = (share(5, &mut rng), share(400, &mut rng));
        assert!(many > 0.95 && many >= few, "{few} {many}");
    }
}
