//! Observers: things that happen at chosen steps of a run (time series, faults).
//!
//! The engine runs its tight loop between observer events and calls an observer only at the step
//! it asked for, so observing costs nothing per interaction and never changes which pairs
//! interact (faults draw from their own random stream).
//!
//! Observers come in two kinds. One that *acts* (a [`Fault`]) is part of the experiment: the run
//! stops at its step and the configuration it leaves is where the run goes on. One that *only
//! looks* ([`Observer::only_looks`], a [`TimeSeries`]) is not: the engines let the run go past its
//! steps as if nobody looked, and show it the configuration at exactly its step, so a run draws
//! the same with or without it, however often it looks (see [`drive`](super::drive())).

use crate::protocol::{Protocol, tally};
use crate::rng::{PopRng, below_u64};
use std::sync::Arc;

/// Acts on a run at steps of its choosing.
pub trait Observer<P: Protocol> {
    /// The step at which [`Observer::observe`] should next be called (`None`: never again).
    fn next_at(&self) -> Option<u128>;

    /// Called once the run has taken exactly `next_at()` steps. May change agents (a fault) and
    /// returns whether it did, so the engine can rebuild its monitor.
    fn observe(&mut self, step: u128, protocol: &P, agents: &mut [P::State], rng: &mut PopRng) -> bool;

    /// Called once when the run ends at `step`, with the final configuration as (state, count)
    /// pairs of the states present.
    fn finish(&mut self, _step: u128, _protocol: &P, _counts: &[(P::State, u64)]) {}

    /// Whether the observer only looks: [`Observer::observe`] never changes the agents (it returns
    /// `false`) and draws nothing from the stream it is handed. Engines then need not stop at its
    /// steps: they may show it the configuration at its step from inside a batch (see
    /// [`Drivable::advance_looking`](super::Drivable::advance_looking)). The agent array it is
    /// shown by a count engine lists the states in no particular order.
    fn only_looks(&self) -> bool {
        false
    }

    /// Looks at the configuration at `step` as (state, count) pairs, where an engine keeps counts,
    /// and returns `true`; or returns `false` (the default) to be shown an agent array through
    /// [`Observer::observe`] instead. Only for observers that only look: a count engine need not
    /// build an array of `n` agents for them.
    fn look_at_counts(&mut self, _step: u128, _protocol: &P, _counts: &[(P::State, u64)]) -> bool {
        false
    }

    /// At a checkpoint: where an observer that writes as it goes (a [`TimeSeries`]) has got, what
    /// it wrote flushed; `None` for one whose state follows from the step (a fault).
    fn position(&mut self) -> std::io::Result<Option<SeriesPosition>> {
        Ok(None)
    }

    /// Whether the observer takes the run's events ([`Observer::events`]): an event trace. The
    /// engines then keep a log of every interaction that changes a state (see [`super::events`]).
    fn wants_events(&self) -> bool {
        false
    }

    /// Takes the events since the last call, oldest first (only if [`Observer::wants_events`]).
    fn events(&mut self, _protocol: &P, _events: &[Event<P::State>]) {}
}

/// An interaction that changed some agent's state, at its exact step (the step count just after
/// it: the first interaction of a run is step 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<S> {
    /// The interaction's step.
    pub step: u128,
    /// Initiator and responder before.
    pub before: [S; 2],
    /// Initiator and responder after.
    pub after: [S; 2],
}

/// One row of an event trace: the step and the four states (initiator and responder before,
/// then after), each written as the protocol writes states (compact JSON, as in `--init` files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventPoint {
    /// The interaction's step.
    pub step: u128,
    /// Initiator before, responder before, initiator after, responder after (each state's text is
    /// written once per trace and shared by its rows).
    pub states: [Arc<str>; 4],
}

/// One row of a time series.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TracePoint {
    /// The step the row describes.
    pub step: u128,
    /// Agents whose output is leader (or yes).
    pub leaders: u64,
    /// The protocol's own columns ([`Observables::trace_columns`](crate::protocol::Observables::trace_columns)).
    pub values: Vec<f64>,
    /// Agents per state present, as (state number, count) by number, for a protocol that
    /// [counts its states](crate::protocol::Observables::counts_states) (empty otherwise).
    pub states: Vec<(u32, u64)>,
}

/// Where the rows of a time series or an event trace go: kept in memory ([`Series`](super::Series)) or streamed
/// to a file.
pub trait TraceSink {
    /// Takes the next row of a time series.
    fn push(&mut self, point: TracePoint);

