//! The library's names of things the Python layer lists (in tuples, messages and docstrings), so
//! that it takes them from the library instead of copying them: graphs, outputs, stop rules,
//! engines, measures and estimators, each in the order the library's messages list them.

use poplab::engine::{Engine, Measure};
use poplab::graph::Graph;
use poplab::protocols::custom::{StopRule, output_names as outputs};
use poplab::spec::Estimator;
use pyo3::prelude::*;

/// The graphs known by name ([`Graph::names`]): `complete`, `ring`, `undirected-ring`.
#[pyfunction]
pub fn graph_names() -> Vec<&'static str> {
    Graph::names()
}

/// The outputs a state of a user protocol can give, in the library's order
/// ([`poplab::protocols::custom::output_names`]).
#[pyfunction]
pub fn output_names() -> Vec<&'static str> {
    outputs()
}

/// The stop rules of user protocols known by name ([`StopRule::names`]; a fixed time,
/// `time:T`, aside).
#[pyfunction]
pub fn stop_names() -> Vec<&'static str> {
    StopRule::names()
}

/// The engines ([`Engine::ALL`]), `auto` first.
#[pyfunction]
pub fn engine_names() -> Vec<&'static str> {
    Engine::ALL.iter().map(|engine| engine.name()).collect()
}

/// The measures ([`Measure::ALL`]), `convergence` first.
#[pyfunction]
pub fn measure_names() -> Vec<&'static str> {
    Measure::ALL.iter().map(|measure| measure.name()).collect()
}

/// The estimators' methods ([`Estimator::methods`]), `direct` first.
#[pyfunction]
pub fn estimator_names() -> Vec<&'static str> {
    Estimator::methods().iter().map(Estimator::method).collect()
}
