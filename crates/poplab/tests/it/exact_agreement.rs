//! Exact expectations against simulation: for each protocol and size, the mean of 10^4 simulated
//! trials (the agent-array engine, from the same start) lies within 4 standard errors of the exact
//! expected steps, the standard error computed from the exact variance.

use crate::common;

use common::params;
use poplab::engine::Outcome;
use poplab::exact::{ExploreSettings, expected_steps};
use poplab::experiment::{RunSettings, run_trials};
use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::protocols::ppl::Ppl;
use poplab::protocols::prl::Prl;
use poplab::protocols::threshold::Threshold;

const TRIALS: u64 = 10_000;

/// Returns (exact mean, simulated mean, standard error).
fn agree<P: Protocol>(protocol: &P, graph: Graph, seed: u64) -> (f64, f64, f64) {
    let settings = ExploreSettings { graph: graph.clone(), ..ExploreSettings::default() };
    let exact = expected_steps(protocol, &protocol.initial_configuration(), &settings).unwrap();
    assert!(exact.expected_steps.is_finite(), "{}: infinite expectation", protocol.info().name);
    assert!(exact.relative_error_bound < 1e-9);
    let run =
        RunSettings { graph, trials: TRIALS, seed, max_steps: u128::MAX, threads: None, ..RunSettings::default() };
    let records = run_trials(protocol, &run, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Converged));
    let mean = records.iter().map(|r| r.steps.0 as f64).sum::<f64>() / TRIALS as f64;
    let se = (exact.variance_steps / TRIALS as f64).sqrt();
    eprintln!(
        "{} n={} {}: exact {:.6} (sd {:.4}, {} configurations), simulated mean {mean:.4} over {TRIALS} trials (seed {seed}), z = {:.2}",
        protocol.info().name,
        protocol.n(),
        serde_json::Value::Object(protocol.params()),
        exact.expected_steps,
        exact.variance_steps.sqrt(),
        exact.configurations,
        (mean - exact.expected_steps) / se
    );
    assert!(
        (mean - exact.expected_steps).abs() < 4.0 * se,
        "{} n = {}: simulated {mean} vs exact {} (se {se})",
        protocol.info().name,
        protocol.n(),
        exact.expected_steps
    );
    (exact.expected_steps, mean, se)
}

#[test]
fn angluin_agrees() {
    for n in [10, 30] {
        let (exact, _, _) = agree(&Angluin::new(n, &Params::default()).unwrap(), Graph::Complete, 1);
        assert!((exact - ((n - 1) * (n - 1)) as f64).abs() < 1e-9 * exact);
    }
}

#[test]
fn prl_agrees_on_small_rings() {
    for (n, big_n) in [(3, 3), (4, 4)] {
        let p = Prl::new(n, &params(&[&format!("N={big_n}")])).unwrap();
        agree(&p, Graph::DirectedRing, 2);
    }
}

#[test]
fn ls_timer_agrees_with_a_small_timer() {
    for n in [4, 5] {
        let p = LsTimer::new(n, &params(&["timer_factor=1"])).unwrap();
        agree(&p, Graph::Complete, 3);
    }
}

#[test]
fn ppl_agrees_with_tiny_timers() {
    let p = Ppl::new(4, &params(&["t_virus=2", "t_max=4", "t_emit=4"])).unwrap();
    agree(&p, Graph::Complete, 4);
}

#[test]
fn pll_agrees_from_the_default_configuration() {
    // n = 3 is the largest size under the default cap: n = 4 reaches more than 10^6 configurations.
    agree(&Pll::new(3, &Params::default()).unwrap(), Graph::Complete, 5);
    agree(&Pll::as_printed(3, &Params::default()).unwrap(), Graph::Complete, 6);
}

#[test]
fn threshold_agrees_and_swaps_are_self_loops() {
    // (0, x) -> (x, 0) changes the agents but not the multiset: a self-loop of the chain of counts.
    // n = 4, k = 3, four ones: 17/2 steps (an independent solve of the 8-configuration chain).
    let p = Threshold::new(4, &params(&["k=3", "f=4"])).unwrap();
    let (exact, _, _) = agree(&p, Graph::Complete, 7);
    assert!((exact - 8.5).abs() < 1e-9, "{exact}");
    agree(&Threshold::new(8, &params(&["k=3", "f=4"])).unwrap(), Graph::Complete, 8);
}
