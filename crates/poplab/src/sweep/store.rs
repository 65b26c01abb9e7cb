//! The files of a sweep directory: the definition (`sweep.json`), the trials (`trials.csv`), the
//! summaries and fits. The functions here make and read each file's text, without touching the
//! directory, so formats are tested without files.

use super::{Cell, ResolvedCell, Shard, SweepRow, SweepSpec};
use crate::engine::{Engine, Outcome, ParallelTime, Steps};
use crate::error::{Error, Result};
use crate::experiment::{MAX_TRIALS, Summary, TrialRecord};
use crate::export::csv_line;
use crate::files;
use crate::fit::{Form, fit_form, fit_power};
use crate::rng::RNG_NAME;
use crate::spec::RawSpec;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The file of a sweep's definition.
pub const SPEC_FILE: &str = "sweep.json";
/// The file of a sweep's trials.
pub const TRIALS_FILE: &str = "trials.csv";
/// The processor time of each trial run into a directory (`cell,trial,cpu_seconds`, appended as
/// trials end): what a run cost on its machine, for sizing a cluster. Not part of the results (a
/// merge leaves it out, and a continued run appends the trials it runs).
pub const TIMES_FILE: &str = "times.csv";
/// The summary of each cell, as CSV and as JSON, and the fits of the growth (a whole sweep's).
pub(super) const SUMMARY_FILES: [&str; 3] = ["summary.csv", "summary.json", "fits.json"];
/// The definition of a sweep of the splitting estimator ([`super::estimates`]), in place of
/// [`SPEC_FILE`].
pub const ESTIMATES_FILE: &str = "estimates.json";

impl SweepSpec {
    /// The definition as written to `sweep.json`: the fields of the template ([`RawSpec`]'s serde,
    /// so every option of a run is stored), with `n` and `params` the sweep's lists, `init`
    /// named ([`SweepSpec::init_name`]) and `rng` before `engine`; then `engine_by_cell`, `shard`
    /// and `estimator` when they apply. `engine` is the engine every cell runs on; when `auto`
    /// picks different engines for different cells, it is `auto` (resolved again, the same way, on
    /// resume) and `engine_by_cell` names each cell's.
    pub fn definition(&self, cells: &[ResolvedCell]) -> String {
        format!("{:#}\n", Value::Object(self.definition_fields(cells)))
    }

    fn definition_fields(&self, cells: &[ResolvedCell]) -> Map<String, Value> {
        let engine = match cells.first() {
            Some(first) if cells.iter().all(|c| c.spec.settings.engine == first.spec.settings.engine) => {
                first.spec.settings.engine
            }
            _ => self.template.engine,
        };
        let template = RawSpec { init: Some(self.init_name().to_string()), engine, ..self.template.clone() };
        let Ok(Value::Object(fields)) = serde_json::to_value(&template) else {
            unreachable!("a raw spec is a JSON object")
        };
        let mut doc = Map::new();
        let mut estimator = None;
        for (key, value) in fields {
            match key.as_str() {
                "n" => doc.insert(key, json!(self.ns)),
                "params" => doc.insert(key, json!(self.params)),
                "engine" => {
                    doc.insert("rng".into(), Value::from(RNG_NAME));
                    doc.insert(key, value)
                }
                "estimator" => estimator.replace(value),
                _ => doc.insert(key, value),
            };
        }
        if engine == Engine::Auto {
            let by_cell = cells.iter().map(|c| (c.cell.key(), Value::from(c.spec.settings.engine.name())));
            doc.insert("engine_by_cell".into(), Value::Object(by_cell.collect()));
        }
        if let Some(shard) = self.shard {
            doc.insert("shard".into(), json!(shard));
        }
        if let Some(estimator) = estimator {
            doc.insert("estimator".into(), estimator);
        }
        doc
    }

