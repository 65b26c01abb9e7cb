//! Value stability: for fixed seeds, the exact results of trials on every engine path. Each test
//! pins what `run_trials` returns (outcome and steps, and where they apply the recovery steps after
//! a fault and the census) for a few trials, and checks that the trials took the path it names
//! (the engine `run_trials` used; for the count engine, played again by hand as `run_trial` plays
//! it: whether it was skipping null interactions, how many steps it took in batches).
//!
//! A failure means the draws changed: the generator, the seed derivation, the pair sampling, an
//! engine or a protocol computes something else than before. If that is intended (and the laws,
//! checked by the statistical tests, still hold), update the pinned values in the same commit and
//! say why. (`determinism.rs` pins angluin at n = 100 and `approx_majority_runs.rs` approx-majority
//! at n = 1000 on the agent engine; the pins here cover the other paths.)

use crate::common;

use common::{params, prl};
use poplab::engine::{CountRun, Ending, Engine, Fault, FaultStates, Measure, Outcome, RunPlan, drive};
use poplab::experiment::{RunSettings, TrialRecord, run_trials};
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::approx_majority::ApproxMajority;
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::protocols::pll_sym::PllSym;
use poplab::protocols::ppl::Ppl;
use poplab::protocols::threshold::Threshold;
use poplab::rng::{TrialStreams, trial_seed};

use Outcome::{Broken, Converged};

/// The trials of `settings`, after checking that they run on `engine`.
fn trials<P: Protocol>(p: &P, settings: &RunSettings, engine: Engine) -> Vec<TrialRecord> {
    assert_eq!(settings.engine_used(p).unwrap(), engine, "{}", p.info().name);
    run_trials(p, settings, &|| {}).unwrap()
}

/// (outcome, steps) of every trial of `settings`, run on `engine`.
fn steps<P: Protocol>(p: &P, settings: &RunSettings, engine: Engine) -> Vec<(Outcome, u128)> {
    trials(p, settings, engine).iter().map(|r| (r.outcome, r.steps.0)).collect()
}

/// Trial `index` of a convergence run with master seed `seed` from the default start, on the count
/// engine played by hand as `run_trial` plays it (`batch`: as the batched engine; `always`: batching
/// whenever it can, which `run_trial` never does). Returns the ending and the run, to look at.
fn count_trial<P: Protocol>(p: &P, seed: u64, index: u64, batch: bool, always: bool) -> (Ending, CountRun<P, &P>) {
    let mut streams = TrialStreams::new(trial_seed(seed, index));
    let mut run = CountRun::from_counts(p, &poplab::protocol::initial_counts(p), streams.schedule).unwrap();
    if batch {
        run.batch();
    }
    if always {
        run.batch_always();
    }
    let plan = RunPlan { measure: Measure::Convergence, max_steps: u128::MAX, watch_from: 0 };
    let ending = drive(&mut run, plan, &mut [], &mut streams.faults).unwrap();
    (ending, run)
}

/// The agent engine on the complete graph: ls-timer (n = N = 60, s = 96 N) from all leaders.
#[test]
fn agent_engine_on_the_complete_graph() {
    let p = LsTimer::new(60, &Params::default()).unwrap();
    let settings = RunSettings { trials: 4, seed: 1, engine: Engine::Agents, ..RunSettings::default() };
    let pinned = [(Converged, 5447), (Converged, 4761), (Converged, 6249), (Converged, 2581)];
    assert_eq!(steps(&p, &settings, Engine::Agents), pinned);
}

/// The agent engine on the directed ring: P_RL (n = N = 16) from random configurations (the
/// initial-state stream is pinned too).
#[test]
fn agent_engine_on_a_ring() {
    let p = prl(16, 16);
    let settings = RunSettings {
        graph: Graph::DirectedRing,
        init: InitSpec::Random,
        trials: 4,
        seed: 1,
        ..RunSettings::default()
    };
    let pinned = [(Converged, 782), (Converged, 756), (Converged, 1295), (Converged, 672)];
    assert_eq!(steps(&p, &settings, Engine::Agents), pinned);
}

/// The count engine skipping null interactions: angluin at n = 3000 (two states, so the skip table
/// is kept to the end; the last meetings are rare, so nearly every step is skipped).
#[test]
fn count_engine_skipping_null_interactions() {
    let p = Angluin::new(3000, &Params::default()).unwrap();
    let settings = RunSettings { trials: 4, seed: 3, engine: Engine::Counts, ..RunSettings::default() };
    let pinned = [(Converged, 14_645_562), (Converged, 6_439_898), (Converged, 7_124_611), (Converged, 6_020_660)];
    assert_eq!(steps(&p, &settings, Engine::Counts), pinned);
    for (i, &(outcome, steps)) in pinned.iter().enumerate() {
        let (ending, run) = count_trial(&p, 3, i as u64, false, false);
        assert_eq!((ending.outcome, ending.steps.0), (outcome, steps), "trial {i} by hand");
        assert!(run.skipping(), "trial {i}: skipping to the end");
    }
}

