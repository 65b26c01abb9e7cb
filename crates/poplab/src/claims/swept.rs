//! A user's claim about a sweep (`poplab sweep --claim`, Python's `SweepResult.judge`): the sweep's
//! trials gathered into one [`Point`] per value of its swept variable and judged by
//! [`ClaimText::judge`], the rules the reproduction's claims use.

use super::YVar;
use crate::engine::Outcome;
use crate::error::{Error, Result};
use crate::judge::ClaimText;
use crate::sweep::{SweepResults, SweepSpec};
use crate::verdict::{Judgement, Point};
use std::collections::BTreeMap;

/// The swept variable of a sweep over `ns` and `params` (the one with several values) and the
/// values of the others (`n` when a parameter is swept, and parameters that are numbers), for
/// `claim`.
pub fn axes(claim: &ClaimText, ns: &[u64], params: &[(String, Vec<String>)]) -> Result<(String, Vec<(String, f64)>)> {
    let mut swept: Vec<&str> = params.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k.as_str()).collect();
    if ns.len() > 1 {
        swept.insert(0, "n");
    }
    let refuse = |reason: String| Err(Error::Claim { claim: claim.text.clone(), reason });
    let var = match swept[..] {
        [one] => one.to_string(),
        [] => {
            return refuse(
                "a claim needs a sweep over one variable: several sizes n, or several values of one parameter".into(),
            );
        }
        _ => {
            return refuse(format!(
                "a claim is about one swept variable, and this sweep varies {}; sweep one of them",
                swept.join(" and ")
            ));
        }
    };
    let mut fixed: Vec<(String, f64)> = params
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .filter_map(|(k, v)| Some((k.clone(), v[0].parse().ok()?)))
        .collect();
    if var != "n" {
        fixed.push(("n".into(), ns[0] as f64));
    }
    Ok((var, fixed))
}

/// Checks before anything runs that `claim` can be judged on the sweep `spec`: one swept
/// variable, three values of it or more, and a value for each of the claim's other variables.
pub fn check(claim: &ClaimText, spec: &SweepSpec) -> Result<()> {
    let (var, fixed) = axes(claim, &spec.ns, &spec.params)?;
    let values =
        if var == "n" { spec.ns.len() } else { spec.params.iter().find(|(k, _)| *k == var).map_or(0, |p| p.1.len()) };
    if values < 3 {
        return Err(Error::Claim {
            claim: claim.text.clone(),
            reason: format!(
                "a claim needs three values of {var} or more: a trend needs three points; sweep three or more values of {var}"
            ),
        });
    }
    claim.check_variables(&var, &fixed)
}

/// One trial of a sweep, as a claim reads it.
#[derive(Clone, Copy, Debug)]
pub struct SweptTrial<'a> {
    /// Its population size.
    pub n: u64,
    /// Its parameters' values as given (`k=10`), in the sweep's order.
    pub params: &'a [(String, String)],
    /// Its steps (to the horizon if censored).
    pub steps: u128,
    /// Whether it reached the horizon first.
    pub censored: bool,
}

/// Judges `claim` on the trials of a finished sweep, measured in `y` (steps or parallel time).
pub fn judge_sweep(results: &SweepResults, claim: &ClaimText, y: YVar) -> Result<Judgement> {
    let trials: Vec<SweptTrial<'_>> = results
        .rows
        .values()
        .map(|row| SweptTrial {
            n: row.cell.n,
            params: &row.cell.params,
            steps: row.record.steps.0,
            censored: row.record.outcome == Outcome::Censored,
        })
        .collect();
    Ok(judge_trials(&trials, claim, y)?.1)
}

/// Judges `claim` on a sweep's trials, measured in `y`: the trials gathered into one [`Point`]
/// per value of the swept variable (the one with several values), the censored ones
/// counted at their horizon, and [`ClaimText::judge`]'s rule applied; returns the swept variable
/// and the judgement. `poplab sweep --claim` and Python's `SweepResult.judge` both judge through
/// it.
pub fn judge_trials(trials: &[SweptTrial<'_>], claim: &ClaimText, y: YVar) -> Result<(String, Judgement)> {
    let mut ns: Vec<u64> = Vec::new();
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    for trial in trials {
        if !ns.contains(&trial.n) {
            ns.push(trial.n);
        }
        for (k, v) in trial.params {
            match params.iter_mut().find(|(name, _)| name == k) {
                Some((_, values)) if !values.contains(v) => values.push(v.clone()),
                Some(_) => {}
                None => params.push((k.clone(), vec![v.clone()])),
            }
        }
    }
    let (var, fixed) = axes(claim, &ns, &params)?;
    let mut values = Vec::with_capacity(trials.len());
    for trial in trials {
        let x = if var == "n" {
            trial.n as f64
        } else {
            let value = trial.params.iter().find(|(k, _)| *k == var).map(|(_, v)| v.as_str()).unwrap_or("");
            value.parse::<f64>().map_err(|_| Error::Claim {
                claim: claim.text.clone(),
                reason: format!("{var} = {value} is not a number: a claim needs a numeric swept variable"),
            })?
        };
        let steps = trial.steps as f64;
        let value = match y {
            YVar::ParallelTime => steps / trial.n as f64,
            _ => steps,
        };
        values.push((x, value, trial.censored));
    }
    let judgement = judge_values(&values, claim, &var, &fixed)?;
    Ok((var, judgement))
}

/// Judges `claim` on measured values `(x, value, censored)` along the variable `var` (the others
/// `fixed`): one [`Point`] per `x`, the censored values counted as lower bounds. Sweeps of
/// protocols ([`judge_trials`]) and of reaction networks (`poplab sweep @NETWORK --claim`) go
/// through it.
pub fn judge_values(
    values: &[(f64, f64, bool)],
    claim: &ClaimText,
    var: &str,
    fixed: &[(String, f64)],
) -> Result<Judgement> {
    let mut by_x: BTreeMap<u64, Vec<(f64, bool)>> = BTreeMap::new();
    for &(x, value, censored) in values {
        by_x.entry(x.to_bits()).or_default().push((value, censored));
    }
    let mut points: Vec<Point> =
        by_x.into_iter().map(|(x, trials)| Point::gather(f64::from_bits(x), trials, 0.0)).collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    claim.judge(&points, var, fixed)
}
