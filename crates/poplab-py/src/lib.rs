//! `poplab._poplab`: the private extension module under the `poplab` Python package.
//!
//! Every function here takes what the Python layer (`python/poplab/`) normalised (protocol names
//! or a [`UserProtocol`], parameters as `KEY=VALUE`, initial configurations as text) and goes
//! through the library's one resolution path ([`RawSpec`] and [`RunSpec::resolve`], or
//! [`RunSpec::resolve_custom`] for a protocol defined in Python): no validation is repeated here.
//! Results come back as the library's own JSON documents (exact 128-bit step counts included),
//! which the Python layer turns into dicts and DataFrames.
//!
//! Simulations run with the GIL released ([`Python::detach`]) on the library's thread pool; a
//! Python rule is called back with the GIL taken ([`Python::attach`]) the first time a pair of
//! states meets, and memoised by the library for every trial and thread.

mod claims;

use poplab::Error;
use poplab::engine::{Engine, LiveRun, Measure, SampleSteps, TracePoint};
use poplab::export::{Exporter, Json};
use poplab::graph::Graph;
use poplab::protocol::{Law, Output, Protocol};
use poplab::protocols::custom::{Amount, Custom, CustomState, StopRule, output_named};
use poplab::spec::{RawSpec, RunSpec};
use poplab::sweep::{SweepResults, SweepSpec, fits_json, run_in_with};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

create_exception!(
    _poplab,
    RuleError,
    PyValueError,
    "A rule (or output) of a user protocol failed while a run resolved it; `__cause__` is the \
     exception the Python function raised, if any."
);

/// A user protocol defined in Python: the library's callback protocol ([`Custom::from_fn`]),
/// whose rule and output call back into the Python layer. State names are the ids the Python
/// layer gives its state objects; it keeps the objects.
#[pyclass(frozen, module = "poplab._poplab")]
struct UserProtocol {
    custom: Custom,
    /// The first exception a Python callback raised, kept for `__cause__`.
    failure: Arc<Mutex<Option<PyErr>>>,
}

/// Keeps the first failure of a callback (the exception the Python function raised: the cause of
/// the Python layer's wrapper, which names the states) and gives its message to the library.
fn keep(failure: &Mutex<Option<PyErr>>, py: Python<'_>, err: PyErr) -> String {
    let mut message = err.value(py).to_string();
    if message.is_empty() {
        // `KeyboardInterrupt()` has no text: name the exception.
        message = err.get_type(py).name().map_or_else(|_| "an exception".into(), |n| n.to_string());
    }
    let cause = err.cause(py).unwrap_or(err);
    failure.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(cause);
    message
}

/// An initial amount: a count, or a fraction of `n`.
#[derive(FromPyObject)]
enum PyAmount {
    Count(u64),
    Fraction(f64),
}

#[pymethods]
impl UserProtocol {
    /// `resolve(a, b)` returns `None` (null) or a list of `((c, d), probability)`; `output(s)` an
    /// output name; `states` are `(name, output name)` known up front; `init` the default
    /// configuration as `(name, count or fraction)` (the last takes the agents left over).
    #[new]
    #[pyo3(signature = (name, resolve, output, stop, randomized, states, init))]
    fn new(
        name: &str,
        resolve: Py<PyAny>,
        output: Py<PyAny>,
        stop: &str,
        randomized: bool,
        states: Vec<(String, String)>,
        init: Vec<(String, PyAmount)>,
    ) -> PyResult<Self> {
        let stop: StopRule = stop.parse().map_err(value_error)?;
        let failure: Arc<Mutex<Option<PyErr>>> = Arc::default();
        let states = states
            .into_iter()
            .map(|(state, o)| Ok((state, output_of(&o).map_err(PyValueError::new_err)?)))
            .collect::<PyResult<Vec<(String, Output)>>>()?;
        let rule_failure = failure.clone();
        let rule = move |a: &str, b: &str| -> Result<Option<Law<String>>, String> {
            Python::attach(|py| {
                let result =
                    resolve.call1(py, (a, b)).and_then(|law| law.extract::<Option<Vec<((String, String), f64)>>>(py));
                result.map_err(|err| keep(&rule_failure, py, err))
            })
        };
        let output_failure = failure.clone();
        let output = move |state: &str| -> Result<Output, String> {
            Python::attach(|py| {
                let name = output
                    .call1(py, (state,))
                    .and_then(|o| o.extract::<String>(py))
                    .map_err(|err| keep(&output_failure, py, err))?;
                output_of(&name)
            })
        };
        let init: Vec<(String, Amount)> = init
            .into_iter()
            .map(|(s, a)| {
                (
                    s,
                    match a {
                        PyAmount::Count(c) => Amount::Count(c),
                        PyAmount::Fraction(f) => Amount::Fraction(f),
                    },
                )
            })
            .collect();
        let custom = Custom::from_fn(name, &states, Box::new(rule), Box::new(output), &init, stop, randomized, 2)
            .map_err(|e| error(e, None))?;
        Ok(Self { custom, failure })
    }