    /// Reads a definition written by [`SweepSpec::definition`] (`path` names it in errors).
    pub fn from_definition(text: &str, path: &Path) -> Result<Self> {
        let bad = || Error::File {
            path: path.display().to_string(),
            reason: "is not a sweep definition written by poplab sweep".into(),
        };
        let mut fields: Map<String, Value> = serde_json::from_str(text).map_err(|_| bad())?;
        let mut take = |key: &str| fields.remove(key).unwrap_or(Value::Null);
        let ns: Vec<u64> = serde_json::from_value(take("n")).map_err(|_| bad())?;
        let params = serde_json::from_value(take("params")).map_err(|_| bad())?;
        let shard: Option<Shard> = serde_json::from_value(take("shard")).map_err(|_| bad())?;
        if let Some(Shard { first, count, of }) = shard
            && (of == 0 || of > MAX_TRIALS || count == 0 || first.checked_add(count).is_none_or(|end| end > of))
        {
            return Err(bad());
        }
        // Written for the reader, derived again from the template.
        take("rng");
        take("engine_by_cell");
        if !fields.contains_key("protocol") || !fields.contains_key("init") {
            return Err(bad());
        }
        let template: RawSpec = serde_json::from_value(Value::Object(fields)).map_err(|_| bad())?;
        Ok(SweepSpec { template, ns, params, shard, checkpoint_every: crate::checkpoint::DEFAULT_EVERY })
    }

    /// The columns of `trials.csv`.
    pub fn trials_header(&self) -> Vec<String> {
        let mut fields: Vec<String> = ["protocol", "cell", "n"].map(String::from).to_vec();
        fields.extend(self.params.iter().map(|(name, _)| name.clone()));
        fields.extend(["init", "measure", "rng", "master_seed"].map(String::from));
        fields.extend(TrialRecord::OUTCOME_COLUMNS.map(String::from));
        fields.extend(TrialRecord::CENSUS_COLUMNS.map(String::from));
        fields
    }

    /// One line of `trials.csv`.
    pub fn trial_line(&self, row: &SweepRow) -> String {
        let mut fields = vec![self.template.protocol.clone(), row.cell.key(), row.cell.n.to_string()];
        fields.extend(row.cell.params.iter().map(|(_, v)| v.clone()));
        fields.extend([
            self.init_label(),
            self.template.measure.name().to_string(),
            RNG_NAME.to_string(),
            self.template.seed.to_string(),
        ]);
        fields.extend(row.record.outcome_fields());
        fields.extend(row.record.census_fields());
        csv_line(fields)
    }

    /// The rows of a `trials.csv` text, keyed by (cell key, trial). Only complete lines count:
    /// an empty text or a torn header holds zero rows, a torn last line is ignored. `path` names
    /// the file in errors.
    pub fn parse_trials(&self, text: &str, path: &Path) -> Result<BTreeMap<(String, u64), SweepRow>> {
        Ok(self
            .parse_trial_rows(text, path)?
            .into_iter()
            .map(|(_, row)| ((row.cell.key(), row.record.index), row))
            .collect())
    }

    /// The rows of a `trials.csv` text in file order, each with its line number (the header is
    /// line 1), duplicates kept: what [`parse_trials`](Self::parse_trials) reads.
    pub fn parse_trial_rows(&self, text: &str, path: &Path) -> Result<Vec<(usize, SweepRow)>> {
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let mut rows = Vec::new();
        if complete.is_empty() {
            return Ok(rows);
        }
        let expected = self.trials_header();
        let mut reader = csv::Reader::from_reader(complete.as_bytes());
        let found: Vec<String> = reader
            .headers()
            .map_err(|e| Error::File { path: path.display().to_string(), reason: format!("is not CSV ({e})") })?
            .iter()
            .map(str::to_string)
            .collect();
        if found != expected {
            return Err(Error::File {
                path: path.display().to_string(),
                reason: "was written by a different sweep (columns differ); choose another directory".into(),
            });
        }
        let column = |name: &str| expected.iter().position(|c| c == name).unwrap_or(0);
        let (trial_at, seed_at, outcome_at, steps_at, states_at, demotion_at) = (
            column("trial"),
            column("trial_seed"),
            column("outcome"),
            column("steps"),
            column("distinct_states"),
            column("last_demotion"),
        );
        for (line, record) in reader.records().enumerate() {
            let bad = || Error::File {
                path: path.display().to_string(),
                reason: format!("row {} is malformed; remove it and resume", line + 2),
            };
            let record = record.map_err(|_| bad())?;
            let n: u64 = record[2].parse().map_err(|_| bad())?;
            let params = self
                .params
                .iter()
                .enumerate()
                .map(|(i, (name, _))| (name.clone(), record[3 + i].to_string()))
                .collect();
            let steps: u128 = record[steps_at].parse().map_err(|_| bad())?;
            let record = TrialRecord {
                index: record[trial_at].parse().map_err(|_| bad())?,
                seed: record[seed_at].parse().map_err(|_| bad())?,
                outcome: record[outcome_at].parse::<Outcome>().map_err(|_| bad())?,
                steps: Steps(steps),
                parallel_time: ParallelTime(steps as f64 / n as f64),
                recovery_steps: None,
                distinct_states: match &record[states_at] {
                    "" => None,
                    text => Some(text.parse().map_err(|_| bad())?),
                },
                last_demotion: Some(record[demotion_at].to_string()).filter(|d| !d.is_empty()),
                trace: Vec::new(),
                events: Vec::new(),
            };
            let cell = Cell { n, params };
            rows.push((line + 2, SweepRow { cell, record }));
        }
        Ok(rows)
    }

