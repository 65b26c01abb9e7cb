//! `claim`: one claim of the reproduction ([`poplab::claims`]) run to its points and verdict;
//! `judge` and `judge_sweep`: a user's claim judged on the caller's points or a sweep's trials;
//! `bootstrap_mean_ci95`: the interval figures draw.

use poplab::claims::{Mode, SweptTrial, YVar};
use poplab::judge::ClaimText;
use poplab::verdict::{Judgement, Point};
use pyo3::prelude::*;
use serde_json::json;
use std::path::PathBuf;

/// Runs the claim `name` at its quick (or full) size, seeded from `seed`, into the directory
/// `out` on `threads` workers, as `poplab reproduce --only NAME` does. Returns the claim and what
/// it found as one JSON document: its description, the verdict and evidence, one row per x
/// ([`poplab::claims::Row`]), the fits, the engines and the trials run and read back.
#[pyfunction]
#[pyo3(signature = (name, quick, seed, out, threads))]
pub fn claim(
    py: Python<'_>,
    name: &str,
    quick: bool,
    seed: u64,
    out: PathBuf,
    threads: Option<usize>,
) -> PyResult<String> {
    let mode = if quick { Mode::Quick } else { Mode::Full };
    py.detach(|| -> poplab::Result<String> {
        let claim = poplab::claims::claim(name, mode, seed)?;
        let findings = claim.run(&out, threads)?;
        let document = json!({
            "claim": claim.id,
            "title": claim.title,
            "source": claim.source,
            "statement": claim.statement,
            "x": claim.x.name(),
            "y": claim.y.label(),
            "estimated": claim.estimates(),
            "verdict": findings.judgement.verdict,
            "evidence": findings.judgement.evidence,
            "power": findings.judgement.power,
            "design": findings.design(&claim),
            "scope": claim.scope,
            "estimates": findings.estimates,
            "rows": findings.rows,
            "power_law": findings.power,
            "form_fit": findings.form_fit,
            "engines": findings.engines,
            "trials_run": findings.trials_run,
            "trials_reused": findings.trials_reused,
            "starts": findings.starts,
        });
        Ok(document.to_string())
    })
    .map_err(crate::value_error)
}

/// Judges the claim `claim` (`O(log n)`, `= (n-1)^2`, ...) on `points`, one per value of the
/// swept variable `variable`: its value, the values of the trials that ended, how many were
/// censored and at what horizon ([`Point`]); `fixed` gives the claim's other variables. The
/// library's rule decides ([`ClaimText::judge`], as `poplab sweep --claim`); returns the claim as
/// parsed, the variable and the [`Judgement`](poplab::verdict::Judgement) as one JSON document.
#[pyfunction]
#[pyo3(signature = (claim, variable, fixed, points))]
pub fn judge(
    py: Python<'_>,
    claim: &str,
    variable: &str,
    fixed: Vec<(String, f64)>,
    points: Vec<(f64, Vec<f64>, usize, f64)>,
) -> PyResult<String> {
    py.detach(|| -> poplab::Result<String> {
        let claim = ClaimText::parse(claim)?;
        let points: Vec<Point> =
            points.into_iter().map(|(x, values, censored, horizon)| Point { x, values, censored, horizon }).collect();
        let judgement = claim.judge(&points, variable, &fixed)?;
        Ok(judgement_document(&claim, variable, &judgement))
    })
    .map_err(crate::value_error)
}

/// The document `judge` and `judge_sweep` return: the claim as parsed, the swept variable and
/// the judgement.
fn judgement_document(claim: &ClaimText, variable: &str, judgement: &Judgement) -> String {
    json!({
        "claim": claim.text,
        "variable": variable,
        "verdict": judgement.verdict,
        "evidence": judgement.evidence,
        "power": judgement.power,
    })
    .to_string()
}

/// Judges the claim `claim` on a sweep's trials, one entry per trial in each list: its `n`,
/// `steps`, whether it was `censored`, and each parameter with its value per trial as text;
/// measured in parallel time (`parallel_time`) or steps. The library gathers the points and
/// decides ([`poplab::claims::judge_trials`], as `poplab sweep --claim`); returns the same
/// document as [`judge`].
#[pyfunction]
#[pyo3(signature = (claim, n, steps, censored, params, parallel_time))]
pub fn judge_sweep(
    py: Python<'_>,
    claim: &str,
    n: Vec<u64>,
    steps: Vec<u128>,
    censored: Vec<bool>,
    params: Vec<(String, Vec<String>)>,
    parallel_time: bool,
) -> PyResult<String> {
    let trials = n.len();
    if steps.len() != trials || censored.len() != trials || params.iter().any(|(_, values)| values.len() != trials) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "n, steps, censored and every parameter need one entry per trial",
        ));
    }
    py.detach(|| -> poplab::Result<String> {
        let claim = ClaimText::parse(claim)?;
        let per_trial: Vec<Vec<(String, String)>> = (0..n.len())
            .map(|i| params.iter().map(|(name, values)| (name.clone(), values[i].clone())).collect())
            .collect();
        let trials: Vec<SweptTrial<'_>> = (0..n.len())
            .map(|i| SweptTrial { n: n[i], params: &per_trial[i], steps: steps[i], censored: censored[i] })
            .collect();
        let y = if parallel_time { YVar::ParallelTime } else { YVar::Steps };
        let (variable, judgement) = poplab::claims::judge_trials(&trials, &claim, y)?;
        Ok(judgement_document(&claim, &variable, &judgement))
    })
    .map_err(crate::value_error)
}

/// The percentile bootstrap interval (95%) of the mean of `values` that `poplab plot` and the
/// report draw ([`poplab::verdict::bootstrap_mean_ci95`], seeded with
/// [`FIGURE_BOOTSTRAP_SEED`](poplab::verdict::FIGURE_BOOTSTRAP_SEED)); `None` for fewer than two
/// values.
#[pyfunction]
pub fn bootstrap_mean_ci95(values: Vec<f64>) -> Option<(f64, f64)> {
    poplab::verdict::bootstrap_mean_ci95(&values, poplab::verdict::FIGURE_BOOTSTRAP_SEED).map(|[low, high]| (low, high))
}
