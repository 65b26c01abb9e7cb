//! `claim`: one claim of the reproduction ([`poplab::claims`]) run to its points and verdict.

use poplab::claims::Mode;
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
            "estimated": claim.estimator.is_some(),
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
        });
        Ok(document.to_string())
    })
    .map_err(crate::value_error)
}
