//! Throughput benchmarks of the poplab engines. Run `cargo bench -p poplab-bench`; each bench
//! prints a table (speed claims live here, never in timed unit tests).

use poplab::engine::{AgentRun, Watch, on_huge_pages, prefetch};
use poplab::graph::Graph;
use poplab::protocol::Protocol;
use poplab::rng::{TrialStreams, below_u64};
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
        run.advance(u128::from(budget - total_steps), Watch::SafeSet);
        elapsed += start.elapsed().as_secs_f64();
        total_steps += u64::try_from(run.step()).expect("at most the budget");
        seed += 1;
    }
    elapsed * 1e9 / total_steps as f64
}

/// Pairs in the index stream of [`memory_floor_ns`]: 2^24 pairs (128 MB) touch far more cache
/// lines than any cache holds, so reusing the stream costs no locality.
const FLOOR_PAIRS: usize = 1 << 24;

/// How far ahead [`memory_floor_ns`] prefetches, in pairs.
const FLOOR_AHEAD: usize = 64;

/// The memory floor of an agent array: nanoseconds per interaction of a loop that only swaps two
/// agents of `T` (so both are read and written) in an array of `n` copies of `fill` (on huge pages
/// where the engine's array is, [`on_huge_pages`]), over `interactions` pairs of
/// distinct uniform agents drawn in advance (so no random-number cost, no transition, no monitor).
/// With `prefetching`, pair `j + 64` is prefetched while pair `j` is swapped, which overlaps the
/// misses as far as the memory system allows: the memory-latency limit of the agent-array design.
/// Without, every miss waits in turn.
pub fn memory_floor_ns<T: Copy>(fill: T, n: usize, interactions: u64, prefetching: bool) -> f64 {
    let mut rng = TrialStreams::new(1).schedule;
    let pairs: Vec<(u32, u32)> = (0..FLOOR_PAIRS)
        .map(|_| {
            let u = below_u64(&mut rng, n as u64) as u32;
            let v = below_u64(&mut rng, n as u64 - 1) as u32;
            (u, if v >= u { v + 1 } else { v })
        })
        .collect();
    let mut agents = on_huge_pages(vec![fill; n]);
    let start = Instant::now();
    for j in 0..interactions as usize {
        let (u, v) = pairs[j % FLOOR_PAIRS];
        if prefetching {
            let (pu, pv) = pairs[(j + FLOOR_AHEAD) % FLOOR_PAIRS];
            prefetch(agents.as_ptr().wrapping_add(pu as usize));
            prefetch(agents.as_ptr().wrapping_add(pv as usize));
        }
        agents.swap(u as usize, v as usize);
    }
    let elapsed = start.elapsed().as_secs_f64();
    std::hint::black_box(&agents);
    elapsed * 1e9 / interactions as f64
}
