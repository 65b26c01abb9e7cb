//! Sweeps: one protocol over the cross product of population sizes and parameter lists, and the
//! directory that stores one.
//!
//! A sweep is a list of *cells* (one `n` and one value per swept parameter), each run for the same
//! number of trials. Every cell is resolved once into a [`RunSpec`]; every (cell, trial) pair is a
//! job; jobs run in parallel and are reported one by one as they finish, so each result is
//! appended to a file at once and nothing is lost when the sweep is killed. A cell's seed is
//! derived from the master seed and the cell's *key* (`n=1000 k=10`), not its position in the
//! list, so editing the lists of a sweep and resuming never changes the cells already there.
//!
//! # The sweep directory
//! - `sweep.json`: the definition ([`SweepSpec::definition`]), what `--resume DIR` runs again;
//! - `trials.csv`: one row per finished trial, appended as each one finishes (a row is written
//!   with one system call and flushed, so a killed sweep loses at most the trials that were
//!   running; a torn last line, or a torn or missing header, is repaired when the sweep resumes);
//! - `summary.csv`, `summary.json`: statistics per cell; `fits.json`: fits of the mean parallel
//!   time against `n`, naming the cells left out and why. These are written atomically when the
//!   sweep ends, from `trials.csv`, so a resumed sweep ends with exactly the files an
//!   uninterrupted one writes.
//!
//! The functions that make and read each file's text are separate from the ones that touch the
//! directory ([`run_in`], [`read_definition`]), so formats are tested without files.

use crate::checkpoint::{Checkpoint, Checkpointer};
use crate::engine::{Engine, Measure, Outcome, ParallelTime, Steps};
use crate::error::{Error, Result};
use crate::experiment::{MAX_TRIALS, Summary, TrialRecord};
use crate::export::csv_line;
use crate::files;
use crate::fit::{Form, fit_form, fit_power};
use crate::rng::{RNG_NAME, trial_seed};
use crate::spec::{RawSpec, RunSpec};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// A part of a sweep that runs on its own (a Slurm array task, say): shards `first .. first +
/// count` of `of`. The jobs of a sweep, (cell, trial) pairs numbered `j = cell * trials + trial` in
/// cell order, are dealt round-robin: job `j` belongs to shard `j mod of`, so every shard gets a
/// similar mix of small and large cells. Seeds come from the cell and the trial, never from the
/// shard, so any split gives the same trials, and [`merge`] rebuilds the unsharded directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// The first shard this part runs.
    pub first: u64,
    /// How many consecutive shards it runs (`--pack`).
    pub count: u64,
    /// How many shards the sweep is split into.
    pub of: u64,
}

impl Shard {
    /// Shard `index` of `of`, packing `pack` shards per part: shards `index * pack ..` of
    /// `of * pack`.
    pub fn new(index: u64, of: u64, pack: u64) -> Result<Self> {
        if pack == 0 {
            return Err(Error::Setting("--pack 0: a part runs at least 1 shard; give --pack 1 or more".into()));
        }
        if of == 0 {
            return Err(Error::Setting(format!(
                "--shard {index}/0: a sweep splits into at least 1 shard (I/K, K >= 1)"
            )));
        }
        if index >= of {
            return Err(Error::Setting(format!(
                "--shard {index}/{of}: shard {index} does not exist; the shards of {of} are numbered 0 to {}",
                of - 1
            )));
        }
        if of == 0 || index >= of || pack == 0 {
            return Err(Error::Setting(format!(
                "shard {index} of {of} (pack {pack}) does not exist; shards are numbered 0 to K - 1 of K >= 1, and \
                 --pack is at least 1"
            )));
        }
        let total = of.checked_mul(pack).filter(|&t| t <= MAX_TRIALS).ok_or_else(|| {
            Error::Setting(format!("{of} x {pack} shards: a sweep splits into at most {MAX_TRIALS} shards"))
        })?;
        Ok(Self { first: index * pack, count: pack, of: total })
    }

    /// `I/K` (shard `I` of `K`, numbered from 0), packing `pack` shards.
    pub fn parse(text: &str, pack: u64) -> Result<Self> {
        let bad = || Error::Setting(format!("--shard {text}: write I/K with 0 <= I < K, for example 0/4"));
        let (index, of) = text.split_once('/').ok_or_else(bad)?;
        let index = crate::numbers::parse_u64(index).map_err(|_| bad())?;
        let of = crate::numbers::parse_u64(of).map_err(|_| bad())?;
        Self::new(index, of, pack)
    }

