//! `poplab sweep`: a protocol over the cross product of sizes and parameter lists, written trial by
//! trial into a directory that `--resume` can continue.
//!
//! Files of a sweep directory:
//! - `sweep.json`: the sweep's definition (what `--resume DIR` runs again);
//! - `trials.csv`: one row per finished trial, appended as each one finishes (a row is written with
//!   one system call and flushed, so a killed sweep loses at most the trials that were running);
//! - `summary.csv`, `summary.json`: statistics per cell; `fits.json`: fits of the mean against `n`.
//!   These are written atomically when the sweep ends, from `trials.csv`, so a resumed sweep ends
//!   with exactly the files an uninterrupted one would have written.

use crate::cli::{MeasureArg, SweepArgs};
use crate::input::{InputError, parse_count, parse_values};
use crate::output::write_text;
use crate::progress::Progress;
use anyhow::{Context, Result, bail};
use poplab::engine::{Engine, Measure, Outcome};
use poplab::experiment::Summary;
use poplab::fit::{Form, fit_form, fit_power};
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::rng::RNG_NAME;
use poplab::sweep::{Cell, StoredTrial, SweepRow, SweepSpec, stored_record};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const TRIALS_FILE: &str = "trials.csv";
const SPEC_FILE: &str = "sweep.json";

pub fn sweep(args: &SweepArgs) -> Result<()> {
    let (spec, dir) = match &args.resume {
        Some(dir) => (read_spec(dir)?, dir.clone()),
        None => {
            let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("sweep"));
            if dir.join(TRIALS_FILE).exists() {
                return Err(InputError(format!(
                    "'{}' already holds a sweep; continue it with --resume {0} or choose another --out",
                    dir.display()
                ))
                .into());
            }
            (spec_from_args(args)?, dir)
        }
    };
    let results = run_sweep(&spec, &dir)?;
    eprintln!("sweep of {} cells x {} trials written to '{}'", results.summaries.len(), spec.trials, dir.display());
    Ok(())
}

/// What a finished sweep holds.
pub struct SweepResults {
    /// Every cell with its summary, in cell order.
    pub summaries: Vec<(Cell, Summary)>,
    /// Every trial, keyed by (cell key, trial index).
    pub rows: BTreeMap<(String, u64), SweepRow>,
}

/// Runs `spec` in `dir`: continues the trials already stored there (refusing a directory that
/// holds a different sweep), then writes the summaries and returns the results.
pub fn run_sweep(spec: &SweepSpec, dir: &Path) -> Result<SweepResults> {
    let cells = spec.validate()?;
    let definition = format!("{:#}\n", spec_json(spec)?);
    let spec_path = dir.join(SPEC_FILE);
    if let Ok(stored) = std::fs::read_to_string(&spec_path)
        && stored != definition
    {
        return Err(InputError(format!(
            "'{}' holds a different sweep; choose another directory or remove it",
            dir.display()
        ))
        .into());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    write_text(Some(&spec_path), &definition)?;

    let trials_path = dir.join(TRIALS_FILE);
    let done = if trials_path.exists() { read_rows(dir, spec)?.into_keys().collect() } else { HashSet::new() };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&trials_path)
        .with_context(|| format!("opening '{}'", trials_path.display()))?;
    if file.metadata()?.len() == 0 {
        file.write_all(csv_line(&header(spec)).as_bytes())?;
    }
    let total = cells.len() as u64 * spec.trials;
    let progress = Progress::new(total - done.len() as u64, &spec.protocol);
    let file = Mutex::new(file);
    let failure = Mutex::new(None);
    spec.run(&done, &|row| {
        let line = csv_line(&row_fields(spec, &row));
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
            failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        }
        progress.inc();
    })?;
    drop(progress);
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e).with_context(|| format!("appending to '{}'", trials_path.display()));
    }
    let rows = read_rows(dir, spec)?;
    let summaries = summarise(spec, &cells, &rows);
    write_summaries(dir, spec, &summaries)?;
    Ok(SweepResults { summaries, rows })
}

fn spec_from_args(args: &SweepArgs) -> Result<SweepSpec> {
    let protocol = args.protocol.clone().ok_or_else(|| InputError("name the protocol to sweep".into()))?;
    let ns_text = args.n.as_deref().ok_or_else(|| InputError("give the population sizes with --n LIST".into()))?;
    let ns = parse_values(ns_text)?.iter().map(|v| parse_count(v).map_err(InputError)).collect::<Result<_, _>>()?;
    let mut params = Vec::new();
    for item in &args.set {
        let (name, values) = item
            .split_once('=')
            .ok_or_else(|| InputError(format!("--set {item}: write KEY=LIST, for example k=3,5,7")))?;
        params.push((name.trim().to_string(), parse_values(values)?));
    }
    Ok(SweepSpec {
        protocol,
        ns,
        params,
        init: InitSpec::from_name(args.init.as_deref().unwrap_or(match args.measure {
            MeasureArg::Holding => "safe",
            MeasureArg::Convergence => "default",
        })),
        measure: match args.measure {
            MeasureArg::Convergence => Measure::Convergence,
            MeasureArg::Holding => Measure::Holding,
        },
        graph: args.graph.as_deref().map(Graph::from_name).transpose()?,
        trials: args.trials,
        seed: args.seed,
        max_steps: args.max_steps,
        threads: args.threads,
        census: args.census,
        engine: args.engine.engine(),
    })
}

