//! `poplab search`: the slowest start found (see `poplab::search`).

use crate::cli::SearchArgs;
use crate::output::write_text;
use anyhow::Result;
use poplab::files;
use poplab::search::{Found, SearchSettings};
use poplab::spec::{RawSpec, RunSpec};
use std::fmt::Write as _;

pub fn search(args: &SearchArgs) -> Result<()> {
    let mut raw = args.target.raw("search")?;
    raw.init = args.init.clone();
    args.control.apply(&mut raw);
    let defaults = SearchSettings::default();
    let settings = SearchSettings {
        budget: args.budget.unwrap_or(defaults.budget),
        remeasure_trials: args.trials.unwrap_or(defaults.remeasure_trials),
        top: usize::try_from(args.top).unwrap_or(usize::MAX).max(1),
        ..defaults
    };
    let spec = RunSpec::resolve(&raw)?;
    check_outputs(args, &raw)?;
    let result = spec.search(&settings, &|line| eprintln!("search: {line}"))?;
    if let Some(path) = &args.save_start {
        write_text(Some(path), &format!("{:#}\n", serde_json::Value::from(result.worst.start.clone())))?;
    }
    let text = if args.json {
        format!("{:#}\n", poplab::export::search_json(&spec, &settings, &result))
    } else {
        printed(&spec, &settings, &result)
    };
    write_text(args.out.as_deref(), &text)
}

/// Refuses an output that cannot be written, or that is an input or the other output.
fn check_outputs(args: &SearchArgs, raw: &RawSpec) -> Result<()> {
    let outputs: Vec<(&str, &std::path::Path)> =
        [("--out", args.out.as_deref()), ("--save-start", args.save_start.as_deref())]
            .into_iter()
            .filter_map(|(option, path)| Some((option, path?)))
            .collect();
    for (_, path) in &outputs {
        files::check_output_file(path)?;
    }
    files::check_apart(&outputs, &raw.input_files())?;
    Ok(())
}

fn printed(spec: &RunSpec, settings: &SearchSettings, result: &poplab::search::SearchResult) -> String {
    let n = spec.n as f64;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} n={} {}  graph={} seed={} budget={}\n",
        spec.protocol,
        spec.n,
        serde_json::Value::Object(spec.params.clone()),
        spec.settings.graph.name(),
        spec.settings.seed,
        settings.budget
    );
    let line = |f: &Found| {
        let lower = if f.censored > 0 { format!(" (>=: {} censored)", f.censored) } else { String::new() };
        format!(
            "{:>14.4} [{:.4}, {:.4}]{lower}   {:>14.0} steps   {}",
            f.mean_parallel_time,
            f.ci95[0],
            f.ci95[1],
            f.mean_parallel_time * n,
            f.description
        )
    };
    let _ = writeln!(
        text,
        "slowest start found, re-measured on {} fresh trials (mean parallel time [95% interval]):",
        settings.remeasure_trials
    );
    let _ = writeln!(text, "{}", line(&result.worst));
    let _ = writeln!(text, "\nthe slowest {} (fresh trials):", result.top.len());
    for f in &result.top {
        let _ = writeln!(text, "{}", line(f));
    }
    let _ = writeln!(text, "\nthe named families, the same way:");
    for f in &result.families {
        let ratio = result.worst.mean_parallel_time / f.mean_parallel_time;
        let ratio =
            if ratio.is_finite() { format!("   (the worst found is {ratio:.2} times this)") } else { String::new() };
        let _ = writeln!(text, "{}{ratio}", line(f));
    }
    let _ = writeln!(
        text,
        "\nspent: {} candidates, {} rounds, {} trials, {:.1} core-seconds (race horizon {} steps)",
        result.candidates, result.rounds, result.trials_run, result.core_seconds, result.race_horizon
    );
    let _ = writeln!(text, "--save-start FILE.json writes the slowest start for --init @FILE.json");
    text
}