    /// The text of `trials.csv` with `rows` in cell order, then trial order: what a sweep leaves
    /// when it ends, whatever order its trials finished in (and what [`merge`](super::merge()) writes).
    pub fn trials_csv(&self, cells: &[ResolvedCell], rows: &BTreeMap<(String, u64), SweepRow>) -> String {
        let mut text = csv_line(self.trials_header());
        for cell in cells {
            let key = cell.cell.key();
            for trial in 0..self.template.trials {
                if let Some(row) = rows.get(&(key.clone(), trial)) {
                    text += &self.trial_line(row);
                }
            }
        }
        text
    }

    /// Per-cell summaries, in cell order.
    pub fn summarise(&self, cells: &[ResolvedCell], rows: &BTreeMap<(String, u64), SweepRow>) -> Vec<(Cell, Summary)> {
        cells
            .iter()
            .map(|ResolvedCell { cell, .. }| {
                let key = cell.key();
                let records: Vec<_> = (0..self.template.trials)
                    .filter_map(|t| rows.get(&(key.clone(), t)))
                    .map(|r| r.record.clone())
                    .collect();
                (cell.clone(), Summary::of(&records, cell.n as usize))
            })
            .collect()
    }

    /// The text of `summary.csv`.
    pub fn summary_csv(&self, summaries: &[(Cell, Summary)]) -> String {
        let mut header: Vec<String> = vec!["cell".into(), "n".into()];
        header.extend(self.params.iter().map(|(name, _)| name.clone()));
        header.extend(
            [
                "trials",
                "ended",
                "censored",
                "mean_steps",
                "mean_steps_lower_bound",
                "median_steps",
                "p10_steps",
                "p90_steps",
                "mean_parallel_time",
                "median_parallel_time",
                "ci95_low",
                "ci95_high",
                "in_fits",
            ]
            .map(String::from),
        );
        let mut csv = csv_line(&header);
        let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        for (cell, s) in summaries {
            let mut fields = vec![cell.key(), cell.n.to_string()];
            fields.extend(cell.params.iter().map(|(_, v)| v.clone()));
            fields.extend([
                s.trials.to_string(),
                (s.trials - s.censored).to_string(),
                s.censored.to_string(),
                opt(s.mean_steps),
                opt(s.mean_steps_lower_bound),
                opt(s.median_steps),
                opt(s.p10_steps),
                opt(s.p90_steps),
                opt(s.mean_parallel_time),
                opt(s.median_parallel_time),
                opt(s.ci95_parallel_time.map(|c| c[0])),
                opt(s.ci95_parallel_time.map(|c| c[1])),
                left_out_reason(s).is_none().to_string(),
            ]);
            csv += &csv_line(&fields);
        }
        csv
    }

