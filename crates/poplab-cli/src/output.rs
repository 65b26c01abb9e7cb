//! What the commands print for people, and where output goes.

use anyhow::{Context, Result};
use poplab::engine::Measure;
use poplab::rng::RNG_NAME;
use poplab::spec::{RunResult, RunSpec};
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
    let row =
        |label: &str, steps: Option<f64>| format!("{label:<22}{:>20}{:>20}\n", fmt(steps), fmt(steps.map(|v| v / n)));
    let _ = writeln!(out, "{:<22}{:>20}{:>20}", "", "steps", "parallel time");
    out += &row("mean", sm.mean_steps);
    if let Some(bound) = sm.mean_steps_lower_bound {
        out += &row("mean (lower bound)", Some(bound));
    }
    out += &row("median", sm.median_steps);
    out += &row("10% quantile", sm.p10_steps);
    out += &row("90% quantile", sm.p90_steps);
    if let Some([lo, hi]) = sm.ci95_parallel_time {
        let _ = writeln!(
            out,
            "{:<22}{:>20}{:>20}",
            "95% CI of mean",
            format!("[{}, {}]", fmt(Some(lo * n)), fmt(Some(hi * n))),
            format!("[{}, {}]", fmt(Some(lo)), fmt(Some(hi)))
        );
    }
    out += &row("min", sm.min_steps.map(|v| v as f64));
    out += &row("max", sm.max_steps.map(|v| v as f64));
    if let Some(states) = sm.max_distinct_states {
        let _ = writeln!(out, "\ndistinct states visited: at most {states} in one trial");
    }
    if !sm.last_demotion.is_empty() {
        let causes: Vec<String> = sm.last_demotion.iter().map(|(cause, count)| format!("{cause} {count}")).collect();
        let _ = writeln!(out, "last demotion by: {}", causes.join(", "));
    }
    out
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
