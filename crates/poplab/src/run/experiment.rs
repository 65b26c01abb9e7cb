//! Experiments: independent trials of one protocol, run in parallel, summarised.
//!
//! Trial `i` depends only on the master seed and `i` (see [`crate::rng`]); trials run on a rayon
//! pool and are collected in index order, so a run's results are identical for any thread count.
//! [`RunSettings::engine`] picks the engine; each engine is deterministic per seed, but engines
//! draw their pairs differently, so the same seed gives different (equally distributed) results.

pub use super::record::TrialRecord;
use crate::checkpoint::{TrialCheckpoint, TrialSnapshot};
use crate::engine::snapshot::RunSnapshot;
use crate::engine::{
    AgentRun, CensusReport, CountRun, Drivable, Ending, Engine, EventTrace, Fault, FaultStates, Measure, Observer,
    Outcome, Pause, RunPlan, Series, Steps, TimeSeries, TraceEvery, TraceSink, drive_pausing,
};
use crate::error::{Error, Result};
use crate::files;
use crate::graph::Graph;
use crate::init::{InitSpec, check_family};
use crate::protocol::Protocol;
use crate::rng::{PopRng, TrialStreams, trial_seed};
use crate::stats;
use rayon::prelude::*;
use serde::Serialize;
use smart_default::SmartDefault;
use std::collections::BTreeMap;

/// The default horizon: 10^12 steps (minutes to hours per trial on one core).
pub const DEFAULT_MAX_STEPS: u128 = 1_000_000_000_000;

/// Everything about a run except the protocol.
#[derive(Clone, Debug, SmartDefault)]
pub struct RunSettings {
    /// What the trials measure.
    pub measure: Measure,
    /// The interaction graph.
    #[default(Graph::Complete)]
    pub graph: Graph,
    /// The initial configuration.
    #[default(InitSpec::Default)]
    pub init: InitSpec,
    /// Independent trials.
    #[default(1)]
    pub trials: u64,
    /// The master seed (trial `i` uses [`trial_seed`]`(seed, i)`).
    pub seed: u64,
    /// The horizon in steps; a trial that reaches it is censored.
    #[default(DEFAULT_MAX_STEPS)]
    pub max_steps: u128,
    /// Worker threads (`None`: one per core). Results do not depend on it.
    pub threads: Option<usize>,
    /// Transient faults; the safe set is watched only after the last one.
    pub faults: Vec<Fault>,
    /// Record the number of leaders every this many steps, or every event.
    pub trace_every: Option<TraceEvery>,
    /// Count the distinct states each trial visits and the cause of its last demotion.
    pub census: bool,
    /// Which engine runs the trials ([`RunSettings::engine_used`] tells which one does).
    pub engine: Engine,
}

impl RunSettings {
    /// The engine the trials actually run on ([`Engine::resolve`]): never [`Engine::Auto`]. An
    /// event trace needs every event's step, which batches do not keep: `auto` then picks the
    /// count engine (the same law) where it would batch, and `batched` is refused.
    pub fn engine_used<P: Protocol>(&self, protocol: &P) -> Result<Engine> {
        let engine = self.engine.resolve(&self.graph, !self.faults.is_empty(), protocol.hints().auto_batches)?;
        match (engine, self.trace_every) {
            (Engine::Batched, Some(TraceEvery::Event)) if self.engine == Engine::Auto => Ok(Engine::Counts),
            (Engine::Batched, Some(TraceEvery::Event)) => Err(Error::Conflict {
                reason: "--engine batched takes interactions in bulk, without their order, so it cannot write an \
                         event trace; use --engine counts (the same law, each event at its exact step) or agents"
                    .into(),
            }),
            (engine, _) => Ok(engine),
        }
    }
}

/// At most this many trials in one run or sweep.
pub const MAX_TRIALS: u64 = 100_000_000;

/// At most this many worker threads: more than the cores only adds start-up time and memory.
pub const MAX_THREADS: usize = 256;

