//! Verdicts: whether measurements are consistent with a paper's claim, by rules written down.
//!
//! Each rule returns a [`Judgement`]: a [`Verdict`], the evidence in words that a report prints
//! next to it, and where the rule has one, the [`Power`] of the design estimated from the data
//! (how likely the same design decides again, and how many more trials would decide). Every rule
//! is about the quantity the claims are about, the *mean*, and each wrong decision has probability
//! at most 0.001 where the rule's assumptions hold. The rules:
//! - [`crate::growth::growth`]: a claimed upper bound `O(f(x))` or lower bound `Omega(f(x))`: the
//!   trend of `ln(mean / f)` against `ln x` compared with a margin half way to the next faster
//!   (slower) form; see [`crate::growth`]. Any censored trial: inconclusive (a censored time is only
//!   a lower bound).
//! - [`exact_mean`]: a claimed exact expectation. Per point, the mean against the claimed value at
//!   family-wise level 0.001 (Bonferroni over the points), corrected for skewness: by
//!   Cornish-Fisher with the law's exact variance and third cumulant when they are known
//!   ([`Moments`]), else by Johnson's t with the sample's (then with at least
//!   [`EXACT_MIN_TRIALS`] trials per point). Any rejection: inconsistent. Else consistent when the pooled ratio of the means to
//!   the claimed values is shown within [`EXACT_TOLERANCE`] of 1 (two one-sided tests at level
//!   0.001), inconclusive when it is not.
//! - [`all_trials`]: a claimed certainty (for example a correct output). Every trial must end as
//!   claimed: consistent; any other: inconsistent.
//! - [`exponential_at_least`]: a claimed lower bound `Omega(e^(r x))` (holding times). The average
//!   rate of `ln E` over the range (between its ends, with their errors), one-sided at level 0.001
//!   (Student t with the ends' degrees of freedom): at or above `r`: consistent; below it:
//!   inconsistent; within its error of `r`: inconclusive.
//! - [`power_at_least`]: a claimed lower bound `Omega(x^e)`: the same on `ln x`.
//! - [`slower_than`]: a claim that one variant is slower: the ratio of means per `x` with its
//!   bootstrap interval (family-wise level 0.001); some above 1 and none below: consistent; the
//!   reverse: inconsistent; else inconclusive.
//! - [`worst`]: a claim made of several parts (each judged by a rule) holds as its worst part.
//! - [`rate_only`]: an experiment that does not meet its claim's hypotheses (shortened
//!   constants): the rate is reported, the verdict is inconclusive.
//!
//! ```
//! use poplab::spec::{RawSpec, RunSpec};
//! use poplab::verdict::{Point, Verdict, all_trials, exact_mean};
//!
//! // angluin's claim: exactly (n - 1)^2 expected steps. 4000 trials at n = 10, 20 and 40.
//! let mut points = Vec::new();
//! for n in [10, 20, 40] {
//!     let raw = RawSpec { trials: 4000, seed: n, ..RawSpec::new("angluin", n) };
//!     let result = RunSpec::resolve(&raw)?.run(&|| {})?;
//!     let values = result.records.iter().map(|r| r.steps.0 as f64).collect();
//!     points.push(Point { x: n as f64, values, censored: 0, horizon: f64::INFINITY });
//! }
//! let judgement = exact_mean(&points, |n| (n - 1.0).powi(2), None);
//! assert_eq!(judgement.verdict, Verdict::Consistent, "{}", judgement.evidence);
//! // A claim of twice as many steps is refuted by the same data.
//! assert_eq!(exact_mean(&points, |n| 2.0 * (n - 1.0).powi(2), None).verdict, Verdict::Inconsistent);
//! // A certainty: every trial must end as claimed.
//! assert_eq!(all_trials(199, 200, "elected one leader").verdict, Verdict::Inconsistent);
//! # Ok::<(), poplab::Error>(())
//! ```
//!
//! The rules' operating characteristics on synthetic data are in `docs/verdicts.md`
//! (`claims::characteristics`).

use crate::fit::fit_weighted_line;
use crate::growth::Estimate;
use crate::judgement::{Bound, critical, decide, judgement};
pub use crate::judgement::{Judgement, Power, Verdict};
use crate::rng::{PopRng, below_u64};
use crate::stats;
use rand_core::SeedableRng;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Measurements at one value of the swept variable.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

