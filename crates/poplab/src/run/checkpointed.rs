//! A run under checkpoints ([`crate::checkpoint`]): the spec a checkpoint stores so that a resume
//! needs no other argument ([`StoredSpec`]), and [`run_checkpointed`], which runs a spec writing
//! checkpoints (and its time series, if any, through the exporters' [`TraceFile`]).

use crate::checkpoint::{Checkpoint, Checkpointer};
use crate::engine::{Outcome, Series};
use crate::error::{Error, Result};
use crate::experiment::TrialRecord;
use crate::export::TraceFile;
use crate::spec::{RawSpec, RunResult, RunSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// An `@FILE` input named by a spec, with a digest of its contents when the checkpoint was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileDigest {
    /// The absolute path.
    pub path: String,
    /// FNV-1a 64 of its bytes, in hex.
    pub digest: String,
}

/// The spec of a checkpointed run, as given (everything but the worker threads and outputs):
/// stored as the fields of its [`RawSpec`] and `files`.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSpec {
    /// The spec, `@FILE` inputs (protocol, initial configuration, graph) with absolute paths.
    pub raw: RawSpec,
    /// The time series' file (an absolute path), if any.
    pub trace: Option<String>,
    /// The `@FILE` inputs and their digests.
    pub files: Vec<FileDigest>,
}

impl StoredSpec {
    /// The spec of `raw`, its `@FILE` inputs made absolute and digested; its time series (if
    /// `raw` has one) goes to the file `trace`.
    pub fn of(raw: &RawSpec, trace: Option<&Path>) -> Result<Self> {
        let trace = match (raw.trace_every, trace) {
            (Some(_), Some(path)) => Some(
                std::path::absolute(path)
                    .map_err(|e| Error::File {
                        path: path.display().to_string(),
                        reason: format!("cannot be named ({e})"),
                    })?
                    .to_string_lossy()
                    .into_owned(),
            ),
            (None, None) => None,
            _ => {
                return Err(Error::Conflict {
                    reason: "a checkpointed time series goes to a file: give --trace FILE with --trace-every".into(),
                });
            }
        };
        let mut files = Vec::new();
        let mut absolute = |text: &str| -> Result<String> {
            let Some(path) = text.strip_prefix('@') else { return Ok(text.to_string()) };
            let full = std::fs::canonicalize(path)
                .map_err(|e| Error::File { path: path.to_string(), reason: format!("cannot be found ({e})") })?;
            let full = full.to_string_lossy().into_owned();
            files.push(FileDigest { digest: digest_file(&full)?, path: full.clone() });
            Ok(format!("@{full}"))
        };
        let raw = RawSpec {
            protocol: absolute(&raw.protocol)?,
            init: raw.init.as_deref().map(&mut absolute).transpose()?,
            graph: raw.graph.as_deref().map(&mut absolute).transpose()?,
            threads: None,
            ..raw.clone()
        };
        Ok(Self { raw, trace, files })
    }

    /// The raw spec again, with `threads` worker threads; refused if an `@FILE` input changed.
    pub fn raw(&self, threads: Option<usize>) -> Result<RawSpec> {
        for file in &self.files {
            if digest_file(&file.path)? != file.digest {
                return Err(Error::File {
                    path: file.path.clone(),
                    reason: "changed since the checkpoint was written, so the run cannot go on as it was; restore \
                             it or start the run again"
                        .into(),
                });
            }
        }
        Ok(RawSpec { threads, ..self.raw.clone() })
    }

    /// The document written into the checkpoint.
    pub fn to_json(&self) -> Result<Value> {
        let internal = |e: serde_json::Error| Error::Io(format!("a checkpoint: {e}"));
        let mut document = serde_json::to_value(&self.raw).map_err(internal)?;
        if let Some(fields) = document.as_object_mut() {
            fields.insert("files".into(), serde_json::to_value(&self.files).map_err(internal)?);
            if let Some(trace) = &self.trace {
                fields.insert("trace".into(), Value::String(trace.clone()));
            }
        }
        Ok(document)
    }

