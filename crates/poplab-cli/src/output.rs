//! What `poplab run` prints: a JSON document, CSV rows, a human table, and trace files.

use anyhow::{Context, Result};
use poplab::engine::{Engine, Measure};
use poplab::experiment::{RunSettings, Summary, TrialRecord};
use poplab::rng::RNG_NAME;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// Everything one `poplab run` produced.
pub struct RunReport {
    pub protocol: String,
    pub n: usize,
    pub params: Map<String, Value>,
    pub trace_columns: Vec<String>,
    pub settings: RunSettings,
    /// The engine that ran the trials (never `auto`).
    pub engine: Engine,
    pub records: Vec<TrialRecord>,
    pub summary: Summary,
}

impl RunReport {
    fn measure(&self) -> &'static str {
        match self.settings.measure {
            Measure::Convergence => "convergence",
            Measure::Holding => "holding",
        }
    }
}

/// The JSON document of a run (see README.md for its fields).
pub fn json_document(report: &RunReport) -> String {
    let s = &report.settings;
    let document = json!({
        "protocol": report.protocol,
        "n": report.n,
        "params": report.params,
        "graph": s.graph.name(),
        "init": s.init.name(),
        "measure": report.measure(),
        "engine": report.engine.name(),
        "rng": RNG_NAME,
        "seed": s.seed,
        "max_steps": s.max_steps,
        "faults": s.faults.iter().map(|f| json!({"step": f.step, "count": f.count, "states": match &f.states {
            poplab::engine::FaultStates::Random => "random".to_string(),
            poplab::engine::FaultStates::Family(name) => name.clone(),
        }})).collect::<Vec<_>>(),
        "trials": report.records,
        "summary": report.summary,
    });
    format!("{document:#}\n")
}

/// One CSV row per trial, with the run's settings on every row (tidy data).
pub fn csv_rows(report: &RunReport) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "protocol",
        "n",
        "params",
        "graph",
        "init",
        "measure",
        "engine",
        "rng",
        "master_seed",
        "trial",
        "trial_seed",
        "outcome",
        "steps",
        "parallel_time",
        "recovery_steps",
        "distinct_states",
        "last_demotion",
    ])?;
    let params = Value::Object(report.params.clone()).to_string();
    for r in &report.records {
        writer.write_record([
            report.protocol.clone(),
            report.n.to_string(),
            params.clone(),
            report.settings.graph.name(),
            report.settings.init.name(),
            report.measure().to_string(),
            report.engine.name().to_string(),
            RNG_NAME.to_string(),
            report.settings.seed.to_string(),
            r.index.to_string(),
            r.seed.to_string(),
            serde_json::to_value(r.outcome)?.as_str().unwrap_or_default().to_string(),
            r.steps.0.to_string(),
            r.parallel_time.0.to_string(),
            r.recovery_steps.map(|s| s.0.to_string()).unwrap_or_default(),
            r.distinct_states.map(|d| d.to_string()).unwrap_or_default(),
            r.last_demotion.clone().unwrap_or_default(),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

/// A table for people.
pub fn human(report: &RunReport) -> String {
    let s = &report.settings;
    let sm = &report.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} n={} {}  graph={} init={} measure={} engine={}",
        report.protocol,
        report.n,
        Value::Object(report.params.clone()),
        s.graph.name(),
        s.init.name(),
        report.measure(),
        report.engine.name()
    );
    let _ = writeln!(out, "rng={RNG_NAME} seed={} trials={} max_steps={}", s.seed, sm.trials, s.max_steps);
    let ended = match s.measure {
        Measure::Convergence => format!("converged {}", sm.converged),
        Measure::Holding => format!("broken {}", sm.broken.unwrap_or(0)),
    };
    let _ = writeln!(out, "{ended}, censored {} (censored trials are lower bounds)\n", sm.censored);
    let n = report.n as f64;
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

/// Writes the time series of every trial as CSV.
pub fn write_trace(report: &RunReport, path: &Path) -> Result<()> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["trial".to_string(), "step".into(), "parallel_time".into(), "leaders".into()];
    header.extend(report.trace_columns.iter().cloned());
    writer.write_record(&header)?;
    for r in &report.records {
        for point in &r.trace {
            let mut row = vec![
                r.index.to_string(),
                point.step.to_string(),
                (point.step as f64 / report.n as f64).to_string(),
                point.leaders.to_string(),
            ];
            row.extend(point.values.iter().map(|v| v.to_string()));
            writer.write_record(&row)?;
        }
    }
    write_text(Some(path), &String::from_utf8(writer.into_inner()?)?)
}

/// Writes `text` to `path` atomically (a temporary file renamed into place), or to standard output.
pub fn write_text(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes()).context("writing to standard output")?;
            stdout.flush().context("writing to standard output")
        }
        Some(path) => {
            let temporary = path.with_extension("partial");
            std::fs::write(&temporary, text).with_context(|| format!("writing '{}'", temporary.display()))?;
            std::fs::rename(&temporary, path).with_context(|| format!("moving the output into '{}'", path.display()))
        }
    }
}
