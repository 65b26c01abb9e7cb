//! A hand-computed execution of angluin on 4 agents, played by the Replay scheduler.

use poplab::engine::{AgentRun, Measure, Outcome, RunPlan, Watch, drive};
use poplab::graph::{Graph, Replay};
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::rng::TrialStreams;

const L: bool = true;
const F: bool = false;

#[test]
fn hand_computed_angluin_execution() {
    let p = Angluin::new(4, &Params::default()).unwrap();
    let graph = Graph::Complete;
    // step: pair            -> configuration (u0 u1 u2 u3)
    // 1: (0, 1) l,l -> l,f  -> L F L L
    // 2: (1, 2) f,l: null   -> L F L L
    // 3: (2, 1) l,f: null   -> L F L L
    // 4: (3, 2) l,l -> l,f  -> L F F L
    // 5: (0, 3) l,l -> l,f  -> L F F F   one leader: converged at step 5
    // 6: (1, 0) never played
    let schedule = vec![(0, 1), (1, 2), (2, 1), (3, 2), (0, 3), (1, 0)];
    let expected = [[L, F, L, L], [L, F, L, L], [L, F, L, L], [L, F, F, L], [L, F, F, F]];

    let streams = TrialStreams::new(0);
    let replay = Replay::new(schedule.clone(), 4).unwrap();
    let mut run = AgentRun::new(&p, &graph, p.initial_configuration(), replay, streams.schedule.clone());
    for (step, configuration) in expected.iter().enumerate() {
        run.advance(step as u128 + 1, Watch::Nothing);
        assert_eq!(run.agents(), configuration, "after step {}", step + 1);
    }

    let mut faults_rng = streams.faults.clone();
    let replay = Replay::new(schedule, 4).unwrap();
    let mut run = AgentRun::new(&p, &graph, p.initial_configuration(), replay, streams.schedule);
    let ending = drive(
        &mut run,
        RunPlan { measure: Measure::Convergence, max_steps: u128::MAX, watch_from: 0 },
        &mut [],
        &mut faults_rng,
    )
    .unwrap();
    assert_eq!((ending.outcome, ending.steps.0), (Outcome::Converged, 5));
}

#[test]
fn a_schedule_that_ends_before_the_safe_set_is_censored_at_its_length() {
    let p = Angluin::new(4, &Params::default()).unwrap();
    let graph = Graph::Complete;
    let mut streams = TrialStreams::new(0);
    let replay = Replay::new(vec![(0, 1), (2, 3)], 4).unwrap();
    let mut run = AgentRun::new(&p, &graph, p.initial_configuration(), replay, streams.schedule);
    let ending = drive(
        &mut run,
        RunPlan { measure: Measure::Convergence, max_steps: u128::MAX, watch_from: 0 },
        &mut [],
        &mut streams.faults,
    )
    .unwrap();
    assert_eq!((ending.outcome, ending.steps.0), (Outcome::Censored, 2));
    assert_eq!(run.agents(), [L, F, L, F]);
}
