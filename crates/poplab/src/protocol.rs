//! The population-protocol model: the [`Protocol`] trait and what engines need from a protocol.
//!
//! A protocol is a deterministic transition function on pairs of states (initiator first), an
//! output map, and the knowledge a simulator needs to measure it: its default initial
//! configuration, its named families of initial configurations, uniform random states (for
//! stabilizing protocols started anywhere), a JSON form of a state keyed by the paper's variable
//! names, and its safe set, tracked incrementally by a [`Monitor`].
//!
//! Design: the papers' protocols are deterministic (their coin flips are read off the
//! initiator/responder roles). A user protocol may declare *randomized* transitions
//! ([`Protocol::randomized`]): a pair's result is then a finite law ([`Law`]) the engines draw from,
//! with a stream the caller passes in ([`crate::rng::TrialStreams::outcomes`]). Every other random
//! choice is the scheduler's, the initial configuration's or a fault's, each from its own stream. A protocol value is built for one
//! population size `n` and one parameter set, so derived constants (timer lengths, `m`) are
//! computed once.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::rng::PopRng;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::hash::Hash;

/// What an agent outputs: leader/follower for elections, yes/no for predicates (and undecided for
/// predicates whose agents can hold no answer yet, like approx-majority's blank state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// An election's leader.
    Leader,
    /// An election's follower.
    Follower,
    /// A predicate's yes.
    Yes,
    /// A predicate's no.
    No,
    /// A predicate's agent without an answer yet.
    Undecided,
}

impl Output {
    /// Whether this output is the distinguished one (leader, or yes), counted in time series.
    pub fn is_marked(self) -> bool {
        matches!(self, Output::Leader | Output::Yes)
    }
}

/// Tracks whether a configuration lies in the protocol's safe set, updated per interaction.
///
/// Engines call [`Monitor::record`] after every interaction that changed a state and ask
/// [`Monitor::is_safe`] afterwards, so both must be cheap: keep counters, not scans. Protocols whose
/// safe set depends on positions (rings) override [`Monitor::record_at`], which also sees the agent
/// array and the pair's indices.
pub trait Monitor<S: Copy>: Clone + Send {
    /// An interaction turned the pair's states `before` into `after` (initiator first).
    fn record(&mut self, before: [S; 2], after: [S; 2]);

    /// Like [`Monitor::record`], with the agent array (already updated) and the pair's positions.
    #[inline]
    fn record_at(&mut self, agents: &[S], pair: (usize, usize), before: [S; 2]) {
        self.record(before, [agents[pair.0], agents[pair.1]]);
    }

    /// `times` interactions, each turning `before` into `after`, among distinct agents: part of a
    /// batch of the batched engine (the default [`Monitor::record_net`] records a batch as such
    /// moves), recorded in any order. Only the monitor's state after the whole batch is used, so it
    /// must depend on the configuration alone (as a safe set does). The default records them one
    /// by one; monitors that keep counts override it with one update.
    fn record_times(&mut self, before: [S; 2], after: [S; 2], times: u64) {
        for _ in 0..times {
            self.record(before, after);
        }
    }

    /// A batch's net change to the counts, as the batched engine records it: each state listed at
    /// most once, with the agents it gains (or loses, when negative); gains and losses balance. As
    /// for [`Monitor::record_times`], the monitor's state must depend on the configuration alone.
    /// The default records the change as moves of agents from one state to another (`times`
    /// interactions `[from, from] -> [to, from]`, whose net change is `times` agents moved), one
    /// `record_times` per move; a monitor that keeps more per state than `record_times` can
    /// update cheaply overrides this with one update per state.
    fn record_net<I: Iterator<Item = (S, i64)> + Clone>(&mut self, changes: I) {
        let mut gains = changes.clone().filter(|change| change.1 > 0);
        let mut gain = gains.next();
        for (from, loss) in changes.filter(|change| change.1 < 0) {
            let mut left = -loss;
            while left > 0 {
                let (to, amount) = gain.as_mut().expect("a batch's gains and losses balance");
                let moved = left.min(*amount);
                self.record_times([from, from], [*to, from], moved as u64);
                left -= moved;
                *amount -= moved;
                if *amount == 0 {
                    gain = gains.next();
                }
            }
        }
    }