    /// The text of `summary.json`.
    pub fn summary_json(&self, cells: &[ResolvedCell], summaries: &[(Cell, Summary)]) -> String {
        let cells_json: Vec<Value> = summaries
            .iter()
            .map(|(cell, s)| {
                let mut entry = json!({
                    "cell": cell.key(),
                    "n": cell.n,
                    "params": cell.params.iter().cloned().collect::<BTreeMap<_, _>>(),
                    "summary": s,
                });
                if let Some(reason) = left_out_reason(s) {
                    entry["left_out_of_fits"] = Value::from(reason);
                }
                entry
            })
            .collect();
        format!("{:#}\n", json!({"sweep": Value::Object(self.definition_fields(cells)), "cells": cells_json}))
    }
}

/// Why a cell has no point in the fits (`None`: it has one).
fn left_out_reason(summary: &Summary) -> Option<String> {
    if summary.censored > 0 {
        Some(format!(
            "{} of {} trials censored at the horizon, so the mean is unknown (a lower bound only)",
            summary.censored, summary.trials
        ))
    } else if summary.mean_parallel_time.is_none() {
        Some("no finished trial".into())
    } else {
        None
    }
}

/// The text of `fits.json`: for every combination of the non-`n` parameters, fits of the mean
/// parallel time against `n`, with the cells left out and why.
pub fn fits_json(summaries: &[(Cell, Summary)]) -> String {
    /// Per parameter combination: the (n, mean) points and the cells left out.
    type Group = (Vec<(f64, f64)>, Vec<Value>);
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (cell, s) in summaries {
        let label = cell.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
        let group = groups.entry(label).or_default();
        match (s.mean_parallel_time, left_out_reason(s)) {
            (Some(mean), None) => group.0.push((cell.n as f64, mean)),
            (_, reason) => group.1.push(json!({"cell": cell.key(), "reason": reason})),
        }
    }
    let fits: Vec<Value> = groups
        .into_iter()
        .filter(|(_, (points, left_out))| points.len() >= 2 || !left_out.is_empty())
        .map(|(label, (points, left_out))| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = points.into_iter().unzip();
            let mut fit = json!({
                "params": label,
                "y": "mean parallel time",
                "points": xs.len(),
            });
            if xs.len() >= 2 {
                fit["power_law"] = json!(fit_power(&xs, &ys));
                fit["forms"] = json!(Form::ALL.iter().filter_map(|&f| fit_form(f, &xs, &ys)).collect::<Vec<_>>());
            } else {
                fit["power_law"] = Value::Null;
                fit["forms"] = json!([]);
            }
            if !left_out.is_empty() {
                fit["left_out"] = Value::Array(left_out);
            }
            fit
        })
        .collect();
    format!("{:#}\n", json!({ "fits": fits }))
}

/// What a finished sweep holds.
#[derive(Clone, Debug)]
pub struct SweepResults {
    /// Every cell resolved.
    pub cells: Vec<ResolvedCell>,
    /// Every cell with its summary, in cell order.
    pub summaries: Vec<(Cell, Summary)>,
    /// Every trial, keyed by (cell key, trial index).
    pub rows: BTreeMap<(String, u64), SweepRow>,
    /// The processor seconds of the trials run by this call (0 for trials read back).
    pub cpu_seconds: f64,
}

impl SweepResults {
    /// The cells left out of the fits, with the reasons.
    pub fn left_out_of_fits(&self) -> Vec<(String, String)> {
        self.summaries.iter().filter_map(|(cell, s)| left_out_reason(s).map(|r| (cell.key(), r))).collect()
    }
}

/// A failure of the machine while reading or writing `path` (not an input error).
pub(super) fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("'{}': {e}", path.display()))
}

