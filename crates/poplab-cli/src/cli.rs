//! The command line: every subcommand and option, with the help text users read.

use crate::parse::{
    choices, parse_budget, parse_count, parse_steps, parse_threads, parse_time, parse_trace_every, parse_trials,
};
use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use poplab::engine::{Engine, Measure, TraceEvery};
use poplab::spec::Estimator;
use std::path::PathBuf;

/// poplab: run population protocols, measure what the papers claim.
#[derive(Debug, Parser)]
#[command(name = "poplab", version, about, long_about = None, arg_required_else_help = true)]
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
    /// Join the shard directories of one sweep (`sweep --shard`) into the directory an unsharded
    /// sweep writes.
    Merge(MergeArgs),
    /// Run the experiment of every claim of the four papers and write a report with plots and verdicts.
    Reproduce(ReproduceArgs),
    /// Draw your own runs: leaders against time from a time series (run --trace), or the mean
    /// against n from a sweep directory, as SVG or PNG.
    Plot(PlotArgs),
    /// A space-time diagram of prl on its ring: one row per snapshot, one column per agent.
    Spacetime(SpacetimeArgs),
    /// Exact expected steps to the safe set of a small population (absorbing Markov chain).
    Exact(ExactArgs),
    /// Search for the slowest start to the safe set: candidate starts raced on common seeds, the
    /// slowest re-measured on fresh seeds (for a claim "from any configuration").
    Search(SearchArgs),
    /// Check closure, safety and convergence of a small population exhaustively.
    Verify(VerifyArgs),
    /// Print the completion script of a shell (bash, zsh, fish, powershell, elvish) to standard
    /// output.
    Completions(CompletionsArgs),
    /// Print the man page (roff) of poplab or of one subcommand to standard output, or write every
    /// page into a directory (--out).
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The page of this subcommand (run, sweep, ...) instead of poplab's own.
    pub command: Option<String>,

    /// Write poplab.1 and one page per subcommand (poplab-run.1, ...) into this directory instead.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SpacetimeArgs {
    /// The protocol: prl.
    pub protocol: String,

    /// Population size (the ring's length).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub n: u64,

    /// A protocol parameter (repeatable), e.g. N=400.
    #[arg(long, value_name = "KEY=VALUE", allow_hyphen_values = true)]
    pub set: Vec<String>,

    /// The start: random, a named family (no-leader, all-leaders, safe, alternating, fig3), or
    /// default.
    #[arg(long, value_name = "SPEC", default_value = "random")]
    pub init: String,

    /// The master seed: the run is trial 0 of `poplab run prl --engine agents --seed S`.
    #[arg(long, value_parser = parse_count, default_value = "0", allow_hyphen_values = true)]
    pub seed: u64,

    /// Snapshots (rows) at most.
    #[arg(long, value_parser = parse_count, default_value = "400", allow_hyphen_values = true)]
    pub rows: u64,

    /// Steps between two rows [default: n].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub every: Option<u64>,

    /// Keep drawing after the run enters its safe set (default: stop there).
    #[arg(long)]
    pub past_safe: bool,

    /// The figure to write: FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// A time series written by `run --trace`, or a directory written by `sweep --out`.
    pub input: PathBuf,

    /// The figure to write: FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Show only this protocol: a registry name, or @FILE.toml (a protocol file: its states,
    /// rules, initial configuration and stop rule, checked).
    pub protocol: Option<String>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--measure`: the library's measures.
fn measures() -> impl TypedValueParser<Value = Measure> {
    choices(
        Measure::ALL,
        |m| m.name(),
        |m| match m {
            Measure::Convergence => "Steps until the safe set is first entered (after the last fault, if any)",
            Measure::Holding => {
                "Steps from a safe configuration until the first interaction that changes an output (for an election: the \
             leader changes or the leader count leaves 1)"
            }
        },
    )
}

/// `--engine`: the library's engines.
fn engines() -> impl TypedValueParser<Value = Engine> {
    choices(
        Engine::ALL,
        |e| e.name(),
        |e| match e {
            Engine::Auto => {
                "batched on the complete graph without faults where few states are present (protocols with at most 64 \
             states; pll, pll-sym from n = 10^5), agents otherwise"
            }
            Engine::Agents => "One state per agent: any graph",
            Engine::Counts => "Counts over the states present, skipping null interactions exactly: complete graph only",
            Engine::Batched => {
                "Counts, taking collision-free runs of interactions in bulk (exact): complete graph only"
            }
        },
    )
}

/// `--estimator`: the library's estimators (with their default options).
fn estimators() -> impl TypedValueParser<Value = Estimator> {
    choices(Estimator::methods(), Estimator::method, |e| match e {
        Estimator::Direct => "Independent trials, each until the break",
        Estimator::Splitting(_) => "Renewal decomposition with generalized adaptive multilevel splitting",
    })
}

/// What to run: shared by `run`, `sweep`, `exact` and `verify`.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The protocol: a name from `poplab list`, or @FILE.toml (a protocol file; see the guide, docs/guide).
    pub protocol: Option<String>,

    /// Number of agents (accepts 1000, 10^5, 1e5); `sweep` takes a list: a,b,c or
    /// START..END[*F|+D] (e.g. 10^2..10^5*10).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub n: Option<String>,

    /// A protocol parameter KEY=VALUE (repeatable); `sweep` takes KEY=LIST and runs the cross product.
    #[arg(long = "set", value_name = "KEY=VALUE", allow_hyphen_values = true)]
    pub set: Vec<String>,

    /// Interaction graph: complete, ring (directed), undirected-ring, or @FILE with one arc "u v"
    /// per line. Default: the protocol's own (the directed ring for ring protocols, else complete).
    #[arg(long, value_name = "GRAPH")]
    pub graph: Option<String>,
}

/// The seed, horizon, threads and engine of trials: in `TrialArgs` (`run`, `sweep`) and in
/// `search`, set on a raw spec by `ControlArgs::apply`.
#[derive(Debug, Args)]
pub struct ControlArgs {
    /// Master seed; trial i uses the i-th SplitMix64 output of it (sweep: of the cell's seed) [default: 0].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: Option<u64>,

    /// Horizon in steps: a trial that reaches it is reported as censored (a lower bound) [default: 10^12].
    #[arg(long, value_parser = parse_steps, allow_hyphen_values = true)]
    pub max_steps: Option<u128>,

    /// Worker threads (default: one per core): trials run side by side, one thread each. Results do not depend on it.
    #[arg(long, value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,

    /// Simulation engine (see the values below) [default: auto]. The output's "engine" says which one ran.
    #[arg(long, value_parser = engines())]
    pub engine: Option<Engine>,
}

/// How trials run: shared by `run` and `sweep` (a sweep's template), set on a raw spec by
/// `TrialArgs::apply`.
#[derive(Debug, Args)]
pub struct TrialArgs {
    /// Initial configuration: default, random, a named family, counts:STATE=COUNT,... (user
    /// protocols), or @FILE.json (an array of agent states, or an object of counts by state
    /// name; in a sweep, {n} and {KEY} in FILE are each cell's size and swept parameter, as in
    /// @worst-{n}.json). Default: `default`, or `safe` with --measure holding.
    #[arg(long, value_name = "SPEC")]
    pub init: Option<String>,

    /// What to measure [default: convergence].
    #[arg(long, value_parser = measures())]
    pub measure: Option<Measure>,

    /// Independent trials (per cell for sweep) [default: 1 for run, 20 for sweep].
    #[arg(long, value_parser = parse_trials, allow_hyphen_values = true)]
    pub trials: Option<u64>,

    #[command(flatten)]
    pub control: ControlArgs,

    /// Count per trial the distinct states visited and what demoted the last leader (slower).
    #[arg(long)]
    pub census: bool,

    #[command(flatten)]
    pub splitting: SplittingArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    #[command(flatten)]
    pub trials: TrialArgs,

    /// For a reaction network's file (@FILE.toml with [reactions]): the time to run to, in the
    /// units of its rate constants; each trial reports the counts at that time.
    #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
    pub time: Option<f64>,

    /// A transient fault STEP:K[:FAMILY]: at STEP, K agents chosen uniformly get states drawn from
    /// FAMILY (default random). Repeatable; the safe set is watched after the last fault.
    #[arg(long = "fault", value_name = "STEP:K[:FAMILY]", allow_hyphen_values = true)]
    pub faults: Vec<String>,

    /// For a reaction network with --trace: the time between the rows of the time series
    /// (counts exactly at 0, T, 2T, ... and at the end) [default: --time / 100].
    #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
    pub trace_time: Option<f64>,

    /// Write a time series (trial, step, parallel time, leaders, protocol columns; for a protocol
    /// file, agents per output `output=VALUE` and per state `state=NAME`) to this CSV file,
    /// streamed as the trials run; with `--trace-every event`, an event trace (trial, step,
    /// parallel time, the two agents' states before and after, as JSON).
    #[arg(long, value_name = "FILE.csv")]
    pub trace: Option<PathBuf>,

    /// Steps between two rows of the time series [default: n], or `event`: a row per interaction
    /// that changes a state, at its exact step (runs on the count engine where `auto` would batch).
    #[arg(long, value_name = "STEPS|event", value_parser = parse_trace_every, allow_hyphen_values = true)]
    pub trace_every: Option<TraceEvery>,

    /// Print one JSON document.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print one CSV row per trial.
    #[arg(long)]
    pub csv: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Write a checkpoint to this file every --checkpoint-every and at the end (atomically): the
    /// finished trials and the exact state of each running one. After a kill, `poplab run
    /// --resume FILE` goes on from it and gives the same results.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub checkpoint: Option<PathBuf>,

    /// Time between two checkpoints: a number and a unit, ms, s, m or h (30s, 10m, 1h) [default: 5m].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub checkpoint_every: Option<String>,

    /// Go on with the run checkpointed in FILE (written by --checkpoint), checkpointing into it
    /// again. The run keeps its own settings: only --json, --csv, --out, --threads and
    /// --checkpoint-every may be given with it.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
}