/// Checks that `settings` can run `protocol` (trials, threads, graph, initial configuration,
/// faults, memory) and returns the engine the trials run on ([`RunSettings::engine_used`]).
pub fn validate<P: Protocol>(protocol: &P, settings: &RunSettings) -> Result<Engine> {
    if settings.trials == 0 || settings.trials > MAX_TRIALS {
        return Err(Error::Option {
            option: "--trials",
            value: settings.trials.to_string(),
            reason: format!("give from 1 to {MAX_TRIALS} trials"),
        });
    }
    if let Some(threads) = settings.threads
        && !(1..=MAX_THREADS).contains(&threads)
    {
        return Err(Error::Option {
            option: "--threads",
            value: threads.to_string(),
            reason: format!("give from 1 to {MAX_THREADS} worker threads (results do not depend on it)"),
        });
    }
    if settings.max_steps == 0 {
        return Err(Error::Option {
            option: "--max-steps",
            value: "0".into(),
            reason: "a horizon of 0 steps runs nothing; give at least 1 (the smallest allowed value)".into(),
        });
    }
    if settings.trace_every == Some(TraceEvery::Steps(0)) {
        return Err(Error::Option {
            option: "--trace-every",
            value: "0".into(),
            reason: "give at least 1 step".into(),
        });
    }
    let engine = settings.engine_used(protocol)?;
    if engine == Engine::Agents {
        settings.graph.scheduler(protocol.n())?;
    } else if protocol.n() < 2 {
        return Err(Error::PopulationSize {
            n: protocol.n() as u64,
            reason: "a population needs at least 2 agents".into(),
        });
    }
    protocol.hints().check_graph(protocol.info().name, &settings.graph)?;
    settings.init.validate(protocol)?;
    if settings.measure == Measure::Holding && !settings.faults.is_empty() {
        return Err(Error::Conflict {
            reason: "faults go with convergence runs; a holding run measures an undisturbed safe run".into(),
        });
    }
    for fault in &settings.faults {
        if fault.step > settings.max_steps {
            return Err(Error::Option {
                option: "--fault",
                value: fault.spec(),
                reason: format!(
                    "the fault comes after the horizon (--max-steps {}), so it would never happen and the safe set, \
                     watched after the last fault, never be; give a step within the horizon",
                    settings.max_steps
                ),
            });
        }
        if fault.count == 0 || fault.count > protocol.n() {
            return Err(Error::Option {
                option: "--fault",
                value: fault.spec(),
                reason: format!("a fault must hit from 1 to n = {} agents, not {}", protocol.n(), fault.count),
            });
        }
        if let FaultStates::Family(name) = &fault.states {
            check_fault_family(protocol, name, fault.spec())?;
        }
    }
    check_memory(protocol, settings, engine)?;
    Ok(engine)
}

/// Bytes a trial's record and its output line take until a run ends.
const RECORD_BYTES: u128 = 512;

/// Refuses a run whose agent arrays (one per trial running at once) cannot fit in memory.
fn check_memory<P: Protocol>(protocol: &P, settings: &RunSettings, engine: Engine) -> Result<()> {
    // The count engines start without an agent array where `InitSpec::start` gives counts; faults
    // overwrite agents of an array.
    let array = engine == Engine::Agents || !settings.init.starts_as_counts(protocol) || !settings.faults.is_empty();
    let threads = settings.threads.unwrap_or_else(rayon::current_num_threads) as u64;
    let at_once = settings.trials.min(threads).max(1);
    // Every trial's record, and its line of output, stay until the end of the run.
    let records = u128::from(settings.trials) * RECORD_BYTES;
    if !array {
        return files::check_memory(
            records,
            &format!("{} trial records", settings.trials),
            "run fewer trials at a time (several runs with other seeds, or a sweep)",
        );
    }
    let per_trial = protocol.n() as u128 * std::mem::size_of::<P::State>() as u128;
    let fix = if engine == Engine::Agents {
        "lower n or --threads, or run the default start on the count engines (--engine counts or batched, \
         complete graph, no faults)"
    } else {
        "lower n or --threads, or start from the default configuration without faults (kept as counts)"
    };
    let arrays = per_trial * u128::from(at_once);
    // Name what takes the memory: the agent arrays, or the trial records.
    if records > arrays {
        return files::check_memory(
            arrays + records,
            &format!(
                "{} trial records ({RECORD_BYTES} bytes each, kept until the run ends) and {} of agent arrays",
                settings.trials,
                files::gigabytes(arrays)
            ),
            "run fewer --trials at a time (several runs with other seeds, or a sweep)",
        );
    }
    files::check_memory(
        arrays + records,
        &format!(
            "{} at n = {} as an agent array ({} bytes per agent, {at_once} trial{} at a time)",
            protocol.info().name,
            protocol.n(),
            std::mem::size_of::<P::State>(),
            if at_once == 1 { "" } else { "s" }
        ),
        fix,
    )
}

