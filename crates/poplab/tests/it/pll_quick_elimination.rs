//! The post-stratification of P_LL's means (the reproduction's `Means::QuickElimination`): the
//! probability that QuickElimination ends a run against runs, the classification of runs by their
//! time against the census, and the stratified mean against the plain mean from independent runs.
//!
//! The larger validation of `docs/verdicts.md` (20000 runs at n = 2^10) is the same check run with
//! `poplab run pll --n 2^10 --trials 20000 --seed 2026 --census --json`.

use poplab::experiment::TrialRecord;
use poplab::growth::Estimate;
use poplab::protocols::pll::{QUICK_ELIMINATION_ENDS, quick_elimination_ended};
use poplab::spec::{RawSpec, RunSpec};
use poplab::stats;

fn runs(protocol: &str, n: u64, trials: u64, seed: u64) -> Vec<TrialRecord> {
    let raw = RawSpec { trials, seed, census: true, ..RawSpec::new(protocol, n) };
    RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap().records
}

#[test]
fn quick_elimination_ends_runs_with_the_analytic_probability() {
    let n = 128;
    for (protocol, trials) in [("pll", 20_000), ("pll-sym", 5000), ("pll-as-printed", 2000)] {
        let records = runs(protocol, n, trials, 44);
        let mut quick = 0;
        for r in &records {
            let by_time = quick_elimination_ended(n, r.parallel_time.0);
            // A run QuickElimination leaves with one leader can end when the last agent of
            // status X is assigned (the census then names status assignment): epoch 1 ended it.
            let by_census = matches!(r.last_demotion.as_deref(), Some("quick-elimination" | "status-assignment"));
            assert_eq!(
                by_time, by_census,
                "{protocol} trial {}: time {} and census disagree",
                r.index, r.parallel_time.0
            );
            quick += usize::from(by_time);
        }
        let p = QUICK_ELIMINATION_ENDS;
        let z = (quick as f64 / trials as f64 - p) / (p * (1.0 - p) / trials as f64).sqrt();
        eprintln!("{protocol} n = {n}: {quick} of {trials} runs ended by QuickElimination, z = {z:.2}");
        assert!(z.abs() < 3.29, "{protocol}: {quick} of {trials}, z = {z}");
    }
}

#[test]
fn stratified_and_plain_means_agree() {
    for n in [128, 512] {
        let time = |r: &TrialRecord| r.parallel_time.0;
        let plain = runs("pll", n, 2000, 1);
        let plain = Estimate::of_values(n as f64, &plain.iter().map(time).collect::<Vec<_>>()).unwrap();
        let split = runs("pll", n, 2000, 2);
        let part = |quick: bool| -> Vec<f64> {
            split.iter().filter(|r| quick_elimination_ended(n, time(r)) == quick).map(time).collect()
        };
        let stratified =
            Estimate::post_stratified(n as f64, &part(true), &part(false), QUICK_ELIMINATION_ENDS).unwrap();
        let z = (plain.mean - stratified.mean) / plain.se.hypot(stratified.se);
        eprintln!(
            "n = {n}: plain {:.3} +- {:.3}, stratified {:.3} +- {:.3}, variance ratio {:.1}",
            plain.mean,
            plain.se,
            stratified.mean,
            stratified.se,
            (plain.se / stratified.se).powi(2)
        );
        assert!(z.abs() < 3.29, "n = {n}: z = {z}");
        assert!(stratified.se < plain.se, "stratifying must not lose precision at n = {n}");
        assert!(stats::mean(&part(true)) < stats::mean(&part(false)));
    }
}
