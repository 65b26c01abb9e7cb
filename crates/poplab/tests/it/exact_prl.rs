//! Exhaustive verification of P_RL (004) on small rings, and a deliberately broken variant.

use crate::common;

use common::prl;
use poplab::engine::{AgentRun, Watch};
use poplab::exact::{ExploreSettings, Starts, expected_steps, verify};
use poplab::graph::{Graph, Replay};
use poplab::protocol::{Configurations, EngineHints, StateJson};
use poplab::protocol::{FamilyInfo, Monitor, Output, Params, Protocol, ProtocolInfo};
use poplab::protocols::prl::{Bullet, Prl, PrlMonitor, PrlState, in_s_rl};
use poplab::rng::{PopRng, TrialStreams};
use serde_json::{Map, Value};

/// Every state of P_RL with `distL in 0..=N`: 24 (N + 1) states.
fn prl_states(big_n: u32) -> Vec<PrlState> {
    let mut states = Vec::new();
    for leader in [false, true] {
        for bullet in [Bullet::None, Bullet::Dummy, Bullet::Live] {
            for shield in [false, true] {
                for signal in [false, true] {
                    for dist_l in 0..=big_n {
                        states.push(PrlState { leader, bullet, shield, signal, dist_l });
                    }
                }
            }
        }
    }
    states
}

fn ring() -> ExploreSettings {
    ExploreSettings { graph: Graph::DirectedRing, max_configs: 2_000_000 }
}

const BROKEN_INFO: ProtocolInfo = ProtocolInfo {
    name: "prl-no-shield",
    summary: "P_RL with Line 11's shield check removed (test only)",
    source: "004 Algorithm 1, line 11 altered",
    params: &[],
    families: &[FamilyInfo { name: "no-leader", doc: "" }],
};

/// P_RL with Line 11's shield check removed: a live bullet kills every leader it reaches. Everything
/// else is delegated to [`Prl`]; only interactions in which a live bullet reaches a shielded leader
/// differ, and for those line 11 and line 16 are redone here.
#[derive(Clone, Debug)]
struct NoShield(Prl);

impl Protocol for NoShield {
    type State = PrlState;
    type Monitor = PrlMonitor;

    fn info(&self) -> &'static ProtocolInfo {
        &BROKEN_INFO
    }
    fn n(&self) -> usize {
        self.0.n()
    }
    fn params(&self) -> Map<String, Value> {
        self.0.params()
    }
    fn transition(&self, l: PrlState, r: PrlState) -> (PrlState, PrlState) {
        let (mut l2, mut r2, lines) = self.0.interact(l, r);
        let bullet_at_line_10 = if lines.fired_live { Bullet::Live } else { l.bullet };
        if lines.hit_leader && !lines.killed && bullet_at_line_10 == Bullet::Live {
            // Line 11 without "r.shield = 0": the shielded leader r is killed too.
            r2.leader = false;
            // Line 16 again, with r.leader = 0: l.signal after line 7, r.signal after line 9.
            let l_signal = if lines.fired_live { false } else { l.signal };
            l2.signal = l_signal || r2.signal;
        }
        (l2, r2)
    }
    fn output(&self, s: PrlState) -> Output {
        self.0.output(s)
    }
    fn initial_configuration(&self) -> Vec<PrlState> {
        self.0.initial_configuration()
    }
    fn random_state(&self, rng: &mut PopRng) -> PrlState {
        self.0.random_state(rng)
    }
    fn monitor(&self, agents: &[PrlState], graph: &Graph) -> PrlMonitor {
        self.0.monitor(agents, graph)
    }
    fn hints(&self) -> EngineHints {
        self.0.hints()
    }
    fn configurations(&self) -> Option<&dyn Configurations<PrlState>> {
        self.0.configurations()
    }
    fn json(&self) -> Option<&dyn StateJson<PrlState>> {
        self.0.json()
    }
}

/// Plays `schedule` from `start` with the engine and the Replay scheduler; returns the
/// configurations after each step.
fn replay<P: Protocol>(p: &P, start: &[P::State], schedule: &[(u32, u32)]) -> Vec<Vec<P::State>> {
    let graph = Graph::DirectedRing;
    let streams = TrialStreams::new(0);
    let replay = Replay::new(schedule.to_vec(), p.n()).unwrap();
    let mut run = AgentRun::new(p, &graph, start.to_vec(), replay, streams.schedule);
    let mut configurations = vec![start.to_vec()];
    for step in 1..=schedule.len() as u128 {
        run.advance(step, Watch::Nothing);
        configurations.push(run.agents().to_vec());
    }
    configurations
}

