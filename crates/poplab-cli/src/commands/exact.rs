//! `poplab exact` and `poplab verify`: exhaustive analysis of small populations (see
//! `poplab::exact`).

use crate::input::{InputError, parse_count, parse_graph, parse_init};
use crate::output::write_text;
use anyhow::Result;
use clap::Args;
use poplab::exact::{
    Check, Counterexample, DEFAULT_MAX_CONFIGS, ExploreSettings, Starts, expected_steps, verify as verify_space,
};
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::{ProtocolVisitor, with_protocol};
use poplab::rng::TrialStreams;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ExactArgs {
    /// The protocol (see `poplab list`).
    pub protocol: String,

    /// Number of agents (accepts 10, 10^2, 1e2); the configuration space grows fast with it.
    #[arg(long, value_parser = parse_count)]
    pub n: u64,

    /// A protocol parameter, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// Start configuration: default, a named family, or @FILE.json (an array of agent states).
    #[arg(long, value_name = "SPEC", default_value = "default")]
    pub init: String,

    /// Interaction graph: complete, ring, undirected-ring, or @FILE. Default: the protocol's own.
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,

    /// Refuse to explore more configurations than this.
    #[arg(long, value_parser = parse_count, default_value_t = DEFAULT_MAX_CONFIGS as u64)]
    pub max_configs: u64,

    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The protocol (see `poplab list`).
    pub protocol: String,

    /// Number of agents (accepts 10, 10^2, 1e2); the configuration space grows fast with it.
    #[arg(long, value_parser = parse_count)]
    pub n: u64,

    /// A protocol parameter, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// Where to start: `default` (the protocol's initial configuration), `all` (every configuration
    /// of the state space: for stabilizing protocols), a named family, or @FILE.json.
    #[arg(long, value_name = "SPEC", default_value = "default")]
    pub from: String,

    /// Interaction graph: complete, ring, undirected-ring, or @FILE. Default: the protocol's own.
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,

    /// Refuse to explore more configurations than this.
    #[arg(long, value_parser = parse_count, default_value_t = DEFAULT_MAX_CONFIGS as u64)]
    pub max_configs: u64,

    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// What a command prints: a JSON document or a text, and whether it reports a failure.
struct Printed {
    json: Value,
    text: String,
    failed: Option<String>,
}

pub fn exact(args: &ExactArgs) -> Result<()> {
    let (n, params, graph, max_configs) = common(args.n, &args.set, args.graph.as_deref(), args.max_configs)?;
    if args.init == "random" {
        return Err(InputError(
            "exact analysis starts from one configuration, not a random one; give --init default, a family, or \
             @FILE.json (or use poplab verify --from all)"
                .into(),
        )
        .into());
    }
    let init = parse_init(&args.init)?;
    let printed = with_protocol(&args.protocol, n, &params, ExactVisitor { init, graph, max_configs })??;
    finish(printed, args.json, args.out.as_deref())
}

pub fn verify(args: &VerifyArgs) -> Result<()> {
    let (n, params, graph, max_configs) = common(args.n, &args.set, args.graph.as_deref(), args.max_configs)?;
    let from = match args.from.as_str() {
        "all" => None,
        "random" => {
            return Err(InputError(
                "--from random is not a set of configurations; use --from all to start from every configuration".into(),
            )
            .into());
        }
        spec => Some(parse_init(spec)?),
    };
    let printed = with_protocol(
        &args.protocol,
        n,
        &params,
        VerifyVisitor { from, from_name: args.from.clone(), graph, max_configs },
    )??;
    finish(printed, args.json, args.out.as_deref())
}

fn common(
    n: u64,
    set: &[String],
    graph: Option<&str>,
    max_configs: u64,
) -> Result<(usize, Params, Option<Graph>, usize)> {
    let n = usize::try_from(n).map_err(|_| InputError(format!("n = {n} is too large for this machine")))?;
    let params = Params::parse(set)?;
    let graph = graph.map(parse_graph).transpose()?;
    let max_configs = usize::try_from(max_configs)
        .map_err(|_| InputError(format!("--max-configs {max_configs} is too large for this machine")))?;
    Ok((n, params, graph, max_configs))
}

fn finish(printed: Printed, json: bool, out: Option<&Path>) -> Result<()> {
    let text = if json { format!("{:#}\n", printed.json) } else { printed.text };
    write_text(out, &text)?;
    match printed.failed {
        None => Ok(()),
        Some(what) => Err(anyhow::anyhow!("verification failed: {what}")),
    }
}

struct ExactVisitor {
    init: InitSpec,
    graph: Option<Graph>,
    max_configs: usize,
}

impl ProtocolVisitor for ExactVisitor {
    type Output = Result<Printed>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Result<Printed> {
        let graph = self.graph.unwrap_or_else(|| protocol.default_graph());
        let start = self.init.build(&protocol, &mut TrialStreams::new(0).init)?;
        let settings = ExploreSettings { graph: graph.clone(), max_configs: self.max_configs };
        let report = expected_steps(&protocol, &start, &settings)?;
        let finite = report.expected_steps.is_finite();
        let number = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
        let mut json = json!({
            "protocol": protocol.info().name,
            "n": protocol.n(),
            "params": protocol.params(),
            "graph": graph.name(),
            "init": self.init.name(),
            "max_configs": self.max_configs,
            "configurations": report.configurations,
            "transient_configurations": report.transient,
            "transitions": report.transitions,
            "converges_with_probability_1": finite,
            "expected_steps": number(report.expected_steps),
            "variance_steps": number(report.variance_steps),
            "std_steps": number(report.variance_steps.sqrt()),
            "expected_parallel_time": number(report.expected_parallel_time),
            "relative_error_bound": report.relative_error_bound,
            "variance_error_bound": report.variance_error_bound,
            "largest_component": report.largest_component,
            "solver": report.solver,
        });
        if let Some(trap) = &report.trap {
            json["trap"] = counterexample_json(&protocol, trap);
        }
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{} n={} {}  graph={} init={}",
            protocol.info().name,
            protocol.n(),
            Value::Object(protocol.params()),
            graph.name(),
            self.init.name()
        );
        let _ = writeln!(
            text,
            "configurations {} ({} transient, largest strongly connected component {}), transitions {}, solver {}\n",
            report.configurations, report.transient, report.largest_component, report.transitions, report.solver
        );
        if finite {
            let _ = writeln!(text, "{:<26}{:>24}{:>24}", "", "steps", "parallel time");
            let n = protocol.n() as f64;
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
            let _ = writeln!(text, "expected steps: infinite (the safe set is not reached with probability 1)");
            if let Some(trap) = &report.trap {
                text += &counterexample_text(&protocol, trap);
            }
        }
        Ok(Printed { json, text, failed: None })
    }
}