/// The count engine taking plain steps: P_LL at n = 1000 (dozens of states present, nearly every
/// pair non-null, so the skip table is dropped) and ls-timer at n = 60 (timers: most pairs
/// non-null).
#[test]
fn count_engine_taking_plain_steps() {
    let p = Pll::new(1000, &Params::default()).unwrap();
    let settings = RunSettings { trials: 3, seed: 1, engine: Engine::Counts, ..RunSettings::default() };
    let pinned = [(Converged, 10_626), (Converged, 8_452), (Converged, 191_559)];
    assert_eq!(steps(&p, &settings, Engine::Counts), pinned);
    for (i, &(outcome, steps)) in pinned.iter().enumerate() {
        let (ending, run) = count_trial(&p, 1, i as u64, false, false);
        assert_eq!((ending.outcome, ending.steps.0), (outcome, steps), "trial {i} by hand");
        assert!(!run.skipping(), "trial {i}: plain steps at the end");
    }

    let p = LsTimer::new(60, &Params::default()).unwrap();
    let settings = RunSettings { trials: 4, seed: 1, engine: Engine::Counts, ..RunSettings::default() };
    let pinned = [(Converged, 1258), (Converged, 1618), (Converged, 2812), (Converged, 2863)];
    assert_eq!(steps(&p, &settings, Engine::Counts), pinned);
    for (i, &(outcome, steps)) in pinned.iter().enumerate() {
        let (ending, run) = count_trial(&p, 1, i as u64, false, false);
        assert_eq!((ending.outcome, ending.steps.0), (outcome, steps), "trial {i} by hand");
        assert!(!run.skipping(), "trial {i}: plain steps at the end");
    }
}

/// The batched engine while skipping null interactions: angluin at n = 10^5 (about 10^10 steps,
/// about 5 * 10^5 of them in batches, the rest skipped) and approx-majority at n = 10^5, a = 0.6
/// (about half of the steps in batches).
#[test]
fn batched_engine() {
    let p = Angluin::new(100_000, &Params::default()).unwrap();
    let settings = RunSettings { trials: 4, seed: 3, engine: Engine::Batched, ..RunSettings::default() };
    let pinned = [
        (Converged, 5_316_466_650),
        (Converged, 7_436_422_843),
        (Converged, 5_486_696_166),
        (Converged, 13_993_479_341),
    ];
    assert_eq!(steps(&p, &settings, Engine::Batched), pinned);
    let (ending, run) = count_trial(&p, 3, 0, true, false);
    assert_eq!((ending.outcome, ending.steps.0), pinned[0], "trial 0 by hand");
    assert!(run.steps_in_batches() > 500_000, "{} steps in batches", run.steps_in_batches());

    let p = ApproxMajority::new(100_000, &params(&["a=0.6"])).unwrap();
    let settings = RunSettings { trials: 4, seed: 1, engine: Engine::Batched, ..RunSettings::default() };
    let pinned = [(Converged, 967_671), (Converged, 919_222), (Converged, 919_190), (Converged, 920_073)];
    assert_eq!(steps(&p, &settings, Engine::Batched), pinned);
    for (i, &(outcome, steps)) in pinned.iter().enumerate() {
        let (ending, run) = count_trial(&p, 1, i as u64, true, false);
        assert_eq!((ending.outcome, ending.steps.0), (outcome, steps), "trial {i} by hand");
        assert!(run.steps_in_batches() > steps / 3, "trial {i}: {} steps in batches", run.steps_in_batches());
    }
}

/// The batched engine while taking plain steps: P_LL at n = 10^5 (dozens of states present, no
/// skip table; all steps but one in batches).
#[test]
fn batched_engine_taking_plain_steps() {
    let p = Pll::new(100_000, &Params::default()).unwrap();
    let settings = RunSettings { trials: 2, seed: 1, engine: Engine::Batched, ..RunSettings::default() };
    let pinned = [(Converged, 1_916_894), (Converged, 31_175_502)];
    assert_eq!(steps(&p, &settings, Engine::Batched), pinned);
    let (ending, run) = count_trial(&p, 1, 0, true, false);
    assert_eq!((ending.outcome, ending.steps.0), pinned[0], "trial 0 by hand");
    assert!(!run.skipping());
    assert!(run.steps_in_batches() + 1 >= ending.steps.0, "{} steps in batches", run.steps_in_batches());
}