    /// Whether the configuration is in the safe set.
    fn is_safe(&self) -> bool;
}

/// The law of a randomized interaction's result: the possible (initiator', responder') pairs with
/// their probabilities, which sum to at most 1; with the remaining probability nothing changes.
pub type Law<S> = Vec<((S, S), f64)>;

/// A named parameter of a protocol, as `poplab list` shows it.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// The key of `--set KEY=VALUE`.
    pub name: &'static str,
    /// The default, in words when it depends on `n` (for example "n").
    pub default: &'static str,
    /// What it means, with its range.
    pub doc: &'static str,
}

/// A named family of initial configurations.
#[derive(Clone, Copy, Debug)]
pub struct FamilyInfo {
    /// The name given to `--init`.
    pub name: &'static str,
    /// What the configuration is.
    pub doc: &'static str,
}

/// The static description of a protocol: its registry entry.
#[derive(Clone, Copy, Debug)]
pub struct ProtocolInfo {
    /// The registry name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// Paper and section the protocol comes from.
    pub source: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
    /// Its named initial configurations.
    pub families: &'static [FamilyInfo],
}

/// The hasher of sets and maps keyed by states (the engines', user protocols' rule tables): states
/// are small keys hashed once per changed agent, where SipHash cost a fifth of the count engine's
/// time (pll); fixed, so runs do not depend on a random hash seed.
pub type StateHasher = foldhash::fast::FixedState;

/// The largest state space [`Configurations::state_space`] lists.
pub const STATE_SPACE_LIMIT: u64 = 1 << 20;

/// A protocol with at most this many states runs on the batched engine under `--engine auto`
/// ([`EngineHints::auto_batches`]).
pub const AUTO_BATCHED_MAX_STATES: u64 = 64;

/// What runs may rely on and prefer for a protocol instance ([`Protocol::hints`]), as one value:
/// each `false` or `None` unless the protocol says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineHints {
    /// The safe set is closed: no interaction leads from a safe configuration out of it, so the
    /// first safe configuration of a run is followed only by safe ones. The batched engine then
    /// checks the safe set once per batch (and replays a batch that ends safe); a safe set that
    /// can be left, as a loosely-stabilizing protocol's, must be checked after every interaction,
    /// so the engine takes single steps while it watches one.
    pub safe_set_is_closed: bool,
    /// `--engine auto` runs this instance (for its `n` and parameters) on the batched engine on
    /// the complete graph without faults: where few states are present at once, so that null
    /// skipping and batches beat the agent array. Protocols with at most
    /// [`AUTO_BATCHED_MAX_STATES`] states say so always; others where it was measured (see their
    /// docs).
    pub auto_batches: bool,
    /// A horizon the protocol sets, in steps (a user protocol stopped at a fixed time); a run's
    /// horizon is the lesser of it and the one asked for.
    pub horizon: Option<u128>,
    /// The one graph the protocol is meant for: runs use it when none is named and refuse every
    /// other ([`EngineHints::default_graph`], [`EngineHints::check_graph`]). `None`: every graph,
    /// the complete one by default.
    pub only_graph: Option<OnlyGraph>,
}

/// The one graph a protocol runs on ([`EngineHints::only_graph`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnlyGraph {
    /// The graph's name as `--graph` takes it ([`Graph::from_name`]).
    pub name: &'static str,
    /// The graph in words, with why, as the refusal says it.
    pub what: &'static str,
}

impl EngineHints {
    /// The graph a run uses when none is named.
    pub fn default_graph(&self) -> Graph {
        self.only_graph.map_or(Graph::Complete, |only| Graph::from_name(only.name).expect("a graph name"))
    }

