//! `poplab exact` and `poplab verify`: exhaustive analysis of small populations (see
//! `poplab::exact`).

use crate::cli::{ExactArgs, ExploreArgs, VerifyArgs};
use crate::input::InputError;
use crate::output::write_text;
use anyhow::Result;
use poplab::engine::Measure;
use poplab::exact::{Check, Counterexample, ExactReport, StartTimes, Verification};
use poplab::files;
use poplab::spec::{RawSpec, RunSpec};
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// What a command prints: a JSON document or a text, and whether it reports a failure.
struct Printed {
    json: Value,
    text: String,
    failed: Option<String>,
}

pub fn exact(args: &ExactArgs) -> Result<()> {
    let mut raw = args.target.raw("exact")?;
    raw.measure = args.measure;
    let from_all = args.from.as_deref() == Some("all");
    raw.init = match (&args.init, &args.from) {
        (Some(_), Some(from)) if from != "all" => {
            return Err(InputError(format!("--from {from} and --init both give the start; give one of them")).into());
        }
        (Some(init), _) => Some(init.clone()),
        (None, Some(from)) if !from_all => Some(from.clone()),
        (None, _) => None,
    };
    if args.save_worst.is_some() && !from_all {
        return Err(InputError("--save-worst writes the worst start of --from all; add --from all".into()).into());
    }
    let spec = RunSpec::resolve(&raw)?;
    let max_configs = max_configs(args.output.max_configs)?;
    check_out(&args.output, &raw)?;
    if let Some(path) = &args.save_worst {
        files::check_output_file(path)?;
        let mut outputs = vec![("--save-worst", path.as_path())];
        if let Some(out) = &args.output.out {
            outputs.push(("--out", out.as_path()));
        }
        files::check_apart(&outputs, &raw.input_files())?;
    }
    if from_all {
        let times = spec.exact_from_every(max_configs)?;
        if let Some(path) = &args.save_worst {
            let Some(worst) = times.worst.first() else {
                return Err(anyhow::anyhow!("no start was explored"));
            };
            write_text(Some(path), &format!("{:#}\n", states_json(&worst.start)))?;
        }
        return finish(every_printed(&spec, max_configs, &times), &args.output);
    }
    let report = spec.exact(max_configs)?;
    finish(exact_printed(&spec, max_configs, &report), &args.output)
}

pub fn verify(args: &VerifyArgs) -> Result<()> {
    let mut raw = args.target.raw("verify")?;
    let from_all = args.from == "all";
    if !from_all {
        raw.init = Some(args.from.clone());
    }
    let spec = RunSpec::resolve(&raw)?;
    let max_configs = max_configs(args.output.max_configs)?;
    check_out(&args.output, &raw)?;
    let v = spec.verify(from_all, max_configs)?;
    finish(verify_printed(&spec, &args.from, max_configs, &v), &args.output)
}

fn max_configs(cap: u64) -> Result<usize> {
    Ok(usize::try_from(cap).map_err(|_| InputError(format!("--max-configs {cap} is too large for this machine")))?)
}

/// Refuses an output that cannot be written or that is one of the inputs of `raw`.
fn check_out(output: &ExploreArgs, raw: &RawSpec) -> Result<()> {
    if let Some(path) = &output.out {
        files::check_output_file(path)?;
        files::check_apart(&[("--out", path)], &raw.input_files())?;
    }
    Ok(())
}

fn finish(printed: Printed, output: &ExploreArgs) -> Result<()> {
    let text = if output.json { format!("{:#}\n", printed.json) } else { printed.text };
    write_text(output.out.as_deref(), &text)?;
    match printed.failed {
        None => Ok(()),
        Some(what) => Err(anyhow::anyhow!("verification failed: {what}")),
    }
}

type State = Map<String, Value>;

fn heading(spec: &RunSpec, start: &str) -> String {
    format!(
        "{} n={} {}  graph={} {start}",
        spec.protocol,
        spec.n,
        Value::Object(spec.params.clone()),
        spec.settings.graph.name()
    )
}

