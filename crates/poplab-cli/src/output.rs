//! What the commands print for people, and where output goes.

use anyhow::{Context, Result};
use poplab::engine::{Measure, Outcome};
use poplab::rng::RNG_NAME;
use poplab::spec::{RunResult, RunSpec};
use poplab::verdict::bootstrap_mean_ci95;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// What ran, as the first line of a table for people: protocol, n, parameters, graph, start.
pub fn what_ran(spec: &RunSpec) -> String {
    let s = &spec.settings;
    format!(
        "{} n={} {}  graph={} init={}",
        spec.protocol,
        spec.n,
        Value::Object(spec.params.clone()),
        s.graph.name(),
        s.init.name()
    )
}

/// A table for people.
pub fn human(result: &RunResult) -> String {
    let spec = &result.spec;
    let s = &spec.settings;
    let sm = &result.summary;
    let mut out = String::new();
    let _ = writeln!(out, "{} measure={} engine={}", what_ran(spec), s.measure.name(), s.engine.name());
    let _ = writeln!(out, "rng={RNG_NAME} seed={} trials={} max_steps={}", s.seed, sm.trials, s.max_steps);
    let ended = match s.measure {
        Measure::Convergence => format!("converged {}", sm.converged),
        Measure::Holding => format!("broken {}", sm.broken.unwrap_or(0)),
    };
    let _ = writeln!(out, "{ended}, censored {} (censored trials are lower bounds)\n", sm.censored);
    let n = spec.n as f64;
    let mut rows: Vec<[String; 3]> = vec![[String::new(), "steps".into(), "parallel time".into()]];
    let row = |label: &str, steps: Option<f64>| [label.into(), fmt(steps), fmt(steps.map(|v| v / n))];
    rows.push(row("mean", sm.mean_steps));
    if let Some(bound) = sm.mean_steps_lower_bound {
        rows.push(row("mean (lower bound)", Some(bound)));
    }
    rows.push(row("median", sm.median_steps));
    rows.push(row("10% quantile", sm.p10_steps));
    rows.push(row("90% quantile", sm.p90_steps));
    // Where the mean is known (no trial censored): its percentile bootstrap interval, which
    // follows skewed and bimodal times and never runs below zero as a t-interval can.
    let ended: Vec<f64> =
        result.records.iter().filter(|r| r.outcome != Outcome::Censored).map(|r| r.steps.0 as f64).collect();
    if let (Some(_), Some([lo, hi])) = (sm.ci95_parallel_time, bootstrap_mean_ci95(&ended, s.seed)) {
        let interval = |lo: f64, hi: f64| format!("[{}, {}]", fmt(Some(lo)), fmt(Some(hi)));
        rows.push(["95% CI of mean (bootstrap)".into(), interval(lo, hi), interval(lo / n, hi / n)]);
    }
    rows.push(row("min", sm.min_steps.map(|v| v as f64)));
    rows.push(row("max", sm.max_steps.map(|v| v as f64)));
    out += &columns(&rows);
    if let Some(states) = sm.max_distinct_states {
        let _ = writeln!(out, "\ndistinct states visited: at most {states} in one trial");
    }
    if !sm.last_demotion.is_empty() {
        let causes: Vec<String> = sm.last_demotion.iter().map(|(cause, count)| format!("{cause} {count}")).collect();
        let _ = writeln!(out, "last demotion by: {}", causes.join(", "));
    }
    out
}

/// Rows as text columns: the first left-aligned, the others right-aligned, each as wide as its
/// widest cell and at least 20 characters, two spaces apart at the least (cells never run into
/// each other, however long an interval).
fn columns(rows: &[[String; 3]]) -> String {
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (first, second, third) = (width(0) + 2, (width(1) + 2).max(20), (width(2) + 2).max(20));
    rows.iter().map(|[a, b, c]| format!("{a:<first$}{b:>second$}{c:>third$}\n")).collect()
}

fn fmt(value: Option<f64>) -> String {
    match value {
        None => "-".into(),
        Some(v) if v.abs() >= 1e7 => format!("{v:.4e}"),
        Some(v) if v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
    }
}

/// Writes `text` to `path` atomically (see `poplab::files::write_atomic`), or to standard output.
pub fn write_text(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes()).context("writing to standard output")?;
            stdout.flush().context("writing to standard output")
        }
        Some(path) => Ok(poplab::files::write_atomic(path, text)?),
    }
}

/// A number of steps given by its base-10 logarithm: plain below `10^300`, `10^x` beyond.
fn steps_from_log10(log10: f64) -> String {
    if log10 <= poplab::splitting::LOG10_ONLY_ABOVE {
        format!("{:.6e}", 10f64.powf(log10))
    } else {
        format!("10^{log10:.3}")
    }
}

