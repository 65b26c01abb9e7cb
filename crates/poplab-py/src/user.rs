//! User protocols: a protocol defined in Python, whose rule and output call back into Python.

use crate::{error, value_error};
use poplab::protocol::{Law, Output};
use poplab::protocols::custom::{Amount, Custom, StopRule, output_named, output_names};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex, PoisonError};

/// A user protocol defined in Python: the library's callback protocol ([`Custom::from_fn`]),
/// whose rule and output call back into the Python layer. State names are the ids the Python
/// layer gives its state objects; it keeps the objects.
#[pyclass(frozen, module = "poplab._poplab")]
pub struct UserProtocol {
    pub(crate) custom: Custom,
    /// The first exception a Python callback raised, kept for `__cause__`.
    pub(crate) failure: Arc<Mutex<Option<PyErr>>>,
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
    /// configuration as `(name, count or fraction)` (the last takes the agents left over);
    /// `closed` declares the stop rule's safe set closed under the rule (never left once
    /// entered), so that the batched engine checks it once per batch.
    #[new]
    #[pyo3(signature = (name, resolve, output, stop, randomized, states, init, closed))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        resolve: Py<PyAny>,
        output: Py<PyAny>,
        stop: &str,
        randomized: bool,
        states: Vec<(String, String)>,
        init: Vec<(String, PyAmount)>,
        closed: bool,
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
        let custom = if closed { custom.declared_closed() } else { custom };
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

/// A pair of names: states, or their outputs.
type NamePair = (String, String);

/// Whether the stop rule `stop`'s safe set is closed under rules given by outputs: each rule as
/// the outputs of its pair and of its possible results (see the library's `safe_set_is_closed`).
#[pyfunction]
pub fn safe_set_is_closed(stop: &str, rules: Vec<(NamePair, Vec<NamePair>)>) -> PyResult<bool> {
    let stop: StopRule = stop.parse().map_err(value_error)?;
    let pair = |(a, b): &NamePair| -> PyResult<(Output, Output)> {
        Ok((output_of(a).map_err(PyValueError::new_err)?, output_of(b).map_err(PyValueError::new_err)?))
    };
    let rules = rules
        .iter()
        .map(|(p, results)| Ok((pair(p)?, results.iter().map(pair).collect::<PyResult<Vec<_>>>()?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(poplab::protocols::custom::safe_set_is_closed(stop, rules))
}

fn output_of(name: &str) -> Result<Output, String> {
    output_named(name).ok_or_else(|| {
        format!("output '{name}' is not one of {} (or True/False for leader/follower)", output_names().join(", "))
    })
}
