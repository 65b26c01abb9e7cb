//! The exact solver (`poplab::exact`: `expected_steps`, `verify`) against closed forms: the
//! 2-state election's expected steps `(n - 1)^2` and their variance, its traps (all followers; a
//! directed ring), the configuration cap, and the threshold predicate. No simulation: sampled runs
//! against the same closed form are in `angluin_runs_vs_closed_form.rs`.

use crate::common;

use common::angluin_exact_variance;
use poplab::exact::{ExploreSettings, Starts, expected_steps, verify};
use poplab::graph::Graph;
use poplab::protocol::Configurations;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::threshold::Threshold;

#[test]
fn angluin_expected_steps_are_n_minus_one_squared() {
    for n in (2..=30).chain([50]) {
        let p = Angluin::new(n, &Params::default()).unwrap();
        let report = expected_steps(&p, &p.initial_configuration(), &ExploreSettings::default()).unwrap();
        let exact = ((n - 1) * (n - 1)) as f64;
        assert!(
            ((report.expected_steps - exact) / exact).abs() < 1e-9,
            "n = {n}: {} vs {exact}",
            report.expected_steps
        );
        let variance = angluin_exact_variance(n);
        assert!((report.variance_steps - variance).abs() <= 1e-9 * variance.max(1.0), "n = {n}");
        assert_eq!(report.configurations, n, "multisets with n..1 leaders");
        assert!(report.relative_error_bound < 1e-12);
        assert!((report.expected_parallel_time - exact / n as f64).abs() < 1e-9);
    }
}

#[test]
fn angluin_on_agent_vectors_agrees_with_multisets() {
    // The complete graph explored as agent vectors (arc list of every ordered pair) gives the same law.
    let n = 5;
    let p = Angluin::new(n, &Params::default()).unwrap();
    let arcs = (0..n as u32).flat_map(|u| (0..n as u32).filter(move |&v| v != u).map(move |v| (u, v))).collect();
    let settings = ExploreSettings { graph: Graph::Arcs(arcs), ..ExploreSettings::default() };
    let report = expected_steps(&p, &p.initial_configuration(), &settings).unwrap();
    assert!((report.expected_steps - 16.0).abs() < 1e-9);
    assert_eq!(report.configurations, 31, "every agent vector with a leader");
}

#[test]
fn angluin_verifies_from_default_and_fails_from_everywhere() {
    let p = Angluin::new(6, &Params::default()).unwrap();
    let v = verify(&p, &Starts::Configurations(vec![p.initial_configuration()]), &ExploreSettings::default()).unwrap();
    assert!(v.passed(), "{v:?}");
    assert_eq!((v.configurations, v.safe, v.bottom_components), (6, 1, 1));

    // From every configuration: all followers is a trap (no leader is ever created).
    let v = verify(&p, &Starts::Every(p.state_space().unwrap()), &ExploreSettings::default()).unwrap();
    assert_eq!(v.configurations, 7);
    assert!(v.closure.passed && v.safety.passed);
    assert!(!v.convergence.passed);
    let cx = v.convergence.counterexample.unwrap();
    assert_eq!(cx.start, vec![false; 6]);
    assert!(cx.schedule.is_empty());
    assert_eq!(v.unsafe_bottom_components, 1);
}

#[test]
fn angluin_on_a_ring_has_infinite_expectation_with_a_trap_schedule() {
    // Leaders never move on a directed ring: two non-adjacent leaders never meet.
    let p = Angluin::new(4, &Params::default()).unwrap();
    let settings = ExploreSettings { graph: Graph::DirectedRing, ..ExploreSettings::default() };
    let report = expected_steps(&p, &p.initial_configuration(), &settings).unwrap();
    assert!(report.expected_steps.is_infinite());
    let trap = report.trap.unwrap();
    assert_eq!(trap.end.iter().filter(|&&l| l).count(), 2, "{trap:?}");
    assert_eq!(trap.schedule.len(), 2);
}

#[test]
fn the_cap_is_an_error_not_a_truncation() {
    let p = Angluin::new(30, &Params::default()).unwrap();
    let settings = ExploreSettings { max_configs: 10, ..ExploreSettings::default() };
    let err = expected_steps(&p, &p.initial_configuration(), &settings).unwrap_err().to_string();
    assert!(err.contains("more than 10 configurations") && err.contains("--max-configs"), "{err}");
    // Past the dense mode's limit (2^28 agent vectors) too: an error.
    let p = Angluin::new(30, &Params::default()).unwrap();
    let settings = ExploreSettings { graph: Graph::DirectedRing, max_configs: 1000 };
    let err = verify(&p, &Starts::Every(vec![true, false]), &settings).unwrap_err().to_string();
    assert!(err.contains("1073741824 configurations") && err.contains("--max-configs"), "{err}");
    // Within it, every configuration is checked densely: on a ring, leaders never move, so
    // configurations with no leader or with leaders apart never reach the safe set.
    let p = Angluin::new(20, &Params::default()).unwrap();
    let v = verify(&p, &Starts::Every(vec![true, false]), &settings).unwrap();
    assert!(v.dense && v.closure.passed && v.safety.passed && !v.convergence.passed);
    assert_eq!(v.configurations, 1 << 20);
    assert_eq!(v.safe, 20, "exactly one leader: 20 configurations");
}

#[test]
fn threshold_verifies_as_a_predicate() {
    for (k, f) in [(3u64, 3u64), (3, 2), (4, 5)] {
        let params = Params::parse(&[format!("k={k}"), format!("f={f}")]).unwrap();
        let p = Threshold::new(6, &params).unwrap();
        let v =
            verify(&p, &Starts::Configurations(vec![p.initial_configuration()]), &ExploreSettings::default()).unwrap();
        assert!(v.passed(), "k = {k}, f = {f}: {v:?}");
        assert!(!v.election);
        let report = expected_steps(&p, &p.initial_configuration(), &ExploreSettings::default()).unwrap();
        assert!(report.expected_steps.is_finite());
    }
}
