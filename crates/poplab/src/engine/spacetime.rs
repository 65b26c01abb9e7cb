//! Snapshots of one run on the agent-array engine, for space-time diagrams.

use super::{AgentRun, Watch};
use crate::error::Result;
use crate::graph::Graph;
use crate::init::InitSpec;
use crate::protocol::{Monitor, Protocol};
use crate::rng::{TrialStreams, trial_seed};

/// The configurations of trial 0 of `poplab run PROTOCOL --seed SEED --engine agents` (the same
/// streams, so the same trajectory) at steps `0, every, 2 every, ...`: `count` of them, or fewer
/// when `until_safe` and the run enters its safe set (the last one is then taken at that step).
/// Each snapshot is a copy of the agent array: `count * n` states in all.
pub fn snapshots<P: Protocol>(
    protocol: &P,
    graph: &Graph,
    init: &InitSpec,
    seed: u64,
    every: u64,
    count: usize,
    until_safe: bool,
) -> Result<Vec<Vec<P::State>>> {
    let TrialStreams { schedule, init: mut init_rng, .. } = TrialStreams::new(trial_seed(seed, 0));
    let agents = init.build(protocol, &mut init_rng)?;
    let mut run = AgentRun::new(protocol, graph, agents, graph.scheduler(protocol.n())?, schedule);
    let mut out = vec![run.agents().to_vec()];
    let watch = if until_safe { Watch::SafeSet } else { Watch::Nothing };
    while out.len() < count && !(until_safe && run.monitor().is_safe()) {
        run.advance(run.step() + u128::from(every.max(1)), watch);
        out.push(run.agents().to_vec());
    }
    Ok(out)
}