/// Refuses a fault family the protocol does not have: faults take `random` or a named family.
fn check_fault_family<P: Protocol>(protocol: &P, name: &str, spec: String) -> Result<()> {
    let families = &protocol.info().families;
    if name != "random" && !families.iter().any(|f| f.name == name) {
        let mut known = vec!["random"];
        known.extend(families.iter().map(|f| f.name).filter(|&f| f != "random"));
        return Err(Error::Option {
            option: "--fault",
            value: spec,
            reason: format!(
                "a fault's new states are drawn uniformly (random) or taken from a named family of {}; use one of {}",
                protocol.info().name,
                known.join(", ")
            ),
        });
    }
    // The family exists but may not be available for this n: the refusal names --fault, not the
    // initial configuration.
    check_family(protocol, name).map_err(|e| match e {
        Error::Init(reason) => Error::Option { option: "--fault", value: spec, reason },
        e => e,
    })
}

/// Runs trial `index` of `settings` (validated first; [`run_trials`] validates once for all).
pub fn run_trial<P: Protocol>(protocol: &P, settings: &RunSettings, index: u64) -> Result<TrialRecord> {
    let engine = validate(protocol, settings)?;
    let mut series = Series::default();
    Ok(trial(protocol, settings, engine, index, &mut series, None)?.with_series(series))
}

/// Trial `index` on `engine` (already resolved and validated), its time series into `trace`. A
/// user rule that fails inside the run ([`crate::protocol::Protocol::failure`]) ends it with
/// [`Error::RuleFailed`]. With `checkpoint`, the trial goes on from its snapshot if it has one,
/// and hands a snapshot over each time its pause is raised ([`crate::checkpoint`]).
pub(crate) fn trial<P: Protocol>(
    protocol: &P,
    settings: &RunSettings,
    engine: Engine,
    index: u64,
    trace: &mut dyn TraceSink,
    checkpoint: Option<TrialCheckpoint<'_>>,
) -> Result<TrialRecord> {
    let seed = trial_seed(settings.seed, index);
    let TrialStreams { schedule, init: mut init_rng, mut faults, .. } = TrialStreams::new(seed);
    let (pause, resume, deposit, damaged) = match checkpoint {
        Some(c) => (c.pause, c.resume, Some(c.deposit), Some(c.damaged)),
        None => (Default::default(), None, None, None),
    };
    // A snapshot that cannot be restored is a damaged checkpoint (the checkpoint's error names
    // the file).
    let restored = |e: Error| match (e, damaged) {
        (Error::Snapshot { reason }, Some(damaged)) => damaged(format!("trial {index}: {reason}")),
        (e, _) => e,
    };
    let mut fault_observers = settings.faults.clone();
    if let Some(saved) = &resume {
        check_resumed(saved, settings.max_steps).map_err(restored)?;
        // The faults at or before the snapshot's step have acted (see `drive_pausing`).
        faults = saved.faults_rng.clone();
        let step = saved.run.step();
        fault_observers.iter_mut().filter(|f| f.step <= step).for_each(Fault::mark_done);
    }
    let mut on_pause = |snapshot: Result<RunSnapshot>, rng: &PopRng, observers: &mut [&mut dyn Observer<P>]| {
        // Lowered before the snapshot is handed over, never after: the checkpoint writer raises the
        // pause again once the snapshot is in if its write failed (so that the trial stops), and a
        // lowering after the deposit could undo that raise, leaving the run going on for hours with
        // no checkpoint (R6, seen on a loaded machine).
        pause.lower();
        if let Some(deposit) = deposit {
            // The time series' rows so far are flushed before the snapshot says where they end.
            let mut trace = None;
            for observer in observers.iter_mut() {
                let position = observer.position().map_err(|e| Error::Io(format!("a time series: {e}")))?;
                trace = trace.or(position);
            }
            deposit(snapshot.map(|run| TrialSnapshot { index, faults_rng: rng.clone(), trace, run }))?;
        }
        Ok(())
    };
    let saved_series = resume.as_ref().and_then(|saved| saved.trace);
    let mut series = settings.trace_every.map(|every| -> Box<dyn Observer<P> + '_> {
        match (every, saved_series) {
            (TraceEvery::Steps(every), Some(position)) => Box::new(TimeSeries::resume(every, trace, position)),
            (TraceEvery::Steps(every), None) => Box::new(TimeSeries::new(every, trace)),
            // An event trace's rows follow from the run: a resume cuts its file back (see `TraceFile`).
            (TraceEvery::Event, _) => Box::new(EventTrace::<P>::new(trace)),
        }
    });
    let mut observers: Vec<&mut dyn Observer<P>> =
        fault_observers.iter_mut().map(|f| f as &mut dyn Observer<P>).collect();
    if let Some(series) = series.as_mut() {
        observers.push(series.as_mut());
    }
    let last_fault = settings.faults.iter().map(|f| f.step).max();
    let plan =
        RunPlan { measure: settings.measure, max_steps: settings.max_steps, watch_from: last_fault.unwrap_or(0) };
    let resume = resume.map(|saved| saved.run);
    let drive = Drive { census: settings.census, pause: &pause, plan, faults: &mut faults };
    let (Ending { outcome, steps }, census) = if engine == Engine::Agents {
        let scheduler = settings.graph.scheduler(protocol.n())?;
        drive.run(resume, &mut observers, &mut on_pause, |saved| match saved {
            Some(saved) => AgentRun::restore(protocol, &settings.graph, scheduler, saved).map_err(restored),
            None => {
                let agents = settings.init.build(protocol, &mut init_rng)?;
                Ok(AgentRun::new(protocol, &settings.graph, agents, scheduler, schedule))
            }
        })?
    } else {
        drive.run(resume, &mut observers, &mut on_pause, |saved| match saved {
            Some(saved) => CountRun::restore(protocol, saved).map_err(restored),
            None => CountRun::on_engine(engine, protocol, &settings.init.start(protocol, &mut init_rng)?, schedule),
        })?
    };
    drop(observers);
    Ok(TrialRecord {
        index,
        seed,
        outcome,
        steps,
        parallel_time: steps.parallel_time(protocol.n()),
        // A fault beyond the end of the trial never happened: no recovery to report.
        recovery_steps: last_fault.filter(|&at| at <= steps.0).map(|at| Steps(steps.0 - at)),
        distinct_states: census.map(|c| c.distinct_states),
        last_demotion: census.and_then(|c| c.last_demotion).map(String::from),
        trace: Vec::new(),
        events: Vec::new(),
    })
}

