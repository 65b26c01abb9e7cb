//! The clock of continuous time (`Simulation(..., continuous_time=True)` and every chemical
//! reaction network): the draws that turn interactions into time, each from its own stream of
//! the library's generator (Xoshiro256++ seeded by SplitMix64) whose seed the Python layer
//! derives from the simulation's seed, so a simulation's clock is fixed by its seed as its
//! interactions are, and never shares a stream with them.

use poplab::rng::PopRng;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rand_core::SeedableRng;
use rand_distr::Distribution;

/// A Poisson number of interactions with mean `mean` (>= 0), drawn from the stream seeded by
/// `seed`: how many interactions a span of continuous time holds. Means beyond the sampler's
/// limit (about 1.8e19) are the sum of Poisson draws of equal parts of the mean.
#[pyfunction]
pub fn poisson(seed: u64, mean: f64) -> PyResult<u128> {
    if !(mean.is_finite() && mean >= 0.0) {
        return Err(PyValueError::new_err(format!("a Poisson mean must be a finite number >= 0, not {mean}")));
    }
    if mean == 0.0 {
        return Ok(0);
    }
    let mut rng = PopRng::seed_from_u64(seed);
    let parts = (mean / 1e18).ceil().max(1.0);
    let law = rand_distr::Poisson::new(mean / parts).map_err(|e| PyValueError::new_err(e.to_string()))?;
    // Each draw is a whole number (an f64 holds every whole number up to 2^53 exactly).
    Ok((0..parts as u64).map(|_| law.sample(&mut rng) as u128).sum())
}

/// A Beta(`a`, `b`) number (`a`, `b` > 0) drawn from the stream seeded by `seed`: where, within a
/// span of continuous time that holds `a + b - 1` interactions, the `a`-th of them falls (the
/// `a`-th of `a + b - 1` uniform points, in order).
#[pyfunction]
pub fn beta(seed: u64, a: f64, b: f64) -> PyResult<f64> {
    let law = rand_distr::Beta::new(a, b).map_err(|e| PyValueError::new_err(format!("Beta({a}, {b}): {e}")))?;
    Ok(law.sample(&mut PopRng::seed_from_u64(seed)))
}
