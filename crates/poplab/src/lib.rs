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
//!   module each, and the registry ([`protocols::with_protocol`]) that builds one by name.
//! - [`graph`]: interaction graphs (complete, directed and undirected rings, arc lists) and their
//!   schedulers, plus [`Replay`](graph::Replay) for hand-made executions.
//! - [`engine`]: the agent-array, count and batched engines ([`Engine`](engine::Engine) picks),
//!   observers (time series, faults), and the time types [`Steps`](engine::Steps) and
//!   [`ParallelTime`](engine::ParallelTime).
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
//! - [`stats`]: means, intervals, the censoring rule, Kolmogorov-Smirnov tests.
//! - [`numbers`] (`10^5`, `1e5`, lists and ranges) and [`files`] (outputs checked before a run and
//!   written atomically, inputs read with a size limit, memory checks): input and output helpers
//!   shared by every front end.
//!
//! ## A first run
//! ```
//! use poplab::export::{Exporter, Json};
//! use poplab::spec::{RawSpec, RunSpec};
//!
//! // What `poplab run angluin --n 20 --trials 200 --seed 1 --json` does.
//! let raw = RawSpec { trials: 200, seed: 1, ..RawSpec::new("angluin", 20) };
//! let spec = RunSpec::resolve(&raw)?;
//! let result = spec.run(&|| {})?;
//! // The exact expectation is (n - 1)^2 = 361 steps.
//! assert!((result.summary.mean_steps.unwrap() - 361.0).abs() < 60.0);
//! assert!(Json.export(&result)?.contains("\"engine\": \"batched\""));
//! # Ok::<(), poplab::Error>(())
//! ```
//!
//! ## Your own protocol
//! Implement [`Protocol`](protocol::Protocol) and run it with [`experiment::run_trials`]:
//! ```
//! use poplab::experiment::{RunSettings, Summary, run_trials};
//! use poplab::protocol::{Params, Protocol};
//! use poplab::protocols::angluin::Angluin;
//!
//! let protocol = Angluin::new(20, &Params::default())?; // or a value of your own type
//! let settings = RunSettings { trials: 100, seed: 1, ..RunSettings::default() };
//! let records = run_trials(&protocol, &settings, &|| {})?;
//! let summary = Summary::of(&records, protocol.n());
//! assert_eq!(summary.converged, 100);
//! # Ok::<(), poplab::Error>(())
//! ```

pub mod engine;
pub mod error;
pub mod exact;
pub mod experiment;
pub mod export;
pub mod files;
pub mod fit;
pub mod graph;
pub mod init;
pub mod numbers;
pub mod protocol;
pub mod protocols;
pub mod rng;
pub mod spec;
pub mod stats;
pub mod sweep;
pub mod verdict;

pub use error::{Error, Result};
