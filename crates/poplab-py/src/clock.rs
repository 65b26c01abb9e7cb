//! Continuous time: the library's draws for Python's `Simulation` (`continuous_time=True`, and
//! ppsim's conservative networks, run span by span), and the library's network runs
//! ([`poplab::crn::CrnRun`]) for the networks with births and deaths.

use crate::value_error;
use poplab::crn::{CrnEngine, CrnRun, Network, beta_place, poisson_count};
use pyo3::prelude::*;

/// A Poisson number of interactions with mean `mean` (>= 0) from the stream seeded by `seed`.
#[pyfunction]
pub fn poisson(seed: u64, mean: f64) -> PyResult<u128> {
    poisson_count(seed, mean).map_err(value_error)
}

/// A Beta(`a`, `b`) number from the stream seeded by `seed`: where, within a span of continuous
/// time that holds `a + b - 1` interactions, the `a`-th of them falls.
#[pyfunction]
pub fn beta(seed: u64, a: f64, b: f64) -> PyResult<f64> {
    beta_place(seed, a, b).map_err(value_error)
}

/// A chemical reaction network's run (births and deaths included), exact in the law of
/// Gillespie's method: `CrnRun(reactions, volume, counts, engine, seed)` with `reactions` a list
/// of `(text, rate)` such as `("R + F -> 2F", 1.0)`, `volume` a number or `None` (the library's
/// default: the molecules at the start), `counts` one per species in the order the
/// reactions first name them (`species` lists it), `engine` `'auto'`, `'direct'` or `'batched'`.
#[pyclass(name = "CrnRun", module = "poplab._poplab")]
pub struct PyCrnRun {
    run: CrnRun,
}

#[pymethods]
impl PyCrnRun {
    #[new]
    fn new(
        reactions: Vec<(String, f64)>,
        volume: Option<f64>,
        counts: Vec<u64>,
        engine: &str,
        seed: u64,
    ) -> PyResult<Self> {
        let volume = volume.unwrap_or_else(|| Network::default_volume(&counts));
        let texts: Vec<(&str, f64)> = reactions.iter().map(|(t, r)| (t.as_str(), *r)).collect();
        let network = Network::parse(&texts, volume).map_err(value_error)?;
        let engine = CrnEngine::parse(engine).map_err(value_error)?;
        Ok(PyCrnRun { run: CrnRun::new(network, counts, engine, seed).map_err(value_error)? })
    }

    /// The species, in the order of `counts`.
    #[getter]
    fn species(&self) -> Vec<String> {
        self.run.network().species.clone()
    }

    /// Runs on to time `until`; releases the GIL meanwhile.
    fn advance_to(&mut self, py: Python<'_>, until: f64) -> PyResult<()> {
        let run = &mut self.run;
        py.detach(|| run.advance_to(until)).map_err(value_error)
    }

    /// The volume.
    #[getter]
    fn volume(&self) -> f64 {
        self.run.network().volume
    }

    /// Whether no reaction can happen any more.
    fn silent(&self) -> bool {
        self.run.silent()
    }

    /// The engine's name (`'direct'` or `'batched'`, what `'auto'` chose).
    #[getter]
    fn engine(&self) -> &'static str {
        let engine = self.run.engine();
        CrnEngine::NAMED.iter().find(|(_, e)| *e == engine).map(|(n, _)| *n).unwrap_or("?")
    }

    /// The counts, one per species.
    fn counts(&self) -> Vec<u64> {
        self.run.counts().to_vec()
    }

    /// The time reached.
    #[getter]
    fn time(&self) -> f64 {
        self.run.time()
    }

    /// How many reactions fired.
    #[getter]
    fn reactions(&self) -> u128 {
        self.run.reactions()
    }
}