/// A first passage found by replaying a batch: with batches whenever possible, every step is taken
/// in a batch, so the batch in which the (closed) safe set is entered is discarded and replayed one
/// interaction at a time, in an order drawn from its conditional law. approx-majority at n = 1000,
/// a = 0.6, and angluin at n = 100, from the default start, seeded as `run_trial` seeds trials.
#[test]
fn batched_first_passage_replayed_inside_a_batch() {
    let am = ApproxMajority::new(1000, &params(&["a=0.6"])).unwrap();
    let angluin = Angluin::new(100, &Params::default()).unwrap();
    let found = |p: &dyn Fn(u64) -> (Ending, u128)| {
        (0..4)
            .map(|i| {
                let (ending, in_batches) = p(i);
                assert_eq!(in_batches, ending.steps.0, "trial {i}: every step in a batch");
                (ending.outcome, ending.steps.0)
            })
            .collect::<Vec<_>>()
    };
    let am_steps = found(&|i| {
        let (ending, run) = count_trial(&am, 1, i, true, true);
        (ending, run.steps_in_batches())
    });
    assert_eq!(am_steps, [(Converged, 7934), (Converged, 6710), (Converged, 5800), (Converged, 5574)]);
    let angluin_steps = found(&|i| {
        let (ending, run) = count_trial(&angluin, 1, i, true, true);
        (ending, run.steps_in_batches())
    });
    assert_eq!(angluin_steps, [(Converged, 7357), (Converged, 9416), (Converged, 8030), (Converged, 12_626)]);
}

/// Faults: threshold at n = 100 (k = f = 10) with 10 agents set to random states at step 5000, on
/// the agent engine (what `auto` picks with faults), the count engine and the batched engine:
/// outcome, steps and recovery steps.
#[test]
fn faults() {
    let p = Threshold::new(100, &Params::default()).unwrap();
    let base = RunSettings {
        trials: 5,
        seed: 2,
        faults: vec![Fault::new(5_000, 10, FaultStates::Random)],
        ..RunSettings::default()
    };
    let with_recovery = |settings: &RunSettings, engine| {
        trials(&p, settings, engine)
            .iter()
            .map(|r| (r.outcome, r.steps.0, r.recovery_steps.unwrap().0))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        with_recovery(&base, Engine::Agents),
        [
            (Converged, 5326, 326),
            (Converged, 5491, 491),
            (Converged, 5428, 428),
            (Converged, 5937, 937),
            (Converged, 5221, 221)
        ]
    );
    assert_eq!(
        with_recovery(&RunSettings { engine: Engine::Counts, ..base.clone() }, Engine::Counts),
        [
            (Converged, 5424, 424),
            (Converged, 5781, 781),
            (Converged, 5234, 234),
            (Converged, 5530, 530),
            (Converged, 5149, 149)
        ]
    );
    assert_eq!(
        with_recovery(&RunSettings { engine: Engine::Batched, ..base }, Engine::Batched),
        [
            (Converged, 5559, 559),
            (Converged, 5594, 594),
            (Converged, 5574, 574),
            (Converged, 5680, 680),
            (Converged, 5214, 214)
        ]
    );
}

/// Holding runs from the safe family with short timers, which break: ls-timer at n = 6, s = 6 on
/// the agent and count engines, and P_PL at n = 30, t_virus = 2, t_max = t_emit = 6.
#[test]
fn holding_runs() {
    let hold = RunSettings {
        measure: Measure::Holding,
        init: InitSpec::Family("safe".into()),
        trials: 5,
        seed: 1,
        ..RunSettings::default()
    };
    let p = LsTimer::new(6, &params(&["s=6"])).unwrap();
    assert_eq!(
        steps(&p, &hold, Engine::Agents),
        [(Broken, 291), (Broken, 2148), (Broken, 357), (Broken, 3854), (Broken, 2417)]
    );
    assert_eq!(
        steps(&p, &RunSettings { engine: Engine::Counts, ..hold.clone() }, Engine::Counts),
        [(Broken, 4781), (Broken, 1076), (Broken, 315), (Broken, 1340), (Broken, 1438)]
    );
    let p = Ppl::new(30, &params(&["t_virus=2", "t_max=6", "t_emit=6"])).unwrap();
    assert_eq!(
        steps(&p, &RunSettings { seed: 3, ..hold }, Engine::Agents),
        [(Broken, 195), (Broken, 113), (Broken, 139), (Broken, 133), (Broken, 121)]
    );
}

