//! P_PL (001 Algorithm 1) on every step of small runs, convergence and holding.

use crate::common;

use common::{leaders, params, summary};
use poplab::engine::{AgentRun, Measure, Outcome, Watch};
use poplab::experiment::{RunSettings, run_trials};
use poplab::graph::{Graph, Scheduler};
use poplab::init::InitSpec;
use poplab::protocol::Configurations;
use poplab::protocol::{Monitor, Params, Protocol};
use poplab::protocols::ppl::{Ppl, PplState};
use poplab::rng::TrialStreams;

fn protocol(n: usize, settings: &[&str]) -> Ppl {
    Ppl::new(n, &params(settings)).unwrap()
}

/// Events seen by [`check_every_step`].
#[derive(Debug, Default)]
struct Events {
    created: u64,
    killed: u64,
    emitted: u64,
    unshielded: u64,
    safe_steps: u64,
}

/// Runs `steps` steps one at a time, drawing the engine's pairs from a twin scheduler on a copy of
/// its stream, and checks every interaction:
/// - the engine applied `transition` to exactly the drawn pair and nothing else changed;
/// - every variable stays in its domain, and both agents leave with `timer_I >= 1` (line 9);
/// - if either agent was a leader before the interaction or is one after it, or a timeout happened
///   (`max(timer_L) <= 1`, lines 1-2), both agents leave with `timer_L = t_max` (line 3);
/// - an agent becomes a leader only by the timeout (both `timer_L <= 1` before: line 1 gives 0);
/// - a leader stops being one only by a virus (line 5: unshielded, `max(virus) >= 2` before);
/// - the monitor's four parts agree with the slice predicates `L1`, `G_half`, `L_safe`, `V_clean`.
fn check_every_step(p: &Ppl, agents: Vec<PplState>, seed: u64, steps: u64, events: &mut Events) {
    let graph = Graph::Complete;
    let n = p.n();
    let stream = TrialStreams::new(seed).schedule;
    let mut twin_scheduler = graph.scheduler(n).unwrap();
    let mut twin_stream = stream.clone();
    let mut run = AgentRun::new(p, &graph, agents, graph.scheduler(n).unwrap(), stream);
    for step in 1..=steps {
        let before = run.agents().to_vec();
        let (u, v) = twin_scheduler.next_pair(&mut twin_stream);
        let (u, v) = (u as usize, v as usize);
        run.advance(step.into(), Watch::Nothing);
        let after = run.agents();
        let (a, b) = (before[u], before[v]);
        let (a2, b2) = (after[u], after[v]);
        assert_eq!((a2, b2), p.transition(a, b), "step {step}: the engine applied the transition to ({u}, {v})");
        for (i, (x, y)) in before.iter().zip(after).enumerate() {
            assert!(i == u || i == v || x == y, "step {step}: agent {i} outside the pair changed");
            assert!(y.timer_l <= p.t_max() && y.virus <= p.t_virus() && y.timer_i <= p.t_emit(), "{y:?}");
        }
        assert!(a2.timer_i >= 1 && b2.timer_i >= 1, "step {step}: line 9 restarts expired timers");
        let timeout = a.timer_l.max(b.timer_l) <= 1;
        if a.leader || b.leader || a2.leader || b2.leader || timeout {
            assert_eq!((a2.timer_l, b2.timer_l), (p.t_max(), p.t_max()), "step {step}: {a:?} {b:?}");
        } else {
            assert_eq!((a2.timer_l, b2.timer_l), (a.timer_l.max(b.timer_l) - 1, a.timer_l.max(b.timer_l) - 1));
        }
        for (x, y) in [(a, a2), (b, b2)] {
            if !x.leader && y.leader {
                assert!(timeout, "step {step}: a leader appeared without a timeout: {a:?} {b:?} -> {a2:?} {b2:?}");
                events.created += 1;
            }
            if x.leader && !y.leader {
                assert!(!x.shield && a.virus.max(b.virus) >= 2, "step {step}: killed without a virus: {a:?} {b:?}");
                events.killed += 1;
            }
        }
        if leaders(after) > leaders(&before) {
            assert!(timeout, "step {step}: the number of leaders rose without a timeout");
        }
        if a.timer_i <= 1 && a2.leader && a2.virus == p.t_virus() && a2.shield {
            events.emitted += 1;
        }
        if b.timer_i <= 1 && b2.leader && b.shield && !b2.shield {
            events.unshielded += 1;
        }
        let m = run.monitor();
        assert_eq!(m.l1(), p.l1(after), "step {step}: L1");
        assert_eq!(m.g_half(), p.g_half(after), "step {step}: G_half");
        assert_eq!(m.l_safe(), p.l_safe(after), "step {step}: L_safe");
        assert_eq!(m.v_clean(), p.v_clean(after), "step {step}: V_clean");
        assert_eq!(m.is_safe(), p.in_safe_set(after), "step {step}: S");
        assert_eq!(m.leaders(), leaders(after));
        events.safe_steps += u64::from(m.is_safe());
    }
}