/// The holding-time estimator and its settings (`run` and `sweep`).
#[derive(Debug, Args)]
pub struct SplittingArgs {
    /// How the holding time is measured: direct simulation (trials until a break), or the
    /// splitting estimator (renewal decomposition + gAMS, with a 95% interval; --measure holding
    /// only; --trials are then its independent repetitions [default: 100]) [default: direct].
    #[arg(long, value_parser = estimators())]
    pub estimator: Option<Estimator>,

    /// Splitting: gAMS replicas per repetition [default: 200].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub replicas: Option<u64>,

    /// Splitting: directly simulated cycles (excursions from the reference set) per repetition
    /// [default: 1000].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub cycles: Option<u64>,

    /// Splitting: the holding score, one of the protocol's (ls-timer: timer-deficit, the default,
    /// or total-deficit; ppl: leader-threat, the default, or timer-deficit).
    #[arg(long, value_name = "NAME")]
    pub score: Option<String>,

    /// Splitting: the reference set is {score <= L} [default: the smallest L holding the chain at
    /// least 1% of a pilot run of 1000 parallel time; 0 makes the renewal exact for ls-timer].
    #[arg(long, value_name = "L", value_parser = parse_count, allow_hyphen_values = true)]
    pub base_level: Option<u64>,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    #[command(flatten)]
    pub trials: TrialArgs,

