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
pub mod characteristics;
mod starts;
mod swept;

pub use catalog::{Claim, Means, Mode, Picture, Rule, WorstStarts, XVar, YVar, claims};
pub use starts::{
    ChosenStart, EXACT_CHECK_CANDIDATES, EXACT_CHECK_TRIALS, ExactCheck, FoundStarts, Remeasured, Searches,
};
pub use swept::{SweptTrial, check, judge_sweep, judge_trials, judge_values};

use crate::engine::Outcome;
use crate::error::{Error, Result};
use crate::fit::{Form, FormFit, PowerFit, fit_form, fit_power};
use crate::growth::{Estimate, growth};
use crate::judge;
use crate::protocol::{Params, Protocol};
use crate::protocols::{ProtocolVisitor, pll, with_protocol};
use crate::spec::RunSpec;
use crate::stats::CensoredSummary;
use crate::sweep::estimates::HoldingCurve;
use crate::sweep::{Cell, SweepOutcome, SweepResults, SweepSpec, run_sweep};
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
    /// The processor seconds of the trials run now (0 when every trial was read back).
    pub cpu_seconds: f64,
    /// The estimate of the mean at each x that the rule judged (growth rules), with its error.
    pub estimates: Vec<Estimate>,
    /// For a claim "from any configuration": the start measured at each size and the searches
    /// that found them ([`WorstStarts`]).
    pub starts: FoundStarts,
}

impl Findings {
    /// The processor time of the whole design in core-hours: that of the trials run now, scaled
    /// to all trials (`None` when none ran now, so none was timed).
    pub fn core_hours(&self) -> Option<f64> {
        (self.trials_run > 0 && self.cpu_seconds > 0.0)
            .then(|| self.cpu_seconds * (self.trials_run + self.trials_reused) as f64 / self.trials_run as f64 / 3600.0)
    }

    /// The claim's design in words: its sizes and trials, how its means were estimated, its cost,
    /// the power estimated from its own data and, unless it decided with power to spare, the
    /// design that would decide it with probability 0.95 and that design's cost.
    pub fn design(&self, claim: &Claim) -> String {
        let mut parts: Vec<String> = claim
            .sweeps
            .iter()
            .map(|spec| {
                let sizes: Vec<String> = spec.ns.iter().map(u64::to_string).collect();
                let params: Vec<String> =
                    spec.params.iter().map(|(k, v)| format!(", {k} in {{{}}}", v.join(", "))).collect();
                format!(
                    "{} at n in {{{}}}{}, {} trials per cell",
                    spec.template.protocol,
                    sizes.join(", "),
                    params.concat(),
                    spec.template.trials
                )
            })
            .collect();
        if claim.means == Means::QuickElimination {
            parts.push(format!(
                "means post-stratified on QuickElimination (probability {:.4}, exact)",
                pll::QUICK_ELIMINATION_ENDS
            ));
        }
        let hours = self.core_hours();
        if let Some(h) = hours {
            parts.push(format!("cost {}", core_hours(h)));
        }
        if let Some(worst) = claim.worst_starts {
            let searched = self.starts.core_seconds();
            parts.push(format!(
                "each size from the slowest start a search found ({} candidates, the family and the start found \
                 re-measured with {} fresh trials each{})",
                worst.candidates,
                worst.remeasure,
                if searched > 0.0 { format!("; searches {}", core_hours(searched / 3600.0)) } else { String::new() }
            ));
        }
        if let Some(power) = self.judgement.power {
            parts.push(format!("estimated power of this design from its own data {:.3}", power.decide));
            match (self.judgement.verdict, power.trials_factor) {
                (Verdict::Inconclusive, None) => parts.push(
                    "no number of trials decides on this range (the estimate sits on the margin): a wider range is needed"
                        .into(),
                ),
                (_, Some(factor)) if power.decide < crate::judgement::TARGET_POWER || self.judgement.verdict == Verdict::Inconclusive => {
                    let per_cell: Vec<String> = claim
                        .sweeps
                        .iter()
                        .map(|s| ((s.template.trials as f64 * factor).ceil() as u64).to_string())
                        .collect();
                    parts.push(format!(
                        "to decide with probability 0.95: {factor:.1} times the trials ({} per cell){}",
                        per_cell.join(" and "),
                        hours.map_or(String::new(), |h| format!(", about {}", core_hours(h * factor)))
                    ));
                }
                _ => {}
            }
        }
        parts.join("; ")
    }
}

