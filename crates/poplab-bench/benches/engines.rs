//! ns per interaction of the agent-array engine. Prints two tables:
//! 1. angluin and threshold, n = 10^3, 10^5, 10^7, on the complete graph and the directed ring;
//! 2. the papers' protocols at n = 10^3, 10^5, 10^6 (ls-timer, ppl, pll on the complete graph,
//!    prl on the directed ring), each from its default initial configuration;
//! 3. the agent array at n = 10^8 against its memory floor ([`memory_floor_ns`]): a loop that only
//!    swaps two random agents of the same size, with and without prefetching; and against the
//!    same protocol at n = 10^4, whose array fits the cache (what its transitions cost without
//!    memory latency).
//!
//! `cargo bench -p poplab-bench --bench engines -- floor` prints only the tables whose name
//! (`election`, `papers`, `floor`) contains the argument.

use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::protocols::ppl::Ppl;
use poplab::protocols::prl::Prl;
use poplab::protocols::threshold::Threshold;
use poplab_bench::{agent_ns_per_interaction, memory_floor_ns};

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
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--")).unwrap_or_default();
    let defaults = Params::default();
    if "election".contains(&filter) {
        election_table(&defaults);
    }
    if "papers".contains(&filter) {
        papers_table(&defaults);
    }
    if "floor".contains(&filter) {
        floor_table(&defaults);
    }
}

fn election_table(defaults: &Params) {
    header("agent-array engine: the 2-state election and the threshold example");
    for n in [1_000, 100_000, 10_000_000] {
        for graph in [Graph::Complete, Graph::DirectedRing] {
            row(&Angluin::new(n, defaults).unwrap(), &graph);
            row(&Threshold::new(n, defaults).unwrap(), &graph);
        }
    }
}

fn papers_table(defaults: &Params) {
    header("agent-array engine: the papers' protocols (default parameters)");
    for n in [1_000, 100_000, 1_000_000] {
        row(&LsTimer::new(n, defaults).unwrap(), &Graph::Complete);
        row(&Ppl::new(n, defaults).unwrap(), &Graph::Complete);
        row(&Pll::new(n, defaults).unwrap(), &Graph::Complete);
        row(&Prl::new(n, defaults).unwrap(), &Graph::DirectedRing);
    }
}

fn floor_table(defaults: &Params) {
    println!("\nagent array at n = 10^8 against its memory floor ({BUDGET} interactions per cell)");
    println!("(in cache: the same protocol at n = 10^4, whose array fits the L2 cache: its compute floor)");
    println!(
        "| protocol   | bytes/agent | engine ns | in cache ns | floor ns, prefetched | floor ns, no prefetch | engine / floor |"
    );
    println!(
        "|------------|------------:|----------:|------------:|---------------------:|----------------------:|---------------:|"
    );
    floor_row(|n| Angluin::new(n, defaults).unwrap());
    floor_row(|n| Ppl::new(n, defaults).unwrap());
    floor_row(|n| Pll::new(n, defaults).unwrap());
}

/// One row of [`floor_table`]; `protocol(n)` builds the protocol for `n` agents.
fn floor_row<P: Protocol>(protocol: impl Fn(usize) -> P) {
    let large = protocol(100_000_000);
    let engine = agent_ns_per_interaction(&large, &Graph::Complete, BUDGET);
    let in_cache = agent_ns_per_interaction(&protocol(10_000), &Graph::Complete, BUDGET);
    let (n, fill) = (large.n(), large.initial_configuration()[0]);
    let floor = memory_floor_ns(fill, n, BUDGET, true);
    let latency = memory_floor_ns(fill, n, BUDGET, false);
    let bytes = std::mem::size_of::<P::State>();
    let name = large.info().name;
    println!(
        "| {name:<10} | {bytes:>11} | {engine:>9.2} | {in_cache:>11.2} | {floor:>20.2} | {latency:>21.2} | {:>14.2} |",
        engine / floor
    );
}
