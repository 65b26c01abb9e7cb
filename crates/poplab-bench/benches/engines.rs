//! ns per interaction of the agent-array engine: angluin and threshold, n = 10^3, 10^5, 10^7, on
//! the complete graph and the directed ring. Prints a table.

use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::threshold::Threshold;
use poplab_bench::agent_ns_per_interaction;

const BUDGET: u64 = 100_000_000;

fn row<P: Protocol>(name: &str, protocol: &P, graph: &Graph) {
    let ns = agent_ns_per_interaction(protocol, graph, BUDGET);
    println!("| {name:<10} | {:>10} | {:<8} | {:>8.2} |", protocol.n(), graph.name(), ns);
}

fn main() {
    // `cargo test --benches` passes --bench-less arguments; only time under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!("agent-array engine, {BUDGET} interactions per cell, safe set watched");
    println!("| protocol   |          n | graph    | ns/inter |");
    println!("|------------|-----------:|----------|---------:|");
    for n in [1_000, 100_000, 10_000_000] {
        for graph in [Graph::Complete, Graph::DirectedRing] {
            row("angluin", &Angluin::new(n, &Params::default()).unwrap(), &graph);
            row("threshold", &Threshold::new(n, &Params::default()).unwrap(), &graph);
        }
    }
}