    /// The shard of a Slurm array task, read through `var` (the environment, or a map in tests):
    /// `I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN` of `K = SLURM_ARRAY_TASK_COUNT`, for a
    /// contiguous array (a stepped or listed one is refused). With `POPLAB_SHARD_COUNT` set, `K`
    /// is that and `I = SLURM_ARRAY_TASK_ID` (0-based), so one task can be submitted again alone
    /// (`POPLAB_SHARD_COUNT=16 sbatch --array=5 ...`).
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>, pack: u64) -> Result<Self> {
        let read = |name: &str| -> Result<Option<u64>> {
            var(name)
                .map(|v| crate::numbers::parse_u64(&v).map_err(|e| Error::Setting(format!("{name}={v}: {e}"))))
                .transpose()
        };
        let (Some(id), Some(count)) = (read("SLURM_ARRAY_TASK_ID")?, read("SLURM_ARRAY_TASK_COUNT")?) else {
            return Err(Error::Setting(
                "--shard-from-env needs SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (run it as a Slurm array \
                 task, or give --shard I/K)"
                    .into(),
            ));
        };
        if let Some(of) = read("POPLAB_SHARD_COUNT")? {
            return Self::new(id, of, pack);
        }
        let min = read("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let max = read("SLURM_ARRAY_TASK_MAX")?.unwrap_or(min + count.saturating_sub(1));
        let step = read("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
        if id < min || id > max {
            return Err(Error::Setting(format!(
                "SLURM_ARRAY_TASK_ID={id} lies outside the array's {min}..={max}; run --shard-from-env as a task of \
                 that array"
            )));
        }
        if step != 1 || max.checked_sub(min).map(|d| d + 1) != Some(count) {
            return Err(Error::Setting(format!(
                "--shard-from-env needs a contiguous array (such as --array=0-{}): this one runs {count} tasks from \
                 {min} to {max} by {step}; or set POPLAB_SHARD_COUNT to the number of shards",
                count.saturating_sub(1)
            )));
        }
        Self::new(id - min, count, pack)
    }

    /// Whether job `job` belongs to this part.
    pub fn contains(&self, job: u64) -> bool {
        (self.first..self.first + self.count).contains(&(job % self.of))
    }

    /// `shard 3 of 8`, or `shards 4-7 of 16`.
    pub fn describe(&self) -> String {
        if self.count == 1 {
            format!("shard {} of {}", self.first, self.of)
        } else {
            format!("shards {}-{} of {}", self.first, self.first + self.count - 1, self.of)
        }
    }
}

/// At most this many cells in one sweep.
pub const MAX_CELLS: usize = 10_000;

/// The file of a sweep's definition.
pub const SPEC_FILE: &str = "sweep.json";
/// The file of a sweep's trials.
pub const TRIALS_FILE: &str = "trials.csv";
/// The checkpoint of the running trials ([`crate::checkpoint`]), removed when the sweep ends.
pub const CHECKPOINT_FILE: &str = "running.ckpt";

/// What to sweep.
///
/// ```
/// use poplab::sweep::{SweepSpec, run_in};
///
/// // What `poplab sweep angluin --n 10,20 --trials 5 --out DIR` does.
/// let spec = SweepSpec { trials: 5, ..SweepSpec::new("angluin", &[10, 20]) };
/// let dir = tempfile::tempdir()?;
/// let results = run_in(&spec, dir.path(), &|_| {}, &|| {})?;
/// assert_eq!(results.rows.len(), 10);
/// assert!(dir.path().join("fits.json").exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    /// The protocol's registry name.
    pub protocol: String,
    /// The population sizes.
    pub ns: Vec<u64>,
    /// Swept parameters: each name with its list of values (the cross product is taken).
    pub params: Vec<(String, Vec<String>)>,
    /// The initial configuration as for [`RawSpec::init`] (`None`: `default`, or `safe` for
    /// holding runs); an `@FILE` is stored with its absolute path.
    pub init: Option<String>,
    /// What the trials measure.
    pub measure: Measure,
    /// The graph as for [`RawSpec::graph`] (`None`: each protocol's own).
    pub graph: Option<String>,
    /// Trials per cell.
    pub trials: u64,
    /// The master seed.
    pub seed: u64,
    /// The horizon in steps per trial.
    pub max_steps: u128,
    /// Worker threads (`None`: one per core). Results do not depend on it.
    pub threads: Option<usize>,
    /// Count distinct states visited and demotion causes per trial.
    pub census: bool,
    /// Which engine runs the trials (`auto` may pick different engines for different cells).
    pub engine: Engine,
    /// Run only this part of the sweep (`None`: all of it).
    pub shard: Option<Shard>,
    /// Time between two checkpoints of the running trials ([`CHECKPOINT_FILE`]); not part of the
    /// definition.
    pub checkpoint_every: std::time::Duration,
}

impl SweepSpec {
    /// A sweep of `protocol` over `ns` with every other setting at its default (20 trials per cell).
    pub fn new(protocol: &str, ns: &[u64]) -> Self {
        Self {
            protocol: protocol.to_string(),
            ns: ns.to_vec(),
            params: Vec::new(),
            init: None,
            measure: Measure::Convergence,
            graph: None,
            trials: 20,
            seed: 0,
            max_steps: crate::experiment::DEFAULT_MAX_STEPS,
            threads: None,
            census: false,
            engine: Engine::Auto,
            shard: None,
            checkpoint_every: crate::checkpoint::DEFAULT_EVERY,
        }
    }
}

/// One point of the sweep.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The population size.
    pub n: u64,
    /// One value per swept parameter, in the order of [`SweepSpec::params`].
    pub params: Vec<(String, String)>,
}

impl Cell {
    /// The cell's key, `n=1000 k=10`: what its seed is derived from.
    pub fn key(&self) -> String {
        let mut key = format!("n={}", self.n);
        for (name, value) in &self.params {
            key += &format!(" {name}={value}");
        }
        key
    }

    /// The master seed of this cell's trials.
    pub fn seed(&self, master: u64) -> u64 {
        // FNV-1a of the key, then one SplitMix64 step mixed with the master seed.
        let hash = crate::files::fnv1a64(self.key().as_bytes());
        trial_seed(master ^ hash, 0)
    }
}

/// A cell with its experiment, resolved once.
#[derive(Clone, Debug)]
pub struct ResolvedCell {
    /// The cell.
    pub cell: Cell,
    /// Its experiment (seeded with the cell's seed).
    pub spec: RunSpec,
}

/// The result of one trial of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// The cell.
    pub cell: Cell,
    /// The trial.
    pub record: TrialRecord,
}

