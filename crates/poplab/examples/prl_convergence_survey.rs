//! Survey of P_RL's convergence on the directed ring: mean steps to S_RL for n = 8 to 512, from
//! random configurations with N = n (400 trials each) and N = 4n (200), and from the no-leader
//! (default) and all-leaders configurations with N = n (200), to see whether mean / (nN) levels
//! off. Prints one line per (n, N) to standard error: mean and median steps and mean / (nN).
//!
//! `cargo run --release -p poplab --example prl_convergence_survey`

#[path = "../tests/common/mod.rs"]
mod common;

use common::prl_mean_steps;
use poplab::init::InitSpec;

fn main() {
    let sizes = [8usize, 16, 32, 64, 128, 256, 512];
    let points: Vec<(usize, u32)> = sizes.iter().map(|&n| (n, n as u32)).collect();
    prl_mean_steps(&points, InitSpec::Random, 400, 2024);
    let points: Vec<(usize, u32)> = sizes.iter().map(|&n| (n, 4 * n as u32)).collect();
    prl_mean_steps(&points, InitSpec::Random, 200, 2025);
    let points: Vec<(usize, u32)> = sizes.iter().map(|&n| (n, n as u32)).collect();
    prl_mean_steps(&points, InitSpec::Default, 200, 2026);
    prl_mean_steps(&points, InitSpec::Family("all-leaders".into()), 200, 2027);
}
