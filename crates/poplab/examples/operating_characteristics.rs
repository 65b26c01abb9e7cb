//! The operating characteristics of the verdict rules (`docs/verdicts.md`): for each synthetic
//! case of `poplab::claims::characteristics::CASES`, the share of experiments called consistent
//! and inconsistent at 5, 20, 100 and 1000 trials per size.
//!
//! `cargo run --release -p poplab --example operating_characteristics [REPETITIONS]` (default
//! 2000 repetitions per cell; the seed is fixed, so the table is reproducible).

use poplab::claims::characteristics::{CASES, rates};
use rayon::prelude::*;

const TRIALS: [usize; 4] = [5, 20, 100, 1000];

fn main() {
    let repetitions: usize = std::env::args().nth(1).map_or(2000, |r| r.parse().expect("a number of repetitions"));
    println!("| case | claim holds | {} |", TRIALS.map(|t| format!("{t} trials: P(cons.) / P(incons.)")).join(" | "));
    println!("|---|---|{}", "---|".repeat(TRIALS.len()));
    for (i, case) in CASES.iter().enumerate() {
        let cells: Vec<String> = TRIALS
            .par_iter()
            .map(|&trials| {
                let [consistent, inconsistent] = rates(case, trials, repetitions, 1000 + i as u64);
                format!("{consistent:.4} / {inconsistent:.4}")
            })
            .collect();
        println!("| {} | {} | {} |", case.name, if case.holds { "yes" } else { "no" }, cells.join(" | "));
    }
    println!("\n{repetitions} synthetic experiments per cell, seeds 1000 + case index.");
}
