//! The functional API: `run`, `trace`, `exact`, `verify`, `sweep` and `protocols`, each the
//! document of the `poplab` command of the same name.

use crate::error;
use crate::user::UserProtocol;
use poplab::Error;
use poplab::engine::{Series, TraceEvery};
use poplab::export::{CountColumns, Exporter, Json};
use poplab::protocol::Protocol;
use poplab::protocols::custom::Custom;
use poplab::spec::{Measured, RawSpec, RunSpec};
use poplab::sweep::{SweepOutcome, SweepSpec, fits_json, run_sweep};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What to run: a registry name or `@FILE`, or a protocol defined in Python.
#[derive(FromPyObject)]
pub enum Target {
    User(Py<UserProtocol>),
    Name(String),
}

/// The raw spec of `protocol` for `n` agents with `settings`, the options as the Python layer
/// normalised them: a JSON object of [`RawSpec`]'s fields (its serde; absent fields keep their
/// defaults, and absent trials are the estimator's default, `direct` for direct simulation).
fn raw_with(settings: &str, protocol: &str, n: u64, direct: u64) -> PyResult<RawSpec> {
    let invalid = |e: serde_json::Error| PyValueError::new_err(e.to_string());
    let mut fields: Map<String, Value> = serde_json::from_str(settings).map_err(invalid)?;
    let trials_given = fields.contains_key("trials");
    fields.insert("protocol".into(), protocol.into());
    fields.insert("n".into(), n.into());
    let mut raw: RawSpec = serde_json::from_value(Value::Object(fields)).map_err(invalid)?;
    if !trials_given {
        raw.trials = raw.estimator.default_trials(direct);
    }
    Ok(raw)
}

/// [`raw_with`] for a run: direct trials default to a run's (one).
fn raw(settings: &str, protocol: &str, n: u64) -> PyResult<RawSpec> {
    raw_with(settings, protocol, n, RawSpec::new(protocol, n).trials)
}

/// Resolves `settings` for `target`, then runs `then` on the spec with the GIL released; errors
/// are converted with the user protocol (if any) for `__cause__`.
fn with_spec<T: Send>(
    py: Python<'_>,
    target: &Target,
    n: u64,
    settings: &str,
    trace_every: Option<TraceEvery>,
    then: impl FnOnce(&RunSpec) -> poplab::Result<T> + Send,
) -> PyResult<T> {
    let (name, user) = match target {
        Target::Name(name) => (name.clone(), None),
        Target::User(p) => (p.get().custom.info().name.to_string(), Some(p.get())),
    };
    let mut raw = raw(settings, &name, n)?;
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
pub fn protocols() -> String {
    format!("{:#}\n", poplab::protocols::list_json(poplab::protocols::PROTOCOLS))
}

/// Runs the trials, or the splitting estimator; returns the estimator's method (`direct`: the
/// document holds trials, `splitting`: an estimate) and the document of `poplab run --json`.
#[pyfunction]
pub fn run(py: Python<'_>, protocol: Target, n: u64, settings: &str) -> PyResult<(&'static str, String)> {
    with_spec(py, &protocol, n, settings, None, |spec| {
        let document = match spec.measure(&|| {})? {
            Measured::Trials(result) => Json.export(&result),
            Measured::Estimate(estimate) => Json.export(&estimate),
        }?;
        Ok((spec.estimator.method(), document))
    })
}

/// The library's limits the Python layer checks before calling it: the most agents a run takes
/// ([`poplab::engine::MAX_AGENTS`]) and the most trials per run or sweep
/// ([`poplab::experiment::MAX_TRIALS`]).
#[pyfunction]
pub fn limits() -> (u64, u64) {
    (poplab::engine::MAX_AGENTS, poplab::experiment::MAX_TRIALS)
}

/// The fields of the library's `RawSpec`, which the Python layer's options set (a test checks
/// that none is forgotten).
#[pyfunction]
pub fn spec_fields() -> Vec<&'static str> {
    RawSpec::field_names().to_vec()
}

