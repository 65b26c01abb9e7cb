//! User protocols (`poplab::protocols::custom`): table twins have the law of the built-ins they
//! copy on every engine (two-sample KS), randomized rules match closed forms on every engine
//! (z-tests), callbacks are resolved once per pair met and never enumerate, stop rules are exact at
//! the step, rule failures surface as errors, and every example file runs. Statistical tests use
//! alpha = 0.001 and one fixed seed per case.

use poplab::engine::{AgentRun, Engine, LiveRun, Outcome, SampleSteps, Watch};
use poplab::error::Error;
use poplab::experiment::{RunSettings, run_trials};
use poplab::graph::{Graph, Replay};
use poplab::protocol::CountStart;
use poplab::protocol::{Law, Monitor, Output, Params, Protocol};
use poplab::protocols::custom::{Amount, Custom, Definition, StopRule, file};
use poplab::protocols::{angluin::Angluin, approx_majority::ApproxMajority};
use poplab::rng::PopRng;
use poplab::spec::{RawSpec, RunSpec};
use poplab::stats::{ks_critical, ks_two_sample, mean};
use rand_core::SeedableRng;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const ENGINES: [Engine; 3] = [Engine::Agents, Engine::Counts, Engine::Batched];

fn example(name: &str) -> String {
    format!("{}/../../examples/protocols/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn settings(engine: Engine, trials: u64, seed: u64) -> RunSettings {
    RunSettings { engine, trials, seed, ..RunSettings::default() }
}

fn steps<P: Protocol>(p: &P, settings: &RunSettings) -> Vec<f64> {
    let records = run_trials(p, settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Converged), "every trial converges");
    records.iter().map(|r| r.steps.0 as f64).collect()
}

/// A 2-state election: `L,L -> L,F` with probability `p` (deterministic when `p = 1`).
fn election(p: f64) -> Definition {
    Definition {
        name: format!("election-{p}"),
        source: "test".into(),
        states: vec![("L".into(), Output::Leader), ("F".into(), Output::Follower)],
        rules: vec![(("L".into(), "L".into()), vec![(("L".into(), "F".into()), p)])],
        init: vec![("L".into(), Amount::Fraction(1.0))],
        stop: StopRule::OneLeader,
    }
}

#[test]
fn table_twins_have_the_law_of_the_builtins_on_every_engine() {
    let file = file::read(&example("approximate-majority.toml")).unwrap();
    let (n, trials) = (1000, 400);
    for engine in ENGINES {
        let builtin = ApproxMajority::new(n, &Params::parse(&["a=0.6"]).unwrap()).unwrap();
        let twin = Custom::new(&file, n).unwrap();
        let (a, b) = (steps(&builtin, &settings(engine, trials, 1)), steps(&twin, &settings(engine, trials, 2)));
        let d = ks_two_sample(&a, &b);
        let critical = ks_critical(0.001, a.len(), Some(b.len()));
        assert!(d < critical, "approx-majority on {engine:?}: KS {d:.4} >= {critical:.4}");
        eprintln!(
            "approx-majority n={n} {engine:?}: KS {d:.4} (critical {critical:.4}), means {:.0} vs {:.0}",
            mean(&a),
            mean(&b)
        );

        let n = 60;
        let builtin = Angluin::new(n, &Params::default()).unwrap();
        let twin = Custom::new(&election(1.0), n).unwrap();
        let (a, b) = (steps(&builtin, &settings(engine, trials, 3)), steps(&twin, &settings(engine, trials, 4)));
        let d = ks_two_sample(&a, &b);
        let critical = ks_critical(0.001, a.len(), Some(b.len()));
        assert!(d < critical, "angluin on {engine:?}: KS {d:.4} >= {critical:.4}");
        eprintln!(
            "angluin n={n} {engine:?}: KS {d:.4} (critical {critical:.4}), means {:.0} vs {:.0}",
            mean(&a),
            mean(&b)
        );
    }
}

#[test]
fn a_table_twin_follows_the_builtins_trajectory_for_the_same_seed() {
    // Same pairs, same results: the very same step counts, trial by trial, on every engine.
    let file = file::read(&example("approximate-majority.toml")).unwrap();
    for engine in ENGINES {
        let builtin = ApproxMajority::new(500, &Params::parse(&["a=0.6"]).unwrap()).unwrap();
        let twin = Custom::new(&file, 500).unwrap();
        assert_eq!(steps(&builtin, &settings(engine, 20, 9)), steps(&twin, &settings(engine, 20, 9)), "{engine:?}");
    }
}

/// `E[T]` and `Var[T]` of the randomized election from `n` leaders: from `k` leaders a step
/// demotes one with probability `q_k = p k (k - 1) / (n (n - 1))`, so `T` is a sum of geometric
/// phases: `E = sum 1 / q_k = (n - 1)^2 / p`, `Var = sum (1 - q_k) / q_k^2`.
fn election_moments(n: usize, p: f64) -> (f64, f64) {
    let pairs = (n * (n - 1)) as f64;
    (2..=n)
        .map(|k| p * (k * (k - 1)) as f64 / pairs)
        .fold((0.0, 0.0), |(m, v), q| (m + 1.0 / q, v + (1.0 - q) / (q * q)))
}