    /// For a reaction network's file (@FILE.toml with [reactions]): the time each run goes to
    /// (its horizon, when the file has a stop).
    #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
    pub time: Option<f64>,

    /// The directory to write (default `sweep`); refused if it already holds a sweep.
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub out: Option<PathBuf>,

    /// Continue the sweep stored in DIR: run only its missing trials (those that were running go
    /// on from their checkpoint), then rewrite its summaries. The sweep keeps its own settings:
    /// only --threads and --checkpoint-every may be given with it.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,

    /// Time between two checkpoints of the running trials into DIR/running.ckpt: a number and a
    /// unit, ms, s, m or h (30s, 10m, 1h) [default: 5m].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub checkpoint_every: Option<String>,

    #[command(flatten)]
    pub shard: ShardArgs,

    /// A claim about the mean, judged on the finished sweep by the reproduction's rules and
    /// written to DIR/claims.json: O(log n), Omega(n^2), Theta(n log n), = (n-1)^2, Omega(e^N), in
    /// the swept variable (n or the one --set KEY=LIST); repeatable. Checked before anything runs.
    #[arg(long, value_name = "CLAIM", allow_hyphen_values = true)]
    pub claim: Vec<String>,

    /// What the claims are about: parallel time (steps / n) or steps.
    #[arg(long, value_name = "UNIT", value_enum, default_value_t = ClaimUnit::ParallelTime)]
    pub claim_in: ClaimUnit,
}

/// The unit of a sweep's claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClaimUnit {
    /// Parallel time: steps / n.
    ParallelTime,
    /// Steps (interactions).
    Steps,
}

/// Running one part of a sweep (a cluster task); `poplab merge` joins the parts.
#[derive(Debug, Args)]
pub struct ShardArgs {
    /// Run only shard I of K (numbered from 0): the sweep's (cell, trial) jobs are dealt
    /// round-robin into K shards. Run again into the same --out, a shard continues.
    #[arg(long, value_name = "I/K", conflicts_with = "shard_from_env", allow_hyphen_values = true)]
    pub shard: Option<String>,

    /// Take the shard from a Slurm array task: I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN,
    /// K = SLURM_ARRAY_TASK_COUNT.
    #[arg(long)]
    pub shard_from_env: bool,

