//! Stabilisation of P_LL (`pll` and `pll-as-printed`, paper 003 section 3) from the initial
//! configuration on the complete graph, for the report. For each population size and variant it
//! prints one line: the mean, median and 95% interval of the parallel time to one leader over
//! `PLL_TRIALS` trials (default 50, master seed 20240601, through `run_trials`); the module of the
//! last elimination over up to 50 separate runs (10 above n = 10^4) as counts [assign, quick,
//! tournament, backup]; the most distinct states visited up to stabilisation with every agent in
//! epoch 3 (5 runs, n <= 10^4 only) against the size of the state space; and the seconds taken.
//!
//! `cargo run --release -p poplab --example pll_stabilisation`
//!
//! `PLL_NS` (default `100,1000,10000,100000`) sets the population sizes.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Observed, env_number, env_sizes, observed_run};
use poplab::experiment::{RunSettings, Summary, run_trials};
use poplab::protocol::{Params, Protocol};
use poplab::protocols::pll::Pll;
use poplab::protocols::pll::PllProtocol;
use poplab::rng::trial_seed;
use rayon::prelude::*;

fn main() {
    let trials = env_number("PLL_TRIALS", 50);
    let sizes = env_sizes("PLL_NS", "100,1000,10000,100000");
    let seed = 20_240_601;
    for n in sizes {
        for p in [Pll::new(n, &Params::default()).unwrap(), Pll::as_printed(n, &Params::default()).unwrap()] {
            let settings = RunSettings { trials, seed, ..RunSettings::default() };
            let started = std::time::Instant::now();
            let records = run_trials(&p, &settings, &|| {}).unwrap();
            let summary = Summary::of(&records, n);
            let seconds = started.elapsed().as_secs_f64();
            // The last module and states visited: a separate set of runs (seeds trial_seed(seed, i)).
            let extra = trials.min(if n <= 10_000 { 50 } else { 10 });
            let observed: Vec<Observed> = (0..extra)
                .into_par_iter()
                .map(|i| observed_run(&p, trial_seed(seed, i), n <= 10_000 && i < 5))
                .collect();
            let mut by_module = [0; 4];
            for o in &observed {
                by_module[o.module as usize] += 1;
            }
            let states = match observed.iter().map(|o| o.states).max().unwrap() {
                0 => "not counted".to_string(),
                most => most.to_string(),
            };
            println!(
                "{} n={n} m={} c_max={} trials={trials} seed={seed}: mean {:.1} median {:.1} ci95 {:.1?} (parallel \
                 time), converged {}/{}; last elimination over {extra} runs [assign, quick, tournament, backup] = \
                 {by_module:?}; max distinct states visited up to stabilisation and epoch 3 everywhere (5 runs) {states} of {}; {seconds:.0} s",
                p.info().name,
                p.m(),
                p.c_max(),
                summary.mean_parallel_time.unwrap_or(f64::NAN),
                summary.median_parallel_time.unwrap_or(f64::NAN),
                summary.ci95_parallel_time.unwrap_or([f64::NAN; 2]),
                summary.converged,
                summary.trials,
                p.state_count(),
            );
        }
    }
}