impl Point {
    /// The point at `x` of trials `(value, censored)`: the values of those that ended, how many
    /// were censored, and the horizon, the largest of `horizon` and the censored values. A sweep's
    /// trials become points through it, for the reproduction's claims and a user's alike.
    pub fn gather(x: f64, trials: impl IntoIterator<Item = (f64, bool)>, horizon: f64) -> Point {
        let mut point = Point { x, values: Vec::new(), censored: 0, horizon };
        for (value, censored) in trials {
            if censored {
                point.censored += 1;
                point.horizon = point.horizon.max(value);
            } else {
                point.values.push(value);
            }
        }
        point
    }
}

/// The cumulants of one trial's value under the exact law, where they are known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moments {
    /// The variance.
    pub variance: f64,
    /// The third cumulant (`E[(X - mean)^3]`).
    pub third: f64,
}

/// How close to 1 the pooled ratio of the means to an exact claim must be shown to be for the
/// claim to be called consistent ([`exact_mean`]).
pub const EXACT_TOLERANCE: f64 = 0.05;

/// The fewest trials per point [`exact_mean`] judges without the law's moments: with fewer, a
/// skewed law's sample variance and skewness are too noisy for a test at level 0.001 (5 trials of
/// angluin's law rejected the true mean 1.5% of the time even with Johnson's correction).
pub const EXACT_MIN_TRIALS: usize = 30;

/// Rule for a claimed exact expectation `expected(x)` (see the module docs); `moments`, where
/// known, gives the exact law's variance and third cumulant at `x`.
///
/// Per point, the mean is tested against the claimed value at family-wise level 0.001 (two-sided,
/// Bonferroni over the points), corrected for skewness: with the law's exact moments when given
/// (the acceptance interval moved by Cornish-Fisher, normal quantiles), else by Johnson's t (the
/// sample's variance and third moment, Student t quantiles). Any rejection: inconsistent. Otherwise the ratio
/// of the means to the claimed values, pooled over the points (weights from their errors), must be
/// shown within [`EXACT_TOLERANCE`] of 1 by two one-sided tests at level 0.001: consistent;
/// otherwise inconclusive, with the trials that would decide.
pub fn exact_mean(
    points: &[Point],
    expected: impl Fn(f64) -> f64,
    moments: Option<&dyn Fn(f64) -> Moments>,
) -> Judgement {
    if points.iter().any(|p| p.censored > 0) {
        return judgement(Verdict::Inconclusive, "some trials were censored before the safe set");
    }
    let least = if moments.is_some() { 2 } else { EXACT_MIN_TRIALS };
    if points.is_empty() || points.iter().any(|p| p.values.len() < least) {
        return judgement(
            Verdict::Inconclusive,
            format!("a point has fewer than {least} trials: too few to trust the sample's variance and skewness"),
        );
    }
    let level = 0.0005 / points.len() as f64;
    let mut worst: Option<(f64, f64, f64)> = None;
    let (mut weights, mut weighted, mut df) = (0.0, 0.0, f64::INFINITY);
    for p in points {
        let k = p.values.len() as f64;
        let claimed = expected(p.x);
        let (variance, third, quantile) = match moments.map(|m| m(p.x)) {
            Some(m) => (m.variance, m.third, Normal::standard().inverse_cdf(1.0 - level)),
            None => {
                let t = StudentsT::new(0.0, 1.0, k - 1.0).map(|d| d.inverse_cdf(1.0 - level)).unwrap_or(f64::INFINITY);
                df = df.min(k - 1.0);
                (stats::std_dev(&p.values).powi(2), third_cumulant(&p.values), t)
            }
        };
        let se = (variance / k).sqrt();
        // Cornish-Fisher: the quantiles of the standardized mean of k trials, whose skewness is
        // third / (variance^1.5 sqrt k).
        let skew = if variance > 0.0 { third / (variance.powf(1.5) * k.sqrt()) } else { 0.0 };
        let mean = stats::mean(&p.values);
        let (score, low, high) = if se == 0.0 {
            (if mean == claimed { 0.0 } else { f64::INFINITY }, -quantile, quantile)
        } else if moments.is_some() {
            let shift = (quantile * quantile - 1.0) * skew / 6.0;
            ((mean - claimed) / se, -quantile + shift, quantile + shift)
        } else {
            // Johnson's (1978) t for a skewed population: the mean corrected by the sample's third
            // moment before it is studentized.
            let (d, s2) = (mean - claimed, variance);
            let corrected = d + third / (6.0 * s2 * k) + third * d * d / (3.0 * s2 * s2);
            (corrected / se, -quantile, quantile)
        };
        // How far outside its acceptance interval the point is.
        let excess = (low - score).max(score - high);
        if worst.is_none_or(|(_, _, e)| excess > e) {
            worst = Some((p.x, score, excess));
        }
        let w = if se > 0.0 { (claimed / se).powi(2) } else { f64::INFINITY };
        weights += w;
        weighted += w * mean / claimed;
    }
    let (x, score, excess) = worst.expect("points is not empty");
    let how = if moments.is_some() {
        "the exact variance and skewness of the law (Cornish-Fisher)"
    } else {
        "the sample's variance and third moment (Johnson's t)"
    };
    if excess > 0.0 {
        return judgement(
            Verdict::Inconsistent,
            format!(
                "at x = {x} the mean is {score:.2} standard errors from the claimed value, outside its acceptance \
                 interval at family-wise level 0.001 (errors from {how})"
            ),
        );
    }
    let ratio = weighted / weights;
    let ratio_se = weights.sqrt().recip();
    let t = critical(df);
    let (verdict, power) = decide((ratio - 1.0).abs(), ratio_se, EXACT_TOLERANCE, t, Bound::AtMost);
    // Only a point's test refutes an exact claim (above); a pooled ratio beyond the tolerance
    // leaves it undecided.
    let verdict = if verdict == Verdict::Consistent { Verdict::Consistent } else { Verdict::Inconclusive };
    let figures = format!(
        "every mean within its acceptance interval at family-wise level 0.001 (errors from {how}; largest |z| = {:.2} \
         at x = {x}); pooled ratio of the means to the claimed values {ratio:.4} +- {ratio_se:.4}",
        score.abs()
    );
    let said = match verdict {
        Verdict::Consistent => format!("consistent: the pooled ratio is within {EXACT_TOLERANCE} of 1 (t = {t:.2})"),
        _ => format!("inconclusive: the pooled ratio is not shown within {EXACT_TOLERANCE} of 1 (t = {t:.2})"),
    };
    Judgement { power: Some(power), ..judgement(verdict, format!("{said}; {figures}")) }
}

