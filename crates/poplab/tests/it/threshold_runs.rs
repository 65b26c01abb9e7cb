//! The threshold protocol on every step of small runs (000 section 2).

use poplab::engine::{AgentRun, Measure, Outcome, RunPlan, Watch, drive};
use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::threshold::Threshold;
use poplab::rng::TrialStreams;

fn protocol(n: usize, k: u16, f: usize) -> Threshold {
    Threshold::new(n, &Params::parse(&[format!("k={k}"), format!("f={f}")]).unwrap()).unwrap()
}

#[test]
fn below_the_threshold_no_agent_ever_reaches_k() {
    for (seed, f) in [(1u64, 0usize), (2, 3), (3, 4)] {
        let p = protocol(8, 5, f);
        let graph = Graph::Complete;
        let streams = TrialStreams::new(seed);
        let mut run =
            AgentRun::new(&p, &graph, p.initial_configuration(), graph.scheduler(8).unwrap(), streams.schedule);
        for step in 1..=5_000 {
            run.advance(step, Watch::Nothing);
            let sum: u32 = run.agents().iter().map(|&v| u32::from(v)).sum();
            assert_eq!(sum as usize, f, "the sum of values is conserved below k");
            assert!(run.agents().iter().all(|&v| v < 5), "an agent reached k with f = {f} at step {step}");
        }
    }
}

#[test]
fn at_or_above_the_threshold_every_agent_ends_at_k() {
    for (seed, f, graph) in [(1u64, 5usize, Graph::Complete), (2, 7, Graph::Complete), (3, 5, Graph::DirectedRing)] {
        let p = protocol(9, 5, f);
        let mut streams = TrialStreams::new(seed);
        let mut run =
            AgentRun::new(&p, &graph, p.initial_configuration(), graph.scheduler(9).unwrap(), streams.schedule);
        let plan = RunPlan { measure: Measure::Convergence, max_steps: 1_000_000, watch_from: 0 };
        let ending = drive(&mut run, plan, &mut [], &mut streams.faults).unwrap();
        assert_eq!(ending.outcome, Outcome::Converged);
        assert!(run.agents().iter().all(|&v| v == 5), "{:?}", run.agents());
        // Closure: the all-k configuration never changes again.
        let at = run.step();
        run.advance(at + 10_000, Watch::Nothing);
        assert!(run.agents().iter().all(|&v| v == 5));
    }
}