/// The text of the file `path` of a sweep directory, or `None` where there is none. A pipe, a
/// device or a directory in its place is refused (reading a pipe would wait forever), and so is
/// a file that is not text; `fix` says what to do about it.
pub(super) fn read_stored(path: &Path, fix: &str) -> Result<Option<String>> {
    let refuse = |what: String| Error::File { path: path.display().to_string(), reason: format!("{what}; {fix}") };
    match std::fs::metadata(path) {
        // No such file, or a file in place of its directory (refused where the directory is made).
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(refuse(format!("cannot be read ({e})"))),
        Ok(meta) if !meta.is_file() => {
            return Err(refuse(
                "is not a regular file (a directory, a pipe or a device), not what poplab sweep writes".into(),
            ));
        }
        Ok(_) => {}
    }
    match std::fs::read(path) {
        Ok(bytes) => {
            String::from_utf8(bytes).map(Some).map_err(|_| refuse("is not text written by poplab sweep".into()))
        }
        Err(e) => Err(refuse(format!("cannot be read ({e})"))),
    }
}

/// Writes `definition` as the file `name` of the sweep directory `dir` (made if need be),
/// refusing a directory that holds another `what` ("sweep", "holding sweep").
pub(super) fn write_definition(dir: &Path, name: &str, definition: &str, what: &str) -> Result<()> {
    let path = dir.join(name);
    if let Some(stored) = read_stored(&path, "remove it, or choose another directory")?
        && stored != definition
    {
        return Err(Error::File {
            path: dir.display().to_string(),
            reason: format!("holds a different {what}; choose another directory or remove it"),
        });
    }
    files::prepare_output_dir(dir)?;
    files::write_atomic(&path, definition)
}

/// Reads the definition stored in the sweep directory `dir`: its `sweep.json`, or for a sweep of
/// the splitting estimator its `estimates.json` ([`super::estimates`]).
pub fn read_definition(dir: &Path) -> Result<SweepSpec> {
    if !dir.is_dir() {
        return Err(Error::File {
            path: dir.display().to_string(),
            reason: "is not a directory; give the --out directory of a sweep".into(),
        });
    }
    let estimates = dir.join(ESTIMATES_FILE);
    let path = if !dir.join(SPEC_FILE).exists() && estimates.exists() { estimates } else { dir.join(SPEC_FILE) };
    let unread = |e: String| Error::File {
        path: path.display().to_string(),
        reason: format!("cannot be read ({e}): not a directory written by poplab sweep (or its task never started)"),
    };
    let text = read_stored(&path, "give the --out directory of a sweep")?
        .ok_or_else(|| unread("No such file or directory (os error 2)".into()))?;
    SweepSpec::from_definition(&text, &path)
}

/// The checksum of a shard's finished `trials.csv`, written next to it (`fnv1a64 HEX BYTES`) and
/// checked by [`merge`](super::merge()): an edited, truncated or replaced file is refused. It catches accidents
/// (a row edited by hand, a file copied from another run), not forgery.
pub const CHECKSUM_FILE: &str = "trials.csv.checksum";

/// The line of [`CHECKSUM_FILE`] for the text `trials`.
pub(super) fn checksum_line(trials: &str) -> String {
    format!("fnv1a64 {:016x} {}\n", crate::files::fnv1a64(trials.as_bytes()), trials.len())
}

/// Writes `trials.csv` in its final order and, for a whole sweep, the summaries and fits (a
/// shard's part of a cell would give misleading ones).
pub(super) fn write_results(
    spec: &SweepSpec,
    dir: &Path,
    cells: Vec<ResolvedCell>,
    rows: BTreeMap<(String, u64), SweepRow>,
) -> Result<SweepResults> {
    let trials = spec.trials_csv(&cells, &rows);
    files::write_atomic(&dir.join(TRIALS_FILE), &trials)?;
    if spec.shard.is_some() {
        // A shard's rows are checked when merged: its checksum is written right after them.
        files::write_atomic(&dir.join(CHECKSUM_FILE), &checksum_line(&trials))?;
    }
    let summaries = spec.summarise(&cells, &rows);
    if spec.shard.is_none() {
        let [csv, json, fits] = SUMMARY_FILES;
        files::write_atomic(&dir.join(csv), &spec.summary_csv(&summaries))?;
        files::write_atomic(&dir.join(json), &spec.summary_json(&cells, &summaries))?;
        files::write_atomic(&dir.join(fits), &fits_json(&summaries))?;
    }
    Ok(SweepResults { cells, summaries, rows, cpu_seconds: 0.0 })
}