struct VerifyVisitor {
    from: Option<InitSpec>,
    from_name: String,
    graph: Option<Graph>,
    max_configs: usize,
}

impl ProtocolVisitor for VerifyVisitor {
    type Output = Result<Printed>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Result<Printed> {
        let graph = self.graph.unwrap_or_else(|| protocol.default_graph());
        let starts = match &self.from {
            Some(spec) => Starts::Configurations(vec![spec.build(&protocol, &mut TrialStreams::new(0).init)?]),
            None => Starts::Every(protocol.state_space().ok_or_else(|| {
                InputError(format!(
                    "{} does not list its state space (or it is too large to list), so --from all is not available; \
                     use --from default, a family or @FILE.json, or smaller parameters",
                    protocol.info().name
                ))
            })?),
        };
        let settings = ExploreSettings { graph: graph.clone(), max_configs: self.max_configs };
        let v = verify_space(&protocol, &starts, &settings)?;
        let check_json = |check: &Check<P::State>| {
            let mut value = json!({"passed": check.passed, "violations": check.violations});
            if let Some(cx) = &check.counterexample {
                value["counterexample"] = counterexample_json(&protocol, cx);
            }
            value
        };
        let json = json!({
            "protocol": protocol.info().name,
            "n": protocol.n(),
            "params": protocol.params(),
            "graph": graph.name(),
            "from": self.from_name,
            "max_configs": self.max_configs,
            "configurations": v.configurations,
            "starts": v.starts,
            "safe": v.safe,
            "transitions": v.transitions,
            "bottom_components": v.bottom_components,
            "unsafe_bottom_components": v.unsafe_bottom_components,
            "mode": if v.dense { "dense" } else { "explored" },
            "closure": check_json(&v.closure),
            "safety": check_json(&v.safety),
            "convergence": check_json(&v.convergence),
            "passed": v.passed(),
        });
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{} n={} {}  graph={} from={}",
            protocol.info().name,
            protocol.n(),
            Value::Object(protocol.params()),
            graph.name(),
            self.from_name
        );
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
        let lines: [(&str, &Check<P::State>, String, String); 3] = [
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
                    text += &counterexample_text(&protocol, cx);
                }
            }
        }
        let failed = (!failed.is_empty()).then(|| failed.join(", "));
        Ok(Printed { json, text, failed })
    }
}

fn states_json<P: Protocol>(protocol: &P, agents: &[P::State]) -> Value {
    Value::Array(agents.iter().map(|&s| Value::Object(protocol.state_to_json(s))).collect())
}

fn counterexample_json<P: Protocol>(protocol: &P, cx: &Counterexample<P::State>) -> Value {
    json!({
        "reason": cx.reason,
        "start": states_json(protocol, &cx.start),
        "schedule": cx.schedule.iter().map(|&(u, v)| json!([u, v])).collect::<Vec<_>>(),
        "end": states_json(protocol, &cx.end),
    })
}

fn counterexample_text<P: Protocol>(protocol: &P, cx: &Counterexample<P::State>) -> String {
    let schedule = if cx.schedule.is_empty() {
        "(none: the start itself)".to_string()
    } else {
        cx.schedule.iter().map(|(u, v)| format!("({u},{v})")).collect::<Vec<_>>().join(" ")
    };
    format!(
        "  shortest counterexample ({} steps): {}\n    start    {}\n    schedule {}\n    end      {}\n",
        cx.schedule.len(),
        cx.reason,
        states_json(protocol, &cx.start),
        schedule,
        states_json(protocol, &cx.end)
    )
}

fn fmt(v: f64) -> String {
    if v.abs() >= 1e9 { format!("{v:.10e}") } else { format!("{v:.6}") }
}
