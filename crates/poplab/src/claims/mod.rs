//! Claims of the four source papers as experiments: each [`Claim`] names its sweeps, sized for a
//! [`Mode`], and the rule of [`crate::verdict`] that decides it. [`Claim::run`] runs the sweeps
//! into a directory (continuing the trials stored there), gathers the trials into one [`Row`] per
//! x and applies the rule: its [`Findings`] are the points, the fits and the verdict. [`claims`]
//! lists them all; `poplab reproduce` runs them and writes the report.
//!
//! ```
//! use poplab::claims::{Mode, claim};
//! use poplab::verdict::Verdict;
//!
//! // threshold's correctness at the smallest sizes: every trial must end as claimed.
//! let claim = claim("threshold-correct", Mode::Tiny, 1)?;
//! let dir = tempfile::tempdir()?;
//! let findings = claim.run(dir.path(), None)?;
//! assert_eq!(findings.judgement.verdict, Verdict::Consistent, "{}", findings.judgement.evidence);
//! // f = 1 and 5 below the threshold k = 10, f = 10 and 20 at or above it.
//! let fs: Vec<f64> = findings.rows.iter().map(|row| row.point.x).collect();
//! assert_eq!(fs, [1.0, 5.0, 10.0, 20.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod catalog;

pub use catalog::{Claim, Estimator, Mode, Picture, Rule, XVar, YVar, claims};

use crate::engine::Outcome;
use crate::error::{Error, Result};
use crate::fit::{FormFit, PowerFit, fit_form, fit_power};
use crate::stats::CensoredSummary;
use crate::sweep::{Cell, run_in};
use crate::verdict::{self, Judgement, LogPoint, Point, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The claim named `id`, sized for `mode` and seeded from `seed` (one of [`claims`]).
pub fn claim(id: &str, mode: Mode, seed: u64) -> Result<Claim> {
    let all = claims(mode, seed);
    let known = all.iter().map(|c| c.id).collect::<Vec<_>>().join(", ");
    all.into_iter().find(|c| c.id == id).ok_or_else(|| Error::UnknownName {
        kind: "claim",
        name: id.into(),
        choices: known,
    })
}

/// The measurements of one x value.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The trials' values, as the verdict rules take them.
    pub point: Point,
    /// Trials (or, for an estimate, repetitions).
    pub trials: usize,
    /// The mean of the trials that ended, if none was censored.
    pub mean: Option<f64>,
    /// Its 95% interval.
    pub ci95: Option<[f64; 2]>,
    /// The median (`None` if censored trials could hold it).
    pub median: Option<f64>,
    /// A splitting estimate instead of trials: log10 of the mean and of its interval's ends.
    pub log10_estimate: Option<(f64, [f64; 2])>,
    /// For a claim comparing sweeps: the sweep's protocol, and how many of its trials BackUp
    /// ended (the census's last demotion).
    pub variant: Option<(String, usize)>,
}

/// One trial of a claim's sweep, as pictures and the outcome rule see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The population size.
    pub n: u64,
    /// Its time, in parallel time.
    pub parallel_time: f64,
    /// How it ended.
    pub outcome: Outcome,
    /// The module that demoted the last leader (census), if recorded.
    pub last_demotion: Option<String>,
}

/// What a claim's experiment found: its points, fits and verdict.
#[derive(Clone, Debug)]
pub struct Findings {
    /// One row per x (per variant and x for a comparison), by increasing x.
    pub rows: Vec<Row>,
    /// The verdict and its evidence.
    pub judgement: Judgement,
    /// A power law fitted to the means (not for a comparison or estimates).
    pub power: Option<PowerFit>,
    /// The claimed form fitted to the means (upper-bound claims).
    pub form_fit: Option<FormFit>,
    /// Per sweep: the engines its cells ran on (`batched`, or `batched, agents` when auto picked
    /// several).
    pub engines: Vec<String>,
    /// Per sweep, its trials (none for estimates).
    pub trials: Vec<Vec<Trial>>,
    /// Trials (or repetitions) run now.
    pub trials_run: u64,
    /// Trials read back from the directory, run earlier or by a claim sharing the sweep.
    pub trials_reused: u64,
}

