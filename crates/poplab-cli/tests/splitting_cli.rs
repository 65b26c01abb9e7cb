//! `poplab run --measure holding --estimator splitting`: the JSON estimate, its interval around the
//! exact value, and clean refusals.

mod common;

use common::{fails_with, poplab};
use serde_json::Value;

#[test]
fn the_estimate_document_has_its_fields_and_covers_the_exact_value() {
    let args = ["run", "ls-timer", "--n", "4", "--set", "s=8", "--measure", "holding", "--estimator", "splitting"];
    let output =
        poplab().args(args).args(["--trials", "20", "--replicas", "50", "--seed", "3", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["rng"], "Xoshiro256PlusPlus");
    assert_eq!(doc["measure"], "holding");
    let estimate = &doc["estimate"];
    let mean = estimate["mean_steps"].as_f64().unwrap();
    let (lo, hi) = (estimate["ci95"][0].as_f64().unwrap(), estimate["ci95"][1].as_f64().unwrap());
    // `poplab exact ls-timer --n 4 --set s=8 --measure holding`: 64,431.72 steps.
    assert!(lo <= 64_431.72 && 64_431.72 <= hi, "interval [{lo}, {hi}]");
    assert!(lo <= mean && mean <= hi);
    assert!((estimate["log10_mean_steps"].as_f64().unwrap() - mean.log10()).abs() < 1e-9);
    assert!(estimate["interactions_simulated"].as_u64().unwrap() > 0);
    assert_eq!(estimate["score"], "timer-deficit");
}

#[test]
fn the_estimator_refuses_what_it_cannot_estimate() {
    fails_with(&["run", "ls-timer", "--n", "4", "--estimator", "splitting"], "give --measure holding");
    fails_with(
        &["run", "angluin", "--n", "4", "--measure", "holding", "--init", "all-leaders", "--estimator", "splitting"],
        "angluin has no holding score",
    );
}
