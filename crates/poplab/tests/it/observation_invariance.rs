//! Observation never changes the trajectory: on every engine, the same seed gives the same outcome,
//! step count, census and final configuration whether a time series is recorded or not and however
//! often it samples; the rows are at the steps asked for; and the rows the batched engine samples
//! inside a batch (it does not end its batches there) have the law of a step-by-step run.

use crate::common;

use common::params;
use poplab::engine::{
    AgentRun, CensusReport, CountRun, Ending, Engine, EventLog, EventPoint, EventTrace, Measure, Observer, RunPlan,
    Series, TimeSeries, TraceEvery, TracePoint, Watch, drive,
};
use poplab::experiment::TrialRecord;
use poplab::graph::Graph;
use poplab::protocol::Configurations;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::approx_majority::{ApproxMajority, Opinion};
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::pll::Pll;
use poplab::rng::{TrialStreams, trial_seed};
use poplab::spec::{RawSpec, RunSpec};
use poplab::stats::{ks_critical, ks_two_sample};
use std::collections::HashMap;

const ENGINES: [Engine; 3] = [Engine::Agents, Engine::Counts, Engine::Batched];

/// Sampling rates for whole runs: coarse, and one coarser than any run here (only the first and
/// the last step are sampled).
const COARSE: [u128; 3] = [1000, 12_345, 1_000_000_000_000_000];

/// Sampling rates for runs cut short (a sample costs `O(n)`).
const FINE: [u128; 2] = [1, 7];

/// A family of runs: a protocol, its size and settings.
struct Case {
    protocol: &'static str,
    n: u64,
    params: &'static [&'static str],
    measure: Measure,
    init: Option<&'static str>,
    faults: &'static [&'static str],
    max_steps: u128,
}

impl Case {
    const fn new(protocol: &'static str, n: u64) -> Self {
        Case {
            protocol,
            n,
            params: &[],
            measure: Measure::Convergence,
            init: None,
            faults: &[],
            max_steps: 1_000_000_000_000,
        }
    }

    /// The trials of this case on `engine` up to `max_steps`, sampled every `every` steps.
    fn records(&self, engine: Engine, max_steps: u128, every: Option<u128>) -> Vec<TrialRecord> {
        let raw = RawSpec {
            params: self.params.iter().map(|p| p.to_string()).collect(),
            init: self.init.map(String::from),
            faults: self.faults.iter().map(|f| f.to_string()).collect(),
            measure: self.measure,
            engine,
            trials: 2,
            seed: 2024,
            max_steps,
            trace_every: every.map(TraceEvery::Steps),
            census: true,
            ..RawSpec::new(self.protocol, self.n)
        };
        RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap().records
    }

    fn name(&self, engine: Engine) -> String {
        format!("{} n = {} {} on {}", self.protocol, self.n, self.measure.name(), engine.name())
    }
}

const CASES: [Case; 8] = [
    Case::new("angluin", 1000),
    Case::new("approx-majority", 100_000),
    Case::new("pll", 10_000),
    Case::new("ls-timer", 60),
    Case { max_steps: 100_000, ..Case::new("ppl", 40) },
    // Censored at parallel time 30 (about 3000 leaders left): batches, then null skipping.
    Case { max_steps: 3_000_000, ..Case::new("angluin", 100_000) },
    // A fault (an observer that acts: runs stop there) and a time series.
    Case { faults: &["2000:300"], ..Case::new("approx-majority", 1000) },
    // Holding from a safe start: the first output change ends the run.
    Case {
        params: &["s=8"],
        measure: Measure::Holding,
        init: Some("safe"),
        max_steps: 10_000_000,
        ..Case::new("ls-timer", 8)
    },
];

/// The steps a trace sampled every `every` steps of a run that ended at `last` has rows at.
fn sample_steps(every: u128, last: u128) -> Vec<u128> {
    let mut steps: Vec<u128> = (0..).map(|k| k * every).take_while(|&s| s <= last).collect();
    if steps.last() != Some(&last) {
        steps.push(last);
    }
    steps
}

