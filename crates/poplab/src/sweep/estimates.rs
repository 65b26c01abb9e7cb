//! The store of a sweep's splitting rows: the estimator ([`crate::splitting`]) over the cells of
//! a sweep (`poplab sweep --measure holding --estimator splitting`), one estimate per cell, with
//! the growth of the expected holding time fitted along the swept axis.
//!
//! The directory holds:
//! - `estimates.json`: the definition (the sweep's, as [`SweepSpec::definition`] writes it, the
//!   estimator's options included);
//! - `estimates.jsonl`: one line per finished cell, appended as each finishes, so a kill loses
//!   only the cell that was running; the same command run again into the same directory continues
//!   with the cells still missing (a directory holding another definition is refused);
//! - `CELL.repetitions.journal` while a cell runs: its repetitions as they finish, so that a kill
//!   loses only the repetitions running (see [`crate::splitting::estimate_holding`]);
//! - `estimates.csv`: one row per cell in the sweep's order (written at the end);
//! - `estimates-fit.json`: when exactly one of `n` and the swept parameters varies, the weighted
//!   fits of `log10 E[T]` against it (its exponential rate) and against its logarithm (its power
//!   exponent), each with a 95% interval (see [`fit_weighted_line`]).
//!
//! Cells run one after another; each estimate runs its repetitions in parallel. Each cell's
//! estimate is seeded with the cell's seed ([`crate::sweep::Cell::seed`]), so a cell's estimate
//! does not depend on the other cells.

use crate::error::{Error, Result};
use crate::files;
use crate::fit::{WeightedLine, fit_weighted_line};
use crate::spec::{RawSpec, RunSpec};
use crate::splitting::HoldingEstimate;
use crate::sweep::{Cell, SweepSpec};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The definition file.
pub const DEFINITION_FILE: &str = super::store::ESTIMATES_FILE;
/// The per-cell results, one JSON line per finished cell.
pub const LINES_FILE: &str = "estimates.jsonl";
/// The table, one row per cell.
pub const TABLE_FILE: &str = "estimates.csv";
/// The fits along the swept axis.
pub const FIT_FILE: &str = "estimates-fit.json";
/// The suffix of a running cell's journal of repetitions, `CELL.repetitions.journal`.
pub const REPETITIONS_SUFFIX: &str = "repetitions.journal";

/// One cell's estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellEstimate {
    /// The cell's key (`n=8 s=64`).
    pub cell: String,
    /// The estimate.
    pub estimate: HoldingEstimate,
    /// Wall-clock seconds it took.
    pub wall_seconds: f64,
}

/// The fits of `log10 E[T]` along the one swept axis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldingFit {
    /// The axis: `n` or a parameter's name.
    pub axis: String,
    /// `log10 E[T] = a + b x`: `b` is the exponential rate in decades per unit of `x`.
    pub exponential: WeightedLine,
    /// The same rate in nepers (`E[T] ~ e^(rate x)`), with its interval.
    pub exponential_rate_e: f64,
    /// The interval of `exponential_rate_e`.
    pub exponential_rate_e_ci95: [f64; 2],
    /// `log10 E[T] = a + e log10 x`: `e` is the power exponent (`None` unless every `x > 0`).
    pub power: Option<WeightedLine>,
}

/// A whole holding curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldingCurve {
    /// The estimates in the sweep's cell order.
    pub cells: Vec<CellEstimate>,
    /// The fits, when exactly one axis varies with at least two numeric values.
    pub fit: Option<HoldingFit>,
}

/// Runs the splitting estimator (the template's [`Estimator::Splitting`](crate::spec::Estimator::Splitting)) on every cell of
/// `spec` not yet in `dir`, then writes the table and the fits. `on_start` gets the number of
/// repetitions still to run, `done` is called as each finishes.
pub fn run_in(spec: &SweepSpec, dir: &Path, on_start: &dyn Fn(u64), done: &(dyn Fn() + Sync)) -> Result<HoldingCurve> {
    run_in_with(spec, dir, &RunSpec::resolve, on_start, done)
}

