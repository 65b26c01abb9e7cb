//! The live simulation: one trial of a Python protocol advanced piece by piece, the engine of
//! `poplab.Simulation`.

use crate::user::UserProtocol;
use crate::{error, value_error};
use poplab::Error;
use poplab::engine::snapshot::RunSnapshot;
use poplab::engine::{Engine, LiveRun, SampleSteps};
use poplab::graph::Graph;
use poplab::protocols::custom::{Custom, CustomState, StopRule};
use pyo3::prelude::*;
use std::sync::{Mutex, PoisonError};

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
pub struct LiveSimulation {
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

impl LiveSimulation {
    /// `run` of `protocol` (for this `n`, stopping when silent), of the user's `user`.
    fn of(run: LiveRun<Custom>, protocol: Custom, user: Py<UserProtocol>) -> Self {
        Self {
            run: Mutex::new(run),
            samples: Mutex::new(SampleSteps::new(PySteps { iterator: None, failure: None })),
            protocol,
            stop: Mutex::new((StopRule::Silent, false)),
            user,
        }
    }
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
            let engine = engine.parse::<Engine>()?;
            let custom = user.custom.with_n(n as usize)?.with_stop(StopRule::Silent, true);
            let states = counts
                .iter()
                .filter(|c| c.1 > 0)
                .map(|(name, count)| Ok((custom.declare(name)?, *count)))
                .collect::<poplab::Result<Vec<_>>>()?;
            let run = LiveRun::new(custom.clone(), graph, &states, engine, seed)?;
            Ok((run, custom))
        });
        let (run, custom) = result.map_err(|e| error(e, Some(user)))?;
        Ok(Self::of(run, custom, protocol))
    }

    /// The run as it stands, as JSON (the library's snapshot, as checkpoints hold: states by
    /// name), for [`LiveSimulation::restore`].
    fn snapshot(&self, py: Python<'_>) -> PyResult<String> {
        let snapshot = py.detach(|| lock(&self.run).snapshot()).map_err(|e| error(e, Some(self.user.get())))?;
        serde_json::to_string(&snapshot).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// The run `snapshot` saved, of `protocol` with `n` agents on `graph` (those it ran with, the
    /// protocol's states by the same names): it goes on on the same trajectory, on the same
    /// engine. A snapshot that does not fit `n` (or is otherwise damaged) is refused.
    #[staticmethod]
    fn restore(
        py: Python<'_>,
        protocol: Py<UserProtocol>,
        snapshot: &str,
        graph: Option<String>,
        n: u64,
    ) -> PyResult<Self> {
        let user = protocol.get();
        let damaged = |reason: String| Error::Snapshot { reason: format!("a saved Simulation is damaged: {reason}") };
        let result = py.detach(|| -> poplab::Result<_> {
            let snapshot: RunSnapshot = serde_json::from_str(snapshot).map_err(|e| damaged(e.to_string()))?;
            let n = usize::try_from(n).map_err(|_| damaged(format!("its n = {n} is out of range")))?;
            let graph = match &graph {
                None => Graph::Complete,
                Some(text) => poplab::spec::read_graph(text, n)?,
            };
            let custom = user.custom.with_n(n)?.with_stop(StopRule::Silent, true);
            // A protocol defined in Python learns its states as runs meet them: those of the
            // snapshot first.
            for state in &snapshot.states {
                if let Some(serde_json::Value::String(name)) = state.get("state") {
                    custom.declare(name)?;
                }
            }
            let run = LiveRun::restore(custom.clone(), graph, snapshot).map_err(|e| match e {
                Error::Snapshot { reason } => damaged(reason),
                other => other,
            })?;
            Ok((run, custom))
        });
        let (run, custom) = result.map_err(|e| error(e, Some(user)))?;
        Ok(Self::of(run, custom, protocol))
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
