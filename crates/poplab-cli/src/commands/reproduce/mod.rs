//! `poplab reproduce`: every claim of the four papers, measured, fitted, plotted and judged.
//!
//! For each claim of [`claims`] the command runs its sweeps into `DIR/data/CLAIM/SWEEP/` (the
//! same files as `poplab sweep`, so an interrupted reproduction continues where it stopped), draws
//! `DIR/plots/CLAIM.svg` and `.png`, applies the claim's verdict rule, and writes `DIR/report.md`
//! and `DIR/index.html` with the same content (the HTML embeds its plots and opens offline).

mod claims;
mod pictures;
mod report;

use crate::cli::ReproduceArgs;
use anyhow::Result;
use claims::{Claim, Mode, Rule, XVar, YVar, claims};
use poplab::engine::Outcome;
use poplab::fit::{FormFit, PowerFit, fit_form, fit_power};
use poplab::stats::CensoredSummary;
use poplab::sweep::run_in;
use poplab::verdict::{self, Judgement, LogPoint, Point};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// The measurements of one x value.
#[derive(Clone, Debug)]
pub struct Row {
    pub point: Point,
    pub trials: usize,
    pub mean: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub median: Option<f64>,
    /// A splitting estimate instead of trials: log10 of the mean and of its interval's ends.
    pub log10_estimate: Option<(f64, [f64; 2])>,
    /// For a claim comparing sweeps: the sweep's protocol, and how many of its trials BackUp
    /// ended (the census's last demotion).
    pub variant: Option<(String, usize)>,
}

/// What the report says about one claim.
pub struct ClaimResult {
    pub claim: Claim,
    pub rows: Vec<Row>,
    pub judgement: Judgement,
    pub power: Option<PowerFit>,
    pub form_fit: Option<FormFit>,
    /// Per sweep: the engines its cells ran on (`batched`, or `batched, agents` when auto picked several).
    pub engines: Vec<String>,
    /// More pictures of the claim: (what it shows, its SVG file).
    pub diagrams: Vec<(String, std::path::PathBuf)>,
    /// Trials run by this invocation, and trials read back from the data of an earlier one.
    pub trials_run: u64,
    pub trials_reused: u64,
    pub seconds: f64,
}

pub fn reproduce(args: &ReproduceArgs) -> Result<()> {
    let mode = match (args.full, args.tiny) {
        (true, _) => Mode::Full,
        (false, true) => Mode::Tiny,
        (false, false) => Mode::Quick,
    };
    let started = Instant::now();
    let known: Vec<&str> = claims(mode, args.seed).iter().map(|c| c.id).collect();
    if let Some(unknown) = args.only.iter().find(|o| !known.contains(&o.as_str())) {
        return Err(
            crate::input::InputError(format!("--only {unknown}: no such claim; claims: {}", known.join(", "))).into()
        );
    }
    if let Some(threads) = args.threads
        && !(1..=poplab::experiment::MAX_THREADS).contains(&threads)
    {
        return Err(crate::input::InputError(format!(
            "--threads {threads}: give from 1 to {} worker threads",
            poplab::experiment::MAX_THREADS
        ))
        .into());
    }
    let selected: Vec<Claim> = claims(mode, args.seed)
        .into_iter()
        .filter(|c| args.only.is_empty() || args.only.iter().any(|o| o == c.id))
        .collect();
    if let Some(shard) = args.shard.shard()? {
        return run_shard(&selected, shard, &args.out, args.threads);
    }
    if !args.merge.is_empty() {
        merge_shards(&selected, &args.merge, &args.out)?;
    }
    poplab::files::prepare_output_dir(&args.out)?;
    poplab::files::prepare_output_dir(&args.out.join("plots"))?;
    let mut results = Vec::new();
    for claim in selected {
        eprintln!("reproduce: {} ...", claim.id);
        let result = run_claim(claim, &args.out, args.seed, args.threads)?;
        eprintln!("reproduce: {} -> {} ({:.1} s)", result.claim.id, result.judgement.verdict.word(), result.seconds);
        results.push(result);
    }
    let papers = pictures::paper_summaries(&results, &args.out.join("plots"))?;
    let context = report::Context { mode, seed: args.seed, seconds: started.elapsed().as_secs_f64(), papers };
    report::write(&args.out, &context, &results)?;
    eprintln!("report written to '{}' ({:.0} s)", args.out.join("report.md").display(), context.seconds);
    Ok(())
}

