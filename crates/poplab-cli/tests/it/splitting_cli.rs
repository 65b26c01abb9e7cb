//! `poplab run --measure holding --estimator splitting`: the JSON estimate, its interval around the
//! exact value, values beyond `10^300` in log10 only, holding curves from `poplab sweep`, and clean
//! refusals.

use crate::common;

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
    fails_with(
        &["run", "ls-timer", "--n", "4", "--measure", "holding", "--estimator", "splitting", "--score", "nope"],
        "offers timer-deficit, total-deficit",
    );
}

#[test]
fn estimates_beyond_10_to_the_300_are_given_in_log10_only() {
    let args = ["run", "ls-timer", "--n", "4", "--set", "s=480", "--measure", "holding", "--estimator", "splitting"];
    let common = ["--trials", "2", "--replicas", "100", "--cycles", "100", "--seed", "1"];
    let output = poplab().args(args).args(common).arg("--json").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let estimate = serde_json::from_slice::<Value>(&output.stdout).unwrap()["estimate"].clone();
    let log10 = estimate["log10_mean_steps"].as_f64().unwrap();
    assert!(log10 > 300.0, "{log10}");
    assert!(estimate["mean_steps"].is_null() && estimate["ci95"].is_null(), "{estimate}");
    let [lo, hi] = [0, 1].map(|i| estimate["log10_ci95"][i].as_f64().unwrap());
    assert!(lo <= log10 && log10 <= hi);
    let text = poplab().args(args).args(common).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("expected holding time  10^{log10:.3} steps")), "{text}");
}

#[test]
fn a_sweep_gives_a_holding_curve_and_continues_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("curve");
    let args = [
        "sweep",
        "ls-timer",
        "--n",
        "4,5,6",
        "--set",
        "s=10",
        "--measure",
        "holding",
        "--estimator",
        "splitting",
        "--trials",
        "4",
        "--replicas",
        "20",
        "--cycles",
        "100",
        "--out",
    ];
    let output = poplab().args(args).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let table = std::fs::read_to_string(out.join("estimates.csv")).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert!(rows[0].starts_with("n,s,log10_mean_steps,log10_ci95_lo,log10_ci95_hi,mean_steps"));
    assert!(rows[1].starts_with("4,10,") && rows[3].starts_with("6,10,"), "{table}");
    let fit: Value = serde_json::from_str(&std::fs::read_to_string(out.join("estimates-fit.json")).unwrap()).unwrap();
    assert_eq!(fit["axis"], "n");
    let [lo, hi] = [0, 1].map(|i| fit["exponential"]["slope_ci95"][i].as_f64().unwrap());
    let slope = fit["exponential"]["slope"].as_f64().unwrap();
    assert!(lo <= slope && slope <= hi);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("n=5 s=10") && stdout.contains("power exponent"), "{stdout}");

    // Run again: every cell is there, so nothing is estimated again and the lines stay as they were.
    let lines = std::fs::read_to_string(out.join("estimates.jsonl")).unwrap();
    let again = poplab().args(args).arg(&out).output().unwrap();
    assert!(again.status.success());
    assert_eq!(std::fs::read_to_string(out.join("estimates.jsonl")).unwrap(), lines);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), stdout);
    // So does --resume DIR: the estimator is part of the stored spec.
    let resumed = poplab().args(["sweep", "--resume"]).arg(&out).output().unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert_eq!(String::from_utf8(resumed.stdout).unwrap(), stdout);
    assert_eq!(std::fs::read_to_string(out.join("estimates.jsonl")).unwrap(), lines);

    // A different sweep into the same directory is refused.
    let mut other: Vec<&str> = args.to_vec();
    other[3] = "4,5";
    let mut other: Vec<String> = other.iter().map(|s| s.to_string()).collect();
    other.push(out.display().to_string());
    let other: Vec<&str> = other.iter().map(String::as_str).collect();
    fails_with(&other, "holds a different holding sweep");
}
