//! The jobs of a sweep, (cell, trial) pairs, run in parallel.

use super::{CHECKPOINT_FILE, ResolvedCell, SweepResults, SweepRow, SweepSpec};
use crate::checkpoint::{Checkpoint, Checkpointer};
use crate::engine::Series;
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

/// A sweep's rows keyed by (cell key, trial).
type Rows = BTreeMap<(String, u64), SweepRow>;

impl SweepSpec {
    /// Runs every (cell, trial) of `cells` not in `done` (keys `(cell key, trial index)`), in
    /// parallel, and hands each result to `on_row` as soon as it is known.
    pub fn run(
        &self,
        cells: &[ResolvedCell],
        done: &HashSet<(String, u64)>,
        on_row: &(dyn Fn(SweepRow) -> Result<()> + Sync),
    ) -> Result<()> {
        self.run_jobs(cells, done, &|row, _| on_row(row), None)
    }

    /// [`SweepSpec::run`], each trial under `checkpointer` if given, keyed by its job number
    /// (`cell * trials + trial`, see [`Shard`]); `on_row` also gets the processor seconds the
    /// trial took on its thread (0 where the system does not say).
    pub(super) fn run_jobs(
        &self,
        cells: &[ResolvedCell],
        done: &HashSet<(String, u64)>,
        on_row: &(dyn Fn(SweepRow, f64) -> Result<()> + Sync),
        checkpointer: Option<&Checkpointer>,
    ) -> Result<()> {
        if !self.template.estimator.is_direct() {
            return Err(Error::Conflict {
                reason: "the splitting estimator gives one estimate per cell, not trials: run it over a sweep with \
                         poplab sweep --estimator splitting"
                    .into(),
            });
        }
        let jobs: Vec<(u64, &ResolvedCell, u64)> = self
            .jobs(cells)
            .filter(|(cell, trial)| !done.contains(&(cell.cell.key(), *trial)))
            .map(|(cell, trial)| (self.job_of(cells, cell, trial), cell, trial))
            .collect();
        crate::experiment::pool(self.template.threads)?.install(|| {
            jobs.into_par_iter().try_for_each(|(job, cell, trial)| {
                let started = crate::clock::thread_cpu_seconds();
                let record = match checkpointer {
                    None => cell.spec.trial(trial, &mut Series::default())?,
                    Some(c) => c.run_trial(job, |checkpoint| {
                        cell.spec.trial_checkpointed(trial, &mut Series::default(), checkpoint)
                    })?,
                };
                let cpu_seconds =
                    crate::clock::thread_cpu_seconds().zip(started).map_or(0.0, |(end, start)| end - start);
                on_row(SweepRow { cell: cell.cell.clone(), record }, cpu_seconds)
            })
        })
    }

    /// The job number of `trial` of `cell`, one of `cells`.
    pub(super) fn job_of(&self, cells: &[ResolvedCell], cell: &ResolvedCell, trial: u64) -> u64 {
        let c = cells.iter().position(|other| std::ptr::eq(other, cell)).unwrap_or(0) as u64;
        c * self.template.trials + trial
    }

    /// Runs every (cell, trial) of `cells` not in `done` and returns the rows, keyed by
    /// (cell key, trial): [`SweepSpec::run`] without a directory.
    pub fn collect(&self, cells: &[ResolvedCell], done: &HashSet<(String, u64)>) -> Result<Rows> {
        Ok(self.gather(cells, done, &|| {})?.0)
    }

    /// Runs every trial of `cells` without a directory: the rows, their summaries and the
    /// processor seconds; `done` is called as each trial finishes.
    pub(super) fn run_in_memory(&self, cells: Vec<ResolvedCell>, done: &(dyn Fn() + Sync)) -> Result<SweepResults> {
        let (rows, cpu_seconds) = self.gather(&cells, &HashSet::new(), done)?;
        let summaries = self.summarise(&cells, &rows);
        Ok(SweepResults { cells, summaries, rows, cpu_seconds })
    }

    /// The rows of every (cell, trial) of `cells` not in `skip`, keyed by (cell key, trial), and
    /// the processor seconds they took; `done` is called as each trial finishes.
    fn gather(
        &self,
        cells: &[ResolvedCell],
        skip: &HashSet<(String, u64)>,
        done: &(dyn Fn() + Sync),
    ) -> Result<(Rows, f64)> {
        let (rows, cpu_seconds) = (Mutex::new(BTreeMap::new()), Mutex::new(0.0));
        self.run_jobs(
            cells,
            skip,
            &|row, seconds| {
                *cpu_seconds.lock().unwrap_or_else(|e| e.into_inner()) += seconds;
                rows.lock().unwrap_or_else(|e| e.into_inner()).insert((row.cell.key(), row.record.index), row);
                done();
                Ok(())
            },
            None,
        )?;
        let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok((rows, cpu_seconds.into_inner().unwrap_or_else(|e| e.into_inner())))
    }
}

/// The checkpoints of the running trials of the sweep in `dir` (whose definition is
/// `definition`), going on from the snapshots stored there of trials not yet in `done`.
pub(super) fn sweep_checkpointer(
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