impl SweepSpec {
    /// The cells, `n` varying slowest; refuses empty lists, repeated values and sweeps larger than
    /// [`MAX_CELLS`] cells or [`MAX_TRIALS`] trials.
    pub fn cells(&self) -> Result<Vec<Cell>> {
        if self.ns.is_empty() {
            return Err(Error::Setting("give at least one population size with --n".into()));
        }
        let mut seen = HashSet::new();
        for (name, values) in &self.params {
            if values.is_empty() {
                return Err(Error::Setting(format!("parameter {name} has an empty list of values")));
            }
            if !seen.insert(name) {
                return Err(Error::Setting(format!("parameter {name} is swept twice; give it once")));
            }
        }
        if self.trials == 0 {
            return Err(Error::Setting("--trials 0: give at least 1 trial per cell".into()));
        }
        if let Some(threads) = self.threads
            && !(1..=crate::experiment::MAX_THREADS).contains(&threads)
        {
            return Err(Error::Setting(format!(
                "--threads {threads}: give from 1 to {} worker threads",
                crate::experiment::MAX_THREADS
            )));
        }
        let count = self.params.iter().fold(self.ns.len(), |acc, (_, v)| acc.saturating_mul(v.len()));
        if count > MAX_CELLS {
            return Err(Error::Setting(format!(
                "the sweep has {count} cells; at most {MAX_CELLS} are allowed, shorten the lists"
            )));
        }
        if (count as u64).saturating_mul(self.trials) > MAX_TRIALS {
            return Err(Error::Setting(format!(
                "the sweep has {count} cells x {} trials; at most {MAX_TRIALS} trials are allowed",
                self.trials
            )));
        }
        let mut cells: Vec<Cell> = self.ns.iter().map(|&n| Cell { n, params: Vec::new() }).collect();
        for (name, values) in &self.params {
            cells = cells
                .into_iter()
                .flat_map(|cell| {
                    values.iter().map(move |value| {
                        let mut params = cell.params.clone();
                        params.push((name.clone(), value.clone()));
                        Cell { n: cell.n, params }
                    })
                })
                .collect();
        }
        let mut keys = HashSet::new();
        if let Some(cell) = cells.iter().find(|c| !keys.insert(c.key())) {
            return Err(Error::Setting(format!("the cell {} appears twice; remove the repeated value", cell.key())));
        }
        Ok(cells)
    }

    /// The raw spec of one cell.
    fn raw(&self, cell: &Cell) -> RawSpec {
        RawSpec {
            protocol: self.protocol.clone(),
            n: cell.n,
            params: cell.params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            init: self.init.clone(),
            graph: self.graph.clone(),
            measure: self.measure,
            engine: self.engine,
            trials: self.trials,
            seed: cell.seed(self.seed),
            max_steps: self.max_steps,
            faults: Vec::new(),
            trace_every: None,
            census: self.census,
            threads: self.threads,
        }
    }

    /// Every cell resolved and validated (an error names the cell).
    pub fn resolve(&self) -> Result<Vec<ResolvedCell>> {
        self.resolve_with(&RunSpec::resolve)
    }

    /// Every cell resolved by `resolve` from its raw spec (an error names the cell): a sweep of a
    /// protocol the registry does not build, such as a user protocol built at run time (see
    /// [`RunSpec::resolve_custom`]). [`SweepSpec::resolve`] uses [`RunSpec::resolve`].
    pub fn resolve_with(&self, resolve: &dyn Fn(&RawSpec) -> Result<RunSpec>) -> Result<Vec<ResolvedCell>> {
        self.cells()?
            .into_iter()
            .map(|cell| {
                let spec = resolve(&self.raw(&cell)).map_err(|e| match e {
                    Error::Memory(_) | Error::File { .. } => e,
                    other => Error::Setting(format!("cell {}: {other}", cell.key())),
                })?;
                Ok(ResolvedCell { cell, spec })
            })
            .collect()
    }

    /// The initial configuration every cell starts from, as written into outputs.
    pub fn init_name(&self) -> &str {
        self.init.as_deref().unwrap_or_else(|| crate::spec::default_init(self.measure))
    }

