//! Running a sweep into its directory, continuing what is stored there.

use super::jobs::sweep_checkpointer;
use super::merge::check_row;
use super::store::{io_error, read_stored, write_definition, write_results};
use super::{CHECKPOINT_FILE, ResolvedCell, SPEC_FILE, SweepResults, SweepSpec, TIMES_FILE, TRIALS_FILE};
use crate::error::{Error, Result};
use crate::export::csv_line;
use crate::files;
use crate::spec::{RawSpec, RunSpec};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

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
    super::check_inputs_apart(&spec.template, dir)?;
    let definition = spec.definition(&cells);
    write_definition(dir, SPEC_FILE, &definition, "sweep")?;

    let trials_path = dir.join(TRIALS_FILE);
    let stored = read_stored(&trials_path, "remove it and resume: its trials run again")?.unwrap_or_default();
    // Each stored row must be what its cell's master seed and horizon allow (as merge checks).
    let by_key: HashMap<String, &ResolvedCell> = cells.iter().map(|c| (c.cell.key(), c)).collect();
    let mut done_rows = BTreeMap::new();
    for (line, row) in spec.parse_trial_rows(&stored, &trials_path)? {
        let key = (row.cell.key(), row.record.index);
        if let Some(cell) = by_key.get(&key.0) {
            check_row(cell, &row.record).map_err(|reason| Error::File {
                path: trials_path.display().to_string(),
                reason: format!(
                    "row {line} (cell {}, trial {}) {reason}; remove the row and resume: its trial runs again",
                    key.0, key.1
                ),
            })?;
        }
        done_rows.insert(key, row);
    }
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
        done_rows.into_keys().filter(|(key, trial)| keys.contains(key) && *trial < spec.template.trials).collect();
    on_start((cells.len() as u64 * spec.template.trials).saturating_sub(done.len() as u64));
    let times_path = dir.join(TIMES_FILE);
    let mut times = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&times_path)
        .map_err(|e| io_error(&times_path, e))?;
    if times.metadata().map_err(|e| io_error(&times_path, e))?.len() == 0 {
        times.write_all(csv_line(["cell", "trial", "cpu_seconds"]).as_bytes()).map_err(|e| io_error(&times_path, e))?;
    }
    let file = Mutex::new((file, times));
    let cpu_seconds = Mutex::new(0.0);
    let checkpointer = sweep_checkpointer(spec, &cells, dir, &definition, &done)?;
    checkpointer.around(spec.checkpoint_every, || {
        spec.run_jobs(
            &cells,
            &done,
            &|row, cpu| {
                let line = spec.trial_line(&row);
                let time = csv_line([row.cell.key(), row.record.index.to_string(), cpu.to_string()]);
                let mut files = file.lock().unwrap_or_else(|e| e.into_inner());
                let (file, times) = &mut *files;
                // A failed write stops the sweep: the rows written so far stay complete.
                file.write_all(line.as_bytes()).and_then(|()| file.flush()).map_err(|e| io_error(&trials_path, e))?;
                times.write_all(time.as_bytes()).map_err(|e| io_error(&times_path, e))?;
                *cpu_seconds.lock().unwrap_or_else(|e| e.into_inner()) += cpu;
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
    let cpu_seconds = cpu_seconds.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(SweepResults { cpu_seconds, ..write_results(spec, dir, cells, rows)? })
}
