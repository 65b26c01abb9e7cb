//! The command line: every subcommand and option, with the help text users read.

use crate::input::{parse_count, parse_steps};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// poplab: run population protocols, measure what the papers claim.
#[derive(Debug, Parser)]
#[command(name = "poplab", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the protocols, their parameters with defaults, and their named initial configurations.
    List(ListArgs),
    /// Run independent trials of a protocol and report when each reached its safe set.
    Run(RunArgs),
    /// Run a protocol over the cross product of sizes and parameter lists, trial by trial into a
    /// directory (resumable with --resume).
    Sweep(SweepArgs),
    /// Run the experiment of every claim of the four papers and write a report with plots and verdicts.
    Reproduce(ReproduceArgs),
    /// Exact expected steps to the safe set of a small population (absorbing Markov chain).
    Exact(crate::commands::exact::ExactArgs),
    /// Check closure, safety and convergence of a small population exhaustively.
    Verify(crate::commands::exact::VerifyArgs),
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MeasureArg {
    /// Steps until the safe set is first entered (after the last fault, if any).
    Convergence,
    /// Steps from a safe configuration until the leader changes or the leader count leaves 1.
    Holding,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// batched on the complete graph without faults where few states are present (protocols with at most 64 states; pll, pll-sym from n = 10^5), agents otherwise.
    Auto,
    /// One state per agent: any graph.
    Agents,
    /// Counts over the states present, skipping null interactions exactly: complete graph only.
    Counts,
    /// Counts, taking collision-free runs of interactions in bulk (exact): complete graph only.
    Batched,
}

impl EngineArg {
    pub fn engine(self) -> poplab::engine::Engine {
        match self {
            EngineArg::Auto => poplab::engine::Engine::Auto,
            EngineArg::Agents => poplab::engine::Engine::Agents,
            EngineArg::Counts => poplab::engine::Engine::Counts,
            EngineArg::Batched => poplab::engine::Engine::Batched,
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The protocol (see `poplab list`).
    pub protocol: String,

    /// Number of agents (accepts 1000, 10^5, 1e5).
    #[arg(long, value_parser = parse_count)]
    pub n: u64,

    /// A protocol parameter, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// Initial configuration: default, random, a named family, or @FILE.json (an array of agent
    /// states). Default: `default`, or `safe` with --measure holding.
    #[arg(long, value_name = "SPEC")]
    pub init: Option<String>,

    /// Interaction graph: complete, ring (directed), undirected-ring, or @FILE with one arc "u v"
    /// per line. Default: the protocol's own (the directed ring for ring protocols, else complete).
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,

    /// What to measure.
    #[arg(long, value_enum, default_value_t = MeasureArg::Convergence)]
    pub measure: MeasureArg,

    /// Independent trials.
    #[arg(long, default_value = "1", value_parser = parse_count)]
    pub trials: u64,

    /// Master seed; trial i uses the i-th SplitMix64 output of it.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Horizon in steps: a trial that reaches it is reported as censored (a lower bound).
    #[arg(long, default_value = "10^12", value_parser = parse_steps)]
    pub max_steps: u128,

    /// A transient fault STEP:K[:FAMILY]: at STEP, K agents chosen uniformly get states drawn from
    /// FAMILY (default random). Repeatable; the safe set is watched after the last fault.
    #[arg(long = "fault", value_name = "STEP:K[:FAMILY]")]
    pub faults: Vec<String>,

    /// Write a time series (trial, step, parallel time, leaders, protocol columns) to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    pub trace: Option<PathBuf>,

    /// Steps between two rows of the time series.
    #[arg(long, value_parser = parse_steps, requires = "trace")]
    pub trace_every: Option<u128>,

    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,

    /// Simulation engine (see the values below). The output's "engine" says which one ran.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Count per trial the distinct states visited and what demoted the last leader (slower).
    #[arg(long)]
    pub census: bool,

    /// Print one JSON document.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print one CSV row per trial.
    #[arg(long)]
    pub csv: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The protocol (see `poplab list`); not needed with --resume.
    #[arg(required_unless_present = "resume")]
    pub protocol: Option<String>,

    /// Population sizes: a,b,c or START..END[*F|+D] (e.g. 10^2..10^5*10).
    #[arg(long, required_unless_present = "resume", value_name = "LIST")]
    pub n: Option<String>,

    /// A swept parameter KEY=LIST (a,b,c or a range); repeatable; cells are the cross product.
    #[arg(long = "set", value_name = "KEY=LIST")]
    pub set: Vec<String>,

    /// Initial configuration (default: `default`, or `safe` with --measure holding).
    #[arg(long, value_name = "SPEC")]
    pub init: Option<String>,

    /// Interaction graph (default: the protocol's own).
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,

    /// What to measure.
    #[arg(long, value_enum, default_value_t = MeasureArg::Convergence)]
    pub measure: MeasureArg,

    /// Trials per cell.
    #[arg(long, default_value = "20", value_parser = parse_count)]
    pub trials: u64,

    /// Master seed; each cell derives its own from it and the cell's parameters.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Horizon in steps per trial (censored beyond).
    #[arg(long, default_value = "10^12", value_parser = parse_steps)]
    pub max_steps: u128,

    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,

    /// Count per trial the distinct states visited and what demoted the last leader (slower).
    #[arg(long)]
    pub census: bool,

    /// Simulation engine (see the values below). The output's "engine" says which one ran.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// The directory to write (default `sweep`); refused if it already holds a sweep.
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub out: Option<PathBuf>,

    /// Continue the sweep stored in DIR: run only its missing trials, then rewrite its summaries.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Small sizes: minutes on 2 cores (the default).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,

    /// Large sizes: hours.
    #[arg(long)]
    pub full: bool,

    /// Two sizes and four trials per claim: seconds (for testing the report, not for reading it).
    #[arg(long, conflicts_with_all = ["quick", "full"], hide = true)]
    pub tiny: bool,

    /// Master seed of every experiment.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// The report directory (an interrupted reproduction continues from the data stored there).
    #[arg(long, default_value = "report", value_name = "DIR")]
    pub out: PathBuf,

    /// Only these claims (repeatable), by id.
    #[arg(long, value_name = "CLAIM")]
    pub only: Vec<String>,

    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
}
