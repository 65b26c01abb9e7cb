//! Exact analysis of small populations: the whole configuration space, explored exhaustively.
//!
//! The simulator samples executions; this module enumerates them. For one protocol instance (a
//! [`Protocol`](crate::protocol::Protocol) value, the same code the engines run) and an interaction graph it builds the
//! Markov chain of configurations under the uniformly random scheduler, restricted to what is
//! reachable from a set of start configurations, and then
//! - [`verify()`] checks closure, safety and convergence with probability 1 of the safe set (the
//!   predicate of [`Protocol::monitor`](crate::protocol::Protocol::monitor)) and gives a shortest counterexample schedule on failure;
//! - [`expected_steps()`] computes the exact expected number of steps to the safe set, and its
//!   variance, by solving the linear system of the absorbing chain;
//! - [`expected_steps_from_every()`] solves the same system once for every start configuration of
//!   a set (every configuration of the state space, for a claim "from any configuration"), and
//!   gives the worst start, the best, quantiles over the starts, and the value of named starts;
//! - [`expected_holding_steps()`] computes the exact expected holding time from a safe
//!   configuration (steps until the first interaction that changes an output) and its variance,
//!   with a sparse subtraction-free elimination and a certified relative error that stay accurate
//!   when the answer is `10^12` steps or more (see `holding.rs`).
//!
//! Randomized protocols ([`Protocol::randomized`](crate::protocol::Protocol::randomized)) are
//! weighed exactly too: each probability of a law is read as a fraction (`0.5` is `1/2`, `1.0 /
//! 3.0` is `1/3`; see `fraction.rs`), a result with its numerator over the common denominator `L`
//! of the fractions met, and a probability that is no fraction with a denominator up to
//! [`MAX_DENOMINATOR`] is refused with an error that names it.
//!
//! # Configurations
//! States are interned to indices `0, 1, ...` in order of discovery. On the complete graph the
//! scheduler is symmetric under permutations of the agents and every protocol's safe set is a
//! function of the multiset of states, so a configuration is a multiset: the sorted vector of its
//! agents' state indices ([`Representation::Multiset`]). On rings and arc lists positions matter and a
//! configuration is the agent vector itself ([`Representation::Agents`]).
//!
//! # Transition probabilities (PROTOCOLS.md section 1)
//! Probabilities are kept as integer weights over one denominator `D` per graph (times `L` for a
//! randomized protocol, each result of a law weighing its numerator), so they are exact:
//! - multiset (complete graph), `D = n (n - 1)`: from a multiset with `c_p` agents in state `p`, the
//!   ordered pair of state types `(p, q)` is chosen with weight `c_p c_q` for `p != q` and
//!   `c_p (c_p - 1)` for `p = q`;
//! - agent vectors, each arc of the graph with weight 1: `D = n` on the directed ring (arcs
//!   `(i, i + 1 mod n)`), `D = 2n` on the undirected ring (each edge, then each orientation), `D` = the
//!   number of arcs for an arc list, `D = n (n - 1)` for the complete graph.
//!
//! Interactions that change nothing are self-loops. Several pairs leading to the same configuration
//! are merged into one edge whose weight is the sum.
//!
//! # Exploration
//! Breadth first from the start configurations, so configuration indices follow the distance from
//! the starts and the parent pointers give shortest schedules. The number of configurations is
//! capped ([`ExploreSettings::max_configs`]): past the cap the exploration stops with an error that
//! says so, never with a silently truncated space.
//!
//! From every configuration of an agent-vector space larger than the cap (up to
//! [`DENSE_LIMIT`] configurations), [`verify()`] switches to a dense mode that keeps two bits per
//! configuration instead of a hash table (see `dense.rs`).
//!
//! See [`verify()`] for the definitions of the three properties and [`expected_steps()`] for the
//! linear systems, the solver and its error bound.

mod dense;
mod fraction;
mod hash;
mod holding;
mod report;
mod scc;
mod solve;
mod space;
mod starts;
mod verify;

pub use dense::DENSE_LIMIT;
pub use fraction::MAX_DENOMINATOR;
pub use holding::expected_holding_steps;
pub use report::{Check, Counterexample, Verification};
pub use solve::{ExactReport, HittingTimes, expected_steps, hitting_times};
pub use space::{Path, Representation, Space};
pub use starts::{StartTime, StartTimes, WORST_LISTED, expected_steps_from_every};
pub use verify::verify;

use crate::graph::Graph;

/// The default cap on the number of configurations explored.
pub const DEFAULT_MAX_CONFIGS: usize = 1_000_000;

/// How to explore a configuration space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreSettings {
    /// The interaction graph; the complete graph is explored as multisets, the others as agent
    /// vectors.
    pub graph: Graph,
    /// At most this many configurations; more is an error ("raise --max-configs or lower n").
    pub max_configs: usize,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        Self { graph: Graph::Complete, max_configs: DEFAULT_MAX_CONFIGS }
    }
}

/// Where an exploration starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Starts<S> {
    /// These configurations (agent vectors of length `n`).
    Configurations(Vec<Vec<S>>),
    /// Every configuration over these states: every agent vector on rings and arc lists, every
    /// multiset on the complete graph. Usually the state space of [`Configurations::state_space`](crate::protocol::Configurations::state_space).
    Every(Vec<S>),
}