/// A processor time in core-hours, or in core-seconds when below a tenth of an hour.
fn core_hours(hours: f64) -> String {
    if hours < 0.1 { format!("{:.0} core-seconds", hours * 3600.0) } else { format!("{hours:.2} core-hours") }
}

/// One trial as a row sees it.
#[derive(Clone, Copy, Debug)]
struct TrialPoint {
    value: f64,
    outcome: Outcome,
    horizon: f64,
    /// The census says BackUp demoted the last leader.
    backup: bool,
    /// P_LL: QuickElimination ended the run (by its time).
    quick: bool,
}

impl Claim {
    /// The directory of sweep `index` relative to a reproduction's directory.
    pub fn data_dir(&self, index: usize) -> PathBuf {
        PathBuf::from(self.data.get(index).cloned().unwrap_or_else(|| catalog::own_data_dir(self.id, index)))
    }

    /// Runs the claim's sweeps on `threads` workers (`None`: one per core) into their directories
    /// under `dir` ([`Claim::data_dir`]: the trials stored there are read back, not run again),
    /// and judges the result by the claim's rule.
    /// A claim "from any configuration" ([`Claim::worst_starts`]) first searches each size for
    /// its slowest start (or reads the searches back) and measures the sizes from the starts found.
    pub fn run(&self, dir: &Path, threads: Option<usize>) -> Result<Findings> {
        let (claim, mut starts) = self.with_found_starts(dir, threads, Searches::Run)?;
        starts.exact = self.exact_check(threads)?;
        // Each sweep by its template's estimator (`run_sweep` chooses): trials, or one splitting
        // estimate per cell; a claim's sweeps share their estimator.
        let done = AtomicU64::new(0);
        let (mut trials, mut curves) = (Vec::new(), Vec::new());
        for (i, spec) in claim.sweeps.iter().enumerate() {
            let mut spec = spec.clone();
            spec.template.threads = threads;
            let outcome = run_sweep(&spec, Some(&dir.join(claim.data_dir(i))), &RunSpec::resolve, &|_| {}, &|| {
                done.fetch_add(1, Ordering::Relaxed);
            })?;
            match outcome {
                SweepOutcome::Trials(results) => trials.push((i, results)),
                SweepOutcome::Holding(curve) => curves.push((spec, curve)),
            }
        }
        let findings = if curves.is_empty() {
            claim.judge_trials(&trials, done.into_inner())
        } else {
            claim.judge_estimates(&curves, done.into_inner())
        }?;
        Ok(Findings { starts, ..findings })
    }

    /// Whether the claim is measured by the splitting estimator (its sweeps' estimator).
    pub fn estimates(&self) -> bool {
        self.sweeps.iter().any(|spec| !spec.template.estimator.is_direct())
    }