/// The sample's third cumulant (the unbiased k-statistic `k3`; 0 for fewer than three values).
fn third_cumulant(values: &[f64]) -> f64 {
    let k = values.len() as f64;
    if k < 3.0 {
        return 0.0;
    }
    let m = stats::mean(values);
    let m3 = values.iter().map(|v| (v - m).powi(3)).sum::<f64>() / k;
    m3 * k * k / ((k - 1.0) * (k - 2.0))
}

/// The points' plain [`Estimate`]s (sample mean, `sd / sqrt(k)`), or the judgement that says why
/// there are none: censored trials, or a point with fewer than two values.
pub fn estimates(points: &[Point]) -> Result<Vec<Estimate>, Judgement> {
    let censored: usize = points.iter().map(|p| p.censored).sum();
    if censored > 0 {
        return Err(judgement(
            Verdict::Inconclusive,
            format!("{censored} trials censored: their times are only lower bounds"),
        ));
    }
    points
        .iter()
        .map(|p| {
            Estimate::of_values(p.x, &p.values).ok_or_else(|| {
                judgement(Verdict::Inconclusive, format!("at x = {} fewer than two trials: no error", p.x))
            })
        })
        .collect()
}

/// Resamples of [`ratio_of_means`] and [`bootstrap_mean_ci95`].
pub const RESAMPLES: usize = 2000;

/// The seed of the intervals figures draw ([`bootstrap_mean_ci95`]): `poplab plot`, the
/// report's figures and Python's plots draw the same interval for the same trials.
pub const FIGURE_BOOTSTRAP_SEED: u64 = 0x5EED;

