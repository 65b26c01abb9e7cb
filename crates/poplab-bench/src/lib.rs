//! Throughput benchmarks of the poplab engines. Run `cargo bench -p poplab-bench`; each bench
//! prints a table (speed claims live here, never in timed unit tests).

use poplab::engine::{AgentRun, Watch};
use poplab::graph::Graph;
use poplab::protocol::Protocol;
use poplab::rng::TrialStreams;
use std::time::Instant;

/// Nanoseconds per interaction of the agent-array engine running `protocol` from its initial
/// configuration on `graph`, watching the safe set, over at least `budget` interactions (runs
/// that converge early are restarted with the next seed, so the mix of busy and null
/// interactions is the protocol's own).
pub fn agent_ns_per_interaction<P: Protocol>(protocol: &P, graph: &Graph, budget: u64) -> f64 {
    let mut total_steps = 0;
    let mut elapsed = 0.0;
    let mut seed = 0;
    while total_steps < budget {
        let agents = protocol.initial_configuration();
        let scheduler = graph.scheduler(protocol.n()).expect("benchmark graphs are valid");
        let mut run = AgentRun::new(protocol, graph, agents, scheduler, TrialStreams::new(seed).schedule);
        let start = Instant::now();
        run.advance(budget - total_steps, Watch::SafeSet);
        elapsed += start.elapsed().as_secs_f64();
        total_steps += run.step();
        seed += 1;
    }
    elapsed * 1e9 / total_steps as f64
}