    /// The findings of a claim measured by trials: the trials of each sweep `(index, results)`
    /// gathered per x and judged by the claim's rule; `trials_run` of them ran now.
    fn judge_trials(&self, sweeps: &[(usize, SweepResults)], trials_run: u64) -> Result<Findings> {
        // Trials by (variant, x): a claim comparing sweeps keeps each sweep apart, the others
        // merge their sweeps per x.
        let compare = matches!(self.rule, Rule::SlowerThan);
        let mut by_x: BTreeMap<(usize, u64), Vec<TrialPoint>> = BTreeMap::new();
        let (mut trials_by_sweep, mut engines) = (Vec::new(), Vec::new());
        let (mut trials_all, mut cpu_seconds) = (0, 0.0);
        for (i, results) in sweeps {
            let (i, spec) = (*i, &self.sweeps[*i]);
            trials_all += results.rows.len() as u64;
            cpu_seconds += results.cpu_seconds;
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
                let parallel_time = row.record.steps.0 as f64 / row.cell.n as f64;
                let key = (if compare { i } else { 0 }, x.to_bits());
                by_x.entry(key).or_default().push(TrialPoint {
                    value,
                    outcome: row.record.outcome,
                    horizon,
                    backup: row.record.last_demotion.as_deref() == Some("backup"),
                    quick: pll::quick_elimination_ended(row.cell.n, parallel_time),
                });
                trials.push(Trial {
                    n: row.cell.n,
                    parallel_time,
                    outcome: row.record.outcome,
                    last_demotion: row.record.last_demotion.clone(),
                });
            }
            trials_by_sweep.push(trials);
        }
        let mut strata = Vec::new();
        let mut rows: Vec<Row> = by_x
            .into_iter()
            .map(|((variant, x), trials)| {
                let point = Point::gather(
                    f64::from_bits(x),
                    trials.iter().map(|t| (t.value, t.outcome == Outcome::Censored)),
                    trials.iter().map(|t| t.horizon).fold(0.0, f64::max),
                );
                let (quick, slow): (Vec<&TrialPoint>, Vec<&TrialPoint>) =
                    trials.iter().filter(|t| t.outcome != Outcome::Censored).partition(|t| t.quick);
                strata.push((
                    quick.iter().map(|t| t.value).collect::<Vec<_>>(),
                    slow.iter().map(|t| t.value).collect::<Vec<_>>(),
                ));
                let summary = CensoredSummary::of(&point.values, point.censored);
                Row {
                    variant: compare.then(|| {
                        let backup = trials.iter().filter(|t| t.backup).count();
                        (self.sweeps[variant].template.protocol.clone(), backup)
                    }),
                    trials: trials.len(),
                    mean: summary.mean,
                    ci95: summary.ci95,
                    median: summary.median,
                    point,
                    log10_estimate: None,
                }
            })
            .collect();
        // by_x is ordered by x within a variant, and only comparisons have several variants.
        let points: Vec<Point> = rows.iter().map(|r| r.point.clone()).collect();
        let mut estimates = Vec::new();
        let judgement = match &self.rule {
            Rule::Points(rule) => {
                let judged;
                (judged, estimates) = rule.judge(&points, &|points| self.means(points, &strata));
                judged
            }
            Rule::StateCount { form } => self.state_count_judgement(*form)?,
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
        rows.sort_by(|a, b| a.point.x.total_cmp(&b.point.x));
        let (xs, ys): (Vec<f64>, Vec<f64>) = rows.iter().filter_map(|r| r.mean.map(|m| (r.point.x, m))).unzip();
        Ok(Findings {
            // A comparison's rows hold two variants per x: no single power law.
            power: if compare { None } else { fit_power(&xs, &ys) },
            form_fit: match &self.rule {
                Rule::Points(judge::Rule::Growth { curve, .. }) => {
                    curve.as_form().and_then(|form| fit_form(form, &xs, &ys))
                }
                _ => None,
            },
            rows,
            judgement,
            engines,
            trials: trials_by_sweep,
            trials_run,
            trials_reused: trials_all.saturating_sub(trials_run),
            cpu_seconds,
            estimates,
            starts: FoundStarts::default(),
        })
    }

    /// The estimate of the mean at each point, by the claim's [`Means`]; `strata` holds each
    /// point's values split by QuickElimination (see [`Means::QuickElimination`]).
    fn means(&self, points: &[Point], strata: &[(Vec<f64>, Vec<f64>)]) -> Result<Vec<Estimate>, Judgement> {
        match self.means {
            Means::Plain => verdict::estimates(points),
            Means::QuickElimination => {
                verdict::estimates(points)?;
                points
                    .iter()
                    .zip(strata)
                    .map(|(p, (quick, slow))| {
                        Estimate::post_stratified(p.x, quick, slow, pll::QUICK_ELIMINATION_ENDS).ok_or_else(|| {
                            Judgement::new(
                                Verdict::Inconclusive,
                                format!(
                                    "at x = {} {} runs ended by QuickElimination and {} others: each stratum needs \
                                     two or more",
                                    p.x,
                                    quick.len(),
                                    slow.len()
                                ),
                            )
                        })
                    })
                    .collect()
            }
        }
    }