/// Runs one shard of every claim's sweeps into `out` (no analysis: `--merge` joins the shards and
/// writes the report). Claims measured by the splitting estimator are not sharded: the merging
/// run estimates them.
fn run_shard(claims: &[Claim], shard: poplab::sweep::Shard, out: &Path, threads: Option<usize>) -> Result<()> {
    let started = Instant::now();
    for claim in claims.iter().filter(|c| c.estimator.is_none()) {
        for (i, spec) in claim.sweeps.iter().enumerate() {
            let mut spec = poplab::sweep::SweepSpec { shard: Some(shard), ..spec.clone() };
            spec.template.threads = threads;
            run_in(&spec, &out.join(&claim.data[i]), &|_| {}, &|| {})?;
        }
        eprintln!("reproduce: {} ({}) done", claim.id, shard.describe());
    }
    eprintln!(
        "{} of the reproduction written to '{}' ({:.0} s); join the shards with poplab reproduce --merge",
        shard.describe(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Joins the shards of every claim's sweeps, stored under each of `parts`, into `out`: every
/// merge is checked before any is written.
fn merge_shards(claims: &[Claim], parts: &[std::path::PathBuf], out: &Path) -> Result<()> {
    if let Some(part) = parts.iter().find(|part| !part.is_dir()) {
        return Err(crate::input::InputError(format!(
            "--merge {}: no such directory; give the --out directories of the reproduce --shard runs",
            part.display()
        ))
        .into());
    }
    let mut dirs: Vec<&String> = claims.iter().filter(|c| c.estimator.is_none()).flat_map(|c| &c.data).collect();
    dirs.sort();
    dirs.dedup();
    let mut plans = Vec::new();
    for dir in dirs {
        let shards: Vec<_> = parts.iter().map(|part| part.join(dir)).collect();
        plans.push(poplab::sweep::plan_merge(&out.join(dir), &shards)?);
    }
    for plan in plans {
        plan.write()?;
    }
    Ok(())
}

/// One trial as a claim sees it: value, outcome, horizon (as bits), whether BackUp ended it.
type TrialPoint = (f64, Outcome, u64, bool);

fn run_claim(mut claim: Claim, out: &Path, seed: u64, threads: Option<usize>) -> Result<ClaimResult> {
    if claim.estimator.is_some() {
        return run_estimate_claim(claim, out, seed, threads);
    }
    let started = Instant::now();
    // Trials by (variant, x): a claim comparing sweeps keeps each sweep apart, the others merge
    // their sweeps per x. Each trial: value, outcome, horizon bits, whether BackUp ended it.
    let compare = matches!(claim.rule, Rule::SlowerThan);
    let mut by_x: BTreeMap<(usize, u64), Vec<TrialPoint>> = BTreeMap::new();
    let mut trials_by_sweep = Vec::new();
    let mut engines = Vec::new();
    let trials_run = std::sync::atomic::AtomicU64::new(0);
    let mut trials_all = 0;
    for (i, spec) in claim.sweeps.iter_mut().enumerate() {
        spec.template.threads = threads;
        let dir = out.join(&claim.data[i]);
        let results = run_in(spec, &dir, &|_| {}, &|| {
            trials_run.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
            let x = x_value(claim.x, &row.cell);
            let (value, horizon) = match claim.y {
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
            trials.push(pictures::Trial {
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
            let point = Point { x: f64::from_bits(x), values, censored, horizon };
            Row {
                variant: compare.then(|| {
                    let backup = trials.iter().filter(|t| t.3).count();
                    (claim.sweeps[variant].template.protocol.clone(), backup)
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
    rows.sort_by(|a, b| a.point.x.total_cmp(&b.point.x));
    let points: Vec<Point> = rows.iter().map(|r| r.point.clone()).collect();
    let judgement = match &claim.rule {
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
        Rule::SlowerThan => slower_judgement(&claim, &rows),
        Rule::Outcomes(expected) => outcome_judgement(expected, &trials_by_sweep),
    };
    let means: Vec<(f64, f64)> = rows.iter().filter_map(|r| r.mean.map(|m| (r.point.x, m))).collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = means.into_iter().unzip();
    // A comparison's rows hold two variants per x: no single power law.
    let power = if compare { None } else { fit_power(&xs, &ys) };
    let form_fit = match claim.rule {
        Rule::GrowthAtMost(form) => fit_form(form, &xs, &ys),
        _ => None,
    };
    let trials_run = trials_run.into_inner();
    let trials_reused = trials_all.saturating_sub(trials_run);
    let diagrams = draw_pictures(&claim, &trials_by_sweep, out, seed, threads)?;
    let result = ClaimResult {
        claim,
        rows,
        judgement,
        power,
        form_fit,
        engines,
        diagrams,
        trials_run,
        trials_reused,
        seconds: 0.0,
    };
    crate::plot::write(&report::figure(&result), &out.join("plots").join(result.claim.id))?;
    Ok(ClaimResult { seconds: started.elapsed().as_secs_f64(), ..result })
}

/// Sweep 1 slower than sweep 0 ([`verdict::slower_than`]), with the share of runs BackUp ended.
fn slower_judgement(claim: &Claim, rows: &[Row]) -> Judgement {
    let of = |variant: &str| -> Vec<&Row> {
        rows.iter().filter(|r| r.variant.as_ref().is_some_and(|(p, _)| p == variant)).collect()
    };
    let (fast, slow) = (of(&claim.sweeps[0].template.protocol), of(&claim.sweeps[1].template.protocol));
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
            claim.sweeps[0].template.protocol,
            shares(&fast),
            claim.sweeps[1].template.protocol,
            shares(&slow)
        ),
        ..judgement
    }
}

/// The claim's pictures ([`claims::Picture`]) in `out/plots`: (caption, SVG file) each.
fn draw_pictures(
    claim: &Claim,
    trials: &[Vec<pictures::Trial>],
    out: &Path,
    seed: u64,
    threads: Option<usize>,
) -> Result<Vec<(String, std::path::PathBuf)>> {
    let plots = out.join("plots");
    claim.pictures.iter().map(|picture| pictures::draw(picture, claim.id, trials, &plots, seed, threads)).collect()
}

/// A cell's value of the claim's x axis (`NaN` for a parameter that is not a number).
fn x_value(x: XVar, cell: &poplab::sweep::Cell) -> f64 {
    match x {
        XVar::N => cell.n as f64,
        XVar::Param(name) => {
            cell.params.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse().ok()).unwrap_or(f64::NAN)
        }
    }
}

fn censored_judgement() -> Judgement {
    Judgement {
        verdict: verdict::Verdict::Inconclusive,
        evidence: "some trials were censored (or too few ended): no mean to fit".into(),
    }
}

/// A claim measured by the splitting estimator: one holding estimate per cell
/// ([`poplab::sweep::estimates`]), judged on the logarithms of the estimates in parallel time.
fn run_estimate_claim(mut claim: Claim, out: &Path, seed: u64, threads: Option<usize>) -> Result<ClaimResult> {
    let started = Instant::now();
    let estimator = claim.estimator.expect("an estimator claim");
    let repetitions_run = std::sync::atomic::AtomicU64::new(0);
    let (mut rows, mut points, mut repetitions_all) = (Vec::new(), Vec::new(), 0);
    for (i, spec) in claim.sweeps.iter_mut().enumerate() {
        spec.template.threads = threads;
        spec.template.estimator = estimator.spec();
        let dir = out.join(&claim.data[i]);
        let curve = poplab::sweep::estimates::run_in(spec, &dir, &|_| {}, &|| {
            repetitions_run.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })?;
        for (cell, result) in spec.cells()?.iter().zip(&curve.cells) {
            let x = x_value(claim.x, cell);
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
                log10_estimate: Some((e.log10_mean_steps - shift, [e.log10_ci95[0] - shift, e.log10_ci95[1] - shift])),
                variant: None,
            });
        }
    }
    rows.sort_by(|a, b| a.point.x.total_cmp(&b.point.x));
    let judgement = match &claim.rule {
        Rule::ExponentialAtLeast { rate } => verdict::exponential_at_least(&points, *rate),
        Rule::RateOnly { reason } => verdict::rate_only(&points, reason),
        _ => verdict::rate_only(&points, "the claim's rule does not apply to estimates"),
    };
    let trials_run = repetitions_run.into_inner();
    let diagrams = draw_pictures(&claim, &[], out, seed, threads)?;
    let result = ClaimResult {
        claim,
        rows,
        judgement,
        power: None,
        form_fit: None,
        engines: vec!["agents (splitting estimator)".into()],
        diagrams,
        trials_run,
        trials_reused: repetitions_all.saturating_sub(trials_run),
        seconds: 0.0,
    };
    crate::plot::write(&report::figure(&result), &out.join("plots").join(result.claim.id))?;
    Ok(ClaimResult { seconds: started.elapsed().as_secs_f64(), ..result })
}

fn outcome_judgement(expected: &[(Outcome, &str)], trials_by_sweep: &[Vec<pictures::Trial>]) -> Judgement {
    let judgements: Vec<Judgement> = expected
        .iter()
        .zip(trials_by_sweep)
        .map(|((outcome, what), trials)| {
            verdict::all_trials(
                trials.iter().filter(|t| t.outcome == *outcome).count() as u64,
                trials.len() as u64,
                what,
            )
        })
        .collect();
    let worst = judgements.iter().map(|j| j.verdict).max_by_key(|v| match v {
        verdict::Verdict::Consistent => 0,
        verdict::Verdict::Inconclusive => 1,
        verdict::Verdict::Inconsistent => 2,
    });
    Judgement {
        verdict: worst.unwrap_or(verdict::Verdict::Inconclusive),
        evidence: judgements.iter().map(|j| j.evidence.as_str()).collect::<Vec<_>>().join("; "),
    }
}
