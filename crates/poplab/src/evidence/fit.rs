//! Fitting measured means against the growth a paper claims.
//!
//! Two kinds of fit: [`fit_form`], ordinary least squares of `y = a + b f(x)` for a named form `f`
//! (`n`, `log n`, `log^2 n`, `log^3 n`, `n N`, ...), and [`fit_power`], the free power law
//! `y = c x^e` fitted on log-log axes, whose exponent comes with a 95% interval. The verdict rules
//! of the report compare that exponent with the *local exponent* of the claimed form over the same
//! range ([`local_exponent`]), which is how an `O(log n)` claim can be checked on a finite range.
//!
//! ```
//! use poplab::fit::{Form, fit_form, fit_power, local_exponent};
//!
//! let xs = [100.0, 1000.0, 10_000.0, 100_000.0];
//! // y = 3 x^2: the power law finds the exponent and the coefficient.
//! let ys: Vec<f64> = xs.iter().map(|x| 3.0 * x * x).collect();
//! let power = fit_power(&xs, &ys).unwrap();
//! assert!((power.exponent - 2.0).abs() < 1e-9 && (power.coefficient / 3.0 - 1.0).abs() < 1e-9);
//! // y = 5 + 2 ln x: the form `log x` fits it exactly.
//! let ys: Vec<f64> = xs.iter().map(|x| 5.0 + 2.0 * x.ln()).collect();
//! let log = fit_form(Form::Log, &xs, &ys).unwrap();
//! assert!((log.a - 5.0).abs() < 1e-9 && (log.b - 2.0).abs() < 1e-9 && log.r2 > 1.0 - 1e-12);
//! // On this range ln x grows about like x^0.13: the exponent a power law fitted to an
//! // O(log n) quantity shows.
//! let exponent = local_exponent(Form::Log, &xs).unwrap();
//! assert!(exponent > 0.1 && exponent < 0.2);
//! ```

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A growth form `f` in `y = a + b f(x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `f(x) = x`
    Linear,
    /// `f(x) = ln x`
    Log,
    /// `f(x) = (ln x)^2`
    Log2,
    /// `f(x) = (ln x)^3`
    Log3,
    /// `f(x) = x^2` (for example `n N` with `N = n`)
    Square,
    /// `f(x) = x ln x`
    XLogX,
}

impl Form {
    /// The general forms, in the order reports list them (sweeps fit each).
    pub const ALL: [Form; 6] = [Form::Linear, Form::Log, Form::Log2, Form::Log3, Form::Square, Form::XLogX];

    /// The form as written in reports.
    pub fn name(self) -> &'static str {
        match self {
            Form::Linear => "x",
            Form::Log => "log x",
            Form::Log2 => "log^2 x",
            Form::Log3 => "log^3 x",
            Form::Square => "x^2",
            Form::XLogX => "x log x",
        }
    }

    /// `f(x)`.
    pub fn eval(self, x: f64) -> f64 {
        match self {
            Form::Linear => x,
            Form::Log => x.ln(),
            Form::Log2 => x.ln().powi(2),
            Form::Log3 => x.ln().powi(3),
            Form::Square => x * x,
            Form::XLogX => x * x.ln(),
        }
    }
}

/// The least-squares fit `y = a + b f(x)`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FormFit {
    /// The form's name, e.g. `log^2 n`.
    pub form: &'static str,
    /// The intercept.
    pub a: f64,
    /// The coefficient of the form.
    pub b: f64,
    /// Coefficient of determination.
    pub r2: f64,
}

/// A straight line fitted by least squares, with the standard error of its slope.
#[derive(Clone, Copy, Debug)]
struct Line {
    intercept: f64,
    slope: f64,
    slope_se: f64,
    r2: f64,
}

fn least_squares(xs: &[f64], ys: &[f64]) -> Option<Line> {
    let n = xs.len();
    if n < 2 || n != ys.len() {
        return None;
    }
    let mx = xs.iter().sum::<f64>() / n as f64;
    let my = ys.iter().sum::<f64>() / n as f64;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let residual: f64 = xs.iter().zip(ys).map(|(x, y)| (y - intercept - slope * x).powi(2)).sum();
    let r2 = if syy == 0.0 { 1.0 } else { 1.0 - residual / syy };
    let slope_se = if n > 2 { (residual / (n - 2) as f64 / sxx).sqrt() } else { f64::NAN };
    Some(Line { intercept, slope, slope_se, r2 })
}

/// Fits `y = a + b f(x)`; `None` with fewer than two distinct points.
pub fn fit_form(form: Form, xs: &[f64], ys: &[f64]) -> Option<FormFit> {
    let fx: Vec<f64> = xs.iter().map(|&x| form.eval(x)).collect();
    least_squares(&fx, ys).map(|l| FormFit { form: form.name(), a: l.intercept, b: l.slope, r2: l.r2 })
}

/// The power law `y = c x^e` fitted on log-log axes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PowerFit {
    /// `c` of `c x^e`.
    pub coefficient: f64,
    /// `e` of `c x^e`.
    pub exponent: f64,
    /// 95% interval of the exponent (Student t, `points - 2` degrees of freedom); `None` with
    /// fewer than three points.
    pub exponent_ci95: Option<[f64; 2]>,
    /// The coefficient of determination on log-log axes.
    pub r2: f64,
}

/// Fits `y = c x^e` by least squares of `ln y` on `ln x`; every value must be positive.
pub fn fit_power(xs: &[f64], ys: &[f64]) -> Option<PowerFit> {
    if xs.iter().chain(ys).any(|&v| v <= 0.0 || !v.is_finite()) {
        return None;
    }
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let ly: Vec<f64> = ys.iter().map(|y| y.ln()).collect();
    let line = least_squares(&lx, &ly)?;
    let exponent_ci95 = (xs.len() > 2).then(|| {
        let t = StudentsT::new(0.0, 1.0, (xs.len() - 2) as f64).map(|d| d.inverse_cdf(0.975)).unwrap_or(f64::NAN);
        [line.slope - t * line.slope_se, line.slope + t * line.slope_se]
    });
    Some(PowerFit { coefficient: line.intercept.exp(), exponent: line.slope, exponent_ci95, r2: line.r2 })
}

/// The exponent a power law fitted to `f` itself over `xs` would show: how fast `f` grows on this
/// range (1 for `x`, about 0.2 for `log x` between 10^2 and 10^5).
pub fn local_exponent(form: Form, xs: &[f64]) -> Option<f64> {
    let ys: Vec<f64> = xs.iter().map(|&x| form.eval(x)).collect();
    fit_power(xs, &ys).map(|p| p.exponent)
}

/// A straight line `y = a + b x` fitted to points each known with a standard error.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct WeightedLine {
    /// `a`.
    pub intercept: f64,
    /// `b`.
    pub slope: f64,
    /// 95% interval of `b`: from the points' standard errors, widened by the Birge ratio
    /// `sqrt(chi^2 / (points - 2))` when the points scatter more than their errors say (then
    /// with Student t quantiles).
    pub slope_ci95: [f64; 2],
    /// `chi^2 / (points - 2)` (`None` with two points): near 1 when the line fits within the errors.
    pub reduced_chi2: Option<f64>,
}

/// Fits `y = a + b x` by weighted least squares, weights `1 / se^2`; `None` with fewer than two
/// distinct `x` or a standard error that is not positive and finite.
pub fn fit_weighted_line(xs: &[f64], ys: &[f64], ses: &[f64]) -> Option<WeightedLine> {
    let k = xs.len();
    if k < 2 || ys.len() != k || ses.len() != k || ses.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return None;
    }
    let ws: Vec<f64> = ses.iter().map(|s| 1.0 / (s * s)).collect();
    let sw: f64 = ws.iter().sum();
    let mx = ws.iter().zip(xs).map(|(w, x)| w * x).sum::<f64>() / sw;
    let my = ws.iter().zip(ys).map(|(w, y)| w * y).sum::<f64>() / sw;
    let sxx: f64 = ws.iter().zip(xs).map(|(w, x)| w * (x - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = ws.iter().zip(xs.iter().zip(ys)).map(|(w, (x, y))| w * (x - mx) * (y - my)).sum::<f64>() / sxx;
    let intercept = my - slope * mx;
    let chi2: f64 = ws.iter().zip(xs.iter().zip(ys)).map(|(w, (x, y))| w * (y - intercept - slope * x).powi(2)).sum();
    let reduced_chi2 = (k > 2).then(|| chi2 / (k - 2) as f64);
    let (scale, quantile) = match reduced_chi2 {
        Some(r) if r > 1.0 => {
            (r.sqrt(), StudentsT::new(0.0, 1.0, (k - 2) as f64).map(|d| d.inverse_cdf(0.975)).unwrap_or(f64::NAN))
        }
        _ => (1.0, 1.959_963_984_540_054),
    };
    let half = quantile * scale / sxx.sqrt();
    Some(WeightedLine { intercept, slope, slope_ci95: [slope - half, slope + half], reduced_chi2 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_forms() {
        let xs: Vec<f64> = [10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0].to_vec();
        for form in Form::ALL {
            let ys: Vec<f64> = xs.iter().map(|&x| 2.5 + 0.75 * form.eval(x)).collect();
            let fit = fit_form(form, &xs, &ys).unwrap();
            assert!(
                (fit.a - 2.5).abs() < 1e-6 && (fit.b - 0.75).abs() < 1e-9 && fit.r2 > 0.999_999,
                "{form:?}: {fit:?}"
            );
        }
    }

    #[test]
    fn recovers_known_exponents_with_noise() {
        // y = 3 x^1.5 with a deterministic +-5% wobble.
        let xs: Vec<f64> = (1..=12).map(|i| 10f64.powf(1.0 + i as f64 / 4.0)).collect();
        let ys: Vec<f64> =
            xs.iter().enumerate().map(|(i, &x)| 3.0 * x.powf(1.5) * if i % 2 == 0 { 1.05 } else { 0.95 }).collect();
        let fit = fit_power(&xs, &ys).unwrap();
        assert!((fit.exponent - 1.5).abs() < 0.02, "{fit:?}");
        let [lo, hi] = fit.exponent_ci95.unwrap();
        assert!(lo < 1.5 && 1.5 < hi && hi - lo < 0.1, "{lo} {hi}");
        assert!(fit_power(&[1.0, 2.0], &[0.0, 1.0]).is_none());
    }

    #[test]
    fn local_exponents() {
        let xs = [100.0, 1000.0, 10_000.0, 100_000.0];
        assert!((local_exponent(Form::Linear, &xs).unwrap() - 1.0).abs() < 1e-12);
        assert!((local_exponent(Form::Square, &xs).unwrap() - 2.0).abs() < 1e-12);
        let log = local_exponent(Form::Log, &xs).unwrap();
        assert!(log > 0.1 && log < 0.2, "{log}");
    }

    #[test]
    fn weighted_line_intervals() {
        // Exact points: the slope, and an interval from the errors alone (chi^2 = 0).
        let xs = [4.0, 8.0, 16.0, 32.0];
        let ys: Vec<f64> = xs.iter().map(|x| 1.0 + 0.5 * x).collect();
        let fit = fit_weighted_line(&xs, &ys, &[0.1; 4]).unwrap();
        assert!((fit.slope - 0.5).abs() < 1e-12 && (fit.intercept - 1.0).abs() < 1e-9, "{fit:?}");
        let half = (fit.slope_ci95[1] - fit.slope_ci95[0]) / 2.0;
        let sxx: f64 = xs.iter().map(|x| (x - 15.0f64).powi(2) / 0.01).sum();
        assert!((half - 1.959_963_984_540_054 / sxx.sqrt()).abs() < 1e-12, "{half}");
        // Points scattering ten times their errors widen the interval by the Birge ratio.
        let wobbly: Vec<f64> = ys.iter().enumerate().map(|(i, y)| y + if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let loose = fit_weighted_line(&xs, &wobbly, &[0.1; 4]).unwrap();
        assert!(loose.reduced_chi2.unwrap() > 50.0);
        assert!(loose.slope_ci95[1] - loose.slope_ci95[0] > 10.0 * (fit.slope_ci95[1] - fit.slope_ci95[0]));
        assert!(loose.slope_ci95[0] < 0.5 && 0.5 < loose.slope_ci95[1]);
        assert!(fit_weighted_line(&[1.0, 1.0], &[0.0, 1.0], &[1.0, 1.0]).is_none());
        assert!(fit_weighted_line(&[1.0, 2.0], &[0.0, 1.0], &[1.0, 0.0]).is_none());
    }
}