/// The lines of a splitting estimate: the value with its interval, the method's figures and the
/// speed-up over direct simulation.
pub fn holding_estimate(estimate: &poplab::splitting::HoldingEstimate, n: usize, seconds: f64) -> String {
    let [lo, hi] = estimate.log10_ci95;
    let levels = &estimate.levels;
    format!(
        "expected holding time  {} steps  95% CI [{}, {}]  (10^{:.3}; parallel time {})\n\
         reference set score <= {}{}  mean cycle {:.4} steps  P(break before return) 10^{:.3}  gAMS levels {:.1} \
         per repetition (max score {})\n\
         interactions simulated {}  in {:.2} s; direct simulation would need about 10^{:.2} for this precision \
         (speed-up 10^{:.2})\n",
        steps_from_log10(estimate.log10_mean_steps),
        steps_from_log10(lo),
        steps_from_log10(hi),
        estimate.log10_mean_steps,
        steps_from_log10(estimate.log10_mean_steps - (n as f64).log10()),
        levels.base,
        if levels.base_from_pilot { " (from the pilot run)" } else { "" },
        estimate.mean_cycle_steps,
        estimate.log10_break_probability,
        levels.mean_iterations,
        levels.max_level,
        estimate.interactions_simulated,
        seconds,
        estimate.log10_direct_equivalent_interactions,
        estimate.log10_speedup
    ) + &skew_warning(estimate)
}

/// A warning when the repetitions' estimates are too skewed for their interval to be trusted.
fn skew_warning(estimate: &poplab::splitting::HoldingEstimate) -> String {
    let variance = estimate.levels.binomial_relative_variance;
    if variance <= 1.0 {
        return String::new();
    }
    format!(
        "warning: gAMS relative variance per repetition at least {variance:.3}: the repetitions are skewed, so the \
         interval may be too narrow and the estimate too high; give --replicas {} or more (it falls as 1/R; below \
         0.25 is safe)\n",
        (estimate.replicas as f64 * variance / 0.25).ceil()
    )
}

/// A holding curve: one line per cell, then the fits along the swept axis.
pub fn holding_curve(curve: &poplab::sweep::estimates::HoldingCurve) -> String {
    let mut out = String::new();
    for cell in &curve.cells {
        let e = &cell.estimate;
        out += &format!(
            "{:<24} E[T] {} steps  95% CI [{}, {}]  (10^{:.3})  {} interactions  {:.1} s{}\n",
            cell.cell,
            steps_from_log10(e.log10_mean_steps),
            steps_from_log10(e.log10_ci95[0]),
            steps_from_log10(e.log10_ci95[1]),
            e.log10_mean_steps,
            e.interactions_simulated,
            cell.wall_seconds,
            if e.levels.binomial_relative_variance > 1.0 { "  (skewed: raise --replicas)" } else { "" }
        );
    }
    if let Some(fit) = &curve.fit {
        let line = &fit.exponential;
        out += &format!(
            "log10 E[T] = {:.4} + {:.5} {}: rate {:.5} decades [{:.5}, {:.5}] = e^({:.5} {}) [{:.5}, {:.5}] per unit{}\n",
            line.intercept,
            line.slope,
            fit.axis,
            line.slope,
            line.slope_ci95[0],
            line.slope_ci95[1],
            fit.exponential_rate_e,
            fit.axis,
            fit.exponential_rate_e_ci95[0],
            fit.exponential_rate_e_ci95[1],
            line.reduced_chi2.map_or(String::new(), |c| format!("  (reduced chi^2 {c:.3})"))
        );
        if let Some(power) = &fit.power {
            out += &format!(
                "log10 E[T] = {:.4} + {:.5} log10 {}: power exponent {:.5} [{:.5}, {:.5}]{}\n",
                power.intercept,
                power.slope,
                fit.axis,
                power.slope,
                power.slope_ci95[0],
                power.slope_ci95[1],
                power.reduced_chi2.map_or(String::new(), |c| format!("  (reduced chi^2 {c:.3})"))
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_intervals_stay_in_their_columns() {
        // The table used to print `[-2.4109e10, 2.8666e10][-2410.900, 2866.600]`: 22-character
        // cells in 20-character columns.
        let rows = [
            [String::new(), "steps".into(), "parallel time".into()],
            ["mean".into(), "2.3000e9".into(), "230.000".into()],
            ["95% CI of mean (bootstrap)".into(), "[1.2109e10, 2.8666e10]".into(), "[1210.900, 2866.600]".into()],
        ];
        let text = columns(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].contains("2.8666e10]  ") && !lines[2].contains("]["), "{text}");
        // Every column ends where the same column of the other rows ends.
        assert!(lines.iter().all(|l| l.chars().count() == lines[0].chars().count()), "{text}");
        assert!(lines[1].ends_with("   230.000") && lines[0].ends_with(" parallel time"), "{text}");
        // Short cells keep the 20-character columns.
        let short = columns(&[["mean".into(), "79".into(), "3.950".into()]]);
        assert_eq!(short, format!("mean  {:>20}{:>20}\n", "79", "3.950"));
    }
}