/// The 95% percentile bootstrap interval of the mean of `values`: the 2.5% and 97.5% quantiles
/// of the means of [`RESAMPLES`] resamples drawn with replacement from a generator seeded by
/// `seed`. It lies within the values' range, so it is never below zero for times, and it follows
/// their skew (a symmetric t-interval of bimodal times runs below zero). `None` for fewer than two
/// values.
///
/// ```
/// use poplab::verdict::bootstrap_mean_ci95;
///
/// // Mostly quick, once very slow: the t-interval of the mean reaches far below zero.
/// let times = [1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8, 1.0, 1.1, 400.0];
/// let [low, high] = bootstrap_mean_ci95(&times, 1).unwrap();
/// assert!(low >= 0.8 && low < 40.9 && high > 40.9 && high <= 400.0, "[{low}, {high}]");
/// assert_eq!(bootstrap_mean_ci95(&times, 1), Some([low, high]));
/// assert_eq!(bootstrap_mean_ci95(&[3.0], 1), None);
/// ```
pub fn bootstrap_mean_ci95(values: &[f64], seed: u64) -> Option<[f64; 2]> {
    if values.len() < 2 {
        return None;
    }
    let mut rng = PopRng::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..RESAMPLES).map(|_| mean_at(values, &resample(&mut rng, values.len()))).collect();
    means.sort_by(f64::total_cmp);
    Some([stats::quantile_sorted(&means, 0.025), stats::quantile_sorted(&means, 0.975)])
}

/// A resample with replacement of `k` values: `k` indices drawn uniformly below `k`.
fn resample(rng: &mut PopRng, k: usize) -> Vec<usize> {
    (0..k).map(|_| below_u64(rng, k as u64) as usize).collect()
}

/// The mean of `values` at the indices `at`.
fn mean_at(values: &[f64], at: &[usize]) -> f64 {
    at.iter().map(|&i| values[i]).sum::<f64>() / at.len() as f64
}

/// Synthetic trials: `count` values with mean `mean` and coefficient of variation `cv`
/// (gamma-distributed, so positive and right-skewed), for the rules' operating characteristics.
pub fn synthetic(mean: f64, cv: f64, count: usize, rng: &mut PopRng) -> Vec<f64> {
    let shape = 1.0 / (cv * cv);
    let gamma = rand_distr::Gamma::new(shape, mean / shape).expect("positive mean and cv");
    (0..count).map(|_| rand_distr::Distribution::sample(&gamma, rng)).collect()
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

/// Several judgements of one claim as one: the worst verdict (inconsistent, then inconclusive,
/// then consistent; inconclusive if there are none), with the evidence of each joined by `; `.
pub fn worst(judgements: &[Judgement]) -> Judgement {
    let badness = |v: Verdict| match v {
        Verdict::Consistent => 0,
        Verdict::Inconclusive => 1,
        Verdict::Inconsistent => 2,
    };
    Judgement {
        verdict: judgements.iter().map(|j| j.verdict).max_by_key(|&v| badness(v)).unwrap_or(Verdict::Inconclusive),
        evidence: judgements.iter().map(|j| j.evidence.as_str()).collect::<Vec<_>>().join("; "),
        power: None,
    }
}

/// The median of a point, a censored median counting as its horizon (a lower bound).
pub fn median_or_bound(p: &Point) -> (f64, bool) {
    match stats::censored_quantile(&p.values, p.censored, 0.5) {
        Some(m) => (m, false),
        None => (p.horizon, true),
    }
}

/// A point measured by the natural logarithm of its mean, with the standard error of that
/// logarithm: from trials ([`log_points`]) or from an estimator (the splitting estimator reports
/// `log10_mean_steps` and the spread of its repetitions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogPoint {
    /// The x value.
    pub x: f64,
    /// `ln E`.
    pub ln_mean: f64,
    /// Its standard error.
    pub se: f64,
    /// The degrees of freedom of that error (`f64::INFINITY` when exact).
    pub df: f64,
}

/// The points' means as [`LogPoint`]s (the sample's standard error carried to the logarithm as
/// `se / mean`, with `k - 1` degrees of freedom); `None` if a point has censored trials, fewer than
/// two values or a mean that is not positive.
pub fn log_points(points: &[Point]) -> Option<Vec<LogPoint>> {
    points
        .iter()
        .map(|p| {
            if p.censored > 0 {
                return None;
            }
            let e = Estimate::of_values(p.x, &p.values)?;
            (e.mean > 0.0 && e.se > 0.0).then(|| LogPoint { x: p.x, ln_mean: e.mean.ln(), se: e.se / e.mean, df: e.df })
        })
        .collect()
}