    /// Refuses `graph` if the protocol (named `protocol`) runs only on another one.
    pub fn check_graph(&self, protocol: &str, graph: &Graph) -> Result<()> {
        match self.only_graph {
            Some(only) if graph.name() != only.name => Err(Error::Graph(format!(
                "{protocol} runs only on {}, not on the {} graph; use --graph {}",
                only.what,
                graph.name(),
                only.name
            ))),
            _ => Ok(()),
        }
    }
}

/// A population protocol, built for one population size and parameter set.
///
/// Eight required methods are the model; [`Protocol::hints`] says what runs may rely on; each
/// optional ability is a small trait the protocol implements and hands out by an accessor
/// (`Some(self)`), `None` by default: starting as counts ([`CountStart`]), randomized rules
/// ([`RandomizedRules`]), named initial configurations and the state space
/// ([`Configurations`]), a JSON form of states ([`StateJson`]), protocol-specific observables
/// ([`Observables`]), holding scores ([`HoldingScores`]); and a user protocol's rule failures
/// ([`Protocol::failure`]).
pub trait Protocol: Send + Sync + Sized {
    /// One agent's state: small and `Copy`, since engines keep one per agent.
    type State: Copy + Eq + Hash + Debug + Send + Sync;
    /// The safe-set tracker.
    type Monitor: Monitor<Self::State>;

    /// The registry entry.
    fn info(&self) -> &'static ProtocolInfo;

    /// The population size this instance was built for.
    fn n(&self) -> usize;

    /// The effective parameters, derived constants included, as written into outputs.
    fn params(&self) -> Map<String, Value>;

    /// The transition function: (initiator, responder) -> (initiator', responder'). For a
    /// [randomized](Protocol::randomized) protocol, the result of the pairs whose law is one
    /// certain result; engines ask such a protocol for [`RandomizedRules::law`] and
    /// [`RandomizedRules::draw`].
    fn transition(&self, initiator: Self::State, responder: Self::State) -> (Self::State, Self::State);

    /// The output of a state.
    fn output(&self, state: Self::State) -> Output;

    /// The protocol's own initial configuration.
    fn initial_configuration(&self) -> Vec<Self::State>;

    /// A state drawn uniformly from the whole state space.
    fn random_state(&self, rng: &mut PopRng) -> Self::State;

    /// A monitor of the safe set, set up for this configuration on this graph.
    fn monitor(&self, agents: &[Self::State], graph: &Graph) -> Self::Monitor;

    /// What runs may rely on and prefer for this instance; none of it by default.
    fn hints(&self) -> EngineHints {
        EngineHints::default()
    }

    /// Its default configuration and monitor as counts, without an agent array, so that the count
    /// engines start huge populations at no memory cost ([`initial_counts`], [`monitor_of_counts`]
    /// fall back on the agent array).
    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        None
    }

    /// Whether some pair's result may be random (user protocols that declare laws), and the laws:
    /// engines then take results from [`RandomizedRules::law`] (count engines, once per pair) and
    /// [`RandomizedRules::draw`] (the agent engine, per interaction).
    fn randomized(&self) -> Option<&dyn RandomizedRules<Self::State>> {
        None
    }

    /// Its named families of initial configurations and its whole state space.
    fn configurations(&self) -> Option<&dyn Configurations<Self::State>> {
        None
    }

    /// The JSON form of its states, keyed by the paper's variable names (checkpoints, `--init
    /// @FILE.json`, the states of exact reports).
    fn json(&self) -> Option<&dyn StateJson<Self::State>> {
        None
    }

    /// Protocol-specific time-series columns and the causes of demotions.
    fn observables(&self) -> Option<&dyn Observables<Self::State>> {
        None
    }

    /// Its holding scores, for the splitting estimator of holding times ([`crate::splitting`]).
    fn holding(&self) -> Option<&dyn HoldingScores<Self::State>> {
        None
    }

    /// The first failure of one of its rules since this instance was built (a user protocol's
    /// callback that raised or gave a malformed law): the rule then acted as null, the engines stop
    /// at their next safe point (a block, an event, a batch) and the run ends with
    /// [`Error::RuleFailed`]. Rules of built-in protocols never fail (`None`, which costs nothing).
    #[inline(always)]
    fn failure(&self) -> Option<&RuleFailure> {
        None
    }
}

