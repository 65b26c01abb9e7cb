//! `poplab run`: independent trials of one protocol.

use crate::cli::{MeasureArg, RunArgs};
use crate::input::{InputError, parse_count, parse_graph, parse_init, parse_steps};
use crate::output::{self, RunReport};
use crate::progress::Progress;
use anyhow::Result;
use poplab::engine::{Fault, FaultStates, Measure};
use poplab::experiment::{RunSettings, Summary, run_trials, validate};
use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::{ProtocolVisitor, with_protocol};

pub fn run(args: &RunArgs) -> Result<()> {
    let n = usize::try_from(args.n).map_err(|_| InputError(format!("n = {} is too large for this machine", args.n)))?;
    let params = Params::parse(&args.set)?;
    let measure = match args.measure {
        MeasureArg::Convergence => Measure::Convergence,
        MeasureArg::Holding => Measure::Holding,
    };
    let default_init = if measure == Measure::Holding { "safe" } else { "default" };
    let graph = args.graph.as_deref().map(parse_graph).transpose()?;
    let settings = RunSettings {
        measure,
        graph: Graph::Complete,
        init: parse_init(args.init.as_deref().unwrap_or(default_init))?,
        trials: args.trials,
        seed: args.seed,
        max_steps: args.max_steps,
        threads: args.threads,
        faults: args.faults.iter().map(|f| parse_fault(f)).collect::<Result<_>>()?,
        trace_every: args.trace.as_ref().map(|_| args.trace_every.unwrap_or(u128::from(args.n))),
        census: args.census,
        engine: args.engine.engine(),
    };
    let report = with_protocol(&args.protocol, n, &params, Trials { settings, graph })??;
    if let Some(path) = &args.trace {
        output::write_trace(&report, path)?;
    }
    let text = if args.json {
        output::json_document(&report)
    } else if args.csv {
        output::csv_rows(&report)?
    } else {
        output::human(&report)
    };
    output::write_text(args.out.as_deref(), &text)
}

/// Runs the trials of whichever protocol the registry builds.
struct Trials {
    settings: RunSettings,
    /// The graph the user chose, if any (otherwise the protocol's own).
    graph: Option<Graph>,
}

impl ProtocolVisitor for Trials {
    type Output = Result<RunReport>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Result<RunReport> {
        let settings = RunSettings { graph: self.graph.unwrap_or_else(|| protocol.default_graph()), ..self.settings };
        validate(&protocol, &settings)?;
        let engine = settings.engine_used(&protocol)?;
        let progress = Progress::new(settings.trials, protocol.info().name);
        let records = run_trials(&protocol, &settings, &|| progress.inc())?;
        drop(progress);
        let summary = Summary::of(&records, protocol.n());
        Ok(RunReport {
            protocol: protocol.info().name.to_string(),
            n: protocol.n(),
            params: protocol.params(),
            trace_columns: protocol.trace_columns().iter().map(|c| c.to_string()).collect(),
            settings,
            engine,
            records,
            summary,
        })
    }
}

/// `STEP:K[:FAMILY]`.
fn parse_fault(spec: &str) -> Result<Fault> {
    let bad =
        |why: String| InputError(format!("--fault {spec}: {why}; write STEP:K[:FAMILY], for example 1e6:5:random"));
    let mut parts = spec.splitn(3, ':');
    let step = parse_steps(parts.next().unwrap_or("")).map_err(bad)?;
    let count = parse_count(parts.next().ok_or_else(|| bad("K is missing".into()))?).map_err(bad)?;
    let states = match parts.next() {
        None | Some("random") => FaultStates::Random,
        Some(family) => FaultStates::Family(family.to_string()),
    };
    Ok(Fault::new(step, count as usize, states))
}