#[test]
fn invariants_and_monitor_hold_on_every_step() {
    let mut events = Events::default();
    let settings: [&[&str]; 3] = [
        &["t_virus=3", "t_max=8", "t_emit=6"],
        &["virus_factor=2", "emit_factor=1"],
        &["t_virus=2", "t_max=4", "t_emit=20", "N=12"],
    ];
    for settings in settings {
        let p = protocol(10, settings);
        for seed in 0..3u64 {
            let mut init = TrialStreams::new(seed).init;
            let random = InitSpec::Random.build(&p, &mut init).unwrap();
            check_every_step(&p, random, seed, 20_000, &mut events);
            for family in ["no-leader", "all-leaders", "virus-storm", "safe"] {
                let agents = InitSpec::Family(family.into()).build(&p, &mut init).unwrap();
                check_every_step(&p, agents, seed + 10, 10_000, &mut events);
            }
        }
    }
    eprintln!("{events:?}");
    // Every mechanism of Algorithm 1 must have been exercised, and the safe set entered and left.
    assert!(events.created > 10 && events.killed > 10, "{events:?}");
    assert!(events.emitted > 10 && events.unshielded > 10 && events.safe_steps > 1_000, "{events:?}");
}

#[test]
fn converges_from_random_and_adversarial_starts_with_small_factors() {
    // n = N = 10: ceil(ln 10) = 3, t_virus = round(2 * 3) = 6, t_max = t_emit = round(2 * 6 * 3) = 36.
    let p = protocol(10, &["virus_factor=2", "emit_factor=2"]);
    assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (6, 36, 36));
    for init in ["random", "default", "no-leader", "virus-storm"] {
        let init = InitSpec::from_name(init);
        let settings =
            RunSettings { init: init.clone(), trials: 200, seed: 5, max_steps: 10_000_000, ..RunSettings::default() };
        let summary = summary(&p, &settings);
        eprintln!("ppl n = 10, t_virus 6, t_max = t_emit = 36, init {}: {summary:?}", init.name());
        assert_eq!(summary.converged, 200, "{}: {summary:?}", init.name());
    }
    let settings = RunSettings { init: InitSpec::Family("safe".into()), trials: 3, ..RunSettings::default() };
    assert_eq!(summary(&p, &settings).max_steps, Some(0));
}

#[test]
fn holding_runs_break_with_short_timers_and_are_censored_with_the_papers() {
    // n = 30, t_virus = 2, t_max = t_emit = 6: the leader's own virus kills it within ~100 steps.
    let p = protocol(30, &["t_virus=2", "t_max=6", "t_emit=6"]);
    let settings = RunSettings {
        measure: Measure::Holding,
        init: InitSpec::Family("safe".into()),
        trials: 200,
        seed: 3,
        max_steps: 1_000_000,
        ..RunSettings::default()
    };
    let records = run_trials(&p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Broken), "every short-timer holding run breaks");
    let mean = records.iter().map(|r| r.steps.0 as f64).sum::<f64>() / records.len() as f64;
    eprintln!("ppl holding, n = 30, t_virus = 2, t_max = t_emit = 6: mean {mean:.1} steps over 200 trials");
    assert!((10.0..2_000.0).contains(&mean), "mean holding {mean} steps");

    // The paper's constants at n = N = 30 (t_virus = 240, t_max = t_emit = 11520): censored.
    let p = protocol(30, &[]);
    assert_eq!((p.t_virus(), p.t_max()), (240, 11_520));
    let settings = RunSettings { trials: 4, ..settings };
    let records = run_trials(&p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Censored && r.steps.0 == 1_000_000), "{records:?}");
}

#[test]
fn state_space_lists_every_state_once() {
    let p = Ppl::new(3, &Params::parse(&["t_virus=1", "t_max=2", "t_emit=3"]).unwrap()).unwrap();
    let states = p.state_space().unwrap();
    assert_eq!(states.len(), 4 * 3 * 2 * 4);
    assert_eq!(states.iter().collect::<std::collections::HashSet<_>>().len(), states.len());
    assert!(Ppl::new(3, &Params::default()).unwrap().state_space().is_none());
}