/// A protocol that starts as counts ([`Protocol::counts`]).
pub trait CountStart<P: Protocol> {
    /// The default initial configuration as (state, count) pairs.
    fn initial_counts(&self) -> Vec<(P::State, u64)>;

    /// The monitor of the configuration with these (state, count) pairs on the complete graph.
    fn monitor_of_counts(&self, counts: &[(P::State, u64)]) -> P::Monitor;
}

/// The default initial configuration of `protocol` as (state, count) pairs: its own
/// ([`CountStart`]), or a tally of [`Protocol::initial_configuration`].
pub fn initial_counts<P: Protocol>(protocol: &P) -> Vec<(P::State, u64)> {
    match protocol.counts() {
        Some(counts) => counts.initial_counts(),
        None => tally(&protocol.initial_configuration()),
    }
}

/// The monitor of the configuration with these (state, count) pairs on the complete graph: the
/// protocol's own ([`CountStart`]), or that of the expanded agent array.
pub fn monitor_of_counts<P: Protocol>(protocol: &P, counts: &[(P::State, u64)]) -> P::Monitor {
    match protocol.counts() {
        Some(start) => start.monitor_of_counts(counts),
        None => {
            let agents: Vec<P::State> =
                counts.iter().flat_map(|&(state, count)| std::iter::repeat_n(state, count as usize)).collect();
            protocol.monitor(&agents, &Graph::Complete)
        }
    }
}

/// A protocol some of whose pairs have random results ([`Protocol::randomized`]).
pub trait RandomizedRules<S> {
    /// The law of the pair's result (see [`Law`]).
    fn law(&self, initiator: S, responder: S) -> Law<S>;

    /// One interaction's result drawn from [`RandomizedRules::law`] with `rng` (the trial's outcome
    /// stream).
    fn draw(&self, initiator: S, responder: S, rng: &mut PopRng) -> (S, S);
}

/// The law of the pair's result under `protocol`: its declared law if randomized, else the one
/// result of [`Protocol::transition`].
pub fn law<P: Protocol>(protocol: &P, initiator: P::State, responder: P::State) -> Law<P::State> {
    match protocol.randomized() {
        Some(rules) => rules.law(initiator, responder),
        None => vec![(protocol.transition(initiator, responder), 1.0)],
    }
}

/// A protocol's initial configurations beyond its default ([`Protocol::configurations`]).
pub trait Configurations<S> {
    /// The initial configuration of the named family (one of `info().families`), or `None` if the
    /// protocol has no family of that name. `random` is handled by the caller.
    fn family_configuration(&self, _name: &str, _rng: &mut PopRng) -> Option<Vec<S>> {
        None
    }

    /// Why the named family (or `default`) cannot be built for this instance (for example a
    /// configuration drawn in a paper for one `n` only), or `None` if it can.
    fn family_unavailable(&self, _name: &str) -> Option<String> {
        None
    }

    /// Every state of the state space, for exhaustive analysis of small instances (`poplab
    /// verify --from all`); `None` where the protocol does not list it or it has more than
    /// [`STATE_SPACE_LIMIT`] states.
    fn state_space(&self) -> Option<Vec<S>> {
        None
    }

    /// Random members of the protocol's parameterized families of starts, each with a description
    /// in words (`3 leaders, every timer 0`), for the search for slow starts
    /// ([`crate::search`]): leader counts, timer or level distributions, patterns along a ring.
    /// None by default (the search still tries the named families, corners and mutations).
    fn search_candidates(&self, _rng: &mut PopRng) -> Vec<(String, Vec<S>)> {
        Vec::new()
    }