/// The average rate of `ln E` over the range, `(ln E(last) - ln E(first)) / (x(last) - x(first))`
/// on the mapped `x`, judged against `claimed` as a lower bound, one-sided at level 0.001 with the
/// two ends' errors (Student t on the smaller of their degrees of freedom). The ends alone need no
/// assumption on the shape of `ln E` in between (a fitted line would, and its errors mean little
/// when the points scatter far beyond them); the line through every point is reported beside it.
fn at_least(points: &[LogPoint], x: impl Fn(f64) -> f64, claimed: f64, what: &str, unit: &str) -> Judgement {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return judgement(Verdict::Inconclusive, "no points");
    };
    let span = x(last.x) - x(first.x);
    if points.len() < 2
        || span.is_nan()
        || span <= 0.0
        || first.se.is_nan()
        || last.se.is_nan()
        || first.se <= 0.0
        || last.se <= 0.0
    {
        return judgement(Verdict::Inconclusive, "fewer than two points with errors: no rate");
    }
    let rate = (last.ln_mean - first.ln_mean) / span;
    let se = first.se.hypot(last.se) / span;
    let t = critical(first.df.min(last.df));
    let (verdict, power) = decide(rate, se, claimed, t, Bound::AtLeast);
    let us: Vec<f64> = points.iter().map(|p| x(p.x)).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.ln_mean).collect();
    let ws: Vec<f64> = points.iter().map(|p| 1.0 / (p.se * p.se)).collect();
    let line = crate::growth::weighted_line(&us, &ys, &ws).map_or(String::new(), |line| {
        format!(
            "; the line through all {} points has slope {:.4}{}",
            points.len(),
            line.slope,
            line.reduced_chi2.map_or(String::new(), |c| format!(" (reduced chi^2 {c:.2})"))
        )
    });
    let evidence = format!(
        "{what} {rate:.4} +- {se:.4} per unit {unit} between the ends of the range (t = {t:.2}, one-sided level \
         0.001) against the claimed at least {claimed:.4}{line}"
    );
    Judgement { power: Some(power), ..judgement(verdict, evidence) }
}

/// Rule for a claimed lower bound `Omega(e^(rate x))`: the slope of `ln E` against `x`.
pub fn exponential_at_least(points: &[LogPoint], rate: f64) -> Judgement {
    at_least(points, |x| x, rate, "ln E grows at rate", "x")
}

/// Rule for a claimed lower bound `Omega(x^exponent)`: the slope of `ln E` against `ln x`.
pub fn power_at_least(points: &[LogPoint], exponent: f64) -> Judgement {
    at_least(points, f64::ln, exponent, "ln E grows with exponent", "ln x")
}

/// The ratio of two means, `mean(slow) / mean(fast)`, with its interval `ratio * exp(+-z sd)`
/// (`z = 3.29`: 99.9%), `sd` the bootstrap standard deviation of the logarithm of the ratio
/// ([`RESAMPLES`] resamples, from a generator seeded by `seed`). Samples of equal length are
/// taken as paired (value `i` of each from trial `i`, run from the same seed) and resampled
/// together, so what the variants share cancels; others are resampled apart. `None` with fewer
/// than two values on either side or a mean that is not positive.
pub fn ratio_of_means(slow: &[f64], fast: &[f64], z: f64, seed: u64) -> Option<(f64, [f64; 2])> {
    if slow.len() < 2 || fast.len() < 2 {
        return None;
    }
    let ratio = stats::mean(slow) / stats::mean(fast);
    if !(ratio.is_finite() && ratio > 0.0) {
        return None;
    }
    let mut rng = PopRng::seed_from_u64(seed);
    let logs: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let on_slow = resample(&mut rng, slow.len());
            let on_fast = if slow.len() == fast.len() { on_slow.clone() } else { resample(&mut rng, fast.len()) };
            (mean_at(slow, &on_slow) / mean_at(fast, &on_fast)).ln()
        })
        .collect();
    let half = z * stats::std_dev(&logs);
    Some((ratio, [ratio * (-half).exp(), ratio * half.exp()]))
}