#[test]
fn broken_variant_differs_from_prl_only_where_a_live_bullet_hits_a_shielded_leader() {
    let p = prl(3, 3);
    let broken = NoShield(p.clone());
    let states = prl_states(3);
    let mut differ = 0;
    for &l in &states {
        for &r in &states {
            let (_, _, lines) = p.interact(l, r);
            if p.transition(l, r) != broken.transition(l, r) {
                differ += 1;
                assert!(lines.hit_leader && !lines.killed, "{l:?} {r:?}");
                assert!(!broken.transition(l, r).1.leader);
            }
        }
    }
    assert!(differ > 0);
}

#[test]
fn prl_verifies_from_every_configuration_for_n_equal_big_n_3() {
    let p = prl(3, 3);
    let v = verify(&p, &Starts::Every(prl_states(3)), &ring()).unwrap();
    assert_eq!(v.configurations, 96 * 96 * 96);
    assert!(v.closure.passed, "{:?}", v.closure.counterexample);
    assert!(v.safety.passed, "{:?}", v.safety.counterexample);
    assert!(v.convergence.passed, "{:?}", v.convergence.counterexample);
    assert!(v.safe > 0);
    // Every bottom component lies in S_RL: the reference predicate agrees on a sample of them.
    eprintln!(
        "prl n=N=3: {} configurations, {} safe, {} transitions, {} bottom components",
        v.configurations, v.safe, v.transitions, v.bottom_components
    );
}

#[test]
fn prl_without_the_shield_check_fails_with_a_replayable_counterexample() {
    let broken = NoShield(prl(3, 3));
    let v = verify(&broken, &Starts::Every(prl_states(3)), &ring()).unwrap();
    assert!(!v.passed());
    assert!(!v.closure.passed);
    let cx = v.closure.counterexample.clone().unwrap();
    eprintln!("closure counterexample: {cx:?}");
    // Replay it with the engine: the configuration before the last step is in S_RL, the last one not.
    let path = replay(&broken, &cx.start, &cx.schedule);
    assert_eq!(path.last().unwrap(), &cx.end);
    assert!(in_s_rl(&path[path.len() - 2], 3));
    assert!(!in_s_rl(&cx.end, 3));
    // The same schedule on the real protocol stays in S_RL.
    let real = replay(&prl(3, 3), &cx.start, &cx.schedule);
    assert!(in_s_rl(real.last().unwrap(), 3));
    // Safety breaks too: the kill changes the leader's output.
    assert!(!v.safety.passed);
    let cx = v.safety.counterexample.unwrap();
    let path = replay(&broken, &cx.start, &cx.schedule);
    assert_eq!(path.last().unwrap(), &cx.end);
}

#[test]
fn prl_broken_variant_counterexample_from_the_default_configuration() {
    // From the blank configuration the broken protocol still fails, and the shortest counterexample
    // starts from it.
    let broken = NoShield(prl(3, 3));
    let start = broken.initial_configuration();
    let v = verify(&broken, &Starts::Configurations(vec![start.clone()]), &ring()).unwrap();
    assert!(!v.passed());
    let cx = v.closure.counterexample.unwrap();
    assert_eq!(cx.start, start);
    let path = replay(&broken, &cx.start, &cx.schedule);
    assert!(broken.monitor(&path[path.len() - 2], &Graph::DirectedRing).is_safe());
    assert!(!broken.monitor(&cx.end, &Graph::DirectedRing).is_safe());
    let p = prl(3, 3);
    let v = verify(&p, &Starts::Configurations(vec![start]), &ring()).unwrap();
    assert!(v.passed());
}

#[test]
fn prl_exact_expected_steps_from_the_default_configuration() {
    for (n, big_n) in [(3, 3), (3, 4), (4, 4)] {
        let p = prl(n, big_n);
        let report = expected_steps(&p, &p.initial_configuration(), &ring()).unwrap();
        assert!(report.expected_steps.is_finite() && report.expected_steps > 0.0);
        assert!(report.relative_error_bound < 1e-9);
        eprintln!(
            "prl n={n} N={big_n}: E[T] = {} steps, Var = {}, {} configurations, largest component {}",
            report.expected_steps, report.variance_steps, report.configurations, report.largest_component
        );
    }
}

/// The dense mode (every configuration, two bits each) agrees with the explorer on n = N = 3.
#[test]
fn dense_verification_agrees_with_the_explorer() {
    let p = Prl::new(3, &Params::parse(&["N=3"]).unwrap()).unwrap();
    let starts = Starts::Every(p.state_space().unwrap());
    let explored =
        verify(&p, &starts, &ExploreSettings { graph: Graph::DirectedRing, max_configs: 1_000_000 }).unwrap();
    let dense = verify(&p, &starts, &ExploreSettings { graph: Graph::DirectedRing, max_configs: 1000 }).unwrap();
    assert!(explored.passed() && dense.passed());
    assert_eq!((dense.configurations, dense.safe), (explored.configurations, explored.safe));
    assert!(dense.dense && !explored.dense);
}