fn exact_printed(spec: &RunSpec, max_configs: usize, report: &ExactReport<State>) -> Printed {
    let finite = report.expected_steps.is_finite();
    let json = poplab::export::exact_json(spec, max_configs, report);
    let mut text = String::new();
    let _ = writeln!(text, "{}", heading(spec, &format!("init={}", spec.settings.init.name())));
    let _ = writeln!(
        text,
        "configurations {} ({} transient, largest strongly connected component {}), transitions {}, solver {}\n",
        report.configurations, report.transient, report.largest_component, report.transitions, report.solver
    );
    if finite {
        if spec.settings.measure == Measure::Holding {
            let _ = writeln!(text, "expected steps until an output changes (holding time)");
        }
        let _ = writeln!(text, "{:<26}{:>24}{:>24}", "", "steps", "parallel time");
        let n = spec.n as f64;
        let _ = writeln!(
            text,
            "{:<26}{:>24}{:>24}",
            "expected",
            fmt(report.expected_steps),
            fmt(report.expected_steps / n)
        );
        let sd = report.variance_steps.sqrt();
        let _ = writeln!(text, "{:<26}{:>24}{:>24}", "standard deviation", fmt(sd), fmt(sd / n));
        let _ = writeln!(text, "{:<26}{:>24}", "variance (steps^2)", fmt(report.variance_steps));
        let _ = writeln!(
            text,
            "\nrelative error of the expectation at most {:.1e} (residual certificate)",
            report.relative_error_bound
        );
    } else {
        let never = match spec.settings.measure {
            Measure::Convergence => "expected steps: infinite (the safe set is not reached with probability 1)",
            Measure::Holding => {
                "expected steps until an output changes: infinite (with positive probability no output ever changes)"
            }
        };
        let _ = writeln!(text, "{never}");
        if let Some(trap) = &report.trap {
            text += &counterexample_text(trap);
        }
    }
    Printed { json, text, failed: None }
}

fn every_printed(spec: &RunSpec, max_configs: usize, times: &StartTimes<State>) -> Printed {
    let json = poplab::export::exact_every_json(spec, max_configs, times);
    let n = spec.n as f64;
    let mut text = String::new();
    let _ = writeln!(text, "{}", heading(spec, "from=all"));
    let _ = writeln!(
        text,
        "starts {} (every configuration of the state space; {} safe), configurations {} ({} transient, largest \
         strongly connected component {}), transitions {}, solver {}\n",
        times.starts,
        times.safe_starts,
        times.configurations,
        times.transient,
        times.largest_component,
        times.transitions,
        times.solver
    );
    let _ = writeln!(text, "expected steps to the safe set, per start\n");
    let _ = writeln!(text, "{:<34}{:>22}{:>22}", "", "steps", "parallel time");
    let mut line = |label: &str, steps: f64| {
        let _ = writeln!(text, "{label:<34}{:>22}{:>22}", fmt(steps), fmt(steps / n));
    };
    let ties = if times.worst_ties == 1 { "1 start".to_string() } else { format!("{} starts tie", times.worst_ties) };
    line(&format!("worst ({ties})"), times.worst_steps());
    for &(q, v) in times.quantiles.iter().rev() {
        line(&format!("quantile {:.0}% of starts", q * 100.0), v);
    }
    if let Some(best) = &times.best {
        line("best start outside the safe set", best.expected_steps);
    }
    line("mean over starts (each once)", times.mean_over_starts);
    if let Some(uniform) = times.uniform_states {
        line("from uniformly random states", uniform);
    }
    let _ = writeln!(text, "\nnamed starts against the worst");
    for (name, time) in &times.named {
        match time {
            Some(t) => {
                let share = t.expected_steps / times.worst_steps();
                let share = if share.is_finite() { format!("   {share:.3} of the worst") } else { String::new() };
                let _ =
                    writeln!(text, "{:<34}{:>22}{:>22}{share}", name, fmt(t.expected_steps), fmt(t.expected_steps / n));
            }
            None => {
                let _ = writeln!(text, "{name:<34}  not a configuration over the listed state space");
            }
        }
    }
    for (i, worst) in times.worst.iter().enumerate() {
        let _ = writeln!(text, "\nworst start {}: {}", i + 1, states_json(&worst.start));
    }
    if times.worst_ties > times.worst.len() {
        let _ = writeln!(text, "(and {} more starts with the same value)", times.worst_ties - times.worst.len());
    }
    if times.infinite_starts > 0 {
        let _ = writeln!(
            text,
            "\n{} starts never reach the safe set with probability 1 (infinite expectation)",
            times.infinite_starts
        );
        if let Some(trap) = &times.trap {
            text += &counterexample_text(trap);
        }
    }
    let _ = writeln!(
        text,
        "\nrelative error of every expectation at most {:.1e} (residual certificate); --save-worst FILE.json writes \
         the worst start for --init @FILE.json",
        times.relative_error_bound
    );
    Printed { json, text, failed: None }
}