#[test]
fn randomized_elections_take_their_closed_form_on_every_engine() {
    let (n, trials) = (200, 2000);
    let cases = [(file::read(&example("election-randomized.toml")).unwrap(), 0.5), (election(0.2), 0.2)];
    for (definition, p) in cases {
        let protocol = Custom::new(&definition, n).unwrap();
        assert!(protocol.randomized().is_some());
        let (expected, variance) = election_moments(n, p);
        assert!((expected - ((n - 1) * (n - 1)) as f64 / p).abs() < 1e-6 * expected);
        for (k, engine) in ENGINES.into_iter().enumerate() {
            let observed = mean(&steps(&protocol, &settings(engine, trials, 10 + k as u64)));
            let z = (observed - expected) / (variance / trials as f64).sqrt();
            eprintln!("election p={p} n={n} {engine:?}: mean {observed:.0} steps, exact {expected:.0}, z = {z:.2}");
            assert!(z.abs() < 3.29, "p = {p} on {engine:?}: mean {observed:.0} vs {expected:.0}, z = {z:.2}");
        }
    }
    // Where batches pay (many leaders at first), the batched engine splits the (L, L) pairs of a
    // batch across the law.
    let (n, trials, p) = (20_000, 1000, 0.5);
    let protocol = Custom::new(&election(p), n).unwrap();
    let (expected, variance) = election_moments(n, p);
    let observed = mean(&steps(&protocol, &settings(Engine::Batched, trials, 21)));
    let z = (observed - expected) / (variance / trials as f64).sqrt();
    eprintln!("election p={p} n={n} Batched: mean {observed:.4e} steps, exact {expected:.4e}, z = {z:.2}");
    assert!(z.abs() < 3.29, "n = {n}: mean {observed:.0} vs {expected:.0}, z = {z:.2}");
}

#[test]
fn a_randomized_pair_splits_its_batch_multinomially() {
    // Three results with probabilities 0.5, 0.3, 0.1 (0.1 null) from one A-pair type; the
    // batched engine (batching always) against single steps: the counts of the results after
    // a fixed number of steps have the same law (KS on each count).
    let definition = Definition {
        name: "split".into(),
        source: "test".into(),
        states: ["A", "X", "Y", "Z"].iter().map(|s| (s.to_string(), Output::Undecided)).collect(),
        rules: vec![(
            ("A".into(), "A".into()),
            vec![(("X".into(), "X".into()), 0.5), (("X".into(), "Y".into()), 0.3), (("Z".into(), "A".into()), 0.1)],
        )],
        init: vec![("A".into(), Amount::Fraction(1.0))],
        stop: StopRule::Time(0.05),
    };
    let protocol = Custom::new(&definition, 10_000).unwrap();
    batches_have_the_law_of_single_steps(&protocol, &["X", "Y", "Z"], 500, (0..300).map(|t| (1000 + t, 2000 + t)));
}

/// A counter: the initiator's count grows by one per interaction, up to `10^9`; the responder
/// keeps its own. Its reachable state space has `10^9 + 1` states.
fn counter(calls: Arc<Mutex<HashMap<(String, String), u32>>>, n: usize) -> Custom {
    let rule = move |a: &str, b: &str| -> Result<Option<Law<String>>, String> {
        *calls.lock().unwrap().entry((a.to_string(), b.to_string())).or_default() += 1;
        let a: u64 = a.parse().map_err(|_| "not a number".to_string())?;
        Ok((a < 1_000_000_000).then(|| vec![(((a + 1).to_string(), b.to_string()), 1.0)]))
    };
    Custom::from_fn(
        "counter",
        &[("0".into(), Output::Undecided)],
        Box::new(rule),
        Box::new(|_: &str| Ok(Output::Undecided)),
        &[("0".into(), Amount::Fraction(1.0))],
        StopRule::Time(1e9),
        false,
        n,
    )
    .unwrap()
}

