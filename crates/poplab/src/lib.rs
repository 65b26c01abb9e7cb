#![deny(missing_docs)]
//! # poplab: a laboratory for population protocols
//!
//! poplab simulates population protocols (Angluin et al.) under the uniformly random scheduler and
//! measures what the papers of Sudo et al. claim about them: time to the safe set, holding time,
//! recovery after faults, states used.
//!
//! ## The pieces
//! - [`protocol`]: the model. A [`Protocol`](protocol::Protocol) is a deterministic transition
//!   function on (initiator, responder) states, an output map, initial configurations and a safe
//!   set tracked by a [`Monitor`](protocol::Monitor).
//! - [`protocols`]: the protocols of the source papers and the approximate-majority benchmark, one
//!   module each, the registry ([`protocols::with_protocol`]) that builds one by name, and
//!   [`custom`](protocols::custom), protocols defined at run time (see "Your own protocol").
//! - [`graph`]: interaction graphs (complete, directed and undirected rings, arc lists) and their
//!   schedulers, plus [`Replay`](graph::Replay) for hand-made executions.
//! - [`engine`]: the agent-array, count and batched engines ([`Engine`](engine::Engine) picks),
//!   observers (time series, faults), and the time types [`Steps`](engine::Steps) and
//!   [`ParallelTime`](engine::ParallelTime).
//! - [`crn`]: chemical reaction networks (births and deaths included), exactly in the law of
//!   Gillespie's direct method: that method for small counts, collision-free batches for large.
//! - [`spec`]: **the entry point**. A [`RawSpec`](spec::RawSpec) (what the user typed) is resolved
//!   once into a [`RunSpec`](spec::RunSpec) (protocol, graph, initial configuration, engine,
//!   faults, all validated), which runs trials, an exact analysis or a verification. The
//!   command line and the bindings go through it.
//! - [`experiment`]: seeded trials in parallel and their [`Summary`](experiment::Summary), for
//!   code that holds a concrete [`Protocol`](protocol::Protocol) value (your own, say).
//! - [`sweep`]: cross products of sizes and parameters, run job by job, and the directory that
//!   stores a sweep (resumable after a kill).
//! - [`export`]: a run as JSON, CSV or a time series, behind the [`Exporter`](export::Exporter)
//!   trait.
//! - [`rng`]: the generator (Xoshiro256++) and the seed derivation that makes results independent
//!   of the thread count.
//! - [`exact`]: exhaustive analysis of small populations (closure, safety, convergence, exact
//!   expected times).
//! - [`fit`]: least-squares fits of measured means against claimed growth forms and power laws.
//! - [`verdict`]: the written rules that turn measurements into consistent / inconsistent /
//!   inconclusive against a claim.
//! - [`claims`]: the claims of the source papers as experiments, each run to points and judged by
//!   its rule (what `poplab reproduce` reports).
//! - [`stats`]: means, intervals, the censoring rule, Kolmogorov-Smirnov tests.
//! - [`table`]: CSV files poplab wrote (time series, sweep summaries) read back by column.
//! - [`numbers`] (`10^5`, `1e5`, lists and ranges) and [`files`] (outputs checked before a run and
//!   written atomically, inputs read with a size limit, memory checks): input and output helpers
//!   shared by every front end.
//!
//! ## A first run
//! Everything the command line does goes through a spec: what the user typed
//! ([`RawSpec`](spec::RawSpec)), resolved once ([`RunSpec`](spec::RunSpec)), then run, analysed
//! exactly or exported. A sweep ([`SweepSpec`](sweep::SweepSpec)) is a raw spec as a template over
//! sizes and parameter lists: it runs one spec per cell and fits the means. angluin's election, whose expected time to one leader is exactly `(n - 1)^2`
//! steps, from end to end:
//! ```
//! use poplab::exact::DEFAULT_MAX_CONFIGS;
//! use poplab::export::{Exporter, Json};
//! use poplab::fit::fit_power;
//! use poplab::spec::{RawSpec, RunSpec};
//! use poplab::sweep::{SweepSpec, run_in};
//!
//! // poplab run angluin --n 20 --trials 200 --seed 1 --json
//! let raw = RawSpec { trials: 200, seed: 1, ..RawSpec::new("angluin", 20) };
//! let spec = RunSpec::resolve(&raw)?;
//! let result = spec.run(&|| {})?;
//! assert_eq!(result.summary.converged, 200);
//! assert!(Json.export(&result)?.contains("\"engine\": \"batched\""));
//!
//! // poplab exact angluin --n 20: (n - 1)^2 = 361 steps, which the mean of the trials
//! // matches within three standard errors.
//! let exact = spec.exact(DEFAULT_MAX_CONFIGS)?.expected_steps;
//! assert!((exact - 361.0).abs() < 1e-9);
//! let steps: Vec<f64> = result.records.iter().map(|r| r.steps.0 as f64).collect();
//! let standard_error = poplab::stats::std_dev(&steps) / (steps.len() as f64).sqrt();
//! assert!((result.summary.mean_steps.unwrap() - exact).abs() < 3.0 * standard_error);
//!
//! // poplab sweep angluin --n 10,20,40,80 --trials 100 --seed 1 --out DIR: the parallel time
//! // (n - 1)^2 / n grows like n, so a power law through the means has an exponent near 1.
//! let dir = tempfile::tempdir()?;
//! let mut sweep = SweepSpec::new("angluin", &[10, 20, 40, 80]);
//! (sweep.template.trials, sweep.template.seed) = (100, 1);
//! let results = run_in(&sweep, dir.path(), &|_| {}, &|| {})?;
//! let ns: Vec<f64> = results.summaries.iter().map(|(cell, _)| cell.n as f64).collect();
//! let means: Vec<f64> = results.summaries.iter().map(|(_, s)| s.mean_parallel_time.unwrap()).collect();
//! let power = fit_power(&ns, &means).unwrap();
//! assert!((power.exponent - 1.0).abs() < 0.15, "{power:?}");
//! assert!(dir.path().join("summary.csv").exists());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! The modules and their main types and functions have examples of their own.
//!
//! ## Your own protocol
//! A protocol outside the registry can be run in two ways.
//!
//! **In Rust: implement [`Protocol`](protocol::Protocol).** Give a state type, the transition
//! function, the outputs, the initial configuration and a [`Monitor`](protocol::Monitor) of the
//! safe set (keep counters: engines update it after every interaction), then run it with
//! [`experiment::run_trials`] and summarise with [`experiment::Summary`]; every engine, the fits
//! of [`fit`] and the exact analysis of [`exact`] take it like a built-in protocol. Eight methods
//! are required; in [`hints`](protocol::Protocol::hints) say
//! [`safe_set_is_closed`](protocol::EngineHints::safe_set_is_closed) when no interaction leaves
//! the safe set (the batched engine then checks it once per batch) and
//! [`auto_batches`](protocol::EngineHints::auto_batches) for a protocol with few states; override
//! [`Monitor::record_times`](protocol::Monitor::record_times) so that each move of a batch's net
//! change (how the batched engine records a batch) is one update. Optional abilities are small traits handed out by accessors: a start
//! from counts ([`CountStart`](protocol::CountStart), so that the count engines start huge
//! populations without an agent array), named families and the state space
//! ([`Configurations`](protocol::Configurations)), a JSON form of states
//! ([`StateJson`](protocol::StateJson), for checkpoints and `@FILE.json` starts), time-series
//! columns ([`Observables`](protocol::Observables)), holding scores
//! ([`HoldingScores`](protocol::HoldingScores)). The two-way epidemic,
//! `(x, y) -> (x or y, x or y)` from one infected agent, whose expected time to infect everyone
//! is exactly `(n - 1) H_{n-1}` steps:
//! ```
//! use poplab::experiment::{RunSettings, Summary, run_trials};
//! use poplab::graph::Graph;
//! use poplab::protocol::{EngineHints, Monitor, Output, Protocol, ProtocolInfo, StateError, StateJson, json_bool};
//! use poplab::rng::{PopRng, coin};
//! use serde_json::{Map, Value};
//!
//! static INFO: ProtocolInfo = ProtocolInfo {
//!     name: "epidemic",
//!     summary: "two-way epidemic (x, y) -> (x or y, x or y)",
//!     source: "folklore",
//!     params: &[],
//!     families: &[],
//! };
//!
//! struct Epidemic { n: usize }
//!
//! /// Counts the infected agents; safe when all are.
//! #[derive(Clone)]
//! struct Infected { count: usize, n: usize }
//!
//! impl Monitor<bool> for Infected {
//!     fn record(&mut self, before: [bool; 2], after: [bool; 2]) {
//!         self.count += after.iter().filter(|&&x| x).count();
//!         self.count -= before.iter().filter(|&&x| x).count();
//!     }
//!     fn is_safe(&self) -> bool { self.count == self.n }
//! }
//!
//! impl Protocol for Epidemic {
//!     type State = bool; // infected?
//!     type Monitor = Infected;
//!     fn info(&self) -> &'static ProtocolInfo { &INFO }
//!     fn n(&self) -> usize { self.n }
//!     fn params(&self) -> Map<String, Value> { Map::new() }
//!     fn transition(&self, x: bool, y: bool) -> (bool, bool) { (x || y, x || y) }
//!     fn output(&self, x: bool) -> Output { if x { Output::Yes } else { Output::No } }
//!     fn initial_configuration(&self) -> Vec<bool> { (0..self.n).map(|i| i == 0).collect() }
//!     fn random_state(&self, rng: &mut PopRng) -> bool { coin(rng) }
//!     fn monitor(&self, agents: &[bool], _graph: &Graph) -> Infected {
//!         Infected { count: agents.iter().filter(|&&x| x).count(), n: agents.len() }
//!     }
//!     fn hints(&self) -> EngineHints { EngineHints { safe_set_is_closed: true, ..Default::default() } } // nobody recovers
//!     fn json(&self) -> Option<&dyn StateJson<bool>> { Some(self) }
//! }
//!
//! impl StateJson<bool> for Epidemic {
//!     fn state_to_json(&self, x: bool) -> Map<String, Value> {
//!         Map::from_iter([("infected".to_string(), Value::Bool(x))])
//!     }
//!     fn state_from_json(&self, object: &Map<String, Value>) -> Result<bool, StateError> {
//!         json_bool(object, "infected")
//!     }
//! }
//!
//! let protocol = Epidemic { n: 20 };
//! let settings = RunSettings { trials: 400, seed: 1, ..RunSettings::default() };
//! let summary = Summary::of(&run_trials(&protocol, &settings, &|| {})?, protocol.n());
//! let exact = 19.0 * (1..20).map(|k| 1.0 / k as f64).sum::<f64>(); // (n - 1) H_{n-1} = 67.4
//! assert_eq!(summary.converged, 400);
//! assert!((summary.mean_steps.unwrap() - exact).abs() < 6.0);
//! # Ok::<(), poplab::Error>(())
//! ```
//! `examples/custom_protocol.rs` (`cargo run --release -p poplab --example custom_protocol`) does
//! it in full for the 4-state exact majority: a counting monitor with
//! [`record_times`](protocol::Monitor::record_times), a start from counts, JSON states, a trace of
//! its own counts, a sweep over `n` up to 10^6 with a fit of the growth, and checks against exact
//! analysis, against the count engine and against the same rules as a protocol file.
//!
//! **At run time: a table, a protocol file or a callback,
//! [`Custom`](protocols::custom::Custom).** States are named by strings, rules are listed per
//! ordered pair of states (pairs not listed are null; a rule may be randomized, a law over
//! results), and the safe set is one of the [stop rules](protocols::custom::StopRule)
//! (`consensus`, `one-leader`, `silent`, ...). Build one from a
//! [`Definition`](protocols::custom::Definition) with
//! [`Custom::new(&definition, n)`](protocols::custom::Custom::new), from a TOML protocol file
//! with [`custom::file::read`](protocols::custom::file::read) (or
//! [`parse`](protocols::custom::file::parse) for text), or from a callback called the first time a
//! pair of states meets with [`Custom::from_fn`](protocols::custom::Custom::from_fn). A `Custom`
//! is a [`Protocol`](protocol::Protocol) like any other. On the command line and in a
//! [`RawSpec`](spec::RawSpec), `@FILE` names a protocol file:
//! `poplab run @examples/protocols/exact-majority.toml --n 10^4 --trials 100`. The directory
//! `examples/protocols/` at the root of the repository holds examples (approximate and exact
//! majority, a randomized election, a threshold predicate, discrete averaging).
//! ```
//! use poplab::experiment::{RunSettings, Summary, run_trials};
//! use poplab::protocols::custom::{Custom, file};
//!
//! let text = r#"
//!     name = "epidemic"
//!     [states]
//!     I = "yes"
//!     S = "no"
//!     [rules]
//!     "I,S" = "I,I"
//!     "S,I" = "I,I"
//!     [init]
//!     I = 1
//!     S = 0   # the last state listed takes the agents left over
//!     [stop]
//!     safe = "all-yes"
//! "#;
//! let protocol = Custom::new(&file::parse(text, "epidemic.toml")?, 20)?;
//! let settings = RunSettings { trials: 400, seed: 1, ..RunSettings::default() };
//! let summary = Summary::of(&run_trials(&protocol, &settings, &|| {})?, 20);
//! assert!((summary.mean_steps.unwrap() - 67.4).abs() < 6.0);
//! # Ok::<(), poplab::Error>(())
//! ```

// The modules are grouped into wings (folders: `base/`, `evidence/`, `run/`; see ARCHITECTURE.md);
// their modules keep their public paths at the root (`poplab::spec`, `poplab::rng`, ...).
mod base;
mod evidence;
mod run;

pub use base::{clock, error, files, numbers, rng};
pub mod claims;
pub mod crn;
pub mod engine;
pub use evidence::{fit, growth, judge, judgement, stats, table, verdict};
pub mod exact;
pub mod graph;
pub mod init;
pub mod protocol;
pub mod protocols;
pub use run::{checkpoint, checkpointed, experiment, export, search, spec, splitting};
pub mod sweep;

pub use error::{Error, Result};
