//! `poplab plot`: a figure of the user's own runs, from a time series (`run --trace`) or a sweep
//! directory (`sweep --out`), as SVG or PNG.
//!
//! - A time series (a CSV file whose header starts `trial,step,parallel_time,leaders`): the
//!   number of leaders against parallel time, a staircase per trial (the first ten), on log axes
//!   (rows at time 0 or with no leader are left out: a log axis has no 0).
//! - A trial sweep (a directory with `summary.csv`): the mean parallel time against `n` with its
//!   95% percentile bootstrap interval (from `trials.csv`), one mark per cell; a cell whose mean
//!   is only a lower bound (censored trials) is drawn hollow at that bound.
//! - A holding sweep (`estimates.csv`, from `sweep --estimator splitting`): log10 of the
//!   estimated holding time (steps) against `n`, with its interval.

use crate::cli::PlotArgs;
use crate::input::InputError;
use crate::plot::{Curve, Figure, Mark, Marks, write_file};
use anyhow::Result;
use poplab::table::Table;
use poplab::verdict::{FIGURE_BOOTSTRAP_SEED, bootstrap_mean_ci95};
use std::collections::BTreeMap;
use std::path::Path;

/// Time series drawn at most.
const MAX_TRIALS: usize = 10;

pub fn plot(args: &PlotArgs) -> Result<()> {
    crate::plot::check_out(&args.out)?;
    poplab::files::check_apart(&[("--out", &args.out)], &[("INPUT", &args.input)])?;
    let figure = if args.input.is_dir() {
        sweep_figure(&args.input)?
    } else if args.input.is_file() {
        trace_figure(&args.input)?
    } else {
        let what = if args.input.exists() { "is neither a file nor a directory" } else { "does not exist" };
        return Err(InputError(format!(
            "'{}' {what}: give a time series (run --trace FILE.csv) or a sweep directory (sweep --out DIR)",
            args.input.display()
        ))
        .into());
    };
    write_file(&figure, &args.out)
}

fn trace_figure(path: &Path) -> Result<Figure> {
    let mut curves: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    let table = Table::read(path)?;
    for row in 0..table.rows() {
        let number = |column| table.number(row, column);
        let (Some(trial), Some(time), Some(leaders)) = (number("trial")?, number("parallel_time")?, number("leaders")?)
        else {
            continue;
        };
        if time > 0.0 && leaders > 0.0 && (curves.len() < MAX_TRIALS || curves.contains_key(&(trial as u64))) {
            curves.entry(trial as u64).or_default().push((time, leaders));
        }
    }
    if curves.is_empty() {
        return Err(InputError(format!("'{}': no rows with time > 0 and a leader to draw", path.display())).into());
    }
    Ok(Figure {
        title: format!("leaders against time: {}", name(path)),
        x_label: "parallel time (steps / n)".into(),
        y_label: "leaders".into(),
        marks: Vec::new(),
        // A count holds between two rows: steps, never a line through values it never took.
        curves: curves
            .into_iter()
            .map(|(trial, points)| Curve::new(format!("trial {trial}"), points).stepped())
            .collect(),
        groups: Vec::new(),
        y_log: true,
    })
}

fn sweep_figure(dir: &Path) -> Result<Figure> {
    let (summary, estimates) = (dir.join("summary.csv"), dir.join("estimates.csv"));
    let mut marks = Vec::new();
    if summary.is_file() {
        let table = Table::read(&summary)?;
        let times = cell_times(&dir.join("trials.csv"))?;
        for row in 0..table.rows() {
            let number = |column| table.number(row, column);
            let n = number("n")?.unwrap_or(f64::NAN);
            // The percentile bootstrap of the cell's trials: never below zero on the log axis,
            // as the t-interval of skewed times in summary.csv can be.
            let interval = match number("mean_parallel_time")? {
                Some(_) => {
                    times.get(table.text(row, "cell")?).and_then(|t| bootstrap_mean_ci95(t, FIGURE_BOOTSTRAP_SEED))
                }
                None => None,
            };
            let mark = match number("mean_parallel_time")? {
                Some(mean) => Mark { x: n, y: mean, interval, lower_bound: false },
                None => {
                    let steps = number("mean_steps_lower_bound")?.unwrap_or(f64::NAN);
                    Mark { x: n, y: steps / n, interval: None, lower_bound: true }
                }
            };
            marks.push(mark);
        }
        return Ok(Figure {
            title: format!("mean parallel time against n: {}", name(dir)),
            x_label: "n".into(),
            y_label: "parallel time (steps / n)".into(),
            marks: vec![Marks::new("mean with 95% bootstrap interval (hollow: lower bound)", marks)],
            curves: Vec::new(),
            groups: Vec::new(),
            y_log: true,
        });
    }
    if estimates.is_file() {
        let table = Table::read(&estimates)?;
        for row in 0..table.rows() {
            let number = |column| table.number(row, column);
            let n = number("n")?.unwrap_or(f64::NAN);
            let (Some(y), Some(lo), Some(hi)) =
                (number("log10_mean_steps")?, number("log10_ci95_lo")?, number("log10_ci95_hi")?)
            else {
                continue;
            };
            marks.push(Mark { x: n, y, interval: Some([lo, hi]), lower_bound: false });
        }
        return Ok(Figure {
            title: format!("expected holding time against n: {}", name(dir)),
            x_label: "n".into(),
            y_label: "log10 of the expected holding time (steps)".into(),
            marks: vec![Marks::new("splitting estimate with 95% CI", marks)],
            curves: Vec::new(),
            groups: Vec::new(),
            y_log: false,
        });
    }
    Err(InputError(format!(
        "'{}' holds neither summary.csv (poplab sweep) nor estimates.csv (sweep --estimator splitting)",
        dir.display()
    ))
    .into())
}

/// The parallel times of the trials that ended, by cell, from a sweep's `trials.csv` (none if
/// the file is missing: no intervals then).
fn cell_times(path: &Path) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    if !path.is_file() {
        return Ok(times);
    }
    let table = Table::read(path)?;
    for row in 0..table.rows() {
        if table.text(row, "outcome")? == "censored" {
            continue;
        }
        if let Some(time) = table.number(row, "parallel_time")? {
            times.entry(table.text(row, "cell")?.to_string()).or_default().push(time);
        }
    }
    Ok(times)
}

fn name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}