#[test]
fn a_callback_is_resolved_once_per_pair_met_and_nothing_is_enumerated() {
    let calls = Arc::new(Mutex::new(HashMap::new()));
    let n = 50;
    let protocol = counter(calls.clone(), n);
    // A fixed schedule on the agent engine, and the pairs it meets, computed here independently.
    let mut rng = PopRng::seed_from_u64(3);
    let schedule: Vec<(u32, u32)> = (0..20_000)
        .map(|_| {
            let u = poplab::rng::below_u64(&mut rng, n as u64) as u32;
            let v = (u + 1 + poplab::rng::below_u64(&mut rng, n as u64 - 1) as u32) % n as u32;
            (u, v)
        })
        .collect();
    let mut values = vec![0u64; n];
    let mut met = std::collections::HashSet::new();
    for &(u, v) in &schedule {
        met.insert((values[u as usize], values[v as usize]));
        values[u as usize] += 1;
    }
    let graph = Graph::Complete;
    let replay = Replay::new(schedule, n).unwrap();
    let mut run = AgentRun::new(&protocol, &graph, protocol.initial_configuration(), replay, PopRng::seed_from_u64(0));
    run.advance(20_000, Watch::Nothing);
    let finals: Vec<u64> = run.agents().iter().map(|&s| protocol.name(s).parse().unwrap()).collect();
    assert_eq!(finals, values, "the run is the counter's");
    assert_eq!(protocol.resolved_pairs(), met.len() as u64, "one resolution per distinct pair met");
    assert!(calls.lock().unwrap().values().all(|&c| c == 1), "no pair resolved twice");

    // Parallel trials share the memo: a pair is still resolved once, however many trials meet it.
    let before = calls.lock().unwrap().len();
    let records = run_trials(
        &protocol,
        &RunSettings { max_steps: 5_000, threads: Some(2), ..settings(Engine::Agents, 8, 1) },
        &|| {},
    )
    .unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Censored && r.steps.0 == 5_000));
    let calls = calls.lock().unwrap();
    assert!(calls.values().all(|&c| c == 1), "no pair resolved twice across threads");
    assert_eq!(protocol.resolved_pairs(), calls.len() as u64);
    assert!(calls.len() > before);

    // A million agents on the count engines start at once and visit a few states only.
    let big = counter(Arc::new(Mutex::new(HashMap::new())), 1_000_000);
    for engine in [Engine::Counts, Engine::Batched] {
        let records =
            run_trials(&big, &RunSettings { max_steps: 3_000_000, census: true, ..settings(engine, 1, 5) }, &|| {})
                .unwrap();
        let visited = records[0].distinct_states.unwrap();
        assert!((5..200).contains(&visited), "{engine:?}: {visited} states visited");
    }
}

#[test]
fn rule_failures_surface_with_the_pair() {
    let failing = |randomized: bool| {
        Custom::from_fn(
            "fails",
            &[("a".into(), Output::Leader)],
            Box::new(|a: &str, b: &str| match (a, b) {
                ("a", "a") => Ok(Some(vec![(("b".into(), "a".into()), 0.5), (("a".into(), "b".into()), 0.5)])),
                _ => Err("no rule for this pair".into()),
            }),
            Box::new(|s: &str| if s == "b" { Ok(Output::Follower) } else { Err(format!("unknown state {s}")) }),
            &[("a".into(), Amount::Fraction(1.0))],
            StopRule::OneLeader,
            randomized,
            10,
        )
        .unwrap()
    };
    let failed_on = |err: &Error| match err {
        Error::RuleFailed { protocol, pair, reason } if protocol == "fails" => (pair.clone(), reason.clone()),
        other => panic!("not a rule failure: {other}"),
    };
    let mixed = [("a".to_string(), "b".to_string()), ("b".to_string(), "a".to_string())];
    for engine in ENGINES {
        // The default horizon (10^12 steps): the run stops at the engine's next safe point.
        let err = run_trials(&failing(true), &settings(engine, 4, 1), &|| {}).unwrap_err();
        let (pair, reason) = failed_on(&err);
        assert!(mixed.contains(&pair) && reason == "no rule for this pair", "{err}");
        assert!(err.to_string().starts_with("rule of fails: pair ("), "{err}");
        let (pair, reason) = failed_on(&run_trials(&failing(false), &settings(engine, 4, 1), &|| {}).unwrap_err());
        assert_eq!(pair, ("a".to_string(), "a".to_string()));
        assert!(reason.contains("declared deterministic"), "{reason}");
    }
    // A live run reports it and refuses to go on; a new instance for a run starts without it.
    let protocol = failing(true);
    let mut live =
        LiveRun::new(protocol.clone(), Graph::Complete, &[(protocol.declare("a").unwrap(), 10)], Engine::Agents, 3)
            .unwrap();
    let err = live.advance(1 << 40, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap_err();
    assert!(mixed.contains(&failed_on(&err).0), "{err}");
    assert!(live.advance(1 << 41, true, &mut SampleSteps::none(), &mut |_, _| {}).is_err());
    assert!(protocol.failure().is_some() && protocol.with_n(10).unwrap().failure().is_none());
    // A callback's safe set is closed only when declared, and stays declared for another n.
    assert!(!protocol.hints().safe_set_is_closed);
    assert!(protocol.clone().declared_closed().with_n(10).unwrap().hints().safe_set_is_closed);
    // Exact analysis of a deterministic callback that fails.
    let exact = Custom::from_fn(
        "fails",
        &[("a".into(), Output::Leader)],
        Box::new(|_: &str, _: &str| Err("no rule for this pair".into())),
        Box::new(|_: &str| Ok(Output::Follower)),
        &[("a".into(), Amount::Fraction(1.0))],
        StopRule::OneLeader,
        false,
        3,
    )
    .unwrap();
    let start = exact.initial_configuration();
    let err = poplab::exact::expected_steps(&exact, &start, &poplab::exact::ExploreSettings::default()).unwrap_err();
    assert_eq!(failed_on(&err), (("a".to_string(), "a".to_string()), "no rule for this pair".to_string()));
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let protocol = Custom::new(&election(0.3), 300).unwrap();
    for engine in ENGINES {
        let run = |threads| {
            let settings = RunSettings { threads: Some(threads), census: true, ..settings(engine, 12, 77) };
            run_trials(&protocol, &settings, &|| {}).unwrap()
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.iter().map(|r| r.steps).collect::<Vec<_>>(), two.iter().map(|r| r.steps).collect::<Vec<_>>());
    }
}

/// Whether `agents` on `graph` are silent: no pair the scheduler can pick changes anything.
fn brute_silent(p: &Custom, agents: &[poplab::protocols::custom::CustomState], graph: &Graph) -> bool {
    let n = agents.len();
    let arcs: Vec<(usize, usize)> = match graph {
        Graph::Complete => (0..n).flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| (u, v))).collect(),
        Graph::DirectedRing => (0..n).map(|i| (i, (i + 1) % n)).collect(),
        Graph::UndirectedRing => (0..n).flat_map(|i| [(i, (i + 1) % n), ((i + 1) % n, i)]).collect(),
        Graph::Arcs(arcs) => arcs.iter().map(|&(u, v)| (u as usize, v as usize)).collect(),
    };
    arcs.iter().all(|&(u, v)| {
        poplab::protocol::law(p, agents[u], agents[v]).iter().all(|&(r, q)| q == 0.0 || r == (agents[u], agents[v]))
    })
}