/// The census: distinct states visited and the cause of the last demotion, on the agent engine
/// (P_LL at n = 300, ls-timer at n = 60, P_RL at n = N = 32 on the ring from random
/// configurations) and on the batched engine (P_LL at n = 300, `pll-sym` at n = 2000).
#[test]
fn census() {
    fn census<P: Protocol>(p: &P, settings: &RunSettings, engine: Engine) -> Vec<(u128, u64, Option<String>)> {
        let settings = RunSettings { census: true, ..settings.clone() };
        let records = trials(p, &settings, engine);
        assert!(records.iter().all(|r| r.outcome == Converged));
        records.into_iter().map(|r| (r.steps.0, r.distinct_states.unwrap(), r.last_demotion)).collect()
    }
    let cause = |c: &str| Some(c.to_string());
    let (quick, tournament) = (cause("quick-elimination"), cause("tournament"));
    let agents = RunSettings { trials: 4, seed: 1, engine: Engine::Agents, ..RunSettings::default() };
    let batched = RunSettings { engine: Engine::Batched, ..agents.clone() };

    let p = Pll::new(300, &Params::default()).unwrap();
    assert_eq!(
        census(&p, &agents, Engine::Agents),
        [
            (52_445, 429, tournament.clone()),
            (48_479, 423, tournament.clone()),
            (3200, 56, quick.clone()),
            (2099, 46, quick.clone())
        ]
    );
    assert_eq!(
        census(&p, &batched, Engine::Batched),
        [
            (50_612, 414, tournament.clone()),
            (3071, 63, quick.clone()),
            (3550, 62, quick.clone()),
            (100_273, 798, cause("backup"))
        ]
    );
    let p = LsTimer::new(60, &Params::default()).unwrap();
    assert_eq!(
        census(&p, &agents, Engine::Agents),
        [(5447, 11, None), (4761, 10, None), (6249, 11, None), (2581, 9, None)]
    );
    let ring = RunSettings { graph: Graph::DirectedRing, init: InitSpec::Random, ..agents };
    assert_eq!(
        census(&prl(32, 32), &ring, Engine::Agents),
        [(5273, 156, None), (7088, 143, None), (2663, 143, None), (3314, 155, None)]
    );
    let p = PllSym::new(2000, &Params::default()).unwrap();
    assert_eq!(
        census(&p, &RunSettings { trials: 3, ..batched }, Engine::Batched),
        [(30_272, 213, quick.clone()), (405_734, 1409, tournament), (21_540, 176, quick)]
    );
}

/// Randomized rules on the count engines: discrete averaging over `0..=8` (`(a, b)` to
/// `(floor((a + b) / 2), ceil((a + b) / 2))`, a certain law; null when that only swaps) whose pairs `(0, 8)` and `(8, 0)`
/// instead go to `(4, 4)` or `(3, 5)` with probability 1/2 each, at n = 10^5 from
/// `{0: n/2, 8: n/2}` until silent: on the count engine skipping null interactions and on the
/// batched engine (both certain and drawn laws, in singles and in bulk).
#[test]
fn randomized_rules_on_the_count_engines() {
    use poplab::protocol::{Law, Output};
    use poplab::protocols::custom::{Amount, Custom, StopRule};
    let rule = |a: &str, b: &str| -> Result<Option<Law<String>>, String> {
        let (a, b): (u32, u32) = (a.parse().map_err(|_| "a number")?, b.parse().map_err(|_| "a number")?);
        let result = |x: u32, y: u32| (x.to_string(), y.to_string());
        if a + b == 8 && a.abs_diff(b) == 8 {
            return Ok(Some(vec![(result(4, 4), 0.5), (result(3, 5), 0.5)]));
        }
        let (lo, hi) = ((a + b) / 2, (a + b).div_ceil(2));
        Ok((lo != a.min(b)).then(|| vec![(result(lo, hi), 1.0)]))
    };
    let n = 100_000;
    let p = Custom::from_fn(
        "averaging",
        &[("0".into(), Output::No), ("8".into(), Output::No)],
        Box::new(rule),
        Box::new(|_: &str| Ok(Output::No)),
        &[("0".into(), Amount::Count(n as u64 / 2)), ("8".into(), Amount::Count(n as u64 / 2))],
        StopRule::Silent,
        true,
        n,
    )
    .unwrap();
    for (engine, seed, pinned) in
        [(Engine::Counts, 2, [8_551_835_774u128, 5_139_510_486]), (Engine::Batched, 3, [6_640_731_552, 3_361_357_465])]
    {
        let settings = RunSettings { trials: 2, seed, engine, ..RunSettings::default() };
        let got: Vec<u128> = steps(&p, &settings, engine)
            .iter()
            .map(|&(outcome, steps)| {
                assert_eq!(outcome, Converged, "{engine:?}");
                steps
            })
            .collect();
        assert_eq!(got, pinned, "{engine:?}");
    }
    let (ending, run) = count_trial(&p, 3, 0, true, false);
    assert_eq!(ending.steps.0, 6_640_731_552, "batched trial 0 by hand");
    assert!(run.steps_in_batches() > 100_000, "{} steps in batches", run.steps_in_batches());
}
