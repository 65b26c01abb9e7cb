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
//! A sweep of the splitting estimator (`--estimator splitting` in the template) stores one
//! estimate per cell instead ([`estimates`]).
//!
//! # The parts
//! - `cells`: the cross product and each cell's seed, resolved from the template;
//! - `jobs`: the (cell, trial) jobs in parallel, under checkpoints;
//! - `store`: each file's text, made and read without touching the directory (so formats are
//!   tested without files), `sweep.json` by the template's serde;
//! - [`estimates`]: the store of splitting rows;
//! - `shard`: parts of a sweep, from the command line or a Slurm array task;
//! - `resume`: a sweep run into its directory, continuing what is there ([`run_in`]);
//! - `merge`: the shards of one sweep joined ([`merge()`]).

mod cells;
pub mod estimates;
mod jobs;
mod merge;
mod resume;
mod shard;
mod store;

pub use cells::{Cell, MAX_CELLS, ResolvedCell, SweepRow};
pub use merge::{MergePlan, merge, plan_merge};
pub use resume::{run_in, run_in_with};
pub use shard::Shard;
pub use store::{CHECKSUM_FILE, SPEC_FILE, SweepResults, TIMES_FILE, TRIALS_FILE, fits_json, read_definition};

use crate::error::{Error, Result};
use crate::spec::{RawSpec, RunSpec};

/// A sweep's results, by its template's estimator ([`run_sweep`]).
#[derive(Debug)]
pub enum SweepOutcome {
    /// The direct estimator: every cell's trials and summaries.
    Trials(SweepResults),
    /// The splitting estimator: one holding estimate per cell, and the fits along the swept axis.
    Holding(estimates::HoldingCurve),
}

/// Runs `spec` by its template's estimator: trials ([`run_in_with`]) or one splitting estimate
/// per cell ([`estimates::run_in_with`]), into `dir` (continuing what is stored there) or, with
/// no directory, trials in memory and estimates in a temporary directory removed after. The one
/// place that chooses between direct trials and the splitting estimator for a sweep: the command
/// line, the Python package and the reproduction's claims all call it. `on_start` gets how many
/// trials or repetitions ([`Estimator::trials_are`](crate::spec::Estimator::trials_are)) are
/// still to run, `done` is called as each finishes.
///
/// ```
/// use poplab::engine::Measure;
/// use poplab::spec::{Estimator, RunSpec};
/// use poplab::sweep::{SweepOutcome, SweepSpec, run_sweep};
///
/// // ls-timer's holding time at N = 4 and 6, by splitting (3 repetitions each).
/// let mut spec = SweepSpec::new("ls-timer", &[4, 6]);
/// spec.template.measure = Measure::Holding;
/// spec.template.estimator = "splitting".parse::<Estimator>()?;
/// spec.template.trials = 3;
/// let SweepOutcome::Holding(curve) = run_sweep(&spec, None, &RunSpec::resolve, &|_| {}, &|| {})? else {
///     panic!("a splitting sweep gives estimates");
/// };
/// assert_eq!(curve.cells.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_sweep(
    spec: &SweepSpec,
    dir: Option<&std::path::Path>,
    resolve: &dyn Fn(&RawSpec) -> Result<RunSpec>,
    on_start: &dyn Fn(u64),
    done: &(dyn Fn() + Sync),
) -> Result<SweepOutcome> {
    match (spec.template.estimator.is_direct(), dir) {
        (true, Some(dir)) => run_in_with(spec, dir, resolve, on_start, done).map(SweepOutcome::Trials),
        (true, None) => {
            let cells = spec.resolve_with(resolve)?;
            on_start(cells.len() as u64 * spec.template.trials);
            spec.run_in_memory(cells, done).map(SweepOutcome::Trials)
        }
        (false, Some(dir)) => estimates::run_in_with(spec, dir, resolve, on_start, done).map(SweepOutcome::Holding),
        (false, None) => {
            let scratch = tempfile::Builder::new()
                .prefix("poplab-holding-")
                .tempdir()
                .map_err(|e| Error::Io(format!("a temporary directory for the estimates: {e}")))?;
            estimates::run_in_with(spec, scratch.path(), resolve, on_start, done).map(SweepOutcome::Holding)
        }
    }
}

/// A sweep's direct trials per cell when none are given (a sweep with the splitting estimator
/// takes its repetitions, [`crate::spec::Estimator::default_trials`]): `poplab sweep` and
/// Python's `poplab.sweep` alike.
pub const DEFAULT_TRIALS: u64 = 20;

/// The checkpoint of the running trials ([`crate::checkpoint`]), removed when the sweep ends.
pub const CHECKPOINT_FILE: &str = "running.ckpt";

/// Refuses a sweep into `dir` one of whose input files (`@FILE` of `template`) is a file the
/// sweep writes there (a sweep of trials or a holding curve): it would be overwritten.
fn check_inputs_apart(template: &RawSpec, dir: &std::path::Path) -> crate::error::Result<()> {
    let [csv, json, fits] = store::SUMMARY_FILES;
    let written =
        [SPEC_FILE, TRIALS_FILE, TIMES_FILE, CHECKSUM_FILE, CHECKPOINT_FILE, csv, json, fits, store::ESTIMATES_FILE]
            .into_iter()
            .chain([estimates::LINES_FILE, estimates::TABLE_FILE, estimates::FIT_FILE])
            .map(|name| dir.join(name))
            .collect::<Vec<_>>();
    let outputs: Vec<(&str, &std::path::Path)> = written.iter().map(|path| ("--out", path.as_path())).collect();
    crate::files::check_apart(&outputs, &template.input_files())
}