    /// Makes sure the library knows the state `name` (asking its output if new): initial
    /// configurations may name states no run has met.
    fn declare(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        py.detach(|| self.custom.declare(name)).map(drop).map_err(|e| error(e, Some(self)))
    }

    /// How many pairs the rule resolved so far (each pair once, over every run).
    fn resolved_pairs(&self) -> u64 {
        self.custom.resolved_pairs()
    }

    /// How many states the library knows (declared, or met in some run).
    fn known_states(&self) -> usize {
        self.custom.known_states()
    }
}

fn output_of(name: &str) -> Result<Output, String> {
    output_named(name).ok_or_else(|| {
        format!(
            "output '{name}' is not one of leader, follower, yes, no, undecided (or True/False for leader/follower)"
        )
    })
}

fn value_error(e: Error) -> PyErr {
    error(e, None)
}

/// A library error as a Python exception with the library's one-line message: `OSError` for a
/// failure of the machine, [`RuleError`] for a failing user rule (its Python exception as
/// `__cause__`), `ValueError` for every input error.
fn error(e: Error, protocol: Option<&UserProtocol>) -> PyErr {
    match e {
        Error::Io(_) => PyOSError::new_err(e.to_string()),
        Error::Rule { .. } => {
            let err = RuleError::new_err(e.to_string());
            if let Some(cause) = protocol.and_then(|p| p.failure.lock().unwrap_or_else(PoisonError::into_inner).take())
            {
                // Ctrl-C (KeyboardInterrupt) or SystemExit inside a rule is not the rule's failure:
                // it propagates as itself.
                let interrupt = Python::attach(|py| {
                    cause.is_instance_of::<pyo3::exceptions::PyBaseException>(py)
                        && !cause.is_instance_of::<pyo3::exceptions::PyException>(py)
                });
                if interrupt {
                    return cause;
                }
                Python::attach(|py| err.set_cause(py, Some(cause)));
            }
            err
        }
        other => PyValueError::new_err(other.to_string()),
    }
}

/// What to run: a registry name or `@FILE`, or a protocol defined in Python.
#[derive(FromPyObject)]
enum Target {
    User(Py<UserProtocol>),
    Name(String),
}

/// The settings shared by `run`, `trace`, `exact`, `verify`, as the Python layer normalised them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Settings {
    params: Vec<String>,
    init: Option<String>,
    graph: Option<String>,
    engine: String,
    measure: String,
    trials: u64,
    seed: u64,
    max_steps: Option<u128>,
    faults: Vec<String>,
    threads: Option<usize>,
    census: bool,
}

impl Settings {
    fn raw(&self, protocol: &str, n: u64) -> PyResult<RawSpec> {
        let engine: Engine = self.engine.parse().map_err(value_error)?;
        let measure: Measure = self.measure.parse().map_err(value_error)?;
        let mut raw = RawSpec::new(protocol, n);
        raw.params = self.params.clone();
        raw.init = self.init.clone();
        raw.graph = self.graph.clone();
        raw.engine = engine;
        raw.measure = measure;
        raw.trials = self.trials;
        raw.seed = self.seed;
        if let Some(max_steps) = self.max_steps {
            raw.max_steps = max_steps;
        }
        raw.faults = self.faults.clone();
        raw.threads = self.threads;
        raw.census = self.census;
        Ok(raw)
    }
}

