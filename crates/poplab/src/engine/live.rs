//! A run that lives between calls: advance it to a step, look at it on the way, read its
//! configuration, go on later. For interactive use (notebooks, the Python package's `Simulation`)
//! where one trial is driven piece by piece rather than run to its stop rule at once.
//!
//! Looking never changes the run: samples are taken by look-only observers
//! ([`Drivable::advance_looking`]), so the same seed gives the same trajectory whatever is sampled
//! and how often. Only where the caller stops matters (a batch ends at the step asked for), as
//! it does for the horizon of a trial.

use super::{AgentRun, CountRun, Drivable, Lookers, Observer, Watch};
use crate::error::Result;
use crate::graph::{Graph, RandomScheduler};
use crate::protocol::{Monitor, Protocol, tally};
use crate::rng::{PopRng, TrialStreams};

/// One trial of `P` on an engine, advanced by the caller. It owns its protocol and graph.
pub struct LiveRun<P: Protocol + 'static> {
    // Declared first, so dropped first: it borrows `protocol` and `graph`.
    run: Run<P>,
    /// Never moved out of its box or changed while `run` lives.
    protocol: Box<P>,
    graph: Box<Graph>,
    /// Handed to samplers (which draw nothing from it).
    looks: PopRng,
}

enum Run<P: Protocol + 'static> {
    Agents(Box<AgentRun<'static, P, RandomScheduler>>),
    Counts(Box<CountRun<'static, P>>),
}

/// Calls a closure with the configuration, as (state, count) pairs, at every multiple of `every`.
struct Sampler<'f, S> {
    every: u128,
    next: u128,
    sample: &'f mut dyn FnMut(u128, Vec<(S, u64)>),
}

impl<P: Protocol> Observer<P> for Sampler<'_, P::State> {
    fn next_at(&self) -> Option<u128> {
        Some(self.next)
    }

    fn observe(&mut self, step: u128, _protocol: &P, agents: &mut [P::State], _rng: &mut PopRng) -> bool {
        (self.sample)(step, tally(agents));
        self.next = step.saturating_add(self.every);
        false
    }

    fn only_looks(&self) -> bool {
        true
    }
}

