//! Shards: a part of a sweep that runs on its own, from the command line or a Slurm array task.

use crate::error::{Error, Result};
use crate::experiment::MAX_TRIALS;
use serde::{Deserialize, Serialize};

/// A part of a sweep that runs on its own (a Slurm array task, say): shards `first .. first +
/// count` of `of`. The jobs of a sweep, (cell, trial) pairs numbered `j = cell * trials + trial` in
/// cell order, are dealt round-robin: job `j` belongs to shard `j mod of`, so every shard gets a
/// similar mix of small and large cells. Seeds come from the cell and the trial, never from the
/// shard, so any split gives the same trials, and [`merge`](super::merge()) rebuilds the unsharded directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
            return Err(Error::Option {
                option: "--pack",
                value: "0".into(),
                reason: "a part runs at least 1 shard; give --pack 1 or more".into(),
            });
        }
        if of == 0 {
            return Err(Error::Option {
                option: "--shard",
                value: format!("{index}/0"),
                reason: "a sweep splits into at least 1 shard (I/K, K >= 1)".into(),
            });
        }
        if index >= of {
            return Err(Error::Option {
                option: "--shard",
                value: format!("{index}/{of}"),
                reason: format!("shard {index} does not exist; the shards of {of} are numbered 0 to {}", of - 1),
            });
        }
        let total = of.checked_mul(pack).filter(|&t| t <= MAX_TRIALS).ok_or_else(|| Error::Sweep {
            reason: format!("{of} x {pack} shards: a sweep splits into at most {MAX_TRIALS} shards"),
        })?;
        Ok(Self { first: index * pack, count: pack, of: total })
    }

    /// `I/K` (shard `I` of `K`, numbered from 0), packing `pack` shards.
    pub fn parse(text: &str, pack: u64) -> Result<Self> {
        let bad = || Error::Option {
            option: "--shard",
            value: text.into(),
            reason: "write I/K with 0 <= I < K, for example 0/4".into(),
        };
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
                .map(|v| crate::numbers::parse_u64(&v).map_err(|e| Error::Sweep { reason: format!("{name}={v}: {e}") }))
                .transpose()
        };
        let (Some(id), Some(count)) = (read("SLURM_ARRAY_TASK_ID")?, read("SLURM_ARRAY_TASK_COUNT")?) else {
            return Err(Error::Sweep {
                reason: "--shard-from-env needs SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (run it as a Slurm \
                         array task, or give --shard I/K)"
                    .into(),
            });
        };
        if let Some(of) = read("POPLAB_SHARD_COUNT")? {
            if id >= of {
                return Err(Error::Sweep {
                    reason: format!(
                        "POPLAB_SHARD_COUNT={of} leaves out SLURM_ARRAY_TASK_ID={id}: set it to the number of shards, \
                         more than every task id"
                    ),
                });
            }
            return Self::new(id, of, pack);
        }
        let min = read("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let max = read("SLURM_ARRAY_TASK_MAX")?.unwrap_or(min + count.saturating_sub(1));
        let step = read("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
        if id < min || id > max {
            return Err(Error::Sweep {
                reason: format!(
                    "SLURM_ARRAY_TASK_ID={id} lies outside the array's {min}..={max}; run --shard-from-env as a task \
                     of that array"
                ),
            });
        }
        if step != 1 || max.checked_sub(min).map(|d| d + 1) != Some(count) {
            return Err(Error::Sweep {
                reason: format!(
                    "--shard-from-env needs a contiguous array (such as --array=0-{}): this one runs {count} tasks \
                     from {min} to {max} by {step}; or set POPLAB_SHARD_COUNT to the number of shards",
                    count.saturating_sub(1)
                ),
            });
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
