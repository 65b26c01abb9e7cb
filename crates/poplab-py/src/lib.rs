//! `poplab._poplab`: the private extension module under the `poplab` Python package.
//!
//! Three parts: user protocols ([`user`]), the functional API ([`api`]: `run`, `sweep`, ...) and
//! the live simulation ([`live`], with [`clock`]: the draws of continuous time); beside them, the
//! library's names the Python layer lists ([`names`]: graphs, outputs, stop rules, ...), so that
//! it copies none. Every function takes
//! what the Python layer (`python/poplab/`) normalised (protocol names or a [`UserProtocol`],
//! parameters as `KEY=VALUE`, initial configurations as text) and goes
//! through the library's one resolution path ([`RawSpec`] and [`RunSpec::resolve`], or
//! [`RunSpec::resolve_custom`] for a protocol defined in Python): no validation is repeated here.
//! Results come back as the library's own JSON documents (exact 128-bit step counts included),
//! which the Python layer turns into dicts and DataFrames.
//!
//! Simulations run with the GIL released ([`Python::detach`]) on the library's thread pool; a
//! Python rule is called back with the GIL taken ([`Python::attach`]) the first time a pair of
//! states meets, and memoised by the library for every trial and thread.

mod api;
mod claims;
mod clock;
mod live;
mod names;
mod user;

use poplab::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::sync::PoisonError;
use user::UserProtocol;

create_exception!(
    _poplab,
    RuleError,
    PyValueError,
    "A rule (or output) of a user protocol failed while a run resolved it; `__cause__` is the \
     exception the Python function raised, if any."
);

fn value_error(e: Error) -> PyErr {
    error(e, None)
}

/// A library error as a Python exception with the library's one-line message: `OSError` for a
/// failure of the machine, [`RuleError`] for a failing user rule (its Python exception as
/// `__cause__`), `ValueError` for every input error; a sweep cell's error as the error it wraps.
fn error(e: Error, protocol: Option<&UserProtocol>) -> PyErr {
    match e.innermost() {
        Error::Io(_) => PyOSError::new_err(e.to_string()),
        Error::Rule { .. } | Error::RuleFailed { .. } => {
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
        _ => PyValueError::new_err(e.to_string()),
    }
}

#[pymodule]
fn _poplab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<UserProtocol>()?;
    m.add_class::<live::LiveSimulation>()?;
    m.add("RuleError", m.py().get_type::<RuleError>())?;
    m.add_function(wrap_pyfunction!(api::protocols, m)?)?;
    m.add_function(wrap_pyfunction!(api::run, m)?)?;
    m.add_function(wrap_pyfunction!(api::trace, m)?)?;
    m.add_function(wrap_pyfunction!(api::events, m)?)?;
    m.add_function(wrap_pyfunction!(api::exact, m)?)?;
    m.add_function(wrap_pyfunction!(api::exact_every, m)?)?;
    m.add_function(wrap_pyfunction!(api::search, m)?)?;
    m.add_function(wrap_pyfunction!(api::verify, m)?)?;
    m.add_function(wrap_pyfunction!(api::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(api::trial_seed, m)?)?;
    m.add_function(wrap_pyfunction!(clock::poisson, m)?)?;
    m.add_function(wrap_pyfunction!(clock::beta, m)?)?;
    m.add_class::<clock::PyCrnRun>()?;
    m.add_function(wrap_pyfunction!(api::check_stop, m)?)?;
    m.add_function(wrap_pyfunction!(user::safe_set_is_closed, m)?)?;
    m.add_function(wrap_pyfunction!(api::available_memory, m)?)?;
    m.add_function(wrap_pyfunction!(api::spec_fields, m)?)?;
    m.add_function(wrap_pyfunction!(api::limits, m)?)?;
    m.add_function(wrap_pyfunction!(names::graph_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::output_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::stop_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::engine_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::measure_names, m)?)?;
    m.add_function(wrap_pyfunction!(names::estimator_names, m)?)?;
    m.add_function(wrap_pyfunction!(claims::claim, m)?)?;
    m.add_function(wrap_pyfunction!(claims::judge, m)?)?;
    m.add_function(wrap_pyfunction!(claims::judge_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(claims::bootstrap_mean_ci95, m)?)?;
    m.add("RNG", poplab::rng::RNG_NAME)?;
    Ok(())
}