/// Checks that `traced` ended as `plain` did (same outcome, steps and census) and that its trace
/// has its rows at the steps asked for, with plausible values (a fault at one of `fault_steps`
/// may change many agents at once).
fn check_traced(plain: &TrialRecord, traced: &TrialRecord, every: u128, n: u64, fault_steps: &[u128], at: &str) {
    let facts = |r: &TrialRecord| (r.outcome, r.steps, r.distinct_states, r.last_demotion.clone());
    assert_eq!(facts(plain), facts(traced), "{at}: trial {} traced every {every}", plain.index);
    assert!(plain.trace.is_empty());
    let steps: Vec<u128> = traced.trace.iter().map(|t| t.step).collect();
    assert_eq!(steps, sample_steps(every, traced.steps.0), "{at}: trial {} every {every}", traced.index);
    assert!(traced.trace.iter().all(|t| t.leaders <= n), "{at}: more than n leaders");
    if every == 1 {
        // One interaction changes at most two agents.
        for w in traced.trace.windows(2).filter(|w| !fault_steps.contains(&w[1].step)) {
            assert!(
                w[0].leaders.abs_diff(w[1].leaders) <= 2,
                "{at}: leaders {} -> {} in one step",
                w[0].leaders,
                w[1].leaders
            );
        }
    }
}

#[test]
fn results_do_not_depend_on_the_trace() {
    for case in &CASES {
        for engine in ENGINES {
            let at = case.name(engine);
            let fault_steps: Vec<u128> =
                case.faults.iter().map(|f| f.split(':').next().unwrap().parse().unwrap()).collect();
            // Whole runs, coarse samples: the last rows agree (the same final configuration).
            let plain = case.records(engine, case.max_steps, None);
            let mut last_rows: Vec<Vec<TracePoint>> = Vec::new();
            let longest = plain.iter().map(|r| r.steps.0).max().unwrap();
            // The agent engine's sample costs `O(n)`: a rate that would take too many is left out.
            for every in COARSE.into_iter().filter(|&every| longest / every * u128::from(case.n) <= 50_000_000) {
                let traced = case.records(engine, case.max_steps, Some(every));
                for (a, b) in plain.iter().zip(&traced) {
                    check_traced(a, b, every, case.n, &fault_steps, &at);
                }
                last_rows.push(traced.iter().map(|r| r.trace.last().unwrap().clone()).collect());
            }
            assert!(last_rows.windows(2).all(|w| w[0] == w[1]), "{at}: last rows differ: {last_rows:?}");
            // Runs cut short, fine samples.
            let short = (30_000_000 / u128::from(case.n)).min(50_000);
            let plain = case.records(engine, short, None);
            let mut traces = Vec::new();
            for every in FINE {
                let traced = case.records(engine, short, Some(every));
                for (a, b) in plain.iter().zip(&traced) {
                    check_traced(a, b, every, case.n, &fault_steps, &at);
                }
                traces.push(traced);
            }
            if engine != Engine::Batched {
                // These engines stop at every sample: the rows every 7 steps are those every step.
                for (one, seven) in traces[0].iter().zip(&traces[1]) {
                    let every_seventh: Vec<&TracePoint> =
                        one.trace.iter().filter(|t| t.step % 7 == 0 || t.step == one.steps.0).collect();
                    assert_eq!(every_seventh, seven.trace.iter().collect::<Vec<_>>(), "{at}: trial {}", one.index);
                }
            }
        }
    }
}

/// What a run on the count engine (`batched`: the batched engine; `always`: batching wherever
/// something can change) ended with: its ending, final counts, census, trace every `every` steps
/// and the steps it took in batches.
type CountEnd<S> = (Ending, HashMap<S, u64>, Option<CensusReport>, Vec<TracePoint>, u128);

fn count_run<P: Protocol>(
    p: &P,
    start: &[P::State],
    seed: u64,
    (batched, always): (bool, bool),
    plan: RunPlan,
    every: Option<u128>,
) -> CountEnd<P::State> {
    let mut streams = TrialStreams::new(seed);
    let mut run = CountRun::new(p, start, streams.schedule).unwrap();
    if batched {
        run.batch();
    }
    if always {
        run.batch_always();
    }
    run.keep_census();
    let mut rows = Series::default();
    let ending = {
        let mut series = every.map(|every| TimeSeries::new(every, &mut rows));
        let mut observers: Vec<&mut dyn Observer<P>> = Vec::new();
        if let Some(series) = series.as_mut() {
            observers.push(series);
        }
        drive(&mut run, plan, &mut observers, &mut streams.faults).unwrap()
    };
    (ending, run.counts().into_iter().collect(), run.census(), rows.points, run.steps_in_batches())
}

fn agent_run<P: Protocol>(
    p: &P,
    start: &[P::State],
    seed: u64,
    plan: RunPlan,
    every: Option<u128>,
) -> (Ending, Vec<P::State>, Vec<TracePoint>) {
    let mut streams = TrialStreams::new(seed);
    let graph = Graph::Complete;
    let mut run = AgentRun::new(p, &graph, start.to_vec(), graph.scheduler(p.n()).unwrap(), streams.schedule);
    let mut rows = Series::default();
    let ending = {
        let mut series = every.map(|every| TimeSeries::new(every, &mut rows));
        let mut observers: Vec<&mut dyn Observer<P>> = Vec::new();
        if let Some(series) = series.as_mut() {
            observers.push(series);
        }
        drive(&mut run, plan, &mut observers, &mut streams.faults).unwrap()
    };
    (ending, run.agents().to_vec(), rows.points)
}

