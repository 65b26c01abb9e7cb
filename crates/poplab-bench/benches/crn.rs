//! Chemical reaction networks: processor seconds of one run to time 1 on each network engine,
//! the workloads of `scripts/bench/bench-crn.sh` (whose Python peers, batss, rebop and ppsim,
//! run the same laws):
//!
//! - `lotka-volterra`: `R -> 2R`, `R + F -> 2F`, `F ->` (k = 1), R = F = n/2, volume n;
//! - `dimerization`: `2A -> D`, `D -> 2A` (k = 1), A = n, volume n.
//!
//! One run per cell and engine (seed `POPLAB_BENCH_SEED`, default 1), best of
//! `POPLAB_BENCH_REPS` (default 3) processor times of this thread; `POPLAB_BENCH_SIZES=10^3,10^6`
//! picks the sizes (default 10^3 to 10^9); the direct engine stops after a cell over 20 s. An
//! argument runs the workloads whose name contains it:
//! `cargo bench -p poplab-bench --bench crn -- lotka`.

use poplab::clock::thread_cpu_seconds;
use poplab::crn::{CrnEngine, CrnRun, Network};
use poplab::numbers::{parse_list, parse_u64};

fn workloads(n: u64) -> [(&'static str, Network, Vec<u64>); 2] {
    let v = n as f64;
    let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], v).unwrap();
    let dimer = Network::parse(&[("2A -> D", 1.0), ("D -> 2A", 1.0)], v).unwrap();
    [("lotka-volterra", lv, vec![n / 2, n - n / 2]), ("dimerization", dimer, vec![n, 0])]
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or_default();
    let seed: u64 = std::env::var("POPLAB_BENCH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let reps: usize = std::env::var("POPLAB_BENCH_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let sizes: Vec<u64> = match std::env::var("POPLAB_BENCH_SIZES") {
        Ok(text) => parse_list(&text)
            .ok()
            .and_then(|list| list.iter().map(|s| parse_u64(s).ok()).collect())
            .expect("POPLAB_BENCH_SIZES: sizes such as 10^3,10^6"),
        Err(_) => (3..=9).map(|k| 10u64.pow(k)).collect(),
    };
    println!("| workload | n | engine | processor s (best of {reps}) | reactions | final counts |");
    println!("|---|---:|---|---:|---:|---|");
    for index in 0..2 {
        let mut direct_too_slow = false;
        for &n in &sizes {
            let (name, network, start) = workloads(n).into_iter().nth(index).unwrap();
            if !name.contains(&filter) {
                continue;
            }
            for engine in [CrnEngine::Direct, CrnEngine::Batched] {
                if engine == CrnEngine::Direct && direct_too_slow {
                    continue;
                }
                let mut best = f64::INFINITY;
                let mut last = None;
                for _ in 0..reps {
                    let begin = thread_cpu_seconds().unwrap_or(0.0);
                    let mut run = CrnRun::new(network.clone(), start.clone(), engine, seed).unwrap();
                    run.advance_to(1.0).unwrap();
                    best = best.min(thread_cpu_seconds().unwrap_or(0.0) - begin);
                    last = Some(run);
                }
                let run = last.unwrap();
                let counts: Vec<String> =
                    network.species.iter().zip(run.counts()).map(|(s, c)| format!("{s} = {c}")).collect();
                println!("| {name} | {n:.0e} | {engine:?} | {best:.4} | {} | {} |", run.reactions(), counts.join(", "));
                if engine == CrnEngine::Direct && best > 20.0 {
                    direct_too_slow = true;
                }
            }
        }
    }
}