fn verify_printed(spec: &RunSpec, from: &str, max_configs: usize, v: &Verification<State>) -> Printed {
    let json = poplab::export::verify_json(spec, from, max_configs, v);
    let mut text = String::new();
    let _ = writeln!(text, "{}", heading(spec, &format!("from={from}")));
    if v.dense {
        let _ = writeln!(
            text,
            "configurations {} (every one a start; dense mode: two bits per configuration, transitions and \
             components not counted), safe {}\n",
            v.configurations, v.safe
        );
    } else {
        let _ = writeln!(
            text,
            "configurations {} ({} starts), safe {}, transitions {}, bottom strongly connected components {}\n",
            v.configurations, v.starts, v.safe, v.transitions, v.bottom_components
        );
    }
    let one = if v.election { "exactly one leader" } else { "agreeing outputs" };
    let lines: [(&str, &Check<State>, String, String); 3] = [
        (
            "closure",
            &v.closure,
            "no transition leaves the safe set".into(),
            format!("{} safe configurations have an unsafe successor", v.closure.violations),
        ),
        (
            "safety",
            &v.safety,
            format!("every safe configuration has {one}; no interaction inside changes an output"),
            format!("{} violations in the safe set", v.safety.violations),
        ),
        (
            "convergence",
            &v.convergence,
            if v.dense {
                "the safe set is reachable from every configuration (with closure: every bottom component \
                 lies in it)"
                    .into()
            } else {
                format!("all {} bottom components lie in the safe set", v.bottom_components)
            },
            if v.dense {
                format!("{} configurations cannot reach the safe set", v.convergence.violations)
            } else {
                format!(
                    "{} of {} bottom components contain unsafe configurations ({} configurations)",
                    v.unsafe_bottom_components, v.bottom_components, v.convergence.violations
                )
            },
        ),
    ];
    let mut failed = Vec::new();
    for (name, check, good, bad) in lines {
        if check.passed {
            let _ = writeln!(text, "{name:<12} PASS  {good}");
        } else {
            failed.push(name);
            let _ = writeln!(text, "{name:<12} FAIL  {bad}");
            if let Some(cx) = &check.counterexample {
                text += &counterexample_text(cx);
            }
        }
    }
    let failed = (!failed.is_empty()).then(|| failed.join(", "));
    Printed { json, text, failed }
}

fn states_json(agents: &[State]) -> Value {
    Value::Array(agents.iter().cloned().map(Value::Object).collect())
}

fn counterexample_text(cx: &Counterexample<State>) -> String {
    let schedule = if cx.schedule.is_empty() {
        "(none: the start itself)".to_string()
    } else {
        cx.schedule.iter().map(|(u, v)| format!("({u},{v})")).collect::<Vec<_>>().join(" ")
    };
    format!(
        "  shortest counterexample ({} steps): {}\n    start    {}\n    schedule {}\n    end      {}\n",
        cx.schedule.len(),
        cx.reason,
        states_json(&cx.start),
        schedule,
        states_json(&cx.end)
    )
}

fn fmt(v: f64) -> String {
    if v.abs() >= 1e9 { format!("{v:.10e}") } else { format!("{v:.6}") }
}
