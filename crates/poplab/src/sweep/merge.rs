//! Merging the shard directories of one sweep into the directory an unsharded sweep writes.

use super::store::{CHECKSUM_FILE, checksum_line, read_stored, write_results};
use super::{ResolvedCell, SPEC_FILE, SweepResults, SweepRow, SweepSpec, TRIALS_FILE, read_definition};
use crate::engine::{Measure, Outcome};
use crate::error::{Error, Result};
use crate::experiment::TrialRecord;
use crate::files;
use crate::rng::trial_seed;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

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
    let Ok(Some(stored)) = read_stored(&sum_path, "run the shard again") else {
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
pub(super) fn check_row(cell: &ResolvedCell, record: &TrialRecord) -> std::result::Result<(), RowMismatch> {
    let settings = &cell.spec.settings;
    let seed = trial_seed(settings.seed, record.index);
    if record.seed != seed {
        return Err(RowMismatch::Seed { stored: record.seed, expected: seed });
    }
    let horizon = settings.max_steps;
    let steps = record.steps.0;
    match record.outcome {
        Outcome::Censored if steps != horizon => Err(RowMismatch::CensoredBeforeHorizon { steps, horizon }),
        Outcome::Converged | Outcome::Broken if steps > horizon => Err(RowMismatch::BeyondHorizon { steps, horizon }),
        Outcome::Converged if settings.measure != Measure::Convergence => {
            Err(RowMismatch::Outcome { outcome: Outcome::Converged, measured: "holding times (broken or censored)" })
        }
        Outcome::Broken if settings.measure != Measure::Holding => {
            Err(RowMismatch::Outcome { outcome: Outcome::Broken, measured: "convergence (converged or censored)" })
        }
        _ => Ok(()),
    }
}

/// How a stored trial disagrees with its cell (said after "row L (cell C, trial T)").
#[derive(Debug, thiserror::Error)]
pub(super) enum RowMismatch {
    #[error("has trial seed {stored}, but the master seed gives this trial {expected}")]
    Seed { stored: u64, expected: u64 },
    #[error("is censored at {steps} steps, but trials are censored at the horizon, {horizon}")]
    CensoredBeforeHorizon { steps: u128, horizon: u128 },
    #[error("ended at {steps} steps, beyond the horizon {horizon}")]
    BeyondHorizon { steps: u128, horizon: u128 },
    #[error("is {}, but the sweep measures {measured}", outcome.name())]
    Outcome { outcome: Outcome, measured: &'static str },
}

/// Every check of [`merge`], and the merged rows, without writing anything.
pub fn plan_merge(out: &Path, parts: &[std::path::PathBuf]) -> Result<MergePlan> {
    let Some(first_dir) = parts.first() else {
        return Err(Error::Sweep { reason: "give the shard directories to merge".into() });
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
        return Err(Error::Sweep {
            reason: format!(
                "missing shards of {of}: {}{}; run them (for a Slurm array, those task indices) and merge again",
                shown.join(", "),
                if missing.len() > 20 { ", ..." } else { "" }
            ),
        });
    }
    let mut rows = BTreeMap::new();
    let mut incomplete = Vec::new();
    let by_key: HashMap<String, &ResolvedCell> = cells.iter().map(|c| (c.cell.key(), c)).collect();
    let mut texts = Vec::new();
    for (dir, spec) in parts.iter().zip(&specs) {
        let path = dir.join(TRIALS_FILE);
        let text = read_stored(&path, "run this shard again")?.unwrap_or_default();
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
            check_row(cell, &row.record).map_err(|e| bad(e.to_string()))?;
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
        return Err(Error::Sweep {
            reason: format!(
                "incomplete: {}; run each one's command again (it continues where it stopped) and merge again",
                incomplete.join("; ")
            ),
        });
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