/// Refuses a trial's snapshot that no run of these settings could have taken: paused beyond the
/// horizon `max_steps`, or with a faults' stream that is stuck at zero.
fn check_resumed(saved: &TrialSnapshot, max_steps: u128) -> Result<()> {
    let step = saved.run.step();
    if step > max_steps {
        return Err(Error::Snapshot { reason: format!("paused at step {step}, beyond the horizon {max_steps}") });
    }
    crate::rng::check_stream(&saved.faults_rng, "the faults' stream")
}

/// What a trial hands the snapshot of its paused run to, with the faults' stream and the observers.
type OnSnapshot<'a, P> = dyn FnMut(Result<RunSnapshot>, &PopRng, &mut [&mut dyn Observer<P>]) -> Result<()> + 'a;

/// How a trial drives its run, on any engine ([`Drivable`]).
struct Drive<'a> {
    /// Whether a fresh run keeps a census (a restored one keeps what it kept).
    census: bool,
    /// The checkpoint's pause (never raised without one).
    pause: &'a Pause,
    plan: RunPlan,
    faults: &'a mut PopRng,
}

impl Drive<'_> {
    /// Drives the run `make` builds (restored from `resume`, or started when `None`) with
    /// `observers` to its end; each time the run pauses, `on_pause` is handed its snapshot. Returns
    /// how it ended and its census.
    fn run<P: Protocol, R: Drivable<P>>(
        self,
        resume: Option<RunSnapshot>,
        observers: &mut [&mut dyn Observer<P>],
        on_pause: &mut OnSnapshot<'_, P>,
        make: impl FnOnce(Option<RunSnapshot>) -> Result<R>,
    ) -> Result<(Ending, Option<CensusReport>)> {
        let resumed = resume.is_some();
        let mut run = make(resume)?;
        if self.census && !resumed {
            run.keep_census();
        }
        run.pause_on(self.pause.clone());
        let ending =
            drive_pausing(&mut run, self.plan, observers, self.faults, resumed, &mut |run, rng, observers| {
                on_pause(run.snapshot(), rng, observers)
            })?;
        Ok((ending, run.census()))
    }
}

/// The rayon pool of `threads` workers (`None`: one per core).
pub(crate) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        pool = pool.num_threads(threads);
    }
    pool.build().map_err(|e| Error::Io(format!("cannot start worker threads: {e}")))
}