/// Resolves `settings` for `target`, then runs `then` on the spec with the GIL released; errors
/// are converted with the user protocol (if any) for `__cause__`.
fn with_spec<T: Send>(
    py: Python<'_>,
    target: &Target,
    n: u64,
    settings: &Settings,
    trace_every: Option<u128>,
    then: impl FnOnce(&RunSpec) -> poplab::Result<T> + Send,
) -> PyResult<T> {
    let (name, user) = match target {
        Target::Name(name) => (name.clone(), None),
        Target::User(p) => (p.get().custom.info().name.to_string(), Some(p.get())),
    };
    let mut raw = settings.raw(&name, n)?;
    raw.trace_every = trace_every;
    let custom = user.map(|u| u.custom.clone());
    py.detach(|| {
        let spec = match &custom {
            None => RunSpec::resolve(&raw)?,
            Some(custom) => RunSpec::resolve_custom(&raw, custom)?,
        };
        then(&spec)
    })
    .map_err(|e| error(e, user))
}

/// The protocols of the registry: the document of `poplab list --json`.
#[pyfunction]
fn protocols() -> String {
    format!("{:#}\n", poplab::protocols::list_json(poplab::protocols::PROTOCOLS))
}

/// Runs the trials; returns the document of `poplab run --json`.
#[pyfunction]
fn run(py: Python<'_>, protocol: Target, n: u64, settings: Settings) -> PyResult<String> {
    with_spec(py, &protocol, n, &settings, None, |spec| Json.export(&spec.run(&|| {})?))
}

/// Trial `trial` with a time series every `every` steps: its record (JSON), the protocol's
/// columns, and the rows (step, leaders, values).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn trace(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: Settings,
    every: u128,
    trial: u64,
) -> PyResult<(String, Vec<String>, Vec<u128>, Vec<u64>, Vec<Vec<f64>>)> {
    with_spec(py, &protocol, n, &settings, Some(every), |spec| {
        if trial >= spec.settings.trials {
            return Err(Error::Setting(format!(
                "trial {trial} does not exist: the run has {} trials (numbered from 0)",
                spec.settings.trials
            )));
        }
        let mut points: Vec<TracePoint> = Vec::new();
        let record = spec.trial(trial, &mut points)?;
        let record = serde_json::to_string(&record).unwrap_or_default();
        let steps = points.iter().map(|p| p.step).collect();
        let leaders = points.iter().map(|p| p.leaders).collect();
        let values = points.into_iter().map(|p| p.values).collect();
        Ok((record, spec.trace_columns.clone(), steps, leaders, values))
    })
}

/// Exact expected steps; returns the document of `poplab exact --json`.
#[pyfunction]
fn exact(py: Python<'_>, protocol: Target, n: u64, settings: Settings, max_configs: usize) -> PyResult<String> {
    with_spec(py, &protocol, n, &settings, None, |spec| {
        let report = spec.exact(max_configs)?;
        Ok(format!("{:#}\n", poplab::export::exact_json(spec, max_configs, &report)))
    })
}

/// Closure, safety and convergence; returns the document of `poplab verify --json`.
#[pyfunction]
fn verify(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: Settings,
    from_name: String,
    max_configs: usize,
) -> PyResult<String> {
    let from_all = from_name == "all";
    with_spec(py, &protocol, n, &settings, None, |spec| {
        let v = spec.verify(from_all, max_configs)?;
        Ok(format!("{:#}\n", poplab::export::verify_json(spec, &from_name, max_configs, &v)))
    })
}

/// The settings of a sweep, as the Python layer normalised them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct SweepSettings {
    ns: Vec<u64>,
    params: Vec<(String, Vec<String>)>,
    init: Option<String>,
    graph: Option<String>,
    engine: String,
    measure: String,
    trials: u64,
    seed: u64,
    max_steps: Option<u128>,
    threads: Option<usize>,
    census: bool,
}