/// The number of agents whose output is marked.
fn marked<P: Protocol>(p: &P, agents: &[P::State]) -> u64 {
    agents.iter().filter(|&&s| p.output(s).is_marked()).count() as u64
}

/// On every engine (the batched one also batching wherever it can, so that the watch fires
/// inside batches and they are replayed), the final configuration and the census are the same
/// whatever is sampled; with a sample every step, the agent and count engines' rows are those of
/// a step-by-step replay.
fn check_final_configurations<P: Protocol>(p: &P, start: &[P::State], plan: RunPlan, seeds: std::ops::Range<u64>) {
    let name = p.info().name;
    let n = p.n() as u64;
    for seed in seeds.map(|i| trial_seed(77, i)) {
        let (plain, agents, _) = agent_run(p, start, seed, plan, None);
        for every in [1, 3, 50, 1_000_000_000_000] {
            let (ending, traced_agents, trace) = agent_run(p, start, seed, plan, Some(every));
            assert_eq!((ending, &traced_agents), (plain, &agents), "{name} agents, every {every}");
            assert_eq!(trace.last().map(|t| (t.step, t.leaders)), Some((ending.steps.0, marked(p, &agents))));
        }
        // Step by step on the agent array.
        let (_, _, trace) = agent_run(p, start, seed, plan, Some(1));
        let graph = Graph::Complete;
        let streams = TrialStreams::new(seed);
        let mut run = AgentRun::new(p, &graph, start.to_vec(), graph.scheduler(p.n()).unwrap(), streams.schedule);
        for row in &trace {
            run.advance(row.step, Watch::Nothing);
            assert_eq!(row.leaders, marked(p, run.agents()), "{name} agents: step {}", row.step);
        }

        for mode in [(false, false), (true, false), (true, true)] {
            let plain = count_run(p, start, seed, mode, plan, None);
            for every in [1, 3, 50, 1_000_000_000_000] {
                let traced = count_run(p, start, seed, mode, plan, Some(every));
                assert_eq!(
                    (traced.0, &traced.1, traced.2, traced.4),
                    (plain.0, &plain.1, plain.2, plain.4),
                    "{name} {mode:?}, every {every}"
                );
                let steps: Vec<u128> = traced.3.iter().map(|t| t.step).collect();
                assert_eq!(steps, sample_steps(every, traced.0.steps.0), "{name} {mode:?}, every {every}");
                let final_leaders: u64 =
                    plain.1.iter().filter(|(s, _)| p.output(**s).is_marked()).map(|(_, c)| c).sum();
                assert_eq!(traced.3.last().unwrap().leaders, final_leaders, "{name} {mode:?}");
                assert!(traced.3.iter().all(|t| t.leaders <= n));
                if every == 1 {
                    assert!(traced.3.windows(2).all(|w| w[0].leaders.abs_diff(w[1].leaders) <= 2), "{name} {mode:?}");
                }
            }
            assert!(if mode.1 { plain.4 > 0 } else { mode.0 || plain.4 == 0 }, "{name} {mode:?}: batches taken");
            if mode == (false, false) {
                // The count engine step by step draws as with a sample every step.
                let (_, _, _, trace, _) = count_run(p, start, seed, mode, plan, Some(1));
                let mut run = CountRun::new(p, start, TrialStreams::new(seed).schedule).unwrap();
                for row in &trace {
                    run.advance(row.step, Watch::Nothing);
                    let leaders: u64 =
                        run.counts().iter().filter(|(s, _)| p.output(*s).is_marked()).map(|(_, c)| c).sum();
                    assert_eq!(row.leaders, leaders, "{name} counts: step {}", row.step);
                }
            }
        }
    }
}

