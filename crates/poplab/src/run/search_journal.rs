//! A search's trials written down as they finish ([`SearchSettings::journal`]), so that a search
//! that is killed and run again reads them back instead of running them again.
//!
//! A search is deterministic: a trial is a function of its start, seed, index and horizon, and
//! which trials run next depends only on the trials before. Replayed from its journal, a search
//! takes the same path and returns the same result (its processor seconds included: a trial read
//! back counts the seconds it took when it ran).
//!
//! The file is text: a header naming the search, then a line per trial,
//! `START SEED INDEX HORIZON STEPS OUTCOME CORE_SECONDS` (the start as the FNV-1a hash of its
//! description, `c` converged or `x` censored). A last line cut by a kill is dropped; any other
//! defect is an error naming the file.
//!
//! [`SearchSettings::journal`]: crate::search::SearchSettings::journal

use crate::error::{Error, Result};
use crate::files::fnv1a64;
use crate::init::InitSpec;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &str = "poplab-search-journal 1";

/// One trial's identity: which start, seed, index and horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TrialKey {
    start: u64,
    seed: u64,
    index: u64,
    horizon: u128,
}

impl TrialKey {
    pub(crate) fn new(start: u64, seed: u64, index: u64, horizon: u128) -> Self {
        TrialKey { start, seed, index, horizon }
    }
}

/// What a trial of a search measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Timed {
    /// Steps to the safe set (to the horizon if censored).
    pub steps: u128,
    /// Whether it reached the horizon first.
    pub censored: bool,
    /// The processor seconds it took.
    pub seconds: f64,
}

/// The hash that names a start in the journal: of its states for an explicit start, of its name
/// for a family (drawn anew for each trial from the trial's seed).
pub(crate) fn start_hash(init: &InitSpec) -> u64 {
    match init {
        InitSpec::Explicit(states) => fnv1a64(serde_json::Value::from(states.clone()).to_string().as_bytes()),
        other => fnv1a64(other.name().as_bytes()),
    }
}

/// The trials of one search: those read back, and the file new ones are appended to.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    known: HashMap<TrialKey, Timed>,
    file: Option<(PathBuf, Mutex<std::fs::File>)>,
}

impl Journal {
    /// No journal: every trial runs.
    pub(crate) fn none() -> Self {
        Journal::default()
    }

    /// Opens the journal at `path` for the search named `identity` (created if missing), reading
    /// back the trials it holds.
    pub(crate) fn open(path: &Path, identity: &str) -> Result<Self> {
        let header = format!("{MAGIC} {identity}\n");
        let bad = |reason: String| Error::File { path: path.display().to_string(), reason };
        let io = |e: std::io::Error| bad(format!("cannot be used as a search journal ({e})"));
        let mut known = HashMap::new();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        // Only complete lines count: a kill may cut the last one.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        if complete > 0 {
            if !text.starts_with(&header) {
                return Err(bad(format!(
                    "is not the journal of this search ({}); delete it to search again",
                    text.lines().next().unwrap_or("").trim()
                )));
            }
            for (number, line) in text[header.len()..complete].lines().enumerate() {
                let (key, timed) = parse_line(line)
                    .ok_or_else(|| bad(format!("line {} is not a journal line: '{line}'", number + 2)))?;
                known.insert(key, timed);
            }
        }
        let mut file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path).map_err(io)?;
        if complete == 0 {
            file.set_len(0).map_err(io)?;
            file.write_all(header.as_bytes()).map_err(io)?;
        } else {
            file.set_len(complete as u64).map_err(io)?;
        }
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
        Ok(Journal { known, file: Some((path.to_path_buf(), Mutex::new(file))) })
    }

    /// The trial `key` read back, if the journal holds it.
    pub(crate) fn get(&self, key: &TrialKey) -> Option<Timed> {
        self.known.get(key).copied()
    }

    /// Appends a finished trial (nothing without a file).
    pub(crate) fn record(&self, key: &TrialKey, timed: &Timed) -> Result<()> {
        let Some((path, file)) = &self.file else { return Ok(()) };
        let line = format!(
            "{:016x} {:016x} {} {} {} {} {}\n",
            key.start,
            key.seed,
            key.index,
            key.horizon,
            timed.steps,
            if timed.censored { 'x' } else { 'c' },
            timed.seconds
        );
        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(line.as_bytes())
            .map_err(|e| Error::Io(format!("'{}': cannot write the search journal ({e})", path.display())))
    }
}

fn parse_line(line: &str) -> Option<(TrialKey, Timed)> {
    let words: Vec<&str> = line.split(' ').collect();
    let [start, seed, index, horizon, steps, outcome, seconds] = words[..] else { return None };
    let key = TrialKey {
        start: u64::from_str_radix(start, 16).ok()?,
        seed: u64::from_str_radix(seed, 16).ok()?,
        index: index.parse().ok()?,
        horizon: horizon.parse().ok()?,
    };
    let censored = match outcome {
        "c" => false,
        "x" => true,
        _ => return None,
    };
    let seconds: f64 = seconds.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
    Some((key, Timed { steps: steps.parse().ok()?, censored, seconds }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_are_read_back_and_a_cut_last_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let key = |i| TrialKey::new(7, 9, i, 1000);
        let timed = Timed { steps: 42, censored: false, seconds: 0.25 };
        {
            let journal = Journal::open(&path, "ls-timer n=6").unwrap();
            assert_eq!(journal.get(&key(0)), None);
            journal.record(&key(0), &timed).unwrap();
            journal.record(&key(1), &Timed { censored: true, ..timed }).unwrap();
        }
        // A kill in the middle of a line.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("0000000000000007 0000000000000009 2 10");
        std::fs::write(&path, &text).unwrap();
        let journal = Journal::open(&path, "ls-timer n=6").unwrap();
        assert_eq!(journal.get(&key(0)), Some(timed));
        assert_eq!(journal.get(&key(1)).map(|t| t.censored), Some(true));
        assert_eq!(journal.get(&key(2)), None);
        journal.record(&key(2), &timed).unwrap();
        drop(journal);
        assert_eq!(Journal::open(&path, "ls-timer n=6").unwrap().get(&key(2)), Some(timed));
    }

    #[test]
    fn another_search_or_a_damaged_line_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        Journal::open(&path, "ls-timer n=6")
            .unwrap()
            .record(&TrialKey::new(1, 2, 3, 4), &Timed { steps: 5, censored: false, seconds: 0.0 })
            .unwrap();
        let error = Journal::open(&path, "ls-timer n=7").unwrap_err().to_string();
        assert!(error.contains("not the journal of this search") && error.contains("n=6"), "{error}");
        let text = std::fs::read_to_string(&path).unwrap().replace(" c ", " q ");
        std::fs::write(&path, text).unwrap();
        let error = Journal::open(&path, "ls-timer n=6").unwrap_err().to_string();
        assert!(error.contains("line 2 is not a journal line"), "{error}");
    }
}