impl<P: Protocol + 'static> LiveRun<P> {
    /// A run of `protocol` on `graph` from the configuration `counts` ((state, count) pairs),
    /// with the streams of trial seed `seed`: the count engine (batching when `batched`) on the
    /// complete graph, the agent engine (agents in the order of `counts`) when `agents` or on
    /// another graph.
    pub fn new(
        protocol: P,
        graph: Graph,
        counts: &[(P::State, u64)],
        agents: bool,
        batched: bool,
        seed: u64,
    ) -> Result<Self> {
        let protocol = Box::new(protocol);
        let graph = Box::new(graph);
        // SAFETY: both boxes are owned by the value built here, never moved out of or changed
        // while `run` lives, and `run` is dropped first (field order), so the references stay valid
        // for as long as `run` uses them.
        let (p, g): (&'static P, &'static Graph) = unsafe { (&*(&*protocol as *const P), &*(&*graph as *const Graph)) };
        let TrialStreams { schedule, faults, .. } = TrialStreams::new(seed);
        let run = if agents || *g != Graph::Complete {
            let agents: Vec<P::State> = counts.iter().flat_map(|&(s, c)| std::iter::repeat_n(s, c as usize)).collect();
            Run::Agents(Box::new(AgentRun::new(p, g, agents, g.scheduler(p.n())?, schedule)))
        } else {
            let mut run = CountRun::from_counts(p, counts, schedule)?;
            if batched {
                run.batch();
            }
            Run::Counts(Box::new(run))
        };
        Ok(Self { run, protocol, graph, looks: faults })
    }

    fn drivable(&mut self) -> &mut dyn Drivable<P> {
        match &mut self.run {
            Run::Agents(run) => &mut **run,
            Run::Counts(run) => &mut **run,
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Steps taken so far.
    pub fn step(&self) -> u128 {
        match &self.run {
            Run::Agents(run) => run.step(),
            Run::Counts(run) => run.step(),
        }
    }

    /// Whether the configuration is in the protocol's safe set (its stop rule holds).
    pub fn is_safe(&self) -> bool {
        match &self.run {
            Run::Agents(run) => run.monitor().is_safe(),
            Run::Counts(run) => run.monitor().is_safe(),
        }
    }

    /// The configuration as (state, count) pairs.
    pub fn counts(&self) -> Vec<(P::State, u64)> {
        match &self.run {
            Run::Agents(run) => tally(run.agents()),
            Run::Counts(run) => run.counts(),
        }
    }

    /// The configuration agent by agent, on the agent engine (`None` on the count engines).
    pub fn agents(&self) -> Option<&[P::State]> {
        match &self.run {
            Run::Agents(run) => Some(run.agents()),
            Run::Counts(_) => None,
        }
    }

    /// Runs to step `until`, or until the safe set holds when `stop_when_safe` (checked from the
    /// current configuration on, at exactly the step it is entered); calls `sample` with the
    /// configuration at every multiple of `every` steps after the current step, up to `until`
    /// (when given; not after the step where the safe set stopped the run). Returns whether it
    /// stopped in the safe set.
    pub fn advance(
        &mut self,
        until: u128,
        stop_when_safe: bool,
        every: Option<u128>,
        sample: &mut dyn FnMut(u128, Vec<(P::State, u64)>),
    ) -> bool {
        if stop_when_safe && self.is_safe() {
            return true;
        }
        let watch = if stop_when_safe { Watch::SafeSet } else { Watch::Nothing };
        let Some(every) = every.filter(|&e| e > 0) else {
            return self.drivable().advance(until, watch);
        };
        let first = (self.step() / every + 1).saturating_mul(every);
        let mut sampler = Sampler { every, next: first, sample };
        let mut looks = std::mem::replace(&mut self.looks, TrialStreams::new(0).faults);
        let met = {
            let mut lookers = Lookers::new(vec![&mut sampler as &mut dyn Observer<P>], &mut looks);
            self.drivable().advance_looking(until, watch, &mut lookers)
        };
        self.looks = looks;
        if !met && self.step() == until && until.is_multiple_of(every) {
            (sampler.sample)(until, self.counts());
        }
        met
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Params;
    use crate::protocols::approx_majority::ApproxMajority;

    fn run(agents: bool, batched: bool) -> LiveRun<ApproxMajority> {
        let p = ApproxMajority::new(10_000, &Params::parse(&["a=0.6"]).unwrap()).unwrap();
        let counts = p.initial_counts();
        LiveRun::new(p, Graph::Complete, &counts, agents, batched, 7).unwrap()
    }

    #[test]
    fn samples_do_not_change_the_run_and_pieces_add_up() {
        for (agents, batched) in [(true, false), (false, false), (false, true)] {
            let mut plain = run(agents, batched);
            let mut looked = run(agents, batched);
            let mut rows = Vec::new();
            for until in [50_000, 120_000, 400_000] {
                plain.advance(until, false, None, &mut |_, _| {});
                looked.advance(until, false, Some(3_000), &mut |step, counts| {
                    assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), 10_000);
                    rows.push(step);
                });
                assert_eq!(plain.step(), until);
                let sorted = |mut c: Vec<(_, u64)>| {
                    c.sort_by_key(|x: &(crate::protocols::approx_majority::Opinion, u64)| x.0);
                    c
                };
                assert_eq!(sorted(plain.counts()), sorted(looked.counts()), "agents {agents}, batched {batched}");
            }
            assert_eq!(rows, (1..=133).map(|k| k * 3_000).collect::<Vec<u128>>());
            let met = plain.advance(u128::MAX >> 1, true, None, &mut |_, _| {});
            assert!(met && plain.is_safe());
        }
    }
}