/// Rule for a claim that one variant is slower than another: per `x`, the ratio of the slow
/// variant's mean to the fast one's with its interval ([`ratio_of_means`]) at family-wise level
/// 0.001 (Bonferroni over the `x`). Some interval above 1 and none below: consistent; some below
/// and none above: inconsistent; otherwise inconclusive. Any censored trial: inconclusive.
pub fn slower_than(slow: &[Point], fast: &[Point]) -> Judgement {
    if slow.iter().chain(fast).any(|p| p.censored > 0) {
        return judgement(Verdict::Inconclusive, "some trials were censored: no mean to compare");
    }
    let pairs: Vec<(&Point, &Point)> =
        slow.iter().filter_map(|s| fast.iter().find(|f| f.x == s.x).map(|f| (s, f))).collect();
    let z = Normal::standard().inverse_cdf(1.0 - 0.0005 / pairs.len().max(1) as f64);
    let ratios: Vec<(f64, f64, [f64; 2])> = pairs
        .iter()
        .enumerate()
        .filter_map(|(i, (s, f))| {
            ratio_of_means(&s.values, &f.values, z, 0x5EED ^ i as u64).map(|(r, ci)| (s.x, r, ci))
        })
        .collect();
    if ratios.is_empty() {
        return judgement(Verdict::Inconclusive, "no x with both variants measured");
    }
    let text = ratios
        .iter()
        .map(|(x, r, [lo, hi])| format!("x = {x}: {r:.3} [{lo:.3}, {hi:.3}]"))
        .collect::<Vec<_>>()
        .join("; ");
    let (above, below) = (ratios.iter().any(|r| r.2[0] > 1.0), ratios.iter().any(|r| r.2[1] < 1.0));
    let verdict = match (above, below) {
        (true, false) => Verdict::Consistent,
        (false, true) => Verdict::Inconsistent,
        _ => Verdict::Inconclusive,
    };
    judgement(
        verdict,
        format!("ratio of means (bootstrap intervals at family-wise level 0.001, paired by trial): {text}"),
    )
}

/// For an experiment that does not meet its claim's hypotheses: the rate of `ln E` against `x`
/// as evidence, after `reason`, and the verdict inconclusive.
pub fn rate_only(points: &[LogPoint], reason: &str) -> Judgement {
    let (xs, ys, ses) = unzip(points, |x| x);
    let measured = match fit_weighted_line(&xs, &ys, &ses) {
        Some(line) => format!(
            "measured: ln E grows at rate {:.4} per unit x (95% CI [{:.4}, {:.4}])",
            line.slope, line.slope_ci95[0], line.slope_ci95[1]
        ),
        None => "too few points for a rate".into(),
    };
    judgement(Verdict::Inconclusive, format!("{reason}; {measured}"))
}