/// A sweep: over registry protocols by name, or over protocols defined in Python, one per
/// combination of the swept parameters (`variants`, keyed by the cell's `KEY=VALUE` items joined
/// by spaces; `""` without parameters). Writes the sweep directory `out` (continuing the trials
/// stored there) when given. Returns the trials (a JSON array of rows), `summary.json` and
/// `fits.json`.
#[pyfunction]
#[pyo3(signature = (protocol, settings, variants, out))]
fn sweep(
    py: Python<'_>,
    protocol: String,
    settings: SweepSettings,
    variants: HashMap<String, Py<UserProtocol>>,
    out: Option<PathBuf>,
) -> PyResult<(String, String, String)> {
    let spec = SweepSpec {
        protocol,
        ns: settings.ns,
        params: settings.params,
        init: settings.init,
        measure: settings.measure.parse().map_err(value_error)?,
        graph: settings.graph,
        trials: settings.trials,
        seed: settings.seed,
        max_steps: settings.max_steps.unwrap_or(poplab::experiment::DEFAULT_MAX_STEPS),
        threads: settings.threads,
        census: settings.census,
        engine: settings.engine.parse().map_err(value_error)?,
        shard: None,
        checkpoint_every: poplab::checkpoint::DEFAULT_EVERY,
    };
    let customs: HashMap<String, Custom> = variants.iter().map(|(k, v)| (k.clone(), v.get().custom.clone())).collect();
    let resolve = |raw: &RawSpec| -> poplab::Result<RunSpec> {
        if customs.is_empty() {
            return RunSpec::resolve(raw);
        }
        let key = raw.params.join(" ");
        let custom = customs.get(&key).ok_or_else(|| Error::Setting(format!("no protocol for the cell {key}")))?;
        RunSpec::resolve_custom(&RawSpec { params: Vec::new(), ..raw.clone() }, custom)
    };
    let result = py.detach(|| -> poplab::Result<_> {
        let results = match &out {
            Some(dir) => run_in_with(&spec, dir, &resolve, &|_| {}, &|| {})?,
            None => {
                let cells = spec.resolve_with(&resolve)?;
                let rows = spec.collect(&cells, &HashSet::new())?;
                let summaries = spec.summarise(&cells, &rows);
                SweepResults { cells, summaries, rows }
            }
        };
        let rows: Vec<Value> = results
            .rows
            .values()
            .map(|row| {
                let params: BTreeMap<_, _> = row.cell.params.iter().cloned().collect();
                json!({"cell": row.cell.key(), "n": row.cell.n, "params": params, "record": row.record})
            })
            .collect();
        Ok((
            format!("{}", Value::Array(rows)),
            spec.summary_json(&results.cells, &results.summaries),
            fits_json(&results.summaries),
        ))
    });
    result.map_err(|e| {
        let user = variants.values().next().map(|p| p.get());
        error(e, user)
    })
}