/// Trial `trial` with a time series every `every` steps: its record (JSON), the protocol's
/// columns, the rows (step, leaders, values), and for a user protocol the count columns
/// ([`CountColumns`]: per output, then per state, whose names are the library's state names) and
/// their rows.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn trace(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: &str,
    every: u128,
    trial: u64,
) -> PyResult<(String, Vec<String>, Vec<u128>, Vec<u64>, Vec<Vec<f64>>, Vec<String>, Vec<Vec<u64>>)> {
    with_spec(py, &protocol, n, settings, Some(TraceEvery::Steps(every)), |spec| {
        let (record, Series { points, .. }) = one_trial(spec, trial)?;
        // After the run: a callback protocol knows every state its trial met.
        let columns = CountColumns::of(spec);
        let counts = points
            .iter()
            .map(|p| columns.counts(&p.states))
            .collect::<Result<Vec<_>, u32>>()
            .map_err(|number| Error::Io(format!("state number {number} has no name")))?;
        let steps = points.iter().map(|p| p.step).collect();
        let leaders = points.iter().map(|p| p.leaders).collect();
        let values = points.into_iter().map(|p| p.values).collect();
        Ok((record, spec.trace_columns.clone(), steps, leaders, values, columns.names(), counts))
    })
}

/// Trial `trial` with an event trace: its record (JSON), and per event its step and the four
/// states (initiator and responder before, then after) as JSON.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn events(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: &str,
    trial: u64,
) -> PyResult<(String, Vec<u128>, Vec<[String; 4]>)> {
    with_spec(py, &protocol, n, settings, Some(TraceEvery::Event), |spec| {
        let (record, Series { events, .. }) = one_trial(spec, trial)?;
        let steps = events.iter().map(|e| e.step).collect();
        Ok((record, steps, events.into_iter().map(|e| e.states.map(|s| s.to_string())).collect()))
    })
}

/// Trial `trial` of `spec` with its rows kept in memory; its record as JSON.
fn one_trial(spec: &RunSpec, trial: u64) -> poplab::Result<(String, Series)> {
    if trial >= spec.settings.trials {
        return Err(Error::Option {
            option: "trial",
            value: trial.to_string(),
            reason: format!("the run has {} trials (numbered from 0)", spec.settings.trials),
        });
    }
    let mut series = Series::default();
    let record = spec.trial(trial, &mut series)?;
    Ok((serde_json::to_string(&record).unwrap_or_default(), series))
}

/// Exact expected steps; returns the document of `poplab exact --json`.
#[pyfunction]
pub fn exact(py: Python<'_>, protocol: Target, n: u64, settings: &str, max_configs: usize) -> PyResult<String> {
    with_spec(py, &protocol, n, settings, None, |spec| {
        let report = spec.exact(max_configs)?;
        Ok(format!("{:#}\n", poplab::export::exact_json(spec, max_configs, &report)))
    })
}

/// The exact expected steps from every configuration of the state space; returns the document of
/// `poplab exact --from all --json`.
#[pyfunction]
pub fn exact_every(py: Python<'_>, protocol: Target, n: u64, settings: &str, max_configs: usize) -> PyResult<String> {
    with_spec(py, &protocol, n, settings, None, |spec| {
        let times = spec.exact_from_every(max_configs)?;
        Ok(format!("{:#}\n", poplab::export::exact_every_json(spec, max_configs, &times)))
    })
}

/// The search for the slowest start; returns the document of `poplab search --json`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the search's own settings beside the run's
pub fn search(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: &str,
    budget: &str,
    trials: u64,
    top: usize,
) -> PyResult<String> {
    with_spec(py, &protocol, n, settings, None, |spec| {
        let search = poplab::search::SearchSettings {
            budget: budget.parse()?,
            remeasure_trials: trials,
            top: top.max(1),
            ..Default::default()
        };
        let result = spec.search(&search, &|_| {})?;
        Ok(format!("{:#}\n", poplab::export::search_json(spec, &search, &result)))
    })
}

