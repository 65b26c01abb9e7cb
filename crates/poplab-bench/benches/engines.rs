//! ns per interaction of the agent-array engine. Prints two tables:
//! 1. angluin and threshold, n = 10^3, 10^5, 10^7, on the complete graph and the directed ring;
//! 2. the papers' protocols at n = 10^3, 10^5, 10^6 (ls-timer, ppl, pll on the complete graph,
//!    prl on the directed ring), each from its default initial configuration.

use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::protocols::ppl::Ppl;
use poplab::protocols::prl::Prl;
use poplab::protocols::threshold::Threshold;
use poplab_bench::agent_ns_per_interaction;

const BUDGET: u64 = 100_000_000;

fn row<P: Protocol>(protocol: &P, graph: &Graph) {
    let ns = agent_ns_per_interaction(protocol, graph, BUDGET);
    println!("| {:<10} | {:>10} | {:<8} | {:>8.2} |", protocol.info().name, protocol.n(), graph.name(), ns);
}

fn header(title: &str) {
    println!("\n{title} ({BUDGET} interactions per cell, safe set watched)");
    println!("| protocol   |          n | graph    | ns/inter |");
    println!("|------------|-----------:|----------|---------:|");
}

fn main() {
    // `cargo test --benches` runs this file without --bench: time only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let defaults = Params::default();
    header("agent-array engine: the 2-state election and the threshold example");
    for n in [1_000, 100_000, 10_000_000] {
        for graph in [Graph::Complete, Graph::DirectedRing] {
            row(&Angluin::new(n, &defaults).unwrap(), &graph);
            row(&Threshold::new(n, &defaults).unwrap(), &graph);
        }
    }
    header("agent-array engine: the papers' protocols (default parameters)");
    for n in [1_000, 100_000, 1_000_000] {
        row(&LsTimer::new(n, &defaults).unwrap(), &Graph::Complete);
        row(&Ppl::new(n, &defaults).unwrap(), &Graph::Complete);
        row(&Pll::new(n, &defaults).unwrap(), &Graph::Complete);
        row(&Prl::new(n, &defaults).unwrap(), &Graph::DirectedRing);
    }
}