    /// The spec of a document written by [`StoredSpec::to_json`].
    fn from_json(mut document: Value) -> Option<Self> {
        let fields = document.as_object_mut()?;
        let files = serde_json::from_value(fields.remove("files")?).ok()?;
        let trace = match fields.remove("trace") {
            None => None,
            Some(trace) => Some(trace.as_str()?.to_string()),
        };
        Some(Self { raw: serde_json::from_value(document).ok()?, trace, files })
    }

    /// The spec of a run's checkpoint (`path` names the file in errors).
    pub fn of_checkpoint(checkpoint: &Checkpoint, path: &Path) -> Result<Self> {
        Self::from_json(checkpoint.spec.clone()).ok_or_else(|| Error::Checkpoint {
            path: path.display().to_string(),
            reason: "is not the checkpoint of a run (a sweep's? resume that with poplab sweep --resume DIR)".into(),
        })
    }
}

fn digest_file(path: &str) -> Result<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::File { path: path.to_string(), reason: format!("cannot be read ({e})") })?;
    Ok(format!("{:016x}", crate::files::fnv1a64(&bytes)))
}

/// What makes `record`, a finished trial read from a checkpoint, one that no trial of `spec`
/// gives, if anything: an index beyond the trials, another seed, more steps than the horizon, or
/// censored short of it (an agent run stops at most at 2^64 - 1 steps).
fn impossible_record(spec: &RunSpec, record: &TrialRecord) -> Option<String> {
    let settings = &spec.settings;
    let (index, steps, horizon) = (record.index, record.steps.0, settings.max_steps);
    let reason = if index >= settings.trials {
        format!("a finished trial {index}, and the run has {} trials", settings.trials)
    } else if record.seed != crate::rng::trial_seed(settings.seed, index) {
        format!("finished trial {index} has seed {}, not the run's", record.seed)
    } else if steps > horizon {
        format!("finished trial {index} took {steps} steps, beyond the horizon {horizon}")
    } else if record.outcome == Outcome::Censored && steps != horizon && steps != u128::from(u64::MAX) {
        format!("finished trial {index} is censored at step {steps}, short of the horizon {horizon}")
    } else {
        return None;
    };
    Some(reason)
}

/// Runs every trial of `spec` as [`RunSpec::run`] does, writing a checkpoint into `path` every `every`
/// and at the end, going on from `resume` if given (see [`crate::checkpoint`]): the records
/// are the same as those of a run never stopped. `stored` is the spec as given, written
/// into the checkpoint so that a resume needs nothing else; a time series goes to the file it
/// names, as [`run_traced`](crate::export::run_traced) writes it, its part files in the directory `PATH.parts`
/// until the end.
pub fn run_checkpointed(
    spec: &RunSpec,
    on_done: &(dyn Fn() + Sync),
    stored: StoredSpec,
    path: &Path,
    every: std::time::Duration,
    resume: Option<Checkpoint>,
) -> Result<RunResult> {
    crate::checkpoint::check_path(path)?;
    if spec.settings.trace_every.is_some() != stored.trace.is_some() {
        return Err(Error::Conflict {
            reason: "a checkpointed time series goes to a file: give --trace FILE with --trace-every".into(),
        });
    }
    if let Some(reason) = resume.iter().flat_map(|c| &c.finished).find_map(|r| impossible_record(spec, r)) {
        return Err(crate::checkpoint::damaged(path, true, &reason));
    }
    let trace = match &stored.trace {
        Some(trace) => {
            let parts = PathBuf::from(format!("{}.parts", path.display()));
            Some(TraceFile::kept(Path::new(trace), &parts, resume.is_some())?)
        }
        None => None,
    };
    let stored = stored.to_json()?;
    let checkpointer = Checkpointer::new(path, stored, resume, true)?;
    let records = checkpointer.around(every, || {
        spec.run_records(on_done, |index| {
            let record = checkpointer.run_trial(index, |checkpoint| match &trace {
                Some(file) => file.trial(spec, index, Some(checkpoint)),
                None => spec.trial_checkpointed(index, &mut Series::default(), checkpoint),
            })?;
            // Derived from the exact steps, not read back (a float's last digit may not
            // survive the JSON of a checkpoint).
            Ok(TrialRecord { parallel_time: record.steps.parallel_time(spec.n), ..record })
        })
    })?;
    if let Some(file) = trace {
        file.finish(spec)?;
    }
    Ok(spec.result(records))
}
