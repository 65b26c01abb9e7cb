//! One workload of the agent-array engine, for profilers: `hot N [ring]` runs angluin.
use poplab::graph::Graph;
use poplab::protocol::Params;
use poplab::protocols::angluin::Angluin;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let ring = std::env::args().nth(2).as_deref() == Some("ring");
    let g = if ring { Graph::DirectedRing } else { Graph::Complete };
    let p = Angluin::new(n, &Params::default()).unwrap();
    let ns = poplab_bench::agent_ns_per_interaction(&p, &g, 200_000_000);
    println!("{ns:.2} ns");
}
