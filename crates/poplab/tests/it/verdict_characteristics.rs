//! The verdict rules' operating characteristics at CI's size (`docs/verdicts.md` has the full
//! table, `cargo run --release -p poplab --example operating_characteristics`): on every
//! synthetic case a wrong decision stays rare at every number of trials per size, and the power to
//! decide a true claim does not fall as trials are added.

use poplab::claims::characteristics::{CASES, rates};

const REPETITIONS: usize = 200;

#[test]
fn wrong_decisions_stay_rare_and_power_grows_with_the_trials() {
    for (i, case) in CASES.iter().enumerate() {
        let shares: Vec<[f64; 2]> =
            [5, 20, 100, 1000].iter().map(|&t| rates(case, t, REPETITIONS, 1000 + i as u64)).collect();
        // The wrong verdict: inconsistent for a claim that holds, consistent for one that does not.
        let wrong = usize::from(case.holds);
        for (t, share) in [5, 20, 100, 1000].iter().zip(&shares) {
            // At most 1 in 200 (the rules promise 0.001; one in 200 allows the sampling noise).
            assert!(share[wrong] <= 1.0 / REPETITIONS as f64, "{}: {t} trials: {share:?}", case.name);
        }
        let right: Vec<f64> = shares.iter().map(|s| s[1 - wrong]).collect();
        for pair in right.windows(2) {
            assert!(pair[1] >= pair[0] - 0.05, "{}: power falls with the trials: {right:?}", case.name);
        }
        assert!(right[3] > 0.8, "{}: at 1000 trials per size the right verdict has power {right:?}", case.name);
    }
}