    /// The (cell, trial) jobs of this sweep (of its shard, if any), in cell order.
    pub fn jobs<'a>(&self, cells: &'a [ResolvedCell]) -> impl Iterator<Item = (&'a ResolvedCell, u64)> + use<'a> {
        let (trials, shard) = (self.trials, self.shard);
        cells.iter().enumerate().flat_map(move |(c, cell)| {
            (0..trials)
                .filter(move |&trial| shard.is_none_or(|s| s.contains(c as u64 * trials + trial)))
                .map(move |trial| (cell, trial))
        })
    }

    /// Runs every (cell, trial) of `cells` not in `done` (keys `(cell key, trial index)`), in
    /// parallel, and hands each result to `on_row` as soon as it is known.
    pub fn run(
        &self,
        cells: &[ResolvedCell],
        done: &HashSet<(String, u64)>,
        on_row: &(dyn Fn(SweepRow) -> Result<()> + Sync),
    ) -> Result<()> {
        self.run_jobs(cells, done, on_row, None)
    }

    /// [`SweepSpec::run`], each trial under `checkpointer` if given, keyed by its job number
    /// (`cell * trials + trial`, see [`Shard`]).
    fn run_jobs(
        &self,
        cells: &[ResolvedCell],
        done: &HashSet<(String, u64)>,
        on_row: &(dyn Fn(SweepRow) -> Result<()> + Sync),
        checkpointer: Option<&Checkpointer>,
    ) -> Result<()> {
        let jobs: Vec<(u64, &ResolvedCell, u64)> = self
            .jobs(cells)
            .filter(|(cell, trial)| !done.contains(&(cell.cell.key(), *trial)))
            .map(|(cell, trial)| (self.job_of(cells, cell, trial), cell, trial))
            .collect();
        crate::experiment::pool(self.threads)?.install(|| {
            jobs.into_par_iter().try_for_each(|(job, cell, trial)| {
                let record = match checkpointer {
                    None => cell.spec.trial(trial, &mut Vec::new())?,
                    Some(c) => c.run_trial(job, |checkpoint| cell.spec.trial_checkpointed(trial, checkpoint))?,
                };
                on_row(SweepRow { cell: cell.cell.clone(), record })
            })
        })
    }

    /// The job number of `trial` of `cell`, one of `cells`.
    fn job_of(&self, cells: &[ResolvedCell], cell: &ResolvedCell, trial: u64) -> u64 {
        let c = cells.iter().position(|other| std::ptr::eq(other, cell)).unwrap_or(0) as u64;
        c * self.trials + trial
    }

    /// Runs every (cell, trial) of `cells` not in `done` and returns the rows, keyed by
    /// (cell key, trial): [`SweepSpec::run`] without a directory.
    pub fn collect(
        &self,
        cells: &[ResolvedCell],
        done: &HashSet<(String, u64)>,
    ) -> Result<BTreeMap<(String, u64), SweepRow>> {
        let rows = Mutex::new(BTreeMap::new());
        self.run(cells, done, &|row| {
            rows.lock().unwrap_or_else(|e| e.into_inner()).insert((row.cell.key(), row.record.index), row);
            Ok(())
        })?;
        Ok(rows.into_inner().unwrap_or_else(|e| e.into_inner()))
    }

    /// The definition as written to `sweep.json`. `engine` is the engine every cell runs on; when
    /// `auto` picks different engines for different cells, it is `auto` (resolved again, the same
    /// way, on resume) and `engine_by_cell` names each cell's.
    pub fn definition(&self, cells: &[ResolvedCell]) -> String {
        let engine = match cells.first() {
            Some(first) if cells.iter().all(|c| c.spec.settings.engine == first.spec.settings.engine) => {
                first.spec.settings.engine
            }
            _ => self.engine,
        };
        let mut doc = json!({
            "protocol": self.protocol,
            "n": self.ns,
            "params": self.params.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            "init": self.init_name(),
            "measure": self.measure.name(),
            "graph": self.graph,
            "trials": self.trials,
            "seed": self.seed,
            "max_steps": self.max_steps,
            "census": self.census,
            "rng": RNG_NAME,
            "engine": engine.name(),
        });
        if engine == Engine::Auto {
            let by_cell: serde_json::Map<String, Value> =
                cells.iter().map(|c| (c.cell.key(), Value::from(c.spec.settings.engine.name()))).collect();
            doc["engine_by_cell"] = Value::Object(by_cell);
        }
        if let Some(shard) = self.shard {
            doc["shard"] = json!({"first": shard.first, "count": shard.count, "of": shard.of});
        }
        format!("{doc:#}\n")
    }

    /// Reads a definition written by [`SweepSpec::definition`] (`path` names it in errors).
    pub fn from_definition(text: &str, path: &Path) -> Result<Self> {
        let bad = || Error::File {
            path: path.display().to_string(),
            reason: "is not a sweep definition written by poplab sweep".into(),
        };
        let v: Value = serde_json::from_str(text).map_err(|_| bad())?;
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
                Ok((name, values.collect::<Result<Vec<_>>>()?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SweepSpec {
            protocol: string("protocol")?,
            ns: v["n"].as_array().ok_or_else(bad)?.iter().map(|x| x.as_u64().ok_or_else(bad)).collect::<Result<_>>()?,
            params,
            init: Some(string("init")?),
            measure: string("measure")?.parse().map_err(|_| bad())?,
            graph: v["graph"].as_str().map(str::to_string),
            trials: number("trials")?,
            seed: number("seed")?,
            // Written as a JSON number of up to 128 bits: read back from its digits.
            max_steps: v["max_steps"].to_string().parse().map_err(|_| bad())?,
            threads: None,
            census: v["census"].as_bool().ok_or_else(bad)?,
            engine: string("engine")?.parse().map_err(|_| bad())?,
            shard: match &v["shard"] {
                Value::Null => None,
                shard => {
                    let field = |key: &str| shard[key].as_u64().ok_or_else(bad);
                    let (first, count, of) = (field("first")?, field("count")?, field("of")?);
                    if of == 0 || of > MAX_TRIALS || count == 0 || first.checked_add(count).is_none_or(|end| end > of) {
                        return Err(bad());
                    }
                    Some(Shard { first, count, of })
                }
            },
            checkpoint_every: crate::checkpoint::DEFAULT_EVERY,
        })
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
        let mut fields = vec![self.protocol.clone(), row.cell.key(), row.cell.n.to_string()];
        fields.extend(row.cell.params.iter().map(|(_, v)| v.clone()));
        fields.extend([
            self.init_name().to_string(),
            self.measure.name().to_string(),
            RNG_NAME.to_string(),
            self.seed.to_string(),
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
            };
            let cell = Cell { n, params };
            rows.push((line + 2, SweepRow { cell, record }));
        }
        Ok(rows)
    }

    /// The text of `trials.csv` with `rows` in cell order, then trial order: what a sweep leaves
    /// when it ends, whatever order its trials finished in (and what [`merge`] writes).
    pub fn trials_csv(&self, cells: &[ResolvedCell], rows: &BTreeMap<(String, u64), SweepRow>) -> String {
        let mut text = csv_line(self.trials_header());
        for cell in cells {
            let key = cell.cell.key();
            for trial in 0..self.trials {
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
                let records: Vec<_> =
                    (0..self.trials).filter_map(|t| rows.get(&(key.clone(), t))).map(|r| r.record.clone()).collect();
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
        let definition: Value = serde_json::from_str(&self.definition(cells)).unwrap_or(Value::Null);
        format!("{:#}\n", json!({"sweep": definition, "cells": cells_json}))
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
}

impl SweepResults {
    /// The cells left out of the fits, with the reasons.
    pub fn left_out_of_fits(&self) -> Vec<(String, String)> {
        self.summaries.iter().filter_map(|(cell, s)| left_out_reason(s).map(|r| (cell.key(), r))).collect()
    }
}

/// A failure of the machine while reading or writing `path` (not an input error).
fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("'{}': {e}", path.display()))
}

/// Reads the definition stored in the sweep directory `dir`.
pub fn read_definition(dir: &Path) -> Result<SweepSpec> {
    if !dir.is_dir() {
        return Err(Error::File {
            path: dir.display().to_string(),
            reason: "is not a directory; give the --out directory of a sweep".into(),
        });
    }
    let path = dir.join(SPEC_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::File {
        path: path.display().to_string(),
        reason: format!("cannot be read ({e}): not a directory written by poplab sweep (or its task never started)"),
    })?;
    SweepSpec::from_definition(&text, &path)
}

/// Runs `spec` in the directory `dir`: continues the trials already stored there (refusing a
/// directory that holds a different sweep), then writes the summaries and returns the results.
/// `on_start` gets the number of trials still to run, `on_done` is called once per finished trial.
pub fn run_in(
    spec: &SweepSpec,
    dir: &Path,
    on_start: &dyn Fn(u64),
    on_done: &(dyn Fn() + Sync),
) -> Result<SweepResults> {
    run_in_with(spec, dir, &RunSpec::resolve, on_start, on_done)
}

/// [`run_in`] with the cells resolved by `resolve` ([`SweepSpec::resolve_with`]).
pub fn run_in_with(
    spec: &SweepSpec,
    dir: &Path,
    resolve: &dyn Fn(&RawSpec) -> Result<RunSpec>,
    on_start: &dyn Fn(u64),
    on_done: &(dyn Fn() + Sync),
) -> Result<SweepResults> {
    let cells = spec.resolve_with(resolve)?;
    let definition = spec.definition(&cells);
    let spec_path = dir.join(SPEC_FILE);
    if let Ok(stored) = std::fs::read_to_string(&spec_path)
        && stored != definition
    {
        return Err(Error::File {
            path: dir.display().to_string(),
            reason: "holds a different sweep; choose another directory or remove it".into(),
        });
    }
    files::prepare_output_dir(dir)?;
    files::write_atomic(&spec_path, &definition)?;

    let trials_path = dir.join(TRIALS_FILE);
    let stored = std::fs::read_to_string(&trials_path).unwrap_or_default();
    let done_rows = spec.parse_trials(&stored, &trials_path)?;
    // Keep only complete rows (a kill can tear the last line or the header) before appending;
    // the repair is atomic, so a kill during it loses nothing.
    let complete = if done_rows.is_empty() {
        csv_line(spec.trials_header())
    } else {
        stored[..stored.rfind('\n').map_or(0, |i| i + 1)].to_string()
    };
    if complete != stored {
        files::write_atomic(&trials_path, &complete)?;
    }
    let file = std::fs::OpenOptions::new().append(true).open(&trials_path).map_err(|e| io_error(&trials_path, e))?;
    // Rows of cells no longer in the sweep do not count as done.
    let keys: HashSet<String> = cells.iter().map(|c| c.cell.key()).collect();
    let done: HashSet<(String, u64)> =
        done_rows.into_keys().filter(|(key, trial)| keys.contains(key) && *trial < spec.trials).collect();
    on_start((cells.len() as u64 * spec.trials).saturating_sub(done.len() as u64));
    let file = Mutex::new(file);
    let checkpointer = sweep_checkpointer(spec, &cells, dir, &definition, &done)?;
    checkpointer.around(spec.checkpoint_every, || {
        spec.run_jobs(
            &cells,
            &done,
            &|row| {
                let line = spec.trial_line(&row);
                let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
                // A failed write stops the sweep: the rows written so far stay complete.
                file.write_all(line.as_bytes()).and_then(|()| file.flush()).map_err(|e| io_error(&trials_path, e))?;
                on_done();
                Ok(())
            },
            Some(&checkpointer),
        )
    })?;
    // Every trial is a row now: nothing left to go on from.
    std::fs::remove_file(dir.join(CHECKPOINT_FILE)).map_err(|e| io_error(&dir.join(CHECKPOINT_FILE), e))?;
    let text = std::fs::read_to_string(&trials_path).map_err(|e| io_error(&trials_path, e))?;
    let rows = spec.parse_trials(&text, &trials_path)?;
    write_results(spec, dir, cells, rows)
}

/// The checksum of a shard's finished `trials.csv`, written next to it (`fnv1a64 HEX BYTES`) and
/// checked by [`merge`]: an edited, truncated or replaced file is refused. It catches accidents
/// (a row edited by hand, a file copied from another run), not forgery.
pub const CHECKSUM_FILE: &str = "trials.csv.checksum";

/// The line of [`CHECKSUM_FILE`] for the text `trials`.
fn checksum_line(trials: &str) -> String {
    format!("fnv1a64 {:016x} {}\n", crate::files::fnv1a64(trials.as_bytes()), trials.len())
}

/// The checkpoints of the running trials of the sweep in `dir` (whose definition is
/// `definition`), going on from the snapshots stored there of trials not yet in `done`.
fn sweep_checkpointer(
    spec: &SweepSpec,
    cells: &[ResolvedCell],
    dir: &Path,
    definition: &str,
    done: &HashSet<(String, u64)>,
) -> Result<Checkpointer> {
    let path = dir.join(CHECKPOINT_FILE);
    let definition: Value =
        serde_json::from_str(definition).map_err(|e| Error::Io(format!("a sweep definition: {e}")))?;
    let resume = if path.exists() { Some(Checkpoint::read(&path)?) } else { None };
    if resume.as_ref().is_some_and(|c| c.spec != definition) {
        return Err(Error::Checkpoint {
            path: path.display().to_string(),
            reason: "belongs to another sweep than this directory's sweep.json; remove it to restart its trials".into(),
        });
    }
    let checkpointer = Checkpointer::new(&path, definition, resume, false)?;
    let done_jobs: HashSet<u64> = spec
        .jobs(cells)
        .filter(|(cell, trial)| done.contains(&(cell.cell.key(), *trial)))
        .map(|(cell, trial)| spec.job_of(cells, cell, trial))
        .collect();
    checkpointer.forget(|job| done_jobs.contains(&job));
    Ok(checkpointer)
}

/// Writes `trials.csv` in its final order and, for a whole sweep, the summaries and fits (a
/// shard's part of a cell would give misleading ones).
fn write_results(
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
        files::write_atomic(&dir.join("summary.csv"), &spec.summary_csv(&summaries))?;
        files::write_atomic(&dir.join("summary.json"), &spec.summary_json(&cells, &summaries))?;
        files::write_atomic(&dir.join("fits.json"), &fits_json(&summaries))?;
    }
    Ok(SweepResults { cells, summaries, rows })
}

/// Merges the shard directories `parts` of one sweep into `out`, which then holds exactly the
/// files an unsharded run of the sweep writes. Refuses parts of different sweeps, missing or
/// repeated shards, and parts with missing trials, naming which.
pub fn merge(out: &Path, parts: &[std::path::PathBuf]) -> Result<SweepResults> {
    plan_merge(out, parts)?.write()
}

/// A merge checked and ready to write ([`plan_merge`]): several merges can all be checked before
/// any is written.
#[derive(Debug)]
pub struct MergePlan {
    out: std::path::PathBuf,
    whole: SweepSpec,
    definition: String,
    cells: Vec<ResolvedCell>,
    rows: BTreeMap<(String, u64), SweepRow>,
}

impl MergePlan {
    /// Writes the merged sweep directory.
    pub fn write(self) -> Result<SweepResults> {
        files::prepare_output_dir(&self.out)?;
        files::write_atomic(&self.out.join(SPEC_FILE), &self.definition)?;
        write_results(&self.whole, &self.out, self.cells, self.rows)
    }
}

/// Refuses a shard whose `trials.csv` does not match the checksum written with it.
fn check_checksum(dir: &Path, path: &Path, text: &str) -> Result<()> {
    let sum_path = dir.join(CHECKSUM_FILE);
    let Ok(stored) = std::fs::read_to_string(&sum_path) else {
        return Err(Error::File {
            path: sum_path.display().to_string(),
            reason: "is missing: the shard did not finish (or was written by an older poplab); run its command again, \
                     which writes its trials and their checksum, and merge again"
                .into(),
        });
    };
    if stored != checksum_line(text) {
        return Err(Error::File {
            path: path.display().to_string(),
            reason: format!(
                "does not match its checksum in {CHECKSUM_FILE}: it was changed after the shard wrote it; restore it or \
                 run the shard again into a new directory"
            ),
        });
    }
    Ok(())
}

/// Checks one stored trial against its cell: its seed is the one the master seed gives it, and
/// its outcome and steps agree with the cell's measure and horizon (a censored trial stops at the
/// horizon; one that converged or broke, at most there).
fn check_row(cell: &ResolvedCell, record: &TrialRecord) -> std::result::Result<(), String> {
    let settings = &cell.spec.settings;
    let seed = trial_seed(settings.seed, record.index);
    if record.seed != seed {
        return Err(format!("has trial seed {}, but the master seed gives this trial {seed}", record.seed));
    }
    let horizon = settings.max_steps;
    let steps = record.steps.0;
    match record.outcome {
        Outcome::Censored if steps != horizon => {
            Err(format!("is censored at {steps} steps, but trials are censored at the horizon, {horizon}"))
        }
        Outcome::Converged | Outcome::Broken if steps > horizon => {
            Err(format!("ended at {steps} steps, beyond the horizon {horizon}"))
        }
        Outcome::Converged if settings.measure != Measure::Convergence => {
            Err("is converged, but the sweep measures holding times (broken or censored)".into())
        }
        Outcome::Broken if settings.measure != Measure::Holding => {
            Err("is broken, but the sweep measures convergence (converged or censored)".into())
        }
        _ => Ok(()),
    }
}

/// Every check of [`merge`], and the merged rows, without writing anything.
pub fn plan_merge(out: &Path, parts: &[std::path::PathBuf]) -> Result<MergePlan> {
    let Some(first_dir) = parts.first() else {
        return Err(Error::Setting("give the shard directories to merge".into()));
    };
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a).ok().zip(std::fs::canonicalize(b).ok()).is_some_and(|(a, b)| a == b)
    };
    if let Some(part) = parts.iter().find(|part| same(part, out)) {
        return Err(Error::File {
            path: part.display().to_string(),
            reason: "is both a shard and the output; merge into a new directory".into(),
        });
    }
    let specs: Vec<SweepSpec> = parts.iter().map(|dir| read_definition(dir)).collect::<Result<_>>()?;
    let whole = SweepSpec { shard: None, ..specs[0].clone() };
    let cells = whole.resolve()?;
    let definition: Value = serde_json::from_str(&whole.definition(&cells)).unwrap_or(Value::Null);
    let mut covered: BTreeMap<u64, (u64, &Path)> = BTreeMap::new();
    let mut split = None;
    for (dir, spec) in parts.iter().zip(&specs) {
        let Some(shard) = spec.shard else {
            return Err(Error::File {
                path: dir.display().to_string(),
                reason: "is not a shard (its sweep.json has no \"shard\"); merge only directories written with --shard"
                    .into(),
            });
        };
        // The whole stored definition (generator, engines by cell) must be this sweep's.
        let mut stored: Value = std::fs::read_to_string(dir.join(SPEC_FILE))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        if let Some(object) = stored.as_object_mut() {
            object.remove("shard");
        }
        if stored != definition {
            return Err(Error::File {
                path: dir.display().to_string(),
                reason: format!(
                    "belongs to a different sweep than '{}' (their sweep.json differ); merge the shards of one sweep",
                    first_dir.display()
                ),
            });
        }
        let of = *split.get_or_insert(shard.of);
        if of != shard.of {
            return Err(Error::File {
                path: dir.display().to_string(),
                reason: format!(
                    "holds {} but '{}' splits the sweep into {of} shards; merge the shards of one split",
                    shard.describe(),
                    first_dir.display()
                ),
            });
        }
        // A part holds one range of shards: keep ranges, not one entry per shard.
        if let Some((_, (end, other))) = covered.range(..shard.first + shard.count).next_back()
            && *end > shard.first
        {
            return Err(Error::File {
                path: dir.display().to_string(),
                reason: format!(
                    "holds {}, which '{}' holds too; give each shard once",
                    shard.describe(),
                    other.display()
                ),
            });
        }
        covered.insert(shard.first, (shard.first + shard.count, dir));
    }
    let of = split.unwrap_or(0);
    let range = |from: u64, to: u64| if to - from == 1 { from.to_string() } else { format!("{from}-{}", to - 1) };
    let mut missing = Vec::new();
    let mut next = 0;
    for (&first, &(end, _)) in &covered {
        if first > next {
            missing.push(range(next, first));
        }
        next = end;
    }
    if next < of {
        missing.push(range(next, of));
    }
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(20).map(String::as_str).collect();
        return Err(Error::Setting(format!(
            "missing shards of {of}: {}{}; run them (for a Slurm array, those task indices) and merge again",
            shown.join(", "),
            if missing.len() > 20 { ", ..." } else { "" }
        )));
    }
    let mut rows = BTreeMap::new();
    let mut incomplete = Vec::new();
    let by_key: HashMap<String, &ResolvedCell> = cells.iter().map(|c| (c.cell.key(), c)).collect();
    let mut texts = Vec::new();
    for (dir, spec) in parts.iter().zip(&specs) {
        let path = dir.join(TRIALS_FILE);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        texts.push((dir, path.clone(), text.clone()));
        let expected: Vec<(String, u64)> = spec.jobs(&cells).map(|(cell, trial)| (cell.cell.key(), trial)).collect();
        let mine: HashSet<&(String, u64)> = expected.iter().collect();
        let mut stored: BTreeMap<(String, u64), SweepRow> = BTreeMap::new();
        for (line, row) in spec.parse_trial_rows(&text, &path)? {
            let key = (row.cell.key(), row.record.index);
            let bad = |reason: String| Error::File {
                path: path.display().to_string(),
                reason: format!("row {line} (cell {}, trial {}) {reason}; run this shard again", key.0, key.1),
            };
            let Some(cell) = by_key.get(&key.0) else {
                return Err(bad("is of a cell that is not in the sweep".into()));
            };
            if !mine.contains(&key) {
                return Err(bad(format!("is not a trial of {}", spec.shard.map(|s| s.describe()).unwrap_or_default())));
            }
            check_row(cell, &row.record).map_err(bad)?;
            if stored.insert(key.clone(), row).is_some() {
                return Err(bad("is given twice".into()));
            }
        }
        let absent: Vec<&(String, u64)> = expected.iter().filter(|job| !stored.contains_key(*job)).collect();
        if let Some((key, trial)) = absent.first() {
            incomplete.push(format!(
                "'{}' ({}) lacks {} of its {} trials (the first: cell {key} trial {trial})",
                dir.display(),
                spec.shard.map(|s| s.describe()).unwrap_or_default(),
                absent.len(),
                expected.len()
            ));
        }
        rows.extend(stored);
    }
    if !incomplete.is_empty() {
        return Err(Error::Setting(format!(
            "incomplete: {}; run each one's command again (it continues where it stopped) and merge again",
            incomplete.join("; ")
        )));
    }
    // Every row is there and plausible: the files must also be the ones the shards wrote.
    for (dir, path, text) in &texts {
        check_checksum(dir, path, text)?;
    }
    let definition = whole.definition(&cells);
    if let Ok(existing) = std::fs::read_to_string(out.join(SPEC_FILE))
        && existing != definition
    {
        return Err(Error::File {
            path: out.display().to_string(),
            reason: "holds a different sweep; merge into a new directory".into(),
        });
    }
    Ok(MergePlan { out: out.to_path_buf(), whole, definition, cells, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SweepSpec {
        SweepSpec {
            params: vec![("k".into(), vec!["3".into(), "5".into()]), ("f".into(), vec!["5".into()])],
            trials: 3,
            seed: 9,
            max_steps: 1_000_000,
            threads: Some(2),
            ..SweepSpec::new("threshold", &[20, 40])
        }
    }

    #[test]
    fn shards_deal_jobs_round_robin_and_pack() {
        let shard = Shard::parse("1/3", 1).unwrap();
        assert_eq!((0..9).filter(|&j| shard.contains(j)).collect::<Vec<_>>(), [1, 4, 7]);
        let packed = Shard::parse("1/2", 2).unwrap();
        assert_eq!((packed.first, packed.count, packed.of), (2, 2, 4));
        assert_eq!((0..8).filter(|&j| packed.contains(j)).collect::<Vec<_>>(), [2, 3, 6, 7]);
        assert_eq!(packed.describe(), "shards 2-3 of 4");
        for bad in ["3/3", "1", "a/2", "0/0"] {
            assert!(Shard::parse(bad, 1).is_err(), "{bad}");
        }
        let env = |id: &'static str| {
            move |name: &str| match name {
                "SLURM_ARRAY_TASK_ID" => Some(id.to_string()),
                "SLURM_ARRAY_TASK_MIN" => Some("1".to_string()),
                "SLURM_ARRAY_TASK_COUNT" => Some("4".to_string()),
                _ => None,
            }
        };
        assert_eq!(Shard::from_slurm(env("4"), 1).unwrap(), Shard { first: 3, count: 1, of: 4 });
        assert!(Shard::from_slurm(env("5"), 1).is_err());
        // A stepped array (--array=0-6:2) is refused; POPLAB_SHARD_COUNT serves one re-submitted task.
        let stepped = |name: &str| match name {
            "SLURM_ARRAY_TASK_ID" => Some("2".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("4".to_string()),
            "SLURM_ARRAY_TASK_MAX" => Some("6".to_string()),
            "SLURM_ARRAY_TASK_STEP" => Some("2".to_string()),
            _ => None,
        };
        assert!(Shard::from_slurm(stepped, 1).unwrap_err().to_string().contains("contiguous"));
        let alone = |name: &str| match name {
            "SLURM_ARRAY_TASK_ID" => Some("5".to_string()),
            "SLURM_ARRAY_TASK_MIN" | "SLURM_ARRAY_TASK_MAX" => Some("5".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("1".to_string()),
            "POPLAB_SHARD_COUNT" => Some("16".to_string()),
            _ => None,
        };
        assert_eq!(Shard::from_slurm(alone, 1).unwrap(), Shard { first: 5, count: 1, of: 16 });
        assert!(Shard::parse("0/1e12", 1).unwrap_err().to_string().contains("at most"));
        assert!(Shard::from_slurm(|_| None, 1).unwrap_err().to_string().contains("SLURM_ARRAY_TASK_ID"));
    }

    #[test]
    fn the_shards_of_a_sweep_hold_every_job_once() {
        let spec = spec();
        let cells = spec.resolve().unwrap();
        let all: Vec<(String, u64)> = spec.jobs(&cells).map(|(c, t)| (c.cell.key(), t)).collect();
        let mut dealt: Vec<(String, u64)> = (0..5)
            .flat_map(|i| {
                let part = SweepSpec { shard: Some(Shard::new(i, 5, 1).unwrap()), ..spec.clone() };
                part.jobs(&cells).map(|(c, t)| (c.cell.key(), t)).collect::<Vec<_>>()
            })
            .collect();
        dealt.sort();
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(dealt, sorted);
    }

    #[test]
    fn cells_are_the_cross_product_with_stable_keys() {
        let cells = spec().cells().unwrap();
        let keys: Vec<String> = cells.iter().map(Cell::key).collect();
        assert_eq!(keys, ["n=20 k=3 f=5", "n=20 k=5 f=5", "n=40 k=3 f=5", "n=40 k=5 f=5"]);
        assert_ne!(cells[0].seed(9), cells[1].seed(9));
        assert_eq!(
            cells[0].seed(9),
            Cell { n: 20, params: vec![("k".into(), "3".into()), ("f".into(), "5".into())] }.seed(9)
        );
    }

    #[test]
    fn bad_sweeps_are_refused() {
        let mut s = spec();
        s.params.push(("k".into(), vec!["4".into()]));
        assert!(s.cells().unwrap_err().to_string().contains("swept twice"));
        let mut s = spec();
        s.ns = vec![20, 20];
        assert!(s.cells().unwrap_err().to_string().contains("appears twice"));
        let mut s = spec();
        s.params = vec![("k".into(), vec!["0".into()])];
        assert!(s.resolve().unwrap_err().to_string().contains("cell n=20 k=0"));
        let mut s = spec();
        s.ns = (2..20_000).collect();
        assert!(s.cells().unwrap_err().to_string().contains("at most"));
    }

    #[test]
    fn resuming_runs_only_missing_jobs_and_gives_the_same_rows() {
        let spec = spec();
        let cells = spec.resolve().unwrap();
        let collect =
            |done: &HashSet<(String, u64)>| spec.collect(&cells, done).unwrap().into_values().collect::<Vec<_>>();
        let all = collect(&HashSet::new());
        assert_eq!(all.len(), 12);
        let done: HashSet<(String, u64)> = all.iter().take(5).map(|r| (r.cell.key(), r.record.index)).collect();
        let rest = collect(&done);
        assert_eq!(rest.len(), 7);
        let mut merged: Vec<SweepRow> = all.iter().take(5).cloned().chain(rest).collect();
        merged.sort_by_key(|r| (r.cell.key(), r.record.index));
        assert_eq!(merged, all);
    }

    #[test]
    fn stored_rows_round_trip_and_torn_text_holds_complete_rows_only() {
        let spec = spec();
        let cells = spec.resolve().unwrap();
        let stored = spec.collect(&cells, &HashSet::new()).unwrap();
        let text = spec.trials_csv(&cells, &stored);
        let rows: Vec<SweepRow> = stored.into_values().collect();
        let path = Path::new("trials.csv");
        let parsed = spec.parse_trials(&text, path).unwrap();
        assert_eq!(parsed.len(), 12);
        assert_eq!(parsed.values().cloned().collect::<Vec<_>>(), rows);
        // A kill can leave nothing, a torn header, or a torn last row.
        assert!(spec.parse_trials("", path).unwrap().is_empty());
        assert!(spec.parse_trials("protocol,cell,n,k", path).unwrap().is_empty());
        assert_eq!(spec.parse_trials(&text[..text.len() - 5], path).unwrap().len(), 11);
        let other = SweepSpec { params: vec![], ..spec.clone() };
        assert!(other.parse_trials(&text, path).unwrap_err().to_string().contains("different sweep"));
    }

    #[test]
    fn definitions_round_trip() {
        let spec = SweepSpec { threads: None, init: Some("default".into()), ..spec() };
        let cells = spec.resolve().unwrap();
        let text = spec.definition(&cells);
        let back = SweepSpec::from_definition(&text, Path::new("sweep.json")).unwrap();
        assert_eq!(SweepSpec { engine: spec.engine, ..back.clone() }.definition(&cells), text);
        assert!(
            SweepSpec::from_definition("{}", Path::new("x/sweep.json"))
                .unwrap_err()
                .to_string()
                .contains("x/sweep.json")
        );
    }

    #[test]
    fn fits_name_the_cells_they_leave_out() {
        let spec = SweepSpec { max_steps: 300, ..SweepSpec::new("angluin", &[10, 20, 40, 80]) };
        let cells = spec.resolve().unwrap();
        let summaries = spec.summarise(&cells, &spec.collect(&cells, &HashSet::new()).unwrap());
        let fits: Value = serde_json::from_str(&fits_json(&summaries)).unwrap();
        let left_out = fits["fits"][0]["left_out"].as_array().unwrap();
        assert!(!left_out.is_empty());
        assert!(left_out.iter().all(|c| c["reason"].as_str().unwrap().contains("censored")), "{left_out:?}");
        assert!(spec.summary_csv(&summaries).contains(",false\n"));
    }
}