/// The sweep's definition as written to its directory. `engine` is the engine every cell runs on;
/// when `auto` picks different engines for different cells, it is `auto` (resolved again, the same
/// way, on resume) and `engine_by_cell` names each cell's.
fn spec_json(spec: &SweepSpec) -> Result<Value> {
    let engines = spec.engines_used()?;
    let engine = match engines.first() {
        Some(&(_, first)) if engines.iter().all(|&(_, e)| e == first) => first,
        _ => spec.engine,
    };
    let mut doc = json!({
        "protocol": spec.protocol,
        "n": spec.ns,
        "params": spec.params.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        "init": spec.init.name(),
        "measure": measure_name(spec.measure),
        "graph": spec.graph.as_ref().map(Graph::name),
        "trials": spec.trials,
        "seed": spec.seed,
        "max_steps": spec.max_steps,
        "census": spec.census,
        "rng": RNG_NAME,
        "engine": engine.name(),
    });
    if engine == Engine::Auto {
        let by_cell: serde_json::Map<String, Value> =
            engines.iter().map(|(cell, e)| (cell.key(), Value::from(e.name()))).collect();
        doc["engine_by_cell"] = Value::Object(by_cell);
    }
    Ok(doc)
}

fn read_spec(dir: &Path) -> Result<SweepSpec> {
    let path = dir.join(SPEC_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| InputError(format!("cannot resume: '{}' is not readable ({e})", path.display())))?;
    let bad = || InputError(format!("cannot resume: '{}' is not a sweep definition", path.display()));
    let v: Value = serde_json::from_str(&text).map_err(|_| bad())?;
    let string = |key: &str| v[key].as_str().map(str::to_string).ok_or_else(bad);
    let number = |key: &str| v[key].as_u64().ok_or_else(bad);
    let params = v["params"]
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|pair| {
            let name = pair[0].as_str().ok_or_else(bad)?.to_string();
            let values =
                pair[1].as_array().ok_or_else(bad)?.iter().map(|x| x.as_str().map(str::to_string).ok_or_else(bad));
            Ok((name, values.collect::<Result<Vec<_>, _>>()?))
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    Ok(SweepSpec {
        protocol: string("protocol")?,
        ns: v["n"].as_array().ok_or_else(bad)?.iter().map(|x| x.as_u64().ok_or_else(bad)).collect::<Result<_, _>>()?,
        params,
        init: InitSpec::from_name(&string("init")?),
        measure: if string("measure")? == "holding" { Measure::Holding } else { Measure::Convergence },
        graph: v["graph"].as_str().map(Graph::from_name).transpose()?,
        trials: number("trials")?,
        seed: number("seed")?,
        // Written as a JSON number of up to 128 bits: read back from its digits.
        max_steps: v["max_steps"].to_string().parse().map_err(|_| bad())?,
        threads: None,
        census: v["census"].as_bool().unwrap_or(false),
        // Sweeps written before the count engine existed ran on agents.
        engine: v["engine"].as_str().map_or(Ok(Engine::Agents), Engine::from_name)?,
    })
}

fn measure_name(measure: Measure) -> &'static str {
    match measure {
        Measure::Convergence => "convergence",
        Measure::Holding => "holding",
    }
}

fn header(spec: &SweepSpec) -> Vec<String> {
    let mut fields: Vec<String> = ["protocol", "cell", "n"].map(String::from).to_vec();
    fields.extend(spec.params.iter().map(|(name, _)| name.clone()));
    fields.extend(
        [
            "init",
            "measure",
            "rng",
            "master_seed",
            "trial",
            "trial_seed",
            "outcome",
            "steps",
            "parallel_time",
            "distinct_states",
            "last_demotion",
        ]
        .map(String::from),
    );
    fields
}

fn row_fields(spec: &SweepSpec, row: &SweepRow) -> Vec<String> {
    let r = &row.record;
    let mut fields = vec![spec.protocol.clone(), row.cell.key(), row.cell.n.to_string()];
    fields.extend(row.cell.params.iter().map(|(_, v)| v.clone()));
    fields.extend([
        spec.init.name(),
        measure_name(spec.measure).to_string(),
        RNG_NAME.to_string(),
        spec.seed.to_string(),
        r.index.to_string(),
        r.seed.to_string(),
        outcome_name(r.outcome).to_string(),
        r.steps.0.to_string(),
        r.parallel_time.0.to_string(),
        r.distinct_states.map(|d| d.to_string()).unwrap_or_default(),
        r.last_demotion.clone().unwrap_or_default(),
    ]);
    fields
}

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Converged => "converged",
        Outcome::Broken => "broken",
        Outcome::Censored => "censored",
    }
}