/// Runs every trial of `settings` in parallel; `on_done` is called once per finished trial.
pub fn run_trials<P: Protocol>(
    protocol: &P,
    settings: &RunSettings,
    on_done: &(dyn Fn() + Sync),
) -> Result<Vec<TrialRecord>> {
    let engine = validate(protocol, settings)?;
    in_parallel(settings.threads, settings.trials, on_done, |index| {
        let mut series = Series::default();
        trial(protocol, settings, engine, index, &mut series, None).map(|r| r.with_series(series))
    })
}

/// Trials `0..trials` by `trial` on `threads` workers, collected in index order; `on_done` is
/// called once per finished trial.
pub(crate) fn in_parallel<T: Send>(
    threads: Option<usize>,
    trials: u64,
    on_done: &(dyn Fn() + Sync),
    trial: impl Fn(u64) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    pool(threads)?.install(|| {
        (0..trials)
            .into_par_iter()
            .map(|index| {
                let record = trial(index);
                on_done();
                record
            })
            .collect()
    })
}

/// Summary statistics of a run's trials. A trial *ended* if it converged (or, in a holding run,
/// broke) before its horizon. Means and intervals are over ended trials and are omitted, with a
/// lower bound given instead, when any trial was censored; quantiles are given where they fall on
/// an ended trial.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Trials summarised.
    pub trials: u64,
    /// Trials that reached the safe set.
    pub converged: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Holding runs: trials whose specification broke.
    pub broken: Option<u64>,
    /// Trials that reached the horizon.
    pub censored: u64,
    /// The mean steps (none when any trial is censored).
    pub mean_steps: Option<f64>,
    /// With censored trials: the mean with each censored trial counted at its horizon.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_steps_lower_bound: Option<f64>,
    /// The median steps, where it falls on an ended trial.
    pub median_steps: Option<f64>,
    /// The 10% quantile of the steps (`None` where it falls on a censored trial).
    pub p10_steps: Option<f64>,
    /// The 90% quantile of the steps (`None` where it falls on a censored trial).
    pub p90_steps: Option<f64>,
    /// The mean parallel time (as the mean steps).
    pub mean_parallel_time: Option<f64>,
    /// The median parallel time (as the median steps).
    pub median_parallel_time: Option<f64>,
    /// The Student-t 95% interval of the mean parallel time.
    pub ci95_parallel_time: Option<[f64; 2]>,
    /// The fewest steps of an ended trial.
    pub min_steps: Option<u128>,
    /// The most steps of a trial (none when any is censored).
    pub max_steps: Option<u128>,
    /// With a census: the largest number of distinct states a trial visited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_distinct_states: Option<u64>,
    /// With a census: how many trials had their last demotion from each cause.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub last_demotion: BTreeMap<String, u64>,
}

impl Summary {
    /// Summarises the trials of a run with `n` agents.
    pub fn of(records: &[TrialRecord], n: usize) -> Self {
        let count = |outcome: Outcome| records.iter().filter(|r| r.outcome == outcome).count() as u64;
        let ended: Vec<u128> = records.iter().filter(|r| r.outcome != Outcome::Censored).map(|r| r.steps.0).collect();
        let censored = records.len() - ended.len();
        let steps: Vec<f64> = ended.iter().map(|&s| s as f64).collect();
        let times: Vec<f64> = steps.iter().map(|s| s / n as f64).collect();
        let by_steps = stats::CensoredSummary::of(&steps, censored);
        let by_time = stats::CensoredSummary::of(&times, censored);
        let all_steps: Vec<f64> = records.iter().map(|r| r.steps.0 as f64).collect();
        let broken = count(Outcome::Broken);
        Self {
            trials: records.len() as u64,
            converged: count(Outcome::Converged),
            broken: (broken > 0).then_some(broken),
            censored: censored as u64,
            mean_steps: by_steps.mean,
            mean_steps_lower_bound: (censored > 0).then(|| stats::mean(&all_steps)),
            median_steps: by_steps.median,
            p10_steps: stats::censored_quantile(&steps, censored, 0.1),
            p90_steps: stats::censored_quantile(&steps, censored, 0.9),
            mean_parallel_time: by_time.mean,
            median_parallel_time: by_time.median,
            ci95_parallel_time: by_time.ci95,
            min_steps: ended.iter().copied().min(),
            max_steps: if censored == 0 { ended.iter().copied().max() } else { None },
            max_distinct_states: records.iter().filter_map(|r| r.distinct_states).max(),
            last_demotion: records.iter().filter_map(|r| r.last_demotion.clone()).fold(
                BTreeMap::new(),
                |mut counts, cause| {
                    *counts.entry(cause).or_insert(0) += 1;
                    counts
                },
            ),
        }
    }
}