    /// Takes the next row of an event trace.
    fn push_event(&mut self, event: EventPoint);

    /// Flushes what it holds and says how far it has got (rows in memory, bytes in a file), for
    /// a checkpoint.
    fn position(&mut self) -> std::io::Result<u64>;
}

/// Where a time series stood at a checkpoint: its next and last sampled steps, and how far its
/// sink had got ([`TraceSink::position`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeriesPosition {
    /// The next step to sample.
    pub next: u128,
    /// The last step sampled.
    pub last: Option<u128>,
    /// The sink's position.
    pub written: u64,
}

/// Records the number of leaders (or yes-agents) and the protocol's trace columns every `every`
/// steps and at the end, into a [`TraceSink`].
pub struct TimeSeries<'a> {
    every: u128,
    next: u128,
    last: Option<u128>,
    sink: &'a mut dyn TraceSink,
}

impl<'a> TimeSeries<'a> {
    /// A series sampled at steps 0, `every`, `2 every`, ... (`every >= 1`) into `sink`.
    pub fn new(every: u128, sink: &'a mut dyn TraceSink) -> Self {
        Self { every: every.max(1), next: 0, last: None, sink }
    }

    /// The series `position` describes, going on into `sink` (which holds what it had written).
    pub fn resume(every: u128, sink: &'a mut dyn TraceSink, position: SeriesPosition) -> Self {
        Self { every: every.max(1), next: position.next, last: position.last, sink }
    }

    /// Records the configuration at `step`, given as (state, count) pairs of the states present.
    /// The count per state is a pass over the states present, never over all states.
    fn record<P: Protocol>(&mut self, step: u128, protocol: &P, counts: &[(P::State, u64)]) {
        let leaders = counts.iter().filter(|&&(s, _)| protocol.output(s).is_marked()).map(|&(_, c)| c).sum();
        let observables = protocol.observables();
        let mut states: Vec<(u32, u64)> = match observables {
            Some(o) if o.counts_states() => {
                counts.iter().filter_map(|&(s, c)| Some((o.state_number(s)?, c))).filter(|&(_, c)| c > 0).collect()
            }
            _ => Vec::new(),
        };
        states.sort_unstable();
        self.sink.push(TracePoint {
            step,
            leaders,
            values: observables.map_or_else(Vec::new, |o| o.trace_values(counts)),
            states,
        });
        self.last = Some(step);
    }

    /// Records an agent array at `step`: the leaders by a scan where the protocol has no columns
    /// of its own and counts no states (cheaper than tallying the states), else from the tally.
    fn record_agents<P: Protocol>(&mut self, step: u128, protocol: &P, agents: &[P::State]) {
        let counts_states = protocol.observables().is_some_and(|o| o.counts_states());
        if crate::protocol::trace_columns(protocol).is_empty() && !counts_states {
            let leaders = agents.iter().filter(|&&s| protocol.output(s).is_marked()).count() as u64;
            self.sink.push(TracePoint { step, leaders, values: Vec::new(), states: Vec::new() });
            self.last = Some(step);
        } else {
            self.record(step, protocol, &tally(agents));
        }
    }
}

impl<P: Protocol> Observer<P> for TimeSeries<'_> {
    fn next_at(&self) -> Option<u128> {
        Some(self.next)
    }

    fn observe(&mut self, step: u128, protocol: &P, agents: &mut [P::State], _rng: &mut PopRng) -> bool {
        self.record_agents(step, protocol, agents);
        self.next = step.saturating_add(self.every);
        false
    }

    fn only_looks(&self) -> bool {
        true
    }

    fn look_at_counts(&mut self, step: u128, protocol: &P, counts: &[(P::State, u64)]) -> bool {
        self.record(step, protocol, counts);
        self.next = step.saturating_add(self.every);
        true
    }

    fn finish(&mut self, step: u128, protocol: &P, counts: &[(P::State, u64)]) {
        if self.last != Some(step) {
            self.record(step, protocol, counts);
        }
    }

    fn position(&mut self) -> std::io::Result<Option<SeriesPosition>> {
        Ok(Some(SeriesPosition { next: self.next, last: self.last, written: self.sink.position()? }))
    }
}

/// Where a fault's new states come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultStates {
    /// Each hit agent gets a state drawn uniformly from the state space.
    Random,
    /// Each hit agent `i` gets the state agent `i` has in a fresh configuration of this family.
    Family(String),
}

/// A transient fault: at `step`, `count` agents chosen uniformly without replacement are overwritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The step at which the fault hits (after that many interactions).
    pub step: u128,
    /// How many agents it overwrites.
    pub count: usize,
    /// Where their new states come from.
    pub states: FaultStates,
    done: bool,
}