/// One trial as a row sees it: value, outcome, horizon (as bits), whether BackUp ended it.
type TrialPoint = (f64, Outcome, u64, bool);

impl Claim {
    /// The directory of sweep `index` relative to a reproduction's directory.
    pub fn data_dir(&self, index: usize) -> PathBuf {
        PathBuf::from(self.data.get(index).cloned().unwrap_or_else(|| catalog::own_data_dir(self.id, index)))
    }

    /// Runs the claim's sweeps on `threads` workers (`None`: one per core) into their directories
    /// under `dir` ([`Claim::data_dir`]: the trials stored there are read back, not run again),
    /// and judges the result by the claim's rule.
    pub fn run(&self, dir: &Path, threads: Option<usize>) -> Result<Findings> {
        match self.estimator {
            Some(estimator) => self.run_estimates(estimator, dir, threads),
            None => self.run_trials(dir, threads),
        }
    }

    fn run_trials(&self, dir: &Path, threads: Option<usize>) -> Result<Findings> {
        // Trials by (variant, x): a claim comparing sweeps keeps each sweep apart, the others
        // merge their sweeps per x.
        let compare = matches!(self.rule, Rule::SlowerThan);
        let mut by_x: BTreeMap<(usize, u64), Vec<TrialPoint>> = BTreeMap::new();
        let (mut trials_by_sweep, mut engines) = (Vec::new(), Vec::new());
        let (trials_run, mut trials_all) = (AtomicU64::new(0), 0);
        for (i, spec) in self.sweeps.iter().enumerate() {
            let mut spec = spec.clone();
            spec.template.threads = threads;
            let results = run_in(&spec, &dir.join(self.data_dir(i)), &|_| {}, &|| {
                trials_run.fetch_add(1, Ordering::Relaxed);
            })?;
            trials_all += results.rows.len() as u64;
            let mut names: Vec<&str> = Vec::new();
            for cell in &results.cells {
                let name = cell.spec.settings.engine.name();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            engines.push(names.join(", "));
            let mut trials = Vec::new();
            for row in results.rows.values() {
                let x = self.x_value(&row.cell);
                let (value, horizon) = match self.y {
                    YVar::Steps => (row.record.steps.0 as f64, spec.template.max_steps as f64),
                    YVar::ParallelTime => {
                        let n = row.cell.n as f64;
                        (row.record.steps.0 as f64 / n, spec.template.max_steps as f64 / n)
                    }
                    YVar::DistinctStates => (row.record.distinct_states.unwrap_or(0) as f64, f64::INFINITY),
                };
                let backup = row.record.last_demotion.as_deref() == Some("backup");
                let key = (if compare { i } else { 0 }, x.to_bits());
                by_x.entry(key).or_default().push((value, row.record.outcome, horizon.to_bits(), backup));
                trials.push(Trial {
                    n: row.cell.n,
                    parallel_time: row.record.steps.0 as f64 / row.cell.n as f64,
                    outcome: row.record.outcome,
                    last_demotion: row.record.last_demotion.clone(),
                });
            }
            trials_by_sweep.push(trials);
        }
        let mut rows: Vec<Row> = by_x
            .into_iter()
            .map(|((variant, x), trials)| {
                let values: Vec<f64> = trials.iter().filter(|t| t.1 != Outcome::Censored).map(|t| t.0).collect();
                let censored = trials.len() - values.len();
                let horizon = trials.iter().map(|t| f64::from_bits(t.2)).fold(0.0, f64::max);
                let summary = CensoredSummary::of(&values, censored);
                Row {
                    variant: compare.then(|| {
                        let backup = trials.iter().filter(|t| t.3).count();
                        (self.sweeps[variant].template.protocol.clone(), backup)
                    }),
                    trials: trials.len(),
                    mean: summary.mean,
                    ci95: summary.ci95,
                    median: summary.median,
                    point: Point { x: f64::from_bits(x), values, censored, horizon },
                    log10_estimate: None,
                }
            })
            .collect();
        rows.sort_by(|a, b| a.point.x.total_cmp(&b.point.x));
        let points: Vec<Point> = rows.iter().map(|r| r.point.clone()).collect();
        let judgement = match &self.rule {
            Rule::ExactMean { expected, .. } => verdict::exact_mean(&points, expected),
            Rule::GrowthAtMost(form) => verdict::growth_at_most(&points, *form),
            Rule::ExponentialAtLeast { rate } => match verdict::log_points(&points) {
                Some(points) => verdict::exponential_at_least(&points, *rate),
                None => censored_judgement(),
            },
            Rule::RateOnly { reason } => match verdict::log_points(&points) {
                Some(points) => verdict::rate_only(&points, reason),
                None => censored_judgement(),
            },
            Rule::SlowerThan => self.slower_judgement(&rows),
            Rule::Outcomes(expected) => verdict::worst(
                &expected
                    .iter()
                    .zip(&trials_by_sweep)
                    .map(|((outcome, what), trials)| {
                        let as_claimed = trials.iter().filter(|t| t.outcome == *outcome).count();
                        verdict::all_trials(as_claimed as u64, trials.len() as u64, what)
                    })
                    .collect::<Vec<_>>(),
            ),
        };
        let (xs, ys): (Vec<f64>, Vec<f64>) = rows.iter().filter_map(|r| r.mean.map(|m| (r.point.x, m))).unzip();
        let trials_run = trials_run.into_inner();
        Ok(Findings {
            // A comparison's rows hold two variants per x: no single power law.
            power: if compare { None } else { fit_power(&xs, &ys) },
            form_fit: match self.rule {
                Rule::GrowthAtMost(form) => fit_form(form, &xs, &ys),
                _ => None,
            },
            rows,
            judgement,
            engines,
            trials: trials_by_sweep,
            trials_run,
            trials_reused: trials_all.saturating_sub(trials_run),
        })
    }

    /// Sweep 1 slower than sweep 0 ([`verdict::slower_than`]), with the share of runs BackUp ended.
    fn slower_judgement(&self, rows: &[Row]) -> Judgement {
        let of = |variant: &str| -> Vec<&Row> {
            rows.iter().filter(|r| r.variant.as_ref().is_some_and(|(p, _)| p == variant)).collect()
        };
        let (fast, slow) = (of(&self.sweeps[0].template.protocol), of(&self.sweeps[1].template.protocol));
        let points = |rows: &[&Row]| rows.iter().map(|r| r.point.clone()).collect::<Vec<_>>();
        let judgement = verdict::slower_than(&points(&slow), &points(&fast));
        let shares = |rows: &[&Row]| {
            rows.iter()
                .map(|r| format!("{}/{} at x = {}", r.variant.as_ref().map_or(0, |v| v.1), r.trials, r.point.x))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Judgement {
            evidence: format!(
                "{}; runs whose last leader BackUp demoted: {} {}; {} {}",
                judgement.evidence,
                self.sweeps[0].template.protocol,
                shares(&fast),
                self.sweeps[1].template.protocol,
                shares(&slow)
            ),
            ..judgement
        }
    }

    /// A claim measured by the splitting estimator: one holding estimate per cell
    /// ([`crate::sweep::estimates`]), judged on the logarithms of the estimates in parallel time.
    fn run_estimates(&self, estimator: Estimator, dir: &Path, threads: Option<usize>) -> Result<Findings> {
        let repetitions_run = AtomicU64::new(0);
        let (mut rows, mut points, mut repetitions_all) = (Vec::new(), Vec::new(), 0);
        for (i, spec) in self.sweeps.iter().enumerate() {
            let mut spec = spec.clone();
            spec.template.threads = threads;
            spec.template.estimator = estimator.spec();
            let curve = crate::sweep::estimates::run_in(&spec, &dir.join(self.data_dir(i)), &|_| {}, &|| {
                repetitions_run.fetch_add(1, Ordering::Relaxed);
            })?;
            for (cell, result) in spec.cells()?.iter().zip(&curve.cells) {
                let x = self.x_value(cell);
                let e = &result.estimate;
                let shift = (cell.n as f64).log10();
                repetitions_all += e.repetitions;
                let ln10 = std::f64::consts::LN_10;
                points.push(LogPoint {
                    x,
                    ln_mean: (e.log10_mean_steps - shift) * ln10,
                    se: e.log10_standard_error * ln10,
                });
                rows.push(Row {
                    point: Point { x, values: Vec::new(), censored: 0, horizon: f64::INFINITY },
                    trials: e.repetitions as usize,
                    mean: None,
                    ci95: None,
                    median: None,
                    log10_estimate: Some((
                        e.log10_mean_steps - shift,
                        [e.log10_ci95[0] - shift, e.log10_ci95[1] - shift],
                    )),
                    variant: None,
                });
            }
        }
        rows.sort_by(|a, b| a.point.x.total_cmp(&b.point.x));
        let judgement = match &self.rule {
            Rule::ExponentialAtLeast { rate } => verdict::exponential_at_least(&points, *rate),
            Rule::RateOnly { reason } => verdict::rate_only(&points, reason),
            _ => verdict::rate_only(&points, "the claim's rule does not apply to estimates"),
        };
        let trials_run = repetitions_run.into_inner();
        Ok(Findings {
            rows,
            judgement,
            power: None,
            form_fit: None,
            engines: vec!["agents (splitting estimator)".into()],
            trials: Vec::new(),
            trials_run,
            trials_reused: repetitions_all.saturating_sub(trials_run),
        })
    }

    /// A cell's value of the claim's x axis (`NaN` for a parameter that is not a number).
    fn x_value(&self, cell: &Cell) -> f64 {
        match self.x {
            XVar::N => cell.n as f64,
            XVar::Param(name) => {
                cell.params.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse().ok()).unwrap_or(f64::NAN)
            }
        }
    }
}

fn censored_judgement() -> Judgement {
    Judgement {
        verdict: Verdict::Inconclusive,
        evidence: "some trials were censored (or too few ended): no mean to fit".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_found_by_name_and_an_unknown_name_lists_them() {
        let found = claim("pll-states", Mode::Quick, 7).unwrap();
        assert_eq!(found.sweeps[0].template.seed, 7);
        // pll-states reads pll-stabilisation's identical sweep back.
        assert_eq!(found.data_dir(0), PathBuf::from("data/pll-stabilisation/sweep-0"));
        let Err(error @ Error::UnknownName { kind: "claim", .. }) = claim("pll", Mode::Quick, 1) else {
            panic!("pll is no claim")
        };
        let text = error.to_string();
        assert!(text.starts_with("unknown claim 'pll'; use angluin-exact, threshold-correct, "), "{text}");
    }

    #[test]
    fn findings_do_not_depend_on_the_threads_and_are_read_back() {
        let claim = claim("pll-errata", Mode::Tiny, 3).unwrap();
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = claim.run(one.path(), Some(1)).unwrap();
        let b = claim.run(two.path(), Some(3)).unwrap();
        let numbers = |f: &Findings| format!("{:?} {:?} {:?} {:?}", f.rows, f.judgement, f.trials, f.engines);
        assert_eq!(numbers(&a), numbers(&b));
        assert_eq!((a.trials_run, a.trials_reused), (16, 0));
        // Both variants per n, paired by trial: pll then pll-as-printed at each n.
        let variants: Vec<(f64, &str)> =
            a.rows.iter().map(|r| (r.point.x, r.variant.as_ref().unwrap().0.as_str())).collect();
        assert_eq!(
            variants,
            [(1000.0, "pll"), (1000.0, "pll-as-printed"), (10_000.0, "pll"), (10_000.0, "pll-as-printed")]
        );
        // Run again into the same directory: every trial is read back, the findings are the same.
        let again = claim.run(one.path(), None).unwrap();
        assert_eq!((again.trials_run, again.trials_reused), (0, 16));
        assert_eq!(numbers(&again), numbers(&a));
    }
}
