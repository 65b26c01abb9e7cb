//! One workload of the agent-array engine, for profilers: `hot PROTOCOL N [ring]` runs angluin,
//! ppl or pll from its default start.
use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::{angluin::Angluin, pll::Pll, ppl::Ppl};

fn ns<P: Protocol>(protocol: &P, graph: &Graph) -> f64 {
    poplab_bench::agent_ns_per_interaction(protocol, graph, 200_000_000)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (name, n) = (args.next().unwrap(), args.next().unwrap().parse().unwrap());
    let graph = if args.next().as_deref() == Some("ring") { Graph::DirectedRing } else { Graph::Complete };
    let params = Params::default();
    let ns = match name.as_str() {
        "angluin" => ns(&Angluin::new(n, &params).unwrap(), &graph),
        "ppl" => ns(&Ppl::new(n, &params).unwrap(), &graph),
        "pll" => ns(&Pll::new(n, &params).unwrap(), &graph),
        other => panic!("hot runs angluin, ppl or pll, not {other}"),
    };
    println!("{ns:.2} ns");
}
