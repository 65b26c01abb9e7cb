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

    /// `times` interactions, each turning `before` into `after`, among distinct agents: a batch of
    /// the batched engine, recorded in any order. Only the monitor's state after all of them is
    /// used, so it must depend on the configuration alone (as a safe set does). The default records
    /// them one by one; monitors that keep counts override it with one update.
    fn record_times(&mut self, before: [S; 2], after: [S; 2], times: u64) {
        for _ in 0..times {
            self.record(before, after);
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

/// The largest state space [`Protocol::state_space`] lists.
pub const STATE_SPACE_LIMIT: u64 = 1 << 20;

/// A protocol with at most this many states runs on the batched engine under `--engine auto`
/// ([`EngineHints::auto_batches`]).
pub const AUTO_BATCHED_MAX_STATES: u64 = 64;

/// What the engines may rely on and prefer for a protocol instance ([`Protocol::hints`]): each
/// `false` unless the protocol says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineHints {
    /// [`Protocol::initial_counts`] and [`Protocol::monitor_of_counts`] work without an agent
    /// array (they are overridden), so that the count engines start huge populations at no memory
    /// cost.
    pub starts_as_counts: bool,
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
}

/// A population protocol, built for one population size and parameter set.
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
    /// certain result; engines ask such a protocol for [`Protocol::law`] and [`Protocol::draw`].
    fn transition(&self, initiator: Self::State, responder: Self::State) -> (Self::State, Self::State);

    /// Whether some pair's result may be random (user protocols that declare laws): engines then
    /// take results from [`Protocol::law`] (count engines, once per pair) and [`Protocol::draw`]
    /// (the agent engine, per interaction). `false` unless a protocol says so.
    fn randomized(&self) -> bool {
        false
    }

    /// The law of the pair's result (see [`Law`]); by default the one result of `transition`.
    fn law(&self, initiator: Self::State, responder: Self::State) -> Law<Self::State> {
        vec![(self.transition(initiator, responder), 1.0)]
    }

    /// One interaction's result drawn from [`Protocol::law`] with `rng` (the trial's outcome
    /// stream); by default `transition`, drawing nothing.
    fn draw(&self, initiator: Self::State, responder: Self::State, _rng: &mut PopRng) -> (Self::State, Self::State) {
        self.transition(initiator, responder)
    }

    /// The output of a state.
    fn output(&self, state: Self::State) -> Output;

    /// The protocol's own initial configuration.
    fn initial_configuration(&self) -> Vec<Self::State>;

    /// A state drawn uniformly from the whole state space.
    fn random_state(&self, rng: &mut PopRng) -> Self::State;

    /// The initial configuration of the named family (one of `info().families`), or `None` if the
    /// protocol has no family of that name. `random` is handled by the caller.
    fn family_configuration(&self, name: &str, rng: &mut PopRng) -> Option<Vec<Self::State>>;

    /// Why the named family cannot be built for this instance (for example a configuration drawn
    /// in a paper for one `n` only), or `None` if it can.
    fn family_unavailable(&self, _name: &str) -> Option<String> {
        None
    }

    /// A monitor of the safe set, set up for this configuration on this graph.
    fn monitor(&self, agents: &[Self::State], graph: &Graph) -> Self::Monitor;

    /// The default initial configuration as (state, count) pairs: where the count engines start
    /// without an agent array. The default tallies [`Protocol::initial_configuration`]; protocols
    /// whose start is a few uniform blocks override it, so that huge populations cost nothing to
    /// set up.
    fn initial_counts(&self) -> Vec<(Self::State, u64)> {
        tally(&self.initial_configuration())
    }

    /// The monitor of the configuration with these (state, count) pairs on the complete graph. The
    /// default expands them into an agent array; count-keeping monitors override it.
    fn monitor_of_counts(&self, counts: &[(Self::State, u64)]) -> Self::Monitor {
        let agents: Vec<Self::State> =
            counts.iter().flat_map(|&(state, count)| std::iter::repeat_n(state, count as usize)).collect();
        self.monitor(&agents, &Graph::Complete)
    }

    /// The state as a JSON object keyed by the paper's variable names.
    fn state_to_json(&self, state: Self::State) -> Map<String, Value>;

    /// Reads a state from a JSON object keyed by the paper's variable names.
    fn state_from_json(&self, object: &Map<String, Value>) -> Result<Self::State, String>;

    /// The part of the protocol (a module, a rule) that made an agent of this interaction stop being
    /// a leader, for protocols built of parts; `None` when no agent stopped, or by default.
    fn demotion_cause(&self, _before: [Self::State; 2], _after: [Self::State; 2]) -> Option<&'static str> {
        None
    }

    /// Names of protocol-specific time-series columns (for example virus carriers), written after
    /// the generic step and leader columns of a trace.
    fn trace_columns(&self) -> &'static [&'static str] {
        &[]
    }

    /// The values of [`Protocol::trace_columns`] for a configuration given as (state, count) pairs
    /// of the states present (in no particular order), in the same order: a sample costs the
    /// states present, not the agents.
    fn trace_values(&self, _counts: &[(Self::State, u64)]) -> Vec<f64> {
        Vec::new()
    }

    /// Every state of the state space, for exhaustive analysis of small instances (`poplab
    /// verify --from all`); `None` where the protocol does not list it or it has more than
    /// [`STATE_SPACE_LIMIT`] states.
    fn state_space(&self) -> Option<Vec<Self::State>> {
        None
    }

    /// What the engines may rely on and prefer for this instance; none of it by default.
    fn hints(&self) -> EngineHints {
        EngineHints::default()
    }

    /// A horizon the protocol sets, in steps (a user protocol stopped at a fixed time); a run's
    /// horizon is the lesser of it and the one asked for. `None` unless a protocol says so.
    fn horizon(&self) -> Option<u128> {
        None
    }

    /// The graph a run uses when none is named (the complete graph unless overridden).
    fn default_graph(&self) -> Graph {
        Graph::Complete
    }

    /// Refuses graphs the protocol is not meant for (the default accepts every graph).
    fn check_graph(&self, _graph: &Graph) -> Result<()> {
        Ok(())
    }

    /// The names of the protocol's *holding scores*, for the splitting estimator of holding times
    /// ([`crate::splitting`]), the first being the default; `--score NAME` picks one. Empty (the
    /// default): the protocol offers none, and the splitting estimator is not available.
    fn holding_scores(&self) -> &'static [&'static str] {
        &[]
    }

    /// Holding score number `score` (an index into [`Protocol::holding_scores`]) of a
    /// configuration: an integer, 0 at the safe start, that grows as the configuration gets closer
    /// to breaking (some output changing). The estimator cuts each excursion from a reference set
    /// `A = {score <= L}` at the levels of this score. Any score gives an unbiased estimate of the
    /// probability of breaking before returning to `A` (a break counts as the top level whatever
    /// the score says); a good one, growing steadily towards the break, only makes it cheaper. The
    /// renewal step of the estimator is exact when `A` is one configuration up to the protocol's
    /// symmetries (then every excursion starts afresh); otherwise it is the flux approximation of
    /// forward flux sampling. `None` (the default): no such score.
    fn holding_score(&self, _score: usize, _agents: &[Self::State]) -> Option<u64> {
        None
    }
}

