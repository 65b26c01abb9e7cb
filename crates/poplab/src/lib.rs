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
//! - [`experiment`]: many seeded trials in parallel and their [`Summary`](experiment::Summary).
//! - [`rng`]: the generator (Xoshiro256++) and the seed derivation that makes results independent
//!   of the thread count.
//! - [`exact`]: exhaustive analysis of small populations (closure, safety, convergence, exact
//!   expected times).
//! - [`fit`]: least-squares fits of measured means against claimed growth forms and power laws.
//! - [`sweep`]: cross products of sizes and parameters, run job by job so nothing is lost.
//! - [`verdict`]: the written rules that turn measurements into consistent / inconsistent /
//!   inconclusive against a claim.
//! - [`stats`]: means, intervals, censored quantiles, Kolmogorov-Smirnov tests.
//!
//! ## A first run
//! ```
//! use poplab::experiment::{RunSettings, Summary, run_trials};
//! use poplab::protocol::Params;
//! use poplab::protocols::{ProtocolVisitor, with_protocol};
//! use poplab::protocol::Protocol;
//!
//! struct MeanSteps(RunSettings);
//! impl ProtocolVisitor for MeanSteps {
//!     type Output = Summary;
//!     fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Summary {
//!         let records = run_trials(&protocol, &self.0, &|| {}).unwrap();
//!         Summary::of(&records, protocol.n())
//!     }
//! }
//!
//! let settings = RunSettings { trials: 200, seed: 1, ..RunSettings::default() };
//! let summary = with_protocol("angluin", 20, &Params::default(), MeanSteps(settings)).unwrap();
//! // The exact expectation is (n - 1)^2 = 361 steps.
//! assert!((summary.mean_steps.unwrap() - 361.0).abs() < 60.0);
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