fn unzip(points: &[LogPoint], x: impl Fn(f64) -> f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    (
        points.iter().map(|p| x(p.x)).collect(),
        points.iter().map(|p| p.ln_mean).collect(),
        points.iter().map(|p| p.se).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned: Python's `_plot.bootstrap_mean_interval` (tests/test_trace_counts.py) asserts the
    /// same numbers, so the CLI's figures and Python's draw the same interval.
    #[test]
    fn the_figures_interval_is_pinned() {
        let times = [1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8, 1.0, 1.1, 400.0];
        let [low, high] = bootstrap_mean_ci95(&times, FIGURE_BOOTSTRAP_SEED).unwrap();
        assert_eq!([low, high], [0.9800000000000001, 120.75999999999999]);
    }

    fn point(x: f64, values: Vec<f64>) -> Point {
        Point { x, values, censored: 0, horizon: f64::INFINITY }
    }

    #[test]
    fn exact_mean_accepts_the_truth_and_rejects_a_shift() {
        let mut rng = PopRng::seed_from_u64(44);
        let good: Vec<Point> = [10.0, 20.0].iter().map(|&x| point(x, synthetic(x * x, 0.3, 400, &mut rng))).collect();
        assert_eq!(exact_mean(&good, |x| x * x, None).verdict, Verdict::Consistent);
        let j = exact_mean(&good, |x| 1.2 * x * x, None);
        assert_eq!(j.verdict, Verdict::Inconsistent, "{}", j.evidence);
        // With the law's moments (gamma: variance (cv m)^2, third cumulant 2 cv^4 m^3).
        let moments =
            |x: f64| Moments { variance: (0.3 * x * x).powi(2), third: 2.0 * 0.3f64.powi(4) * (x * x).powi(3) };
        assert_eq!(exact_mean(&good, |x| x * x, Some(&moments)).verdict, Verdict::Consistent);
        assert_eq!(exact_mean(&good, |x| 1.2 * x * x, Some(&moments)).verdict, Verdict::Inconsistent);
        // Too few trials to pin the mean within 5%: inconclusive, not consistent.
        let few: Vec<Point> = [10.0, 20.0].iter().map(|&x| point(x, synthetic(x * x, 0.3, 10, &mut rng))).collect();
        assert_eq!(exact_mean(&few, |x| x * x, None).verdict, Verdict::Inconclusive);
        let mut censored = good.clone();
        censored[0].censored = 1;
        assert_eq!(exact_mean(&censored, |x| x * x, None).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn exponential_rule_decides_both_ways_and_widens_for_scatter() {
        let points = |rate: f64, se: f64| -> Vec<LogPoint> {
            (4..=8).map(|n| LogPoint { x: n as f64, ln_mean: rate * n as f64, se, df: f64::INFINITY }).collect()
        };
        assert_eq!(exponential_at_least(&points(2.0, 0.1), 1.0).verdict, Verdict::Consistent);
        assert_eq!(exponential_at_least(&points(0.5, 0.1), 1.0).verdict, Verdict::Inconsistent);
        assert_eq!(exponential_at_least(&points(1.05, 0.1), 1.0).verdict, Verdict::Inconclusive);
        // Points scattering between the ends do not matter: the rate is the ends'.
        let mut wobbly = points(1.5, 0.01);
        for p in wobbly.iter_mut().skip(1).take(3) {
            p.ln_mean += 5.0;
        }
        assert_eq!(exponential_at_least(&wobbly, 1.0).verdict, Verdict::Consistent);
        assert_eq!(power_at_least(&points(2.0, 0.1), 1.0).verdict, Verdict::Consistent);
    }

    #[test]
    fn slower_than_sees_a_gap_and_no_gap() {
        let mut rng = PopRng::seed_from_u64(25);
        let xs = [100.0, 1000.0, 10_000.0];
        let mut points = |scale: f64| -> Vec<Point> {
            xs.iter().map(|&n: &f64| point(n, synthetic(scale * n.ln(), 0.3, 40, &mut rng))).collect()
        };
        let (fast, slow, same) = (points(1.0), points(1.5), points(1.0));
        assert_eq!(slower_than(&slow, &fast).verdict, Verdict::Consistent);
        assert_eq!(slower_than(&fast, &slow).verdict, Verdict::Inconsistent);
        assert_eq!(slower_than(&same, &fast).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn several_judgements_hold_as_the_worst() {
        let (yes, no) = (all_trials(5, 5, "ended correct"), all_trials(4, 5, "ended wrong"));
        let unsure = judgement(Verdict::Inconclusive, "too few");
        let combined = worst(&[yes.clone(), unsure.clone()]);
        assert_eq!(combined.verdict, Verdict::Inconclusive);
        assert_eq!(combined.evidence, format!("{}; too few", yes.evidence));
        assert_eq!(worst(&[unsure, no.clone(), yes.clone()]).verdict, Verdict::Inconsistent);
        assert_eq!(worst(std::slice::from_ref(&yes)), yes);
        assert_eq!(worst(&[]).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn certainty_rule_and_censored_log_points() {
        assert_eq!(all_trials(5, 5, "ended correct").verdict, Verdict::Consistent);
        assert_eq!(all_trials(4, 5, "ended correct").verdict, Verdict::Inconsistent);
        // A censored point has no mean: no log point.
        let censored =
            vec![point(4.0, vec![100.0, 120.0]), Point { x: 6.0, values: vec![], censored: 3, horizon: 1e6 }];
        assert!(log_points(&censored).is_none());
    }
}
