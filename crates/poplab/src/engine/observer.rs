//! Observers: things that happen at chosen steps of a run (time series, faults).
//!
//! The engine runs its tight loop between observer events and calls an observer only at the step
//! it asked for, so observing costs nothing per interaction and never changes which pairs
//! interact (faults draw from their own random stream).

use crate::protocol::Protocol;
use crate::rng::{PopRng, below_u64};

/// Acts on a run at steps of its choosing.
pub trait Observer<P: Protocol> {
    /// The step at which [`Observer::observe`] should next be called (`None`: never again).
    fn next_at(&self) -> Option<u128>;

    /// Called once the run has taken exactly `next_at()` steps. May change agents (a fault) and
    /// returns whether it did, so the engine can rebuild its monitor.
    fn observe(&mut self, step: u128, protocol: &P, agents: &mut [P::State], rng: &mut PopRng) -> bool;

    /// Called once when the run ends at `step`.
    fn finish(&mut self, _step: u128, _protocol: &P, _agents: &[P::State]) {}
}

/// One row of a time series.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TracePoint {
    /// The step the row was taken at.
    pub step: u128,
    /// Agents whose output is leader (or yes).
    pub leaders: u64,
    /// The protocol's own columns ([`Protocol::trace_columns`]).
    pub values: Vec<f64>,
}

/// Records the number of leaders (or yes-agents) and the protocol's trace columns every `every`
/// steps and at the end.
#[derive(Clone, Debug)]
pub struct TimeSeries {
    every: u128,
    next: u128,
    /// The rows recorded so far, in step order.
    pub points: Vec<TracePoint>,
}

impl TimeSeries {
    /// A series sampled at steps 0, `every`, `2 every`, ... (`every >= 1`).
    pub fn new(every: u128) -> Self {
        Self { every: every.max(1), next: 0, points: Vec::new() }
    }

    fn record<P: Protocol>(&mut self, step: u128, protocol: &P, agents: &[P::State]) {
        let leaders = agents.iter().filter(|&&s| protocol.output(s).is_marked()).count() as u64;
        self.points.push(TracePoint { step, leaders, values: protocol.trace_values(agents) });
    }
}

impl<P: Protocol> Observer<P> for TimeSeries {
    fn next_at(&self) -> Option<u128> {
        Some(self.next)
    }

    fn observe(&mut self, step: u128, protocol: &P, agents: &mut [P::State], _rng: &mut PopRng) -> bool {
        self.record(step, protocol, agents);
        self.next = step.saturating_add(self.every);
        false
    }

    fn finish(&mut self, step: u128, protocol: &P, agents: &[P::State]) {
        if self.points.last().is_none_or(|p| p.step != step) {
            self.record(step, protocol, agents);
        }
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
    /// The step at which the fault hits (after exactly this many steps).
    pub step: u128,
    /// How many agents it overwrites.
    pub count: usize,
    /// The states it writes.
    pub states: FaultStates,
    done: bool,
}

impl Fault {
    /// A fault at `step` that overwrites `count` agents with states from `states`.
    pub fn new(step: u128, count: usize, states: FaultStates) -> Self {
        Self { step, count, states, done: false }
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
            FaultStates::Family(name) => protocol.family_configuration(name, rng),
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