/// Closure, safety and convergence; returns the document of `poplab verify --json`.
#[pyfunction]
pub fn verify(
    py: Python<'_>,
    protocol: Target,
    n: u64,
    settings: &str,
    from_name: String,
    max_configs: usize,
) -> PyResult<String> {
    let from_all = from_name == "all";
    with_spec(py, &protocol, n, settings, None, |spec| {
        let v = spec.verify(from_all, max_configs)?;
        Ok(format!("{:#}\n", poplab::export::verify_json(spec, &from_name, max_configs, &v)))
    })
}

/// A sweep: over registry protocols by name, or over protocols defined in Python, one per
/// combination of the swept parameters (`variants`, keyed by the cell's `KEY=VALUE` items joined
/// by spaces; `""` without parameters). Writes the sweep directory `out` (continuing what is
/// stored there) when given. Returns, by the estimator (the library's `run_sweep` chooses):
/// `("trials", trials as a JSON array of rows, summary.json, fits.json)`, or `("holding", the
/// holding curve's JSON, "", "")` (a splitting sweep without `out` works in a temporary directory,
/// removed after).
#[pyfunction]
#[pyo3(signature = (protocol, settings, ns, params, variants, out))]
pub fn sweep(
    py: Python<'_>,
    protocol: String,
    settings: &str,
    ns: Vec<u64>,
    params: Vec<(String, Vec<String>)>,
    variants: HashMap<String, Py<UserProtocol>>,
    out: Option<PathBuf>,
) -> PyResult<(&'static str, String, String, String)> {
    let template = raw_with(settings, &protocol, 0, poplab::sweep::DEFAULT_TRIALS)?;
    let spec = SweepSpec { template, ns, params, ..SweepSpec::new(&protocol, &[]) };
    let customs: HashMap<String, Custom> = variants.iter().map(|(k, v)| (k.clone(), v.get().custom.clone())).collect();
    let resolve = |raw: &RawSpec| -> poplab::Result<RunSpec> {
        if customs.is_empty() {
            return RunSpec::resolve(raw);
        }
        let key = raw.params.join(" ");
        let custom =
            customs.get(&key).ok_or_else(|| Error::Sweep { reason: format!("no protocol for the cell {key}") })?;
        RunSpec::resolve_custom(&RawSpec { params: Vec::new(), ..raw.clone() }, custom)
    };
    let result = py.detach(|| -> poplab::Result<_> {
        let results = match run_sweep(&spec, out.as_deref(), &resolve, &|_| {}, &|| {})? {
            SweepOutcome::Trials(results) => results,
            SweepOutcome::Holding(curve) => {
                let curve = serde_json::to_string(&curve).map_err(|e| Error::Io(format!("internal: {e}")))?;
                return Ok(("holding", curve, String::new(), String::new()));
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
            "trials",
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

/// Refuses a stop rule the library does not know (`Protocol(stop=...)`, checked when the
/// protocol is made rather than at its first run).
#[pyfunction]
pub fn check_stop(stop: &str) -> PyResult<()> {
    stop.parse::<poplab::protocols::custom::StopRule>().map(drop).map_err(|e| error(e, None))
}

/// The seed of trial `index` of a run with master seed `seed` (SplitMix64, as every run derives it).
#[pyfunction]
pub fn trial_seed(seed: u64, index: u64) -> u64 {
    poplab::rng::trial_seed(seed, index)
}

/// The memory available to this process in bytes (the smallest of `MemAvailable`, the
/// address-space limit and the cgroup's; `POPLAB_AVAILABLE_MEMORY` if set).
#[pyfunction]
pub fn available_memory() -> u64 {
    poplab::files::available_memory()
}