/// What to sweep: a [`RawSpec`] template, the population sizes and parameter lists whose cross
/// product are the cells, and the part to run.
///
/// Each cell runs the template with the cell's `n`, parameters and seed ([`Cell::seed`]); every
/// other option of a run (the measure, the engine, the estimator, ...) is the template's, so it
/// reaches every cell, `sweep.json` and a resume without being named here.
///
/// ```
/// use poplab::sweep::{SweepSpec, run_in};
///
/// // What `poplab sweep angluin --n 10,20 --trials 5 --out DIR` does.
/// let mut spec = SweepSpec::new("angluin", &[10, 20]);
/// spec.template.trials = 5;
/// let dir = tempfile::tempdir()?;
/// let results = run_in(&spec, dir.path(), &|_| {}, &|| {})?;
/// assert_eq!(results.rows.len(), 10);
/// assert!(dir.path().join("fits.json").exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    /// Every cell's experiment; its `n` and `params` are replaced by the cell's, its seed is the
    /// master seed. An `@FILE` is stored with its absolute path.
    pub template: RawSpec,
    /// The population sizes.
    pub ns: Vec<u64>,
    /// Swept parameters: each name with its list of values (the cross product is taken).
    pub params: Vec<(String, Vec<String>)>,
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
            template: RawSpec { trials: DEFAULT_TRIALS, ..RawSpec::new(protocol, 0) },
            ns: ns.to_vec(),
            params: Vec::new(),
            shard: None,
            checkpoint_every: crate::checkpoint::DEFAULT_EVERY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::HashSet;
    use std::path::Path;

    fn spec() -> SweepSpec {
        let mut spec = SweepSpec {
            params: vec![("k".into(), vec!["3".into(), "5".into()]), ("f".into(), vec!["5".into()])],
            ..SweepSpec::new("threshold", &[20, 40])
        };
        spec.template = RawSpec { trials: 3, seed: 9, max_steps: 1_000_000, threads: Some(2), ..spec.template };
        spec
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
        use crate::Error;
        let mut s = spec();
        s.params.push(("k".into(), vec!["4".into()]));
        assert!(matches!(s.cells(), Err(Error::Sweep { reason }) if reason.contains("swept twice")));
        let mut s = spec();
        s.ns = vec![20, 20];
        assert!(s.cells().unwrap_err().to_string().contains("appears twice"));
        let mut s = spec();
        s.params = vec![("k".into(), vec!["0".into()])];
        // A cell's error names the cell and keeps its kind.
        let error = s.resolve().err().unwrap();
        assert!(error.to_string().starts_with("cell n=20 k=0: parameter k = '0' is invalid"), "{error}");
        assert!(matches!(&error, Error::Cell { cell, .. } if cell == "n=20 k=0"), "{error:?}");
        assert!(matches!(error.innermost(), Error::Parameter { name, .. } if name == "k"), "{error:?}");
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
        let mut spec = spec();
        spec.template = RawSpec { threads: None, init: Some("default".into()), ..spec.template };
        let cells = spec.resolve().unwrap();
        let text = spec.definition(&cells);
        let back = SweepSpec::from_definition(&text, Path::new("sweep.json")).unwrap();
        assert_eq!(back.definition(&cells), text);
        assert!(
            SweepSpec::from_definition("{}", Path::new("x/sweep.json"))
                .unwrap_err()
                .to_string()
                .contains("x/sweep.json")
        );
    }

    /// The definitions poplab 0.1 wrote (main 60dabff: a plain sweep, a shard, engines by cell, a
    /// splitting estimator's `estimates.json`) read back into specs that write them byte for byte,
    /// so their directories resume and merge.
    #[test]
    fn definitions_of_the_first_version_are_written_again_byte_for_byte() {
        for (name, text) in [
            ("plain", include_str!("../../tests/data/sweep-v1/plain.json")),
            ("shard", include_str!("../../tests/data/sweep-v1/shard.json")),
            ("by-cell", include_str!("../../tests/data/sweep-v1/by-cell.json")),
            ("estimates", include_str!("../../tests/data/sweep-v1/estimates.json")),
        ] {
            let spec = SweepSpec::from_definition(text, Path::new(name)).unwrap();
            assert_eq!(spec.definition(&spec.resolve().unwrap()), text, "{name}");
        }
    }

    #[test]
    fn fits_name_the_cells_they_leave_out() {
        let mut spec = SweepSpec::new("angluin", &[10, 20, 40, 80]);
        spec.template.max_steps = 300;
        let cells = spec.resolve().unwrap();
        let summaries = spec.summarise(&cells, &spec.collect(&cells, &HashSet::new()).unwrap());
        let fits: Value = serde_json::from_str(&fits_json(&summaries)).unwrap();
        let left_out = fits["fits"][0]["left_out"].as_array().unwrap();
        assert!(!left_out.is_empty());
        assert!(left_out.iter().all(|c| c["reason"].as_str().unwrap().contains("censored")), "{left_out:?}");
        assert!(spec.summary_csv(&summaries).contains(",false\n"));
    }
}