    /// The number of states of one agent, `|Q|`, where the protocol knows it (without listing
    /// them: `P_LL`'s grows to millions of states); by default the length of
    /// [`Configurations::state_space`].
    fn state_count(&self) -> Option<u64> {
        self.state_space().map(|states| states.len() as u64)
    }
}

/// The JSON form of a protocol's states ([`Protocol::json`]).
pub trait StateJson<S> {
    /// The state as a JSON object keyed by the paper's variable names.
    fn state_to_json(&self, state: S) -> Map<String, Value>;

    /// Reads a state from a JSON object keyed by the paper's variable names.
    fn state_from_json(&self, object: &Map<String, Value>) -> std::result::Result<S, StateError>;
}

/// Why a JSON object is not a state of a protocol: each message names the key at fault and what
/// it takes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// A key every such state has is absent.
    #[error("missing key \"{0}\"")]
    Missing(String),
    /// A key no state of the protocol has.
    #[error("unknown key \"{key}\"; a state has the keys {keys}")]
    UnknownKey {
        /// The key given.
        key: String,
        /// The keys a state has, listed.
        keys: String,
    },
    /// A variable of the protocol that this kind of agent does not have.
    #[error("\"{key}\" is not a variable of {agent}; its {variables}")]
    NotItsVariable {
        /// The key given.
        key: String,
        /// The kind of agent (`a follower of status B in epoch 3`).
        agent: String,
        /// The variables it has, with what they are (`variables: leader, tick, ...`).
        variables: String,
    },
    /// A value of the wrong kind or out of its range.
    #[error("\"{key}\" must be {expected}, found {found}")]
    Value {
        /// The key.
        key: String,
        /// What it takes (`a whole number from 0 to 3`).
        expected: String,
        /// The value given, as JSON.
        found: String,
    },
    /// A combination of values that no state has (a leader with a follower's variable).
    #[error("{0}")]
    NoSuchState(&'static str),
    /// A user protocol's state name that the protocol does not have.
    #[error("unknown state '{name}'; the protocol's states include {known}")]
    UnknownState {
        /// The name given.
        name: String,
        /// Some of the protocol's states, listed.
        known: String,
    },
    /// The protocol has no JSON form of its states.
    #[error("{0} has no JSON form of its states")]
    NoJsonForm(String),
}

impl StateError {
    /// `key` must be `expected`, and `found` is not.
    pub fn value(key: &str, expected: impl Into<String>, found: impl std::fmt::Display) -> Self {
        StateError::Value { key: key.into(), expected: expected.into(), found: found.to_string() }
    }
}

/// The JSON object of `state`: the protocol's form ([`StateJson`]), or `{"state": "<Debug>"}`
/// for a protocol without one.
pub fn state_to_json<P: Protocol>(protocol: &P, state: P::State) -> Map<String, Value> {
    match protocol.json() {
        Some(json) => json.state_to_json(state),
        None => Map::from_iter([("state".to_string(), Value::String(format!("{state:?}")))]),
    }
}

/// Reads a state of `protocol` from a JSON object; refused for a protocol without a JSON form.
pub fn state_from_json<P: Protocol>(
    protocol: &P,
    object: &Map<String, Value>,
) -> std::result::Result<P::State, StateError> {
    match protocol.json() {
        Some(json) => json.state_from_json(object),
        None => Err(StateError::NoJsonForm(protocol.info().name.to_string())),
    }
}