fn csv_line(fields: &[String]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = writer.write_record(fields);
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The stored rows of a sweep directory, keyed by (cell key, trial). A last line cut short by a
/// kill is dropped from the file, so the trial it held runs again.
fn read_rows(dir: &Path, spec: &SweepSpec) -> Result<BTreeMap<(String, u64), SweepRow>> {
    let path = dir.join(TRIALS_FILE);
    let mut text = std::fs::read_to_string(&path).with_context(|| format!("reading '{}'", path.display()))?;
    if !text.ends_with('\n') {
        text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
        std::fs::write(&path, &text).with_context(|| format!("repairing '{}'", path.display()))?;
    }
    let expected = header(spec);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let found: Vec<String> = reader.headers()?.iter().map(str::to_string).collect();
    if found != expected {
        bail!(InputError(format!("'{}' was written by a different sweep (columns differ)", path.display())));
    }
    let column = |name: &str| expected.iter().position(|c| c == name).unwrap_or(0);
    let (n_at, trial_at, seed_at, outcome_at, steps_at, states_at, demotion_at) = (
        column("n"),
        column("trial"),
        column("trial_seed"),
        column("outcome"),
        column("steps"),
        column("distinct_states"),
        column("last_demotion"),
    );
    let mut rows = BTreeMap::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("'{}' row {}", path.display(), line + 2))?;
        let bad = || InputError(format!("'{}' row {} is malformed", path.display(), line + 2));
        let n: u64 = record[n_at].parse().map_err(|_| bad())?;
        let params =
            spec.params.iter().enumerate().map(|(i, (name, _))| (name.clone(), record[3 + i].to_string())).collect();
        let outcome = match &record[outcome_at] {
            "converged" => Outcome::Converged,
            "broken" => Outcome::Broken,
            "censored" => Outcome::Censored,
            _ => return Err(bad().into()),
        };
        let trial: u64 = record[trial_at].parse().map_err(|_| bad())?;
        let seed: u64 = record[seed_at].parse().map_err(|_| bad())?;
        let steps: u128 = record[steps_at].parse().map_err(|_| bad())?;
        let distinct_states = match &record[states_at] {
            "" => None,
            text => Some(text.parse().map_err(|_| bad())?),
        };
        let last_demotion = Some(record[demotion_at].to_string()).filter(|d| !d.is_empty());
        let stored = StoredTrial { index: trial, seed, outcome, steps, distinct_states, last_demotion };
        let cell = Cell { n, params };
        rows.insert((cell.key(), trial), SweepRow { cell, record: stored_record(stored, n) });
    }
    Ok(rows)
}

/// Per-cell summaries, in cell order.
fn summarise(spec: &SweepSpec, cells: &[Cell], rows: &BTreeMap<(String, u64), SweepRow>) -> Vec<(Cell, Summary)> {
    cells
        .iter()
        .map(|cell| {
            let key = cell.key();
            let records: Vec<_> =
                (0..spec.trials).filter_map(|t| rows.get(&(key.clone(), t))).map(|r| r.record.clone()).collect();
            (cell.clone(), Summary::of(&records, cell.n as usize))
        })
        .collect()
}

fn write_summaries(dir: &Path, spec: &SweepSpec, summaries: &[(Cell, Summary)]) -> Result<()> {
    let mut header: Vec<String> = vec!["cell".into(), "n".into()];
    header.extend(spec.params.iter().map(|(name, _)| name.clone()));
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
        ]);
        csv += &csv_line(&fields);
    }
    write_text(Some(&dir.join("summary.csv")), &csv)?;
    let cells_json: Vec<Value> =
        summaries.iter().map(|(cell, s)| json!({"cell": cell.key(), "n": cell.n, "params": cell.params.iter().cloned().collect::<BTreeMap<_, _>>(), "summary": s})).collect();
    write_text(
        Some(&dir.join("summary.json")),
        &format!("{:#}\n", json!({"sweep": spec_json(spec)?, "cells": cells_json})),
    )?;
    write_text(Some(&dir.join("fits.json")), &format!("{:#}\n", fits(summaries)))
}

/// For every combination of the non-`n` parameters: fits of the mean parallel time against `n`.
fn fits(summaries: &[(Cell, Summary)]) -> Value {
    let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (cell, s) in summaries {
        let label = cell.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
        if let Some(mean) = s.mean_parallel_time {
            groups.entry(label).or_default().push((cell.n as f64, mean));
        }
    }
    let fits: Vec<Value> = groups
        .into_iter()
        .filter(|(_, points)| points.len() >= 2)
        .map(|(label, points)| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = points.into_iter().unzip();
            json!({
                "params": label,
                "y": "mean parallel time",
                "points": xs.len(),
                "power_law": fit_power(&xs, &ys),
                "forms": Form::ALL.iter().filter_map(|&f| fit_form(f, &xs, &ys)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "fits": fits })
}