    /// [`Rule::StateCount`]: the protocol's `|Q|` at `m = 1..=1000` (`n = 2^m`, the largest n
    /// with `ceil(lg n) = m`), judged exactly by the growth rule.
    fn state_count_judgement(&self, form: Form) -> Result<Judgement> {
        struct Count;
        impl ProtocolVisitor for Count {
            type Output = Option<u64>;
            fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Option<u64> {
                protocol.configurations().and_then(|c| c.state_count())
            }
        }
        let protocol = &self.sweeps[0].template.protocol;
        let mut counts = Vec::new();
        for m in 1..=1000u32 {
            let params = Params::parse(&[format!("m={m}")])?;
            let Some(count) = with_protocol(protocol, 2, &params, Count)? else {
                return Ok(Judgement::new(Verdict::Inconclusive, format!("{protocol} does not count its states")));
            };
            counts.push(Estimate { x: 2f64.powi(m as i32), mean: count as f64, se: 0.0, df: f64::INFINITY });
        }
        let judgement = growth(&counts, crate::growth::Bound::AtMost, &|x| form.eval(x), form.name());
        let per_m = |i: usize| counts[i].mean / (i + 1) as f64;
        let largest = (0..counts.len()).map(per_m).fold(0.0, f64::max);
        Ok(Judgement {
            evidence: format!(
                "|Q| computed exactly for m = ceil(lg n) = 1..1000: |Q|/m is {:.0} at m = 1, {:.0} at m = 1000, at most \
                 {largest:.0}; {}",
                per_m(0),
                per_m(counts.len() - 1),
                judgement.evidence
            ),
            ..judgement
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

    /// The findings of a claim measured by the splitting estimator: one holding estimate per
    /// cell of each sweep `(spec, curve)`, judged on the logarithms of the estimates in parallel
    /// time; `trials_run` of their repetitions ran now.
    fn judge_estimates(&self, curves: &[(SweepSpec, HoldingCurve)], trials_run: u64) -> Result<Findings> {
        let Rule::Points(rule) = &self.rule else {
            return Err(Error::Sweep {
                reason: format!("claim {}: its rule judges whole trials, and its sweeps give estimates", self.id),
            });
        };
        let (mut rows, mut points, mut repetitions_all) = (Vec::new(), Vec::new(), 0);
        for (spec, curve) in curves {
            for (cell, result) in spec.cells()?.iter().zip(&curve.cells) {
                let x = self.x_value(cell);
                let e = &result.estimate;
                let shift = (cell.n as f64).log10();
                repetitions_all += e.repetitions;
                let ln10 = std::f64::consts::LN_10;
                // The estimator's own error (delta method) is not reliable when its repetitions
                // are skewed: the spread of the repetitions' log10 P bounds it from below, with
                // the repetitions' degrees of freedom.
                let spread = e.diagnostics.log10_break_probability_sd / (e.repetitions as f64).sqrt();
                points.push(LogPoint {
                    x,
                    ln_mean: (e.log10_mean_steps - shift) * ln10,
                    se: e.log10_standard_error.max(spread) * ln10,
                    df: e.repetitions.saturating_sub(1) as f64,
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
        Ok(Findings {
            rows,
            judgement: rule.judge_log(&points),
            power: None,
            form_fit: None,
            engines: vec!["agents (splitting estimator)".into()],
            trials: Vec::new(),
            trials_run,
            trials_reused: repetitions_all.saturating_sub(trials_run),
            cpu_seconds: 0.0,
            estimates: Vec::new(),
            starts: FoundStarts::default(),
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
    fn a_users_claim_on_a_claims_sweep_gives_the_reports_judgement() {
        let claim = claim("prl-big-n", Mode::Quick, 1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let findings = claim.run(dir.path(), None).unwrap();
        assert_eq!(findings.judgement.verdict, Verdict::Consistent, "{}", findings.judgement.evidence);
        // The claim's sweep, read back from its directory, judged as `poplab sweep --claim 'O(N)'
        // --claim-in steps` judges it.
        let results =
            crate::sweep::run_in(&claim.sweeps[0], &dir.path().join(claim.data_dir(0)), &|_| {}, &|| {}).unwrap();
        let users = judge_sweep(&results, &crate::judge::ClaimText::parse("O(N)").unwrap(), YVar::Steps).unwrap();
        assert_eq!(users, findings.judgement);
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
        assert_eq!(variants, [(128.0, "pll"), (128.0, "pll-as-printed"), (2048.0, "pll"), (2048.0, "pll-as-printed")]);
        // Run again into the same directory: every trial is read back, the findings are the same.
        let again = claim.run(one.path(), None).unwrap();
        assert_eq!((again.trials_run, again.trials_reused), (0, 16));
        assert_eq!(numbers(&again), numbers(&a));
    }
}