/// What a protocol offers to observe beyond leaders and steps ([`Protocol::observables`]).
pub trait Observables<S> {
    /// Names of protocol-specific time-series columns (for example virus carriers), written after
    /// the generic step and leader columns of a trace.
    fn trace_columns(&self) -> &'static [&'static str] {
        &[]
    }

    /// The values of [`Observables::trace_columns`] for a configuration given as (state, count)
    /// pairs of the states present (in no particular order), in the same order: a sample costs the
    /// states present, not the agents.
    fn trace_values(&self, _counts: &[(S, u64)]) -> Vec<f64> {
        Vec::new()
    }

    /// Whether a time series counts the agents in each state present ([`TracePoint::states`]):
    /// protocols whose states have names (user protocols), as [`Observables::state_number`]
    /// numbers them.
    ///
    /// [`TracePoint::states`]: crate::engine::TracePoint::states
    fn counts_states(&self) -> bool {
        false
    }

    /// The number of `state` among [`Observables::state_names`] (where [`Observables::counts_states`]).
    fn state_number(&self, _state: S) -> Option<u32> {
        None
    }

    /// The names and outputs of the states known so far, by number (where
    /// [`Observables::counts_states`]): a protocol that meets states as it runs knows more after a
    /// run, and its numbers never change.
    fn state_names(&self) -> Vec<(String, Output)> {
        Vec::new()
    }

    /// The part of the protocol (a module, a rule) that made an agent of this interaction stop
    /// being a leader, for protocols built of parts; `None` when no agent stopped.
    fn demotion_cause(&self, _before: [S; 2], _after: [S; 2]) -> Option<&'static str> {
        None
    }

    /// Whether [`Observables::demotion_cause`] ever names a cause (a census then reads the roles
    /// of interactions).
    fn has_demotion_causes(&self) -> bool {
        false
    }
}

/// The trace columns of `protocol` (none without [`Observables`]).
pub fn trace_columns<P: Protocol>(protocol: &P) -> &'static [&'static str] {
    protocol.observables().map_or(&[], |o| o.trace_columns())
}

/// A protocol's holding scores ([`Protocol::holding`]).
pub trait HoldingScores<S> {
    /// The names of the protocol's *holding scores*, the first being the default; `--score NAME`
    /// picks one.
    fn holding_scores(&self) -> &'static [&'static str];

    /// Holding score number `score` (an index into [`HoldingScores::holding_scores`]) of a
    /// configuration: an integer, 0 at the safe start, that grows as the configuration gets closer
    /// to breaking (some output changing). The estimator cuts each excursion from a reference set
    /// `A = {score <= L}` at the levels of this score. Any score gives an unbiased estimate of the
    /// probability of breaking before returning to `A` (a break counts as the top level whatever
    /// the score says); a good one, growing steadily towards the break, only makes it cheaper. The
    /// renewal step of the estimator is exact when `A` is one configuration up to the protocol's
    /// symmetries (then every excursion starts afresh); otherwise it is the flux approximation of
    /// forward flux sampling. `None`: no such score.
    fn holding_score(&self, score: usize, agents: &[S]) -> Option<u64>;
}

/// The holding scores of `protocol` (none without [`HoldingScores`]: the splitting estimator is
/// then not available).
pub fn holding_scores<P: Protocol>(protocol: &P) -> &'static [&'static str] {
    protocol.holding().map_or(&[], |h| h.holding_scores())
}

/// A protocol's rule failing inside a run (a user protocol's callback raising, a malformed law):
/// recorded by the protocol ([`Protocol::failure`]) and turned into [`Error::RuleFailed`] by the
/// driver of the run, with the pair of states whose rule failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFailure {
    /// The protocol.
    pub protocol: String,
    /// The pair of states (initiator, responder) whose rule failed, by name.
    pub pair: (String, String),
    /// What went wrong.
    pub reason: String,
}

impl From<&RuleFailure> for Error {
    fn from(failure: &RuleFailure) -> Self {
        Error::RuleFailed {
            protocol: failure.protocol.clone(),
            pair: failure.pair.clone(),
            reason: failure.reason.clone(),
        }
    }
}

/// `Err` with the protocol's rule failure, if one was recorded ([`Protocol::failure`]).
#[inline]
pub fn check_rules<P: Protocol>(protocol: &P) -> Result<()> {
    match protocol.failure() {
        None => Ok(()),
        Some(failure) => Err(failure.into()),
    }
}