/// [`run_in`] with the cells resolved by `resolve` ([`SweepSpec::resolve_with`]).
pub fn run_in_with(
    spec: &SweepSpec,
    dir: &Path,
    resolve: &dyn Fn(&RawSpec) -> Result<RunSpec>,
    on_start: &dyn Fn(u64),
    done: &(dyn Fn() + Sync),
) -> Result<HoldingCurve> {
    if spec.template.estimator.is_direct() {
        return Err(Error::Conflict {
            reason: "a holding curve is estimated by splitting; give --estimator splitting (direct trials are a sweep)"
                .into(),
        });
    }
    if spec.shard.is_some() {
        return Err(Error::Conflict {
            reason: "--shard splits trials, and a splitting estimate is one job per cell; run the cells as separate \
                     sweeps instead"
                .into(),
        });
    }
    let cells = spec.resolve_with(resolve)?;
    super::check_inputs_apart(&spec.template, dir)?;
    super::store::write_definition(dir, DEFINITION_FILE, &spec.definition(&cells), "holding sweep")?;

    let lines_path = dir.join(LINES_FILE);
    let mut finished = read_lines(&lines_path)?;
    let missing: Vec<_> = cells.iter().filter(|c| !finished.contains_key(&c.cell.key())).collect();
    on_start(missing.len() as u64 * spec.template.trials);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&lines_path)
        .map_err(|e| io_error(&lines_path, e))?;
    for cell in missing {
        // The cell's repetitions are journaled as they finish, so that a kill loses only those
        // running; the journal goes once the cell's line is written.
        let journal = dir.join(format!("{}.{}", cell.cell.slug(), REPETITIONS_SUFFIX));
        let result = cell.spec.estimate(done, Some(&journal)).map_err(|e| cell.cell.error(e))?;
        let result =
            CellEstimate { cell: cell.cell.key(), estimate: result.estimate, wall_seconds: result.wall_seconds };
        let line = serde_json::to_string(&result).map_err(|e| Error::Io(format!("internal: {e}")))? + "\n";
        file.write_all(line.as_bytes()).and_then(|()| file.flush()).map_err(|e| io_error(&lines_path, e))?;
        std::fs::remove_file(&journal).map_err(|e| io_error(&journal, e))?;
        finished.insert(result.cell.clone(), result);
    }
    let ordered: Vec<(Cell, CellEstimate)> = cells
        .iter()
        .filter_map(|c| finished.remove(&c.cell.key()).map(|estimate| (c.cell.clone(), estimate)))
        .collect();
    files::write_atomic(&dir.join(TABLE_FILE), &table(spec, &ordered))?;
    let fit = fit_curve(spec, &ordered);
    files::write_atomic(
        &dir.join(FIT_FILE),
        &format!("{:#}\n", serde_json::to_value(&fit).map_err(|e| Error::Io(format!("internal: {e}")))?),
    )?;
    Ok(HoldingCurve { cells: ordered.into_iter().map(|(_, estimate)| estimate).collect(), fit })
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::File { path: path.display().to_string(), reason: e.to_string() }
}

/// The cells already estimated, by key (a torn last line, from a kill, is skipped).
fn read_lines(path: &Path) -> Result<BTreeMap<String, CellEstimate>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(io_error(path, e)),
    };
    let mut cells = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
        let (Some(cell), Some(estimate), Some(seconds)) =
            (value["cell"].as_str(), value.get("estimate"), value["wall_seconds"].as_f64())
        else {
            continue;
        };
        let estimate = serde_json::from_value::<HoldingEstimate>(estimate.clone()).map_err(|_| Error::File {
            path: path.display().to_string(),
            reason: format!("line of cell {cell} is not an estimate written by poplab"),
        })?;
        cells.insert(cell.to_string(), CellEstimate { cell: cell.to_string(), estimate, wall_seconds: seconds });
    }
    Ok(cells)
}

/// `estimates.csv`.
fn table(spec: &SweepSpec, cells: &[(Cell, CellEstimate)]) -> String {
    let mut out = String::from("n");
    for (name, _) in &spec.params {
        out += &format!(",{name}");
    }
    out += ",log10_mean_steps,log10_ci95_lo,log10_ci95_hi,mean_steps,ci95_lo,ci95_hi,score,base_level,\
            replicas,repetitions,binomial_relative_variance,interactions_simulated,wall_seconds\n";
    let plain = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:e}"));
    for (cell, result) in cells {
        let e = &result.estimate;
        out += &cell.n.to_string();
        for (_, value) in &cell.params {
            out += &format!(",{value}");
        }
        out += &format!(
            ",{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            e.log10_mean_steps,
            e.log10_ci95[0],
            e.log10_ci95[1],
            plain(e.mean_steps),
            plain(e.ci95.map(|c| c[0])),
            plain(e.ci95.map(|c| c[1])),
            e.score,
            e.levels.base,
            e.replicas,
            e.repetitions,
            e.levels.binomial_relative_variance,
            e.interactions_simulated,
            result.wall_seconds
        );
    }
    out
}

/// The fits along the one axis that varies (`None` if none or several do, or a value is not a
/// number).
fn fit_curve(spec: &SweepSpec, cells: &[(Cell, CellEstimate)]) -> Option<HoldingFit> {
    let mut axes: Vec<(String, Vec<f64>)> = Vec::new();
    if spec.ns.len() > 1 {
        axes.push(("n".into(), cells.iter().map(|(c, _)| c.n as f64).collect()));
    }
    for (index, (name, values)) in spec.params.iter().enumerate() {
        if values.len() > 1 {
            let xs: Option<Vec<f64>> = cells.iter().map(|(c, _)| c.params[index].1.parse::<f64>().ok()).collect();
            axes.push((name.clone(), xs?));
        }
    }
    let [(axis, xs)] = <[_; 1]>::try_from(axes).ok()?;
    let ys: Vec<f64> = cells.iter().map(|(_, r)| r.estimate.log10_mean_steps).collect();
    let ses: Vec<f64> = cells.iter().map(|(_, r)| r.estimate.log10_standard_error).collect();
    let exponential = fit_weighted_line(&xs, &ys, &ses)?;
    let ln10 = std::f64::consts::LN_10;
    let power = if xs.iter().all(|&x| x > 0.0) {
        fit_weighted_line(&xs.iter().map(|x| x.log10()).collect::<Vec<_>>(), &ys, &ses)
    } else {
        None
    };
    Some(HoldingFit {
        axis,
        exponential_rate_e: exponential.slope * ln10,
        exponential_rate_e_ci95: exponential.slope_ci95.map(|b| b * ln10),
        exponential,
        power,
    })
}