#[test]
fn stop_rules_are_checked_after_every_interaction_on_every_graph() {
    let definition = file::read(&example("exact-majority.toml")).unwrap();
    let n = 12;
    let graphs = [
        Graph::Complete,
        Graph::DirectedRing,
        Graph::UndirectedRing,
        Graph::Arcs(
            vec![
                (0, 1),
                (1, 2),
                (2, 0),
                (3, 4),
                (4, 5),
                (5, 3),
                (0, 3),
                (6, 7),
                (7, 8),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 6),
                (6, 0),
            ]
            .into(),
        ),
    ];
    let rules = [StopRule::Silent, StopRule::Consensus, StopRule::AllYes, StopRule::AllNo, StopRule::OneLeader];
    for rule in rules {
        let protocol = Custom::new(&Definition { stop: rule, ..definition.clone() }, n).unwrap();
        for graph in &graphs {
            let mut rng = PopRng::seed_from_u64(4);
            let agents: Vec<_> = (0..n).map(|_| protocol.random_state(&mut rng)).collect();
            let scheduler = graph.scheduler(n).unwrap();
            let mut run = AgentRun::new(&protocol, graph, agents, scheduler, PopRng::seed_from_u64(8));
            let mut safe_seen = 0;
            for step in 1..=3000u128 {
                run.advance(step, Watch::Nothing);
                let agents = run.agents();
                let count = |o: Output| agents.iter().filter(|s| s.output() == o).count();
                let expected = match rule {
                    StopRule::Silent => brute_silent(&protocol, agents, graph),
                    StopRule::Consensus => count(Output::Yes) == n || count(Output::No) == n,
                    StopRule::AllYes => count(Output::Yes) == n,
                    StopRule::AllNo => count(Output::No) == n,
                    StopRule::OneLeader => count(Output::Leader) == 1,
                    StopRule::Time(_) => false,
                };
                assert_eq!(run.monitor().is_safe(), expected, "{rule:?} on {} at step {step}", graph.name());
                safe_seen += usize::from(expected);
            }
            if matches!(rule, StopRule::Silent | StopRule::Consensus) && *graph == Graph::Complete {
                assert!(safe_seen > 0, "{rule:?} on {}: the test must see the safe set", graph.name());
            }
        }
    }
}