/// Parameters from `--set KEY=VALUE`, read by a protocol's constructor.
///
/// Every getter marks its key as used; [`Params::finish`] then refuses keys nobody read, so a typo
/// is an error rather than a silently ignored setting.
#[derive(Clone, Debug, Default)]
pub struct Params {
    values: BTreeMap<String, String>,
    used: std::cell::RefCell<Vec<String>>,
}

impl Params {
    /// Parameters from `KEY=VALUE` strings; a key given twice is refused.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Self> {
        let mut values = BTreeMap::new();
        for item in items {
            let item = item.as_ref();
            let (key, value) = item.split_once('=').ok_or_else(|| Error::Parameter {
                name: item.to_string(),
                value: String::new(),
                reason: "write parameters as KEY=VALUE, for example --set k=10".into(),
            })?;
            let key = key.trim().to_string();
            if key.is_empty() {
                return Err(Error::Option {
                    option: "--set",
                    value: item.into(),
                    reason: "the parameter's name is missing; write KEY=VALUE, for example --set k=10 (poplab list \
                             shows each protocol's parameters)"
                        .into(),
                });
            }
            if values.insert(key.clone(), value.trim().to_string()).is_some() {
                return Err(Error::Parameter {
                    name: key,
                    value: value.into(),
                    reason: "given twice; give it once".into(),
                });
            }
        }
        Ok(Self { values, used: Default::default() })
    }

    /// Whether `key` was given.
    pub fn has(&self, key: &str) -> bool {
        self.used.borrow_mut().push(key.to_string());
        self.values.contains_key(key)
    }

    fn raw(&self, key: &str) -> Option<&str> {
        self.used.borrow_mut().push(key.to_string());
        self.values.get(key).map(String::as_str)
    }

    /// An integer parameter in `min..=max`, or `default` when absent.
    pub fn int(&self, key: &str, default: u64, min: u64, max: u64) -> Result<u64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        let bad = |reason: String| Error::Parameter { name: key.into(), value: raw.into(), reason };
        let value = crate::numbers::parse_u64(raw)
            .map_err(|_| bad(format!("expected a whole number from {min} to {max} (1000, 10^3 and 1e3 all work)")))?;
        if value < min || value > max {
            return Err(bad(format!("must be from {min} to {max}")));
        }
        Ok(value)
    }

    /// A real parameter greater than `min_exclusive`, or `default` when absent.
    pub fn real_above(&self, key: &str, default: f64, min_exclusive: f64) -> Result<f64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        let bad = |reason: String| Error::Parameter { name: key.into(), value: raw.into(), reason };
        let value: f64 = raw.parse().map_err(|_| bad("expected a number".into()))?;
        if !value.is_finite() || value <= min_exclusive {
            return Err(bad(format!("must be a finite number greater than {min_exclusive}")));
        }
        Ok(value)
    }

    /// A real parameter in `min..=max`, or `default` when absent.
    pub fn real_in(&self, key: &str, default: f64, min: f64, max: f64) -> Result<f64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        let bad = |reason: String| Error::Parameter { name: key.into(), value: raw.into(), reason };
        let value: f64 = raw.parse().map_err(|_| bad(format!("expected a number from {min} to {max}")))?;
        if !(min..=max).contains(&value) {
            return Err(bad(format!("must be a number from {min} to {max}")));
        }
        Ok(value)
    }

    /// Refuses every given key that no getter asked for.
    pub fn finish(&self, info: &ProtocolInfo) -> Result<()> {
        let used = self.used.borrow();
        match self.values.keys().find(|key| !used.contains(key)) {
            None => Ok(()),
            Some(key) => Err(Error::UnknownParameter {
                protocol: info.name.into(),
                name: key.clone(),
                known: if info.params.is_empty() {
                    "none".into()
                } else {
                    info.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                },
            }),
        }
    }
}

/// Reads a boolean field of a JSON state object.
pub fn json_bool(object: &Map<String, Value>, key: &str) -> std::result::Result<bool, StateError> {
    match object.get(key) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(StateError::value(key, "true or false", other)),
        None => Err(StateError::Missing(key.into())),
    }
}

