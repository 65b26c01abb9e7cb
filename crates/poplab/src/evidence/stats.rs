//! Statistics of trial results: means with Student-t intervals, medians and quantiles under a
//! common horizon (censoring), and the Kolmogorov-Smirnov tests used to compare engines with
//! closed forms and with each other.
//!
//! ```
//! use poplab::stats::{CensoredSummary, ks_critical, ks_two_sample, mean, mean_ci95, std_dev};
//!
//! let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
//! assert_eq!(mean(&values), 5.0);
//! assert!((std_dev(&values) - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
//! let [low, high] = mean_ci95(&values).unwrap();
//! assert!(low < 5.0 && 5.0 < high);
//! // Two more trials were censored (known only to exceed every observed value): no mean, but
//! // the median, which falls on observed values.
//! let summary = CensoredSummary::of(&values, 2);
//! assert_eq!((summary.mean, summary.median), (None, Some(5.0)));
//! // Kolmogorov-Smirnov: two grids on [0, 1] are close to one law.
//! let a: Vec<f64> = (0..1000).map(|i| (i as f64 + 0.5) / 1000.0).collect();
//! let b: Vec<f64> = (0..500).map(|i| (i as f64 + 0.25) / 500.0).collect();
//! assert!(ks_two_sample(&a, &b) < ks_critical(0.01, 1000, Some(500)));
//! ```

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The arithmetic mean (`NaN` for no values).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample standard deviation (`n - 1` in the denominator; 0 for fewer than two values).
pub fn std_dev(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let m = mean(values);
    (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64).sqrt()
}

/// The `q`-quantile (`0 <= q <= 1`) of sorted values, linearly interpolated (type 7).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
    sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64)
}

/// The two-sided 95% confidence interval of the mean, Student t with `len - 1` degrees of freedom
/// (`None` for fewer than two values).
pub fn mean_ci95(values: &[f64]) -> Option<[f64; 2]> {
    if values.len() < 2 {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, (values.len() - 1) as f64).ok()?.inverse_cdf(0.975);
    let half = t * std_dev(values) / (values.len() as f64).sqrt();
    let m = mean(values);
    Some([m - half, m + half])
}

/// Quantiles of a sample in which `censored` more values are known only to exceed every observed
/// one (trials stopped at a common horizon). A quantile is returned only where it falls on an
/// observed value, so censoring never shows up as a number that was not reached.
pub fn censored_quantile(observed: &[f64], censored: usize, q: f64) -> Option<f64> {
    let total = observed.len() + censored;
    if total == 0 {
        return None;
    }
    let mut sorted = observed.to_vec();
    sorted.sort_by(f64::total_cmp);
    let position = q * (total - 1) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
    if high >= sorted.len() {
        return None;
    }
    Some(sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64))
}

/// The censoring rule of every summary (runs, sweeps, the reproduction): the mean and its interval
/// only when no value is censored, quantiles only where they fall on an observed value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CensoredSummary {
    /// The mean (`None` when any value is censored or none was observed).
    pub mean: Option<f64>,
    /// The Student-t 95% interval of the mean (`None` as for the mean, or for fewer than 2 values).
    pub ci95: Option<[f64; 2]>,
    /// The median, where it falls on an observed value.
    pub median: Option<f64>,
}

impl CensoredSummary {
    /// The summary of `observed` values and `censored` more known only to exceed them all.
    pub fn of(observed: &[f64], censored: usize) -> Self {
        let complete = censored == 0 && !observed.is_empty();
        Self {
            mean: complete.then(|| mean(observed)),
            ci95: if complete { mean_ci95(observed) } else { None },
            median: censored_quantile(observed, censored, 0.5),
        }
    }
}

/// The Kolmogorov-Smirnov distance between an integer-valued sample (such as step counts) and a
/// distribution function `cdf(k) = P(X <= k)`, compared on both sides of every observed jump.
pub fn ks_integer_sample<T: Copy + Into<u128>>(sample: &[T], cdf: impl Fn(u128) -> f64) -> f64 {
    let mut sorted: Vec<u128> = sample.iter().map(|&x| x.into()).collect();
    sorted.sort_unstable();
    let n = sorted.len() as f64;
    let mut distance: f64 = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        // Step over ties so that discrete distributions are compared at their jumps.
        let x = sorted[i];
        let below = i as f64 / n;
        while i < sorted.len() && sorted[i] == x {
            i += 1;
        }
        let at = i as f64 / n;
        let f = cdf(x);
        let f_before = if x == 0 { 0.0 } else { cdf(x - 1) };
        distance = distance.max((at - f).abs()).max((below - f_before).abs());
    }
    distance
}

/// The two-sample Kolmogorov-Smirnov distance.
pub fn ks_two_sample(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut distance) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        distance = distance.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    distance
}

/// The asymptotic critical KS distance at significance `alpha` for sample sizes `n` and `m`
/// (`m = None`: one-sample test), `c(alpha) sqrt((n + m) / (n m))`, `c = sqrt(-ln(alpha / 2) / 2)`.
pub fn ks_critical(alpha: f64, n: usize, m: Option<usize>) -> f64 {
    let c = (-(alpha / 2.0).ln() / 2.0).sqrt();
    let effective = match m {
        None => n as f64,
        Some(m) => (n * m) as f64 / (n + m) as f64,
    };
    c / effective.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_and_quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(mean(&v), 2.5);
        assert!((std_dev(&v) - 1.290_994_448_7).abs() < 1e-9);
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        // t(0.975, 3) = 3.182446
        let [lo, hi] = mean_ci95(&v).unwrap();
        assert!((hi - 2.5 - 3.182_446 * 1.290_994_448_7 / 2.0).abs() < 1e-5 && (2.5 - lo - (hi - 2.5)).abs() < 1e-12);
        assert!(mean_ci95(&[1.0]).is_none());
    }

    #[test]
    fn censored_quantiles_only_where_observed() {
        // 3 observed, 2 censored: the median (index 2 of 5) is the largest observed value.
        assert_eq!(censored_quantile(&[3.0, 1.0, 2.0], 2, 0.5), Some(3.0));
        // 2 observed, 3 censored: the median is censored.
        assert_eq!(censored_quantile(&[1.0, 2.0], 3, 0.5), None);
        assert_eq!(censored_quantile(&[1.0, 2.0, 3.0, 4.0], 0, 0.5), Some(2.5));
    }

    #[test]
    fn ks_distances() {
        let integers: Vec<u64> = (1..=100).collect();
        let d = ks_integer_sample(&integers, |x| (x as f64 / 100.0).min(1.0));
        assert!(d < 1e-12, "{d}");
        let d = ks_integer_sample(&integers, |x| (x as f64 / 200.0).min(1.0));
        assert!((d - 0.5).abs() < 1e-12, "{d}");
        let uniform: Vec<f64> = (1..=100).map(|i| i as f64).collect();
        let shifted: Vec<f64> = uniform.iter().map(|x| x + 30.0).collect();
        assert!((ks_two_sample(&uniform, &shifted) - 0.3).abs() < 1e-12);
        assert_eq!(ks_two_sample(&uniform, &uniform), 0.0);
        // c(0.001) = 1.9495
        assert!((ks_critical(0.001, 100, None) - 0.194_95).abs() < 1e-4);
    }
}
