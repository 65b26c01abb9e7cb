//! Snapshots of runs in progress, for checkpoints ([`crate::checkpoint`]).
//!
//! A snapshot is taken at a *safe point*, where no draw is half used: the agent engine pauses
//! between two blocks of pairs (the block drawn ahead is saved with the run), the count and
//! batched engines between two events (a plain step, a skip, a batch; a geometric skip already
//! drawn is saved as its remainder, and a batch always ends before the pause). A snapshot holds
//! what the run would go on from: the configuration (as indices into a table of the distinct
//! states, each written as the protocol's JSON object), the step, every random stream, and the
//! state that decides what the engine does next (the block of pairs drawn ahead; the count
//! engine's order of interned and present states, whether it skips null steps and when it next
//! reviews that choice; the batcher's streams). Everything else (Fenwick tree, skip table, memo,
//! monitor) is a function of these and is rebuilt on restore, so a restored run draws exactly
//! what the paused one would have.

use crate::error::{Error, Result};
use crate::protocol::Protocol;
use crate::rng::PopRng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The state of a run of some engine at a safe point, with its states written out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSnapshot {
    /// The distinct states the snapshot refers to, by index, as the protocol's JSON objects.
    pub states: Vec<Map<String, Value>>,
    /// The engine's own state.
    pub engine: EngineSnapshot,
}

impl RunSnapshot {
    /// The step the run was paused at.
    pub fn step(&self) -> u128 {
        match &self.engine {
            EngineSnapshot::Agents(a) => u128::from(a.step),
            EngineSnapshot::Counts(c) => c.step,
        }
    }
}

/// What each engine saves.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineSnapshot {
    /// The agent-array engine.
    Agents(AgentSnapshot),
    /// The count engine, batching or not.
    Counts(CountSnapshot),
}

/// The agent-array engine at a block boundary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentSnapshot {
    /// Each agent's state, as an index into [`RunSnapshot::states`].
    pub agents: Vec<u32>,
    /// Steps taken.
    pub step: u64,
    /// The schedule stream.
    pub rng: PopRng,
    /// The stream of randomized transitions' results.
    pub outcomes: PopRng,
    /// Pairs drawn but not run yet: the rest of the current block, then the block drawn ahead.
    pub pairs: Vec<(u32, u32)>,
    /// The block drawn ahead.
    pub ahead: Vec<(u32, u32)>,
    /// The census, if kept: the states visited (indices) and the last demotion's cause.
    pub census: Option<(Vec<u32>, Option<String>)>,
}

/// The count engine between two events.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CountSnapshot {
    /// Agents per interned state (the interning order is [`RunSnapshot::states`]'s).
    pub counts: Vec<u64>,
    /// The present states' indices in slot order (the order pairs are drawn over).
    pub present: Vec<u32>,
    /// Steps taken.
    pub step: u128,
    /// The schedule stream.
    pub rng: PopRng,
    /// The stream of randomized transitions' results.
    pub outcomes: PopRng,
    /// Null steps still to take before the next non-null one (a skip drawn before the pause).
    pub pending: Option<u128>,
    /// Whether null skipping is on (its table is rebuilt from the counts).
    pub skipping: bool,
    /// While taking plain steps: the step of the next review of skipping.
    pub skip_review: u128,
    /// Whether the census (causes of demotions) is kept, and the last cause.
    pub census: bool,
    /// The cause of the last demotion recorded.
    pub last_demotion: Option<String>,
    /// The batcher's state, when batching.
    pub batcher: Option<BatcherSnapshot>,
}

/// The batcher's state between batches (the rest is scratch space).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BatcherSnapshot {
    /// Whether every possible batch is taken (tests).
    pub always: bool,
    /// Steps taken in batches so far.
    pub steps_in_batches: u128,
    /// The census stream.
    pub census_rng: PopRng,
    /// The looks' stream.
    pub looks_rng: PopRng,
}

/// Writes states as the protocol's JSON objects, each distinct state once.
pub(crate) struct StateWriter<'p, P: Protocol> {
    protocol: &'p P,
    index: HashMap<P::State, u32>,
    states: Vec<Map<String, Value>>,
}

impl<'p, P: Protocol> StateWriter<'p, P> {
    pub(crate) fn new(protocol: &'p P) -> Self {
        Self { protocol, index: HashMap::new(), states: Vec::new() }
    }

    /// The index of `state` in the table, written now if new. A state the protocol cannot read
    /// back as it was (its JSON object loses something) is refused: it could not be resumed.
    pub(crate) fn index(&mut self, state: P::State) -> Result<u32> {
        if let Some(&i) = self.index.get(&state) {
            return Ok(i);
        }
        let object = crate::protocol::state_to_json(self.protocol, state);
        if crate::protocol::state_from_json(self.protocol, &object).ok() != Some(state) {
            return Err(Error::Snapshot {
                reason: format!(
                    "{}: the state {state:?} does not survive being written and read back, so this run cannot be \
                     checkpointed; run it without --checkpoint",
                    self.protocol.info().name
                ),
            });
        }
        let i = self.states.len() as u32;
        self.states.push(object);
        self.index.insert(state, i);
        Ok(i)
    }

    /// The table, in index order.
    pub(crate) fn into_states(self) -> Vec<Map<String, Value>> {
        self.states
    }
}

/// Reads a snapshot's table of states back.
pub(crate) fn read_states<P: Protocol>(protocol: &P, states: &[Map<String, Value>]) -> Result<Vec<P::State>> {
    states
        .iter()
        .map(|object| {
            crate::protocol::state_from_json(protocol, object)
                .map_err(|e| Error::Snapshot { reason: format!("one of its states: {e}") })
        })
        .collect()
}

/// The state with index `i` of `states`, refusing an index out of range (a damaged snapshot).
pub(crate) fn state_at<S: Copy>(states: &[S], i: u32) -> Result<S> {
    states.get(i as usize).copied().ok_or_else(|| Error::Snapshot {
        reason: format!("it refers to state {i} of a table of {} states", states.len()),
    })
}

/// The cause of a demotion as the `&'static str` the engines keep: one of the protocol's own
/// causes is not known by name to the engine, so a restored cause is leaked once per restore (a
/// few bytes).
pub(crate) fn static_cause(cause: Option<String>) -> Option<&'static str> {
    cause.map(|c| &*Box::leak(c.into_boxed_str()))
}
