//! One claim of the reproduction, alone: its experiment at the quick size, its points and its
//! verdict, as `poplab reproduce --quick --only CLAIM` reports them (same seed, same numbers),
//! without the report.
//!
//! `cargo run --release -p poplab --example one_claim [CLAIM [SEED]]`: the claim defaults to
//! `prl-big-n` (P_RL's O(nN) steps in N at n = 100, a few seconds), the seed to 1, the seed of
//! `poplab reproduce`. The sweeps are written to a temporary directory.

use poplab::claims::{Mode, claim};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| "prl-big-n".into());
    let seed = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    let claim = claim(&id, Mode::Quick, seed)?;
    println!("{}: {}\n{} ({})\n", claim.id, claim.title, claim.statement, claim.source);
    let dir = tempfile::tempdir()?;
    let findings = claim.run(dir.path(), None)?;
    println!("{:>12} {:>8} {:>9} {:>14} {:>14}", "x", "trials", "censored", "mean", "median");
    for row in &findings.rows {
        let number = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.4e}"));
        let variant = row.variant.as_ref().map_or(String::new(), |(protocol, _)| format!(" ({protocol})"));
        let mean = match row.log10_estimate {
            Some((log10, _)) => format!("10^{log10:.2}"),
            None => number(row.mean),
        };
        println!(
            "{:>12} {:>8} {:>9} {:>14} {:>14}{variant}",
            row.point.x,
            row.trials,
            row.point.censored,
            mean,
            number(row.median)
        );
    }
    println!("\nverdict: {}: {}", findings.judgement.verdict.word(), findings.judgement.evidence);
    Ok(())
}