#[test]
fn exact_analysis_of_table_twins_equals_the_builtins() {
    let twin = RawSpec::new(&format!("@{}", example("threshold.toml")), 12);
    let builtin = RawSpec::new("threshold", 12);
    let (a, b) = (
        RunSpec::resolve(&twin).unwrap().exact(1 << 20).unwrap(),
        RunSpec::resolve(&builtin).unwrap().exact(1 << 20).unwrap(),
    );
    assert!(a.expected_steps.is_finite());
    assert!(
        (a.expected_steps - b.expected_steps).abs() < 1e-9 * b.expected_steps,
        "{} vs {}",
        a.expected_steps,
        b.expected_steps
    );
    let angluin = Custom::new(&election(1.0), 7).unwrap();
    let report =
        poplab::exact::expected_steps(&angluin, &angluin.initial_configuration(), &Default::default()).unwrap();
    assert!((report.expected_steps - 36.0).abs() < 1e-9, "(n - 1)^2 = 36, got {}", report.expected_steps);
    // A randomized rule, weighed exactly: (L, L) -> (L, F) with probability 1/2 doubles angluin's
    // (n - 1)^2, and 1/3 triples it.
    let randomized = RawSpec::new(&format!("@{}", example("election-randomized.toml")), 5);
    let report = RunSpec::resolve(&randomized).unwrap().exact(1000).unwrap();
    assert!((report.expected_steps - 32.0).abs() < 1e-9, "2 (n - 1)^2 = 32, got {}", report.expected_steps);
    let third = Custom::new(&election(1.0 / 3.0), 7).unwrap();
    let report = poplab::exact::expected_steps(&third, &third.initial_configuration(), &Default::default()).unwrap();
    assert!((report.expected_steps - 108.0).abs() < 1e-9, "3 (n - 1)^2 = 108, got {}", report.expected_steps);
    assert_eq!(report.relative_error_bound, 0.0);
}

#[test]
fn every_example_protocol_runs_and_reaches_its_stop_rule() {
    for (file, n) in [
        ("approximate-majority.toml", 2000),
        ("exact-majority.toml", 2000),
        ("election-randomized.toml", 300),
        ("discrete-averaging.toml", 500),
        ("threshold.toml", 200),
        ("max-propagation.toml", 1000),
    ] {
        for engine in ENGINES {
            let raw = RawSpec { engine, trials: 5, seed: 1, ..RawSpec::new(&format!("@{}", example(file)), n) };
            let result = RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap();
            assert_eq!(result.summary.converged, 5, "{file} on {engine:?}");
        }
    }
    // The 4-state exact majority decides the majority, every time.
    let raw = RawSpec {
        init: Some("counts:A=501,B=499".into()),
        trials: 10,
        ..RawSpec::new(&format!("@{}", example("exact-majority.toml")), 1000)
    };
    let spec = RunSpec::resolve(&raw).unwrap();
    assert_eq!(spec.settings.init.name(), "counts:A=501,B=499");
    assert_eq!(spec.run(&|| {}).unwrap().summary.converged, 10);
}

