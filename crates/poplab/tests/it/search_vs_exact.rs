//! The search for slow starts against the exact worst start: at sizes where `exact --from all`
//! runs, the search (a fixed seed and candidate budget) must find a start whose re-measured mean
//! agrees with the exact worst (z-test at level 0.001: the exact worst lies in its interval), and
//! with that start's own exact expectation, for each stabilizing protocol at small constants and
//! for a protocol file.

use poplab::search::{Budget, SearchSettings};
use poplab::spec::{RawSpec, RunSpec};

fn example(name: &str) -> String {
    format!("@{}/../../examples/protocols/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Searches `protocol` at `n` with `params` and checks the start found against the exact worst.
fn finds_the_exact_worst(protocol: &str, n: u64, params: &[&str]) {
    let raw = RawSpec { params: params.iter().map(|p| p.to_string()).collect(), seed: 7, ..RawSpec::new(protocol, n) };
    let spec = RunSpec::resolve(&raw).unwrap();
    let exact = spec.exact_from_every(1 << 20).unwrap();
    let worst = exact.worst_steps() / n as f64;
    assert!(worst.is_finite(), "{protocol}: an infinite worst case");
    let settings =
        SearchSettings { budget: Budget::Candidates(200), remeasure_trials: 400, top: 1, ..SearchSettings::default() };
    let found = spec.search(&settings, &|_| {}).unwrap();
    let init = serde_json::to_string(&found.worst.start).unwrap();
    let its = RunSpec::resolve(&RawSpec { init: Some(init), ..raw.clone() }).unwrap().exact(1 << 20).unwrap();
    // The 95% interval (Student t, 399 degrees of freedom) gives the standard error.
    let [lo, hi] = found.worst.ci95;
    let se = (hi - lo) / 2.0 / 1.966;
    let mean = found.worst.mean_parallel_time;
    let z_worst = (mean - worst) / se;
    let z_own = (mean - its.expected_parallel_time) / se;
    let what = format!(
        "{protocol} n={n}: found '{}', {mean} +- {se} parallel time (exactly {}); the exact worst is {worst} ({} ties)",
        found.worst.description, its.expected_parallel_time, exact.worst_ties
    );
    assert!(z_worst.abs() < 3.29, "{what}: z = {z_worst} against the worst");
    assert!(z_own.abs() < 3.29, "{what}: z = {z_own} against its own exact value");
}

#[test]
fn ls_timer_search_finds_the_exact_worst_start() {
    finds_the_exact_worst("ls-timer", 4, &["s=6"]);
}

#[test]
fn prl_search_finds_the_exact_worst_start() {
    finds_the_exact_worst("prl", 2, &["N=4"]);
}

#[test]
fn ppl_search_finds_the_exact_worst_start() {
    finds_the_exact_worst("ppl", 2, &["t_virus=2", "t_max=6", "t_emit=6"]);
}

#[test]
fn a_protocol_files_search_finds_its_slow_corner() {
    finds_the_exact_worst(&example("slow-corner.toml"), 6, &[]);
}