/// A protocol's rule failing inside a run (a user protocol's callback, say), carried out of the engine by unwinding (without the panic
/// hook: `resume_unwind`) and turned into [`Error::Rule`] by the trial.
#[derive(Debug)]
pub struct RuleFailure {
    /// The protocol.
    pub protocol: String,
    /// What went wrong.
    pub reason: String,
}

impl RuleFailure {
    /// Runs `f`, turning a [`RuleFailure`] that unwinds out of it into [`Error::Rule`] (any other
    /// panic goes on unwinding).
    pub fn catch<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
            match payload.downcast::<RuleFailure>() {
                Ok(failure) => Err(Error::Rule { protocol: failure.protocol, reason: failure.reason }),
                Err(other) => std::panic::resume_unwind(other),
            }
        })
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
                return Err(Error::Setting(format!(
                    "--set {item}: the parameter's name is missing; write KEY=VALUE, for example --set k=10 (poplab \
                     list shows each protocol's parameters)"
                )));
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
pub fn json_bool(object: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match object.get(key) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("\"{key}\" must be true or false, found {other}")),
        None => Err(format!("missing key \"{key}\"")),
    }
}

/// Reads an integer field of a JSON state object, in `0..=max`.
pub fn json_uint(object: &Map<String, Value>, key: &str, max: u64) -> Result<u64, String> {
    match object.get(key) {
        Some(value) => value
            .as_u64()
            .filter(|&v| v <= max)
            .ok_or_else(|| format!("\"{key}\" must be a whole number from 0 to {max}, found {value}")),
        None => Err(format!("missing key \"{key}\"")),
    }
}

/// Refuses keys of a JSON state object that the protocol does not have.
pub fn json_expect_keys(object: &Map<String, Value>, keys: &[&str]) -> Result<(), String> {
    match object.keys().find(|k| !keys.contains(&k.as_str())) {
        None => Ok(()),
        Some(extra) => Err(format!("unknown key \"{extra}\"; a state has the keys {}", keys.join(", "))),
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
        assert!(json_uint(&object, "c", 2).unwrap_err().contains("missing"));
        assert!(json_expect_keys(&object, &["a"]).unwrap_err().contains("unknown key \"b\""));
    }
}