#[test]
fn final_configurations_do_not_depend_on_the_trace() {
    let convergence = RunPlan { measure: Measure::Convergence, max_steps: 1_000_000, watch_from: 0 };
    let p = Angluin::new(150, &Params::default()).unwrap();
    check_final_configurations(&p, &p.initial_configuration(), convergence, 0..3);
    let p = ApproxMajority::new(300, &Params::default()).unwrap();
    check_final_configurations(&p, &p.initial_configuration(), convergence, 0..3);
    let p = Pll::new(100, &Params::default()).unwrap();
    check_final_configurations(&p, &p.initial_configuration(), convergence, 0..2);
    // A horizon inside the run.
    let cut = RunPlan { max_steps: 2_345, ..convergence };
    let p = Angluin::new(1000, &Params::default()).unwrap();
    check_final_configurations(&p, &p.initial_configuration(), cut, 0..2);
    // Holding from a safe start: batches are replayed where an output changes.
    let holding = RunPlan { measure: Measure::Holding, max_steps: 10_000_000, watch_from: 0 };
    let p = LsTimer::new(8, &params(&["s=8"])).unwrap();
    let safe = p.family_configuration("safe", &mut TrialStreams::new(1).init).unwrap();
    check_final_configurations(&p, &safe, holding, 0..2);
}

/// Samples `count` values of `key` of the configuration at `step`, from runs of the count engine
/// (`batched`: batching wherever something can change) sampled every `every` steps. The runs go on
/// past `step` (a run ends a batch at its horizon) and watch nothing before their horizon.
fn sampled_at<P: Protocol>(
    p: &P,
    start: &[P::State],
    batched: bool,
    every: u128,
    step: u128,
    count: u64,
    key: impl Fn(&TracePoint) -> f64,
) -> Vec<f64> {
    let plan = RunPlan { measure: Measure::Convergence, max_steps: step + 50, watch_from: step + 50 };
    (0..count)
        .map(|i| {
            let (_, _, _, trace, _) =
                count_run(p, start, trial_seed(u64::from(batched), i), (batched, batched), plan, Some(every));
            key(trace.iter().find(|t| t.step == step).unwrap())
        })
        .collect()
}

#[test]
fn samples_inside_batches_have_the_law_of_single_steps() {
    // Six agents, batches of about 4 interactions: most sampled steps fall inside a batch. The
    // sample there must have the law of single steps' configuration (two-sample KS, alpha 0.001).
    let count = 20_000;
    let critical = ks_critical(0.001, count as usize, Some(count as usize));
    let p = Angluin::new(6, &Params::default()).unwrap();
    let leaders = |t: &TracePoint| t.leaders as f64;
    for (every, step) in [(3, 3), (1, 7), (5, 10)] {
        let distance = ks_two_sample(
            &sampled_at(&p, &[true; 6], true, every, step, count, leaders),
            &sampled_at(&p, &[true; 6], false, every, step, count, leaders),
        );
        assert!(distance < critical, "angluin, every {every}, step {step}: KS {distance} >= {critical}");
    }
    let p = ApproxMajority::new(6, &Params::default()).unwrap();
    let agents = [Opinion::A, Opinion::A, Opinion::A, Opinion::B, Opinion::B, Opinion::U];
    // The trace columns are the counts of A, B and U.
    let code = |t: &TracePoint| 10.0 * t.values[0] + t.values[1];
    for (every, step) in [(3, 3), (1, 7)] {
        let distance = ks_two_sample(
            &sampled_at(&p, &agents, true, every, step, count, code),
            &sampled_at(&p, &agents, false, every, step, count, code),
        );
        assert!(distance < critical, "approx-majority, every {every}, step {step}: KS {distance} >= {critical}");
    }
}

#[test]
fn leaders_sampled_by_the_batched_engine_have_the_law_of_the_count_engine() {
    // angluin at n = 1000, sampled at steps 1009 and 2018 (batches of about 63 interactions, so
    // nearly always inside one; the horizon, where a batch ends, is beyond them): the batched
    // engine's samples against the count engine's.
    let trials = 4000;
    let sampled = |engine: Engine| {
        let raw = RawSpec {
            engine,
            trials,
            seed: 31,
            max_steps: 2100,
            trace_every: Some(TraceEvery::Steps(1009)),
            ..RawSpec::new("angluin", 1000)
        };
        let records = RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap().records;
        let at = |k: usize| records.iter().map(|r| r.trace[k].leaders as f64).collect::<Vec<f64>>();
        assert!(records.iter().all(|r| r.trace.iter().map(|t| t.step).eq([0, 1009, 2018, 2100])));
        [at(1), at(2)]
    };
    let (batched, counts) = (sampled(Engine::Batched), sampled(Engine::Counts));
    let critical = ks_critical(0.001, trials as usize, Some(trials as usize));
    for (k, (a, b)) in batched.iter().zip(&counts).enumerate() {
        let distance = ks_two_sample(a, b);
        assert!(distance < critical, "leaders at step {}: KS {distance} >= {critical}", 1009 * (k + 1));
    }
}