impl Fault {
    /// Marks the fault as done (a run resumed after its step: it acted before the snapshot).
    pub fn mark_done(&mut self) {
        self.done = true;
    }

    /// A fault at `step` that overwrites `count` agents with states from `states`.
    pub fn new(step: u128, count: usize, states: FaultStates) -> Self {
        Self { step, count, states, done: false }
    }
}

impl std::str::FromStr for Fault {
    type Err = crate::Error;

    /// `STEP:K[:FAMILY]`, numbers in any notation of [`crate::numbers`]; FAMILY defaults to
    /// `random` (checked against the protocol when the run is resolved).
    fn from_str(spec: &str) -> crate::Result<Self> {
        let bad = |why: String| crate::Error::Option {
            option: "--fault",
            value: spec.into(),
            reason: format!("{why}; write STEP:K[:FAMILY], for example 1e6:5:random"),
        };
        let mut parts = spec.splitn(3, ':');
        let step = crate::numbers::parse_u128(parts.next().unwrap_or("")).map_err(bad)?;
        let count = crate::numbers::parse_u128(parts.next().ok_or_else(|| bad("K is missing".into()))?).map_err(bad)?;
        let states = match parts.next() {
            None | Some("random") => FaultStates::Random,
            Some(family) => FaultStates::Family(family.to_string()),
        };
        // K is checked against n when the run is resolved; here only against any population.
        let count = usize::try_from(count).ok().filter(|&k| k as u128 <= u128::from(super::MAX_AGENTS)).ok_or_else(|| {
            bad(format!("K = {count} agents is more than any population holds (n is at most 2^62); a fault hits from 1 to n agents"))
        })?;
        Ok(Fault::new(step, count, states))
    }
}

impl Fault {
    /// `STEP:K[:FAMILY]`, as written on the command line.
    pub fn spec(&self) -> String {
        match &self.states {
            FaultStates::Random => format!("{}:{}", self.step, self.count),
            FaultStates::Family(name) => format!("{}:{}:{name}", self.step, self.count),
        }
    }

    /// Where the states come from: `random` or the family's name.
    pub fn states_name(&self) -> &str {
        match &self.states {
            FaultStates::Random => "random",
            FaultStates::Family(name) => name,
        }
    }
}

impl<P: Protocol> Observer<P> for Fault {
    fn next_at(&self) -> Option<u128> {
        (!self.done).then_some(self.step)
    }

    fn observe(&mut self, _step: u128, protocol: &P, agents: &mut [P::State], rng: &mut PopRng) -> bool {
        self.done = true;
        let hit = distinct_indices(agents.len(), self.count, rng);
        let family = match &self.states {
            FaultStates::Random => None,
            // Callers validate the family name before the run; an unknown one falls back to random.
            FaultStates::Family(name) => protocol.configurations().and_then(|c| c.family_configuration(name, rng)),
        };
        for i in hit {
            agents[i] = match &family {
                Some(states) => states[i],
                None => protocol.random_state(rng),
            };
        }
        true
    }
}

/// `count` distinct indices from `0..n`, uniformly (Floyd's algorithm), in the order drawn.
fn distinct_indices(n: usize, count: usize, rng: &mut PopRng) -> Vec<usize> {
    let count = count.min(n);
    let mut chosen = std::collections::HashSet::with_capacity(count);
    let mut order = Vec::with_capacity(count);
    for j in (n - count)..n {
        let t = below_u64(rng, j as u64 + 1) as usize;
        let pick = if chosen.contains(&t) { j } else { t };
        chosen.insert(pick);
        order.push(pick);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    #[test]
    fn distinct_indices_are_distinct_and_uniform() {
        let mut rng = PopRng::seed_from_u64(1);
        let mut hits = [0u32; 6];
        for _ in 0..30_000 {
            let picked = distinct_indices(6, 2, &mut rng);
            assert_eq!(picked.len(), 2);
            assert_ne!(picked[0], picked[1]);
            for i in picked {
                hits[i] += 1;
            }
        }
        // Each index is hit with probability 1/3: 10_000 expected; chi-square, 5 dof, 20.52.
        let chi2: f64 = hits.iter().map(|&h| (h as f64 - 10_000.0).powi(2) / 10_000.0).sum();
        assert!(chi2 < 20.52, "{hits:?}");
        assert_eq!(distinct_indices(3, 5, &mut rng).len(), 3);
    }
}