#[test]
fn initial_configurations_by_counts_or_names() {
    let path = format!("@{}", example("approximate-majority.toml"));
    let bad = RawSpec { init: Some("counts:A=5,B=4".into()), ..RawSpec::new(&path, 10) };
    assert!(RunSpec::resolve(&bad).unwrap_err().to_string().contains("sum to 9 agents but n = 10"));
    let unknown = RawSpec { init: Some("counts:A=5,Q=5".into()), ..RawSpec::new(&path, 10) };
    assert!(RunSpec::resolve(&unknown).unwrap_err().to_string().contains("unknown state 'Q'"));
    let dir = tempfile::tempdir().unwrap();
    let names = dir.path().join("names.json");
    std::fs::write(&names, r#"["A", "A", "B", "U"]"#).unwrap();
    let raw = RawSpec { init: Some(format!("@{}", names.display())), trials: 3, ..RawSpec::new(&path, 4) };
    let result = RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap();
    assert_eq!(result.records.len(), 3);
    let fixed = RawSpec { init: Some("counts:A=4".into()), ..RawSpec::new(&path, 4) };
    let result = RunSpec::resolve(&fixed).unwrap().run(&|| {}).unwrap();
    assert_eq!(result.records[0].steps.0, 0, "a consensus start is safe at step 0");
    // A fixed-time stop rule sets the horizon: runs end censored at ceil(t n) steps.
    let mut monitor_check = Custom::new(
        &Definition { stop: StopRule::Time(2.5), ..file::read(&example("approximate-majority.toml")).unwrap() },
        10,
    )
    .unwrap();
    assert_eq!(monitor_check.hints().horizon, Some(25));
    monitor_check = monitor_check.with_n(100).unwrap();
    assert!(!monitor_check.monitor_of_counts(&monitor_check.initial_counts()).is_safe());
}

#[test]
fn traces_never_change_a_randomized_run() {
    let path = format!("@{}", example("election-randomized.toml"));
    for engine in ENGINES {
        let run = |trace_every: Option<u128>| {
            let raw = RawSpec {
                engine,
                trials: 6,
                seed: 5,
                census: true,
                trace_every: trace_every.map(poplab::engine::TraceEvery::Steps),
                ..RawSpec::new(&path, 2000)
            };
            let records = RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap().records;
            records.iter().map(|r| (r.outcome, r.steps, r.distinct_states)).collect::<Vec<_>>()
        };
        let plain = run(None);
        for every in [1_000, 77_777, 10_u128.pow(12)] {
            assert_eq!(run(Some(every)), plain, "{engine:?}, a trace every {every} steps");
        }
    }
}

#[test]
fn holding_times_of_user_protocols_from_a_safe_start() {
    // All agents in A (all-yes) is safe; every step (A, A) breaks it with probability p, so the
    // holding time is geometric with mean 1 / p and variance (1 - p) / p^2, on every engine.
    let p = 0.002;
    let definition = Definition {
        name: "fragile".into(),
        source: "test".into(),
        states: vec![("A".into(), Output::Yes), ("B".into(), Output::No)],
        rules: vec![(("A".into(), "A".into()), vec![(("A".into(), "B".into()), p)])],
        init: vec![("A".into(), Amount::Fraction(1.0))],
        stop: StopRule::AllYes,
    };
    let protocol = Custom::new(&definition, 100).unwrap();
    assert!(!protocol.hints().safe_set_is_closed, "the rule leaves the safe set");
    let trials = 2000;
    for (k, engine) in ENGINES.into_iter().enumerate() {
        let settings =
            RunSettings { measure: poplab::engine::Measure::Holding, ..settings(engine, trials, 40 + k as u64) };
        let records = run_trials(&protocol, &settings, &|| {}).unwrap();
        assert!(records.iter().all(|r| r.outcome == Outcome::Broken));
        let observed = mean(&records.iter().map(|r| r.steps.0 as f64).collect::<Vec<_>>());
        let z = (observed - 1.0 / p) / ((1.0 - p) / (p * p) / trials as f64).sqrt();
        eprintln!("holding p={p} {engine:?}: mean {observed:.1} steps, exact {:.1}, z = {z:.2}", 1.0 / p);
        assert!(z.abs() < 3.29, "{engine:?}: mean {observed:.1} vs {}, z = {z:.2}", 1.0 / p);
    }
}

#[test]
fn a_live_run_stops_at_the_same_step_whatever_it_samples() {
    let definition = file::read(&example("election-randomized.toml")).unwrap();
    for engine in ENGINES {
        let stop_step = |every: Option<u128>| {
            let mut at = SampleSteps::new((1..).map(|k| k * every.unwrap_or(u128::MAX >> 1)));
            let protocol = Custom::new(&definition, 3000).unwrap();
            let counts = protocol.initial_counts();
            let mut run = poplab::engine::LiveRun::new(protocol, Graph::Complete, &counts, engine, 11).unwrap();
            let mut samples = 0;
            // In pieces, as a notebook would: to parallel time 100, then on to one leader.
            assert!(!run.advance(300_000, true, &mut at, &mut |_, _| samples += 1).unwrap());
            assert!(run.advance(u128::MAX >> 1, true, &mut at, &mut |_, _| samples += 1).unwrap());
            (run.step(), run.counts().len(), samples)
        };
        let (plain, states, _) = stop_step(None);
        assert_eq!(states, 2, "one leader, the rest followers");
        for every in [1_000, 99_999] {
            let (step, _, samples) = stop_step(Some(every));
            assert_eq!(step, plain, "{engine:?}, every {every}");
            assert_eq!(samples as u128, plain / every);
        }
    }
}

/// A live run whose stop rule changes on the way (as `Simulation.run(until=...)` does) goes on
/// with the same trajectory: the randomized election stops at the same step whether it watched
/// one leader all along, or a rule that never holds (consensus: no agent outputs yes or no) and
/// then silence (one leader is its only silent configuration), on every engine.
#[test]
fn a_live_run_keeps_its_trajectory_when_its_stop_rule_changes() {
    let definition = file::read(&example("election-randomized.toml")).unwrap();
    for engine in ENGINES {
        let protocol = Custom::new(&definition, 3000).unwrap();
        let counts = protocol.initial_counts();
        let start = |p: Custom| poplab::engine::LiveRun::new(p, Graph::Complete, &counts, engine, 11).unwrap();
        let mut plain = start(protocol.clone());
        assert!(plain.advance(u128::MAX >> 1, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap());
        let mut switched = start(protocol.with_stop(StopRule::Consensus, false));
        assert!(!switched.advance(300_000, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap());
        switched.set_protocol(protocol.with_stop(StopRule::Silent, false)).unwrap();
        assert!(switched.advance(u128::MAX >> 1, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap());
        assert_eq!(switched.step(), plain.step(), "{engine:?}");
        // Consensus or silence stops where silence does.
        let mut either = start(protocol.with_stop(StopRule::Consensus, true));
        assert!(either.advance(u128::MAX >> 1, true, &mut SampleSteps::none(), &mut |_, _| {}).unwrap());
        assert_eq!(either.step(), plain.step(), "{engine:?}");
    }
}

/// The trace of `raw` (in memory) as rows of numbers, with its header.
fn trace_rows(raw: &RawSpec) -> (Vec<String>, Vec<Vec<f64>>) {
    use poplab::export::{Exporter, Trace};
    let text = Trace.export(&RunSpec::resolve(raw).unwrap().run(&|| {}).unwrap()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect())
}

#[test]
fn traces_count_agents_per_output_and_per_state_as_the_twin_built_in_does() {
    // approximate-majority.toml is the built-in approx-majority (a = 0.6) as a table, interned in
    // the same order: for the same seed the same trajectory, so its per-state counts are the
    // built-in's own columns count_a, count_b, count_u, sample by sample, on every engine.
    let n = 500;
    for engine in ENGINES {
        let raw = |protocol: &str, params: &[&str]| RawSpec {
            engine,
            trials: 3,
            seed: 9,
            threads: Some(1),
            params: params.iter().map(|p| p.to_string()).collect(),
            trace_every: Some(poplab::engine::TraceEvery::Steps(97)),
            ..RawSpec::new(protocol, n)
        };
        let (header, rows) = trace_rows(&raw(&format!("@{}", example("approximate-majority.toml")), &[]));
        assert_eq!(
            header,
            ["trial", "step", "parallel_time", "leaders", "output=yes", "output=no", "output=undecided"]
                .into_iter()
                .chain(["state=A", "state=B", "state=U"])
                .collect::<Vec<_>>()
        );
        let (builtin_header, builtin) = trace_rows(&raw("approx-majority", &["a=0.6"]));
        assert_eq!(&builtin_header[4..], ["count_a", "count_b", "count_u"]);
        assert_eq!(rows.len(), builtin.len(), "{engine:?}");
        assert!(rows.len() > 3 * 5, "{engine:?}: {} rows", rows.len());
        for (row, twin) in rows.iter().zip(&builtin) {
            assert_eq!(row[..4], twin[..4], "{engine:?}: trial, step, time and leaders");
            assert_eq!(row[7..], twin[4..], "{engine:?}: per state = the built-in's counts");
            assert_eq!(row[4..7].iter().sum::<f64>(), n as f64, "{engine:?}: outputs sum to n");
            assert_eq!(row[7..].iter().sum::<f64>(), n as f64, "{engine:?}: states sum to n");
            // Each state gives one output: the output columns are the state columns here, and
            // the yes agents are the leaders column.
            assert_eq!(row[4..7], row[7..], "{engine:?}");
            assert_eq!(row[3], row[4], "{engine:?}");
        }
        // The first row is the start (0.6 n in A), the last a consensus.
        assert_eq!(rows[0][7..], [300.0, 200.0, 0.0]);
        let last = rows.iter().rfind(|r| r[0] == 0.0).unwrap();
        assert!(last[7..] == [500.0, 0.0, 0.0] || last[7..] == [0.0, 500.0, 0.0], "{last:?}");
    }
}

#[test]
fn a_callback_protocol_names_the_states_it_met_in_memory_and_refuses_a_streamed_trace() {
    use poplab::export::{CountColumns, Exporter, Trace};
    let calls = Arc::new(Mutex::new(HashMap::new()));
    // The counter meets states 1, 2, ... as it runs: none is known when the run starts.
    let protocol = counter(calls, 4);
    let raw = RawSpec {
        trials: 1,
        max_steps: 40,
        trace_every: Some(poplab::engine::TraceEvery::Steps(10)),
        engine: Engine::Agents,
        ..RawSpec::new("counter", 4)
    };
    let spec = RunSpec::resolve_custom(&raw, &protocol).unwrap();
    let text = Trace.export(&spec.run(&|| {}).unwrap()).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let states = CountColumns::of(&spec).names();
    assert!(states.len() > 5 && states[0] == "output=undecided" && states[1] == "state=0", "{states:?}");
    assert_eq!(header[4..], states.iter().map(String::as_str).collect::<Vec<_>>()[..]);
    for line in text.lines().skip(1) {
        let counts: u64 = line.split(',').skip(5).map(|v| v.parse::<u64>().unwrap()).sum();
        assert_eq!(counts, 4, "{line}");
    }
    // Streamed, the columns are fixed at the start: a state met later is refused, not misfiled.
    let dir = tempfile::tempdir().unwrap();
    let other = Custom::from_fn(
        "endless-counter",
        &[("0".into(), Output::Undecided)],
        Box::new(|a: &str, b: &str| {
            let a: u64 = a.parse().map_err(|_| "not a number".to_string())?;
            Ok(Some(vec![(((a + 1).to_string(), b.to_string()), 1.0)]))
        }),
        Box::new(|_: &str| Ok(Output::Undecided)),
        &[("0".into(), Amount::Fraction(1.0))],
        StopRule::Time(1e9),
        false,
        4,
    )
    .unwrap();
    let streamed = RunSpec::resolve_custom(&raw, &other).unwrap();
    let error = poplab::export::run_traced(&streamed, &|| {}, &dir.path().join("trace.csv")).unwrap_err();
    assert!(error.to_string().contains("was first met after the time series' columns were fixed"), "{error}");
    assert!(!dir.path().join("trace.csv").exists());
    // A table protocol knows every state up front: streamed and in memory agree.
    let path = dir.path().join("table.csv");
    let table = RawSpec { max_steps: 10u128.pow(12), ..RawSpec::new(&format!("@{}", example("angluin.toml")), 30) };
    let table = RawSpec { trace_every: raw.trace_every, trials: 2, ..table };
    let spec = RunSpec::resolve(&table).unwrap();
    poplab::export::run_traced(&spec, &|| {}, &path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), Trace.export(&spec.run(&|| {}).unwrap()).unwrap());
}

#[test]
fn null_rows_and_lumped_columns_keep_the_law_of_a_batch() {
    // Averaging over 1..=3 (a pair two apart meets in the middle, the rest is null) from
    // {1: 40%, 2: 20%, 3: 40%}: the state 2 is null with every state, as initiator and as
    // responder, so batches leave its row undrawn and lump its column. The counts after 300 steps
    // (n = 1000: several batches of about 63 interactions) batching always, against single steps
    // (KS on the counts of 1 and of 2).
    let names = ["1", "2", "3"];
    let definition = Definition {
        name: "averaging-1-3".into(),
        source: "test".into(),
        states: names.iter().map(|s| (s.to_string(), Output::Undecided)).collect(),
        rules: vec![
            (("1".into(), "3".into()), vec![(("2".into(), "2".into()), 1.0)]),
            (("3".into(), "1".into()), vec![(("2".into(), "2".into()), 1.0)]),
        ],
        init: vec![
            ("1".into(), Amount::Fraction(0.4)),
            ("2".into(), Amount::Fraction(0.2)),
            ("3".into(), Amount::Fraction(0.4)),
        ],
        stop: StopRule::Silent,
    };
    let protocol = Custom::new(&definition, 1000).unwrap();
    batches_have_the_law_of_single_steps(&protocol, &["1", "2"], 300, (0..2000).map(|t| (10_000 + t, 20_000 + t)));
}

#[test]
fn the_monotone_table_keeps_the_law_of_a_batch() {
    // The epidemic of the largest of 100 values from 10 agents per value (n = 1000): every state
    // peels, so batches (about 316 interactions each, batching always) take the monotone table.
    // The counts after 1000 steps against single steps, and the steps to silence, whose batch is
    // replayed with its lower partners drawn (KS at 0.001).
    let protocol = Custom::new(&file::read(&example("max-propagation.toml")).unwrap(), 1000).unwrap();
    batches_have_the_law_of_single_steps(
        &protocol,
        &["99", "70", "30"],
        1000,
        (0..1500).map(|t| (30_000 + t, 40_000 + t)),
    );
    let steps_to_silence = |batched: bool, seed: u64| -> f64 {
        let mut run =
            poplab::engine::CountRun::from_counts(&protocol, &protocol.initial_counts(), PopRng::seed_from_u64(seed))
                .unwrap();
        if batched {
            run.batch_always();
        }
        assert!(run.advance(1 << 40, Watch::SafeSet));
        assert_eq!(run.counts().len(), 1, "silent: one value left");
        run.step() as f64
    };
    let batched: Vec<f64> = (0..1000).map(|t| steps_to_silence(true, 50_000 + t)).collect();
    let single: Vec<f64> = (0..1000).map(|t| steps_to_silence(false, 60_000 + t)).collect();
    let d = ks_two_sample(&batched, &single);
    let critical = ks_critical(0.001, batched.len(), Some(single.len()));
    assert!(d < critical, "steps to silence: KS {d:.4} >= {critical:.4}");
}

/// The counts of `names` after `steps` steps, batching always (first seed of each pair) and in
/// single steps (second seed), have the same law: a two-sample KS test per name at 0.001.
fn batches_have_the_law_of_single_steps(
    protocol: &Custom,
    names: &[&str],
    steps: u128,
    seeds: impl Iterator<Item = (u64, u64)> + Clone,
) {
    let counts_after = |batched: bool, seed: u64| -> Vec<f64> {
        let rng = PopRng::seed_from_u64(seed);
        let mut run = poplab::engine::CountRun::from_counts(protocol, &protocol.initial_counts(), rng).unwrap();
        if batched {
            run.batch_always();
        }
        run.advance(steps, Watch::Nothing);
        assert_eq!(run.step(), steps);
        let count = |name: &str| {
            let state = protocol.state(name).unwrap();
            run.counts().iter().find(|c| c.0 == state).map_or(0.0, |c| c.1 as f64)
        };
        names.iter().map(|name| count(name)).collect()
    };
    let batched: Vec<Vec<f64>> = seeds.clone().map(|(seed, _)| counts_after(true, seed)).collect();
    let single: Vec<Vec<f64>> = seeds.map(|(_, seed)| counts_after(false, seed)).collect();
    for (k, name) in names.iter().enumerate() {
        let a: Vec<f64> = batched.iter().map(|c| c[k]).collect();
        let b: Vec<f64> = single.iter().map(|c| c[k]).collect();
        let d = ks_two_sample(&a, &b);
        assert!(d < ks_critical(0.001, a.len(), Some(b.len())), "count of {name}: KS {d}");
    }
}