/// Reads an integer field of a JSON state object, in `0..=max`.
pub fn json_uint(object: &Map<String, Value>, key: &str, max: u64) -> std::result::Result<u64, StateError> {
    match object.get(key) {
        Some(value) => value
            .as_u64()
            .filter(|&v| v <= max)
            .ok_or_else(|| StateError::value(key, format!("a whole number from 0 to {max}"), value)),
        None => Err(StateError::Missing(key.into())),
    }
}

/// Refuses keys of a JSON state object that the protocol does not have.
pub fn json_expect_keys(object: &Map<String, Value>, keys: &[&str]) -> std::result::Result<(), StateError> {
    match object.keys().find(|k| !keys.contains(&k.as_str())) {
        None => Ok(()),
        Some(extra) => Err(StateError::UnknownKey { key: extra.clone(), keys: keys.join(", ") }),
    }
}

/// The distinct states of `agents` with their counts, in order of first appearance.
pub fn tally<S: Copy + Eq + Hash>(agents: &[S]) -> Vec<(S, u64)> {
    let mut index: std::collections::HashMap<S, usize, StateHasher> = Default::default();
    let mut counts: Vec<(S, u64)> = Vec::new();
    let mut last: Option<(S, usize)> = None;
    for &state in agents {
        let i = match last {
            Some((s, i)) if s == state => i,
            _ => *index.entry(state).or_insert_with(|| {
                counts.push((state, 0));
                counts.len() - 1
            }),
        };
        last = Some((state, i));
        counts[i].1 += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: ProtocolInfo = ProtocolInfo {
        name: "demo",
        summary: "",
        source: "",
        params: &[ParamInfo { name: "k", default: "10", doc: "" }],
        families: &[],
    };

    #[test]
    fn params_read_validate_and_refuse_unknown_keys() {
        let p = Params::parse(&["k=12", "x=1.5"]).unwrap();
        assert_eq!(p.int("k", 10, 1, 100).unwrap(), 12);
        assert_eq!(p.int("absent", 7, 1, 100).unwrap(), 7);
        assert_eq!(p.real_above("x", 1.0, 0.0).unwrap(), 1.5);
        assert!(p.finish(&INFO).is_ok());

        let p = Params::parse(&["k=0"]).unwrap();
        assert!(p.int("k", 10, 1, 100).unwrap_err().to_string().contains("from 1 to 100"));
        let p = Params::parse(&["kk=3"]).unwrap();
        p.int("k", 10, 1, 100).unwrap();
        assert!(p.finish(&INFO).unwrap_err().to_string().contains("no parameter 'kk'"));
        assert!(Params::parse(&["k"]).is_err());
        assert!(Params::parse(&["k=1", "k=2"]).is_err());
        let p = Params::parse(&["x=-1"]).unwrap();
        assert!(p.real_above("x", 1.0, 0.0).is_err());
        let p = Params::parse(&["x=1", "y=1.01", "z=NaN"]).unwrap();
        assert_eq!(p.real_in("x", 0.5, 0.0, 1.0).unwrap(), 1.0);
        assert!(p.real_in("y", 0.5, 0.0, 1.0).unwrap_err().to_string().contains("from 0 to 1"));
        assert!(p.real_in("z", 0.5, 0.0, 1.0).is_err());
    }

    #[test]
    fn json_readers_check_types_and_ranges() {
        let object: Map<String, Value> = serde_json::from_str(r#"{"a": true, "b": 3}"#).unwrap();
        assert!(json_bool(&object, "a").unwrap());
        assert!(json_bool(&object, "b").is_err());
        assert_eq!(json_uint(&object, "b", 3).unwrap(), 3);
        assert!(json_uint(&object, "b", 2).is_err());
        assert_eq!(json_uint(&object, "c", 2).unwrap_err().to_string(), "missing key \"c\"");
        assert_eq!(
            json_expect_keys(&object, &["a"]).unwrap_err().to_string(),
            "unknown key \"b\"; a state has the keys a"
        );
    }
}
