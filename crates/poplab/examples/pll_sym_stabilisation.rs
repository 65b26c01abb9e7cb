//! Stabilisation of `pll-sym` (paper 003 section 4, Algorithm 6) beside `pll`, from the initial
//! configuration on the complete graph, for the report. For each population size it prints one
//! line per protocol: the mean, median and 95% interval of the parallel time to one leader over
//! `PLL_SYM_TRIALS` trials (default 50, master seed 20240601, through `run_trials`), the most
//! distinct states visited up to stabilisation with every agent in epoch 3 (5 runs, n <= 10^4
//! only) against the size of the state space, and the seconds taken.
//!
//! `cargo run --release -p poplab --example pll_sym_stabilisation`
//!
//! `PLL_SYM_NS` (default `100,1000,10000,100000`) sets the population sizes.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Epochs, env_number, env_sizes, observed_run};
use poplab::experiment::{RunSettings, Summary, run_trials};
use poplab::protocol::{Params, Protocol};
use poplab::protocols::pll::Pll;
use poplab::protocols::pll::PllProtocol;
use poplab::protocols::pll_sym::PllSym;
use poplab::rng::trial_seed;
use rayon::prelude::*;

/// Runs the trials of `settings` and the runs that count states of `p`, and prints its line
/// (`m` and `c_max` as given, `state_count` the size of `p`'s state space).
fn report<P>(p: &P, settings: &RunSettings, m: u16, c_max: u16, state_count: u64)
where
    P: Protocol + Sync,
    P::State: Epochs,
{
    let (n, trials, seed) = (p.n(), settings.trials, settings.seed);
    let count = n <= 10_000;
    let started = std::time::Instant::now();
    let summary = Summary::of(&run_trials(p, settings, &|| {}).unwrap(), n);
    let seconds = started.elapsed().as_secs_f64();
    let most = (0..5u64)
        .into_par_iter()
        .map(|i| if count { observed_run(p, trial_seed(seed, i), true).states } else { 0 })
        .max()
        .unwrap();
    let states = if count { most.to_string() } else { "not counted".to_string() };
    println!(
        "{} n={n} m={m} c_max={c_max} trials={trials} seed={seed}: mean {:.1} median {:.1} ci95 {:.1?} \
         (parallel time), converged {}/{}; max distinct states visited up to stabilisation and epoch 3 \
         everywhere (5 runs) {states} of {}; {seconds:.0} s",
        p.info().name,
        summary.mean_parallel_time.unwrap_or(f64::NAN),
        summary.median_parallel_time.unwrap_or(f64::NAN),
        summary.ci95_parallel_time.unwrap_or([f64::NAN; 2]),
        summary.converged,
        summary.trials,
        state_count,
    );
}

fn main() {
    let trials = env_number("PLL_SYM_TRIALS", 50);
    let sizes = env_sizes("PLL_SYM_NS", "100,1000,10000,100000");
    let seed = 20_240_601;
    for n in sizes {
        let settings = RunSettings { trials, seed, ..RunSettings::default() };
        let sym = PllSym::new(n, &Params::default()).unwrap();
        // Both lines give pll-sym's m and c_max, as the report's table does.
        let base = Pll::new(n, &Params::default()).unwrap();
        report(&base, &settings, sym.m(), sym.c_max(), base.state_count());
        report(&sym, &settings, sym.m(), sym.c_max(), sym.state_count());
    }
}