    /// Pack P shards into each part: part I of K runs shards I*P .. I*P+P-1 of K*P.
    #[arg(long, value_name = "P", value_parser = parse_count, default_value = "1", allow_hyphen_values = true)]
    pub pack: u64,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The sweep directory to write (as an unsharded `poplab sweep` writes it).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The shard directories, every shard of one sweep.
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub parts: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExactArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    /// Start configuration: default, a named family, counts:STATE=COUNT,... (user protocols), or
    /// @FILE.json (an array of agent states, or an object of counts by state name). Default:
    /// `default`, or `safe` with --measure holding.
    #[arg(long, value_name = "SPEC")]
    pub init: Option<String>,

    /// What to compute: the expected steps to the safe set (convergence), or from a safe start
    /// until the first interaction that changes an output (holding).
    #[arg(long, value_parser = measures(), default_value = "convergence")]
    pub measure: Measure,

    /// Where to start, as `verify` takes it: `all` solves from every configuration of the state
    /// space at once and reports the worst start, the best, quantiles and each named family's
    /// value (with --init, that start too); a family or @FILE.json is the same as --init.
    #[arg(long, value_name = "SPEC")]
    pub from: Option<String>,

    /// With --from all: write the worst start to this file, an array of agent states that
    /// `--init @FILE.json` takes.
    #[arg(long, value_name = "FILE.json", requires = "from")]
    pub save_worst: Option<PathBuf>,

    #[command(flatten)]
    pub output: ExploreArgs,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    /// The start given: default, random, a named family, counts:STATE=COUNT,... or @FILE.json;
    /// it is one of the candidates, raced against the others [default: default].
    #[arg(long, value_name = "SPEC")]
    pub init: Option<String>,

    /// What the race may spend: core-seconds (`60s`: processor time of its trials, so the result
    /// depends on the machine) or candidate starts (`200c`: the same result on any machine)
    /// [default: 60s].
    #[arg(long, value_name = "60s|200c", value_parser = parse_budget)]
    pub budget: Option<poplab::search::Budget>,

    /// Fresh trials that re-measure each start reported (the worst, the top few, each family)
    /// [default: 40].
    #[arg(long, value_parser = parse_trials, allow_hyphen_values = true)]
    pub trials: Option<u64>,

    /// How many of the slowest starts to report.
    #[arg(long, value_parser = parse_count, default_value = "3", allow_hyphen_values = true)]
    pub top: u64,

    /// The seed seeds the candidates, the race and the re-measurement; a race's horizon is also at
    /// most 100 times the slowest family's first mean.
    #[command(flatten)]
    pub control: ControlArgs,

    /// Write the slowest start found to this file, an array of agent states that `--init
    /// @FILE.json` takes.
    #[arg(long, value_name = "FILE.json")]
    pub save_start: Option<PathBuf>,

    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    /// Where to start: `default` (the protocol's initial configuration), `all` (every configuration
    /// of the state space: for stabilizing protocols), a named family, or @FILE.json.
    #[arg(long, value_name = "SPEC", default_value = "default")]
    pub from: String,

    #[command(flatten)]
    pub output: ExploreArgs,
}

/// The exploration cap and the output of `exact` and `verify`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Refuse to explore more configurations than this.
    #[arg(long, value_parser = parse_count, default_value = "10^6", allow_hyphen_values = true)]
    pub max_configs: u64,

    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,

    /// Write the output to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
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
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,

    /// The report directory (an interrupted reproduction continues from the data stored there).
    #[arg(long, default_value = "report", value_name = "DIR")]
    pub out: PathBuf,

    /// Only these claims (repeatable), by id.
    #[arg(long, value_name = "CLAIM")]
    pub only: Vec<String>,

    /// Claims run at once, and worker threads of each experiment (default: every claim at once,
    /// each on one worker per core). Results do not depend on it.
    #[arg(long, value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,

    #[command(flatten)]
    pub shard: ShardArgs,

    /// Join the reproductions run with --shard in these directories into --out, and write the
    /// report there.
    #[arg(long, value_name = "SHARD_DIR", num_args = 1.., conflicts_with_all = ["shard", "shard_from_env"])]
    pub merge: Vec<PathBuf>,

    /// Only the searches for the slowest starts of the claims "from any configuration" (with
    /// --shard: the searched sizes dealt round-robin), stored under --out for --starts.
    #[arg(long, conflicts_with = "merge")]
    pub searches: bool,

    /// Read the searches from these `reproduce --searches` directories (copied into --out)
    /// instead of searching; a shard then refuses to search.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with = "searches")]
    pub starts: Vec<PathBuf>,

    /// Set the verdicts of another reproduction (its report directory, e.g. a --quick one)
    /// beside these, claim by claim, in a table of the report.
    #[arg(long, value_name = "REPORT_DIR", conflicts_with_all = ["searches", "shard", "shard_from_env"])]
    pub compare: Option<PathBuf>,
}