/// A run of `p` from `start` on the agent engine or the count engine, with an event trace or
/// without: its ending, its final configuration and its events.
fn event_run<P: Protocol>(
    p: &P,
    start: &[P::State],
    seed: u64,
    engine: Engine,
    plan: RunPlan,
    events: bool,
) -> (Ending, HashMap<P::State, u64>, Vec<EventPoint>) {
    let mut streams = TrialStreams::new(seed);
    let mut rows = Series::default();
    let mut trace = EventTrace::<P>::new(&mut rows);
    let mut observers: Vec<&mut dyn Observer<P>> = Vec::new();
    if events {
        observers.push(&mut trace);
    }
    let (ending, end) = if engine == Engine::Agents {
        let graph = Graph::Complete;
        let mut run = AgentRun::new(p, &graph, start.to_vec(), graph.scheduler(p.n()).unwrap(), streams.schedule);
        let ending = drive(&mut run, plan, &mut observers, &mut streams.faults).unwrap();
        (ending, poplab::protocol::tally(run.agents()))
    } else {
        let mut run = CountRun::new(p, start, streams.schedule).unwrap();
        let ending = drive(&mut run, plan, &mut observers, &mut streams.faults).unwrap();
        (ending, run.counts())
    };
    drop(observers);
    (ending, end.into_iter().collect(), rows.events)
}

/// An event trace changes nothing, and its rows are exactly the run: steps strictly increasing up
/// to the run's last, each row a change, and the rows replayed from the start give the final
/// configuration. Approximate majority among 10^4 agents takes tens of thousands of events, so
/// the engines hand over their event logs many times.
#[test]
fn an_event_trace_is_the_run_and_changes_nothing() {
    let p = ApproxMajority::new(10_000, &params(&["a=0.55"])).unwrap();
    let start = p.initial_configuration();
    let plan = RunPlan { measure: Measure::Convergence, max_steps: 1 << 40, watch_from: 0 };
    let state = |text: &str| poplab::protocol::state_from_json(&p, &serde_json::from_str(text).unwrap()).unwrap();
    for engine in [Engine::Agents, Engine::Counts] {
        for seed in 0..3 {
            let at = format!("{} seed {seed}", engine.name());
            let (plain, plain_end, none) = event_run(&p, &start, seed, engine, plan, false);
            let (traced, end, events) = event_run(&p, &start, seed, engine, plan, true);
            assert!(none.is_empty());
            assert_eq!((plain, &plain_end), (traced, &end), "{at}: the event trace changed the run");
            assert!(events.len() > 4 * EventLog::<Opinion>::SIZE, "{at}: {} events", events.len());
            assert!(events.windows(2).all(|w| w[0].step < w[1].step), "{at}: steps not increasing");
            assert_eq!(events.last().unwrap().step, traced.steps.0, "{at}: consensus comes with the last event");
            let mut counts: HashMap<Opinion, i64> = HashMap::new();
            for &s in &start {
                *counts.entry(s).or_default() += 1;
            }
            for event in &events {
                let [a, b, a2, b2] = [0, 1, 2, 3].map(|k| state(&event.states[k]));
                assert!((a, b) != (a2, b2), "{at}: a null interaction at step {}", event.step);
                assert_eq!(p.transition(a, b), (a2, b2), "{at}: not the protocol's transition");
                for (s, d) in [(a, -1), (b, -1), (a2, 1), (b2, 1)] {
                    *counts.entry(s).or_default() += d;
                }
            }
            counts.retain(|_, c| *c != 0);
            let end: HashMap<Opinion, i64> = end.iter().map(|(&s, &c)| (s, c as i64)).collect();
            assert_eq!(counts, end, "{at}: the events replayed do not give the final configuration");
        }
    }
}

/// Value stability of the event trace on the count engine: `poplab run angluin --n 6 --seed 1
/// --trace-every event` (where `auto` would batch, the event trace runs on the count engine).
#[test]
fn event_trace_steps_are_pinned() {
    let raw = RawSpec { trace_every: Some(TraceEvery::Event), seed: 1, ..RawSpec::new("angluin", 6) };
    let spec = RunSpec::resolve(&raw).unwrap();
    assert_eq!(spec.settings.engine, Engine::Counts);
    let mut rows = Series::default();
    let record = spec.trial(0, &mut rows).unwrap();
    let steps: Vec<u128> = rows.events.iter().map(|e| e.step).collect();
    assert_eq!(steps, [1, 3, 5, 8, 32]);
    assert_eq!(record.steps.0, 32);
    let batched = RawSpec { engine: Engine::Batched, ..raw };
    let refused = RunSpec::resolve(&batched).map(drop).unwrap_err().to_string();
    assert!(refused.contains("--engine counts"), "{refused}");
}