/// The exception the sample steps' iterator raised, if any.
fn take_failure(samples: &mut SampleSteps<PySteps>) -> PyResult<()> {
    match samples.steps_mut().failure.take() {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// A configuration as (state name, count) pairs.
type NamedCounts = Vec<(String, u64)>;

/// The steps of a Python iterator of ints, taken with the GIL as a run reaches them. The first
/// exception it raises ends it and is kept.
struct PySteps {
    iterator: Option<Py<PyAny>>,
    failure: Option<PyErr>,
}

impl Iterator for PySteps {
    type Item = u128;

    fn next(&mut self) -> Option<u128> {
        let iterator = self.iterator.as_ref()?;
        let next = Python::attach(|py| iterator.call_method0(py, "__next__").and_then(|step| step.extract::<u128>(py)));
        match next {
            Ok(step) => Some(step),
            Err(err) => {
                let stopped = Python::attach(|py| err.is_instance_of::<pyo3::exceptions::PyStopIteration>(py));
                if !stopped {
                    self.failure = Some(err);
                }
                self.iterator = None;
                None
            }
        }
    }
}

/// One trial of a Python protocol advanced piece by piece: the engine of `poplab.Simulation`.
/// The configuration is given and returned by state names (the Python layer keeps the objects).
/// Every stop also stops when the run is silent, as ppsim's simulations do.
#[pyclass(module = "poplab._poplab")]
struct LiveSimulation {
    run: Mutex<LiveRun<Custom>>,
    /// Where to record the configuration (`sample_at`).
    samples: Mutex<SampleSteps<PySteps>>,
    /// The protocol for this run's `n`, with its own stop rule.
    protocol: Custom,
    /// The stop rule the run watches now, and whether it was declared closed.
    stop: Mutex<(StopRule, bool)>,
    user: Py<UserProtocol>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn named(protocol: &Custom, counts: Vec<(CustomState, u64)>) -> NamedCounts {
    counts.into_iter().map(|(state, count)| (protocol.name(state), count)).collect()
}

#[pymethods]
impl LiveSimulation {
    /// A run of `protocol` from `counts` (states by name) on `graph` (`None`: complete), on
    /// `engine` (`auto`: batched on the complete graph, else agents), with the streams of trial
    /// seed `seed`.
    #[new]
    fn new(
        py: Python<'_>,
        protocol: Py<UserProtocol>,
        counts: NamedCounts,
        graph: Option<String>,
        engine: &str,
        seed: u64,
    ) -> PyResult<Self> {
        let user = protocol.get();
        let n: u64 = counts.iter().map(|c| c.1).sum();
        let result = py.detach(|| -> poplab::Result<_> {
            let graph = match &graph {
                None => Graph::Complete,
                Some(text) => poplab::spec::read_graph(text, n as usize)?,
            };
            let (agents, batched) = match engine.parse::<Engine>()?.resolve(&graph, false, true)? {
                Engine::Counts => (false, false),
                Engine::Batched => (false, true),
                Engine::Agents | Engine::Auto => (true, false),
            };
            let custom = user.custom.with_n(n as usize)?.with_stop(StopRule::Silent, true);
            let states = counts
                .iter()
                .filter(|c| c.1 > 0)
                .map(|(name, count)| Ok((custom.declare(name)?, *count)))
                .collect::<poplab::Result<Vec<_>>>()?;
            let run = LiveRun::new(custom.clone(), graph, &states, agents, batched, seed)?;
            Ok((run, custom))
        });
        let (run, custom) = result.map_err(|e| error(e, Some(user)))?;
        Ok(Self {
            run: Mutex::new(run),
            samples: Mutex::new(SampleSteps::new(PySteps { iterator: None, failure: None })),
            protocol: custom,
            stop: Mutex::new((StopRule::Silent, false)),
            user: protocol,
        })
    }

    /// Records the configuration from now on at the steps of `steps`, an iterator of ascending
    /// ints (endless, say), drawn on as the run reaches them.
    fn sample_at(&self, py: Python<'_>, steps: Py<PyAny>) -> PyResult<()> {
        let steps = steps.call_method0(py, "__iter__")?;
        let mut samples = SampleSteps::new(PySteps { iterator: Some(steps), failure: None });
        take_failure(&mut samples)?;
        *lock(&self.samples) = samples;
        Ok(())
    }

    /// Runs to step `until`, or until `stop` holds (a stop rule of the library; silence always
    /// stops the run too), recording the configuration at the steps of `sample_at`. `closed`
    /// declares that the rule's safe set is never left once entered (so the batched engine may
    /// check it once per batch). Returns whether it stopped at the rule (or silence), and the
    /// records as (step, configuration).
    #[pyo3(signature = (until, stop, closed=false))]
    #[allow(clippy::type_complexity)]
    fn advance(
        &self,
        py: Python<'_>,
        until: u128,
        stop: &str,
        closed: bool,
    ) -> PyResult<(bool, Vec<(u128, NamedCounts)>)> {
        let rule: StopRule = stop.parse().map_err(value_error)?;
        let mut samples = Vec::new();
        let met = py.detach(|| {
            let mut run = lock(&self.run);
            let mut current = lock(&self.stop);
            if *current != (rule, closed) {
                let protocol = self.protocol.with_stop(rule, true);
                run.set_protocol(if closed { protocol.declared_closed() } else { protocol })?;
                *current = (rule, closed);
            }
            run.advance(until, true, &mut *lock(&self.samples), &mut |step, counts| {
                samples.push((step, named(&self.protocol, counts)));
            })
        });
        let met = met.map_err(|e| error(e, Some(self.user.get())))?;
        take_failure(&mut lock(&self.samples))?;
        Ok((met, samples))
    }

    /// The configuration: (state name, count) of the states present.
    fn counts(&self, py: Python<'_>) -> NamedCounts {
        py.detach(|| named(&self.protocol, lock(&self.run).counts()))
    }

    /// Steps taken so far.
    fn step(&self) -> u128 {
        lock(&self.run).step()
    }

    /// Whether the run is silent (no interaction can change anything).
    fn silent(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.advance(py, self.step(), "silent", false)?.0)
    }
}

/// The seed of trial `index` of a run with master seed `seed` (SplitMix64, as every run derives it).
#[pyfunction]
fn trial_seed(seed: u64, index: u64) -> u64 {
    poplab::rng::trial_seed(seed, index)
}

#[pymodule]
fn _poplab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<UserProtocol>()?;
    m.add_class::<LiveSimulation>()?;
    m.add("RuleError", m.py().get_type::<RuleError>())?;
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(exact, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(trial_seed, m)?)?;
    m.add_function(wrap_pyfunction!(claims::claim, m)?)?;
    m.add("RNG", poplab::rng::RNG_NAME)?;
    Ok(())
}
