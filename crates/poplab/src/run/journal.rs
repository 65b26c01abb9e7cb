//! Work written down as it finishes, so that a computation killed and run again reads it back
//! instead of doing it again: a search's trials ([`SearchSettings::journal`]) and a splitting
//! estimate's repetitions ([`estimate_holding`]'s journal).
//!
//! Both are deterministic: a search's trial is a function of its start, seed, index and horizon,
//! a repetition of its index, and what runs next depends only on what ran before. Replayed from
//! its journal, a computation takes the same path and returns the same result (its processor
//! seconds included: what is read back counts the seconds it took when it ran).
//!
//! A journal is a text file: a header that names the computation, then a line per piece of work
//! (a search's trial: `START SEED INDEX HORIZON STEPS OUTCOME CORE_SECONDS`, the start as the
//! FNV-1a hash of its description, `c` converged or `x` censored; a repetition: its index and
//! fields). Numbers are written as Rust writes them, so that they read back exactly. A
//! last line cut by a kill is dropped; any other defect is an error naming the file, and the
//! journal of another computation is refused.
//!
//! [`SearchSettings::journal`]: crate::search::SearchSettings::journal
//! [`estimate_holding`]: crate::splitting::estimate_holding

use crate::error::{Error, Result};
use crate::files::fnv1a64;
use crate::init::InitSpec;
use std::collections::HashMap;
use std::hash::Hash;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &str = "poplab-journal 1";

/// Finished work by key, read back, and the file new work is appended to.
#[derive(Debug)]
pub(crate) struct Journal<K, V> {
    known: HashMap<K, V>,
    file: Option<(PathBuf, Mutex<std::fs::File>)>,
}

impl<K: Hash + Eq, V: Clone> Journal<K, V> {
    /// No journal: everything runs.
    pub(crate) fn none() -> Self {
        Journal { known: HashMap::new(), file: None }
    }

    /// Opens the journal at `path` of the computation named `identity` (created if missing),
    /// reading back its lines with `parse`.
    pub(crate) fn open(path: &Path, identity: &str, parse: impl Fn(&str) -> Option<(K, V)>) -> Result<Self> {
        let header = format!("{MAGIC} {identity}\n");
        let bad = |reason: String| Error::File { path: path.display().to_string(), reason };
        let io = |e: std::io::Error| bad(format!("cannot be used as a journal ({e})"));
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
                    "is not the journal of this computation ({}); delete it to start again",
                    text.lines().next().unwrap_or("").trim()
                )));
            }
            for (number, line) in text[header.len()..complete].lines().enumerate() {
                let (key, value) =
                    parse(line).ok_or_else(|| bad(format!("line {} is not a journal line: '{line}'", number + 2)))?;
                known.insert(key, value);
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

    /// The work `key` read back, if the journal holds it.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.known.get(key).cloned()
    }

    /// Appends a finished piece of work, as its `line` (without the newline); nothing without a
    /// file.
    pub(crate) fn record(&self, line: &str) -> Result<()> {
        let Some((path, file)) = &self.file else { return Ok(()) };
        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(format!("{line}\n").as_bytes())
            .map_err(|e| Error::Io(format!("'{}': cannot write the journal ({e})", path.display())))
    }
}

/// A search's trial: which start, seed, index and horizon.
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

/// A search's journal.
pub(crate) type TrialJournal = Journal<TrialKey, Timed>;

/// A search's journal line of a trial.
pub(crate) fn trial_line(key: &TrialKey, timed: &Timed) -> String {
    format!(
        "{:016x} {:016x} {} {} {} {} {}",
        key.start,
        key.seed,
        key.index,
        key.horizon,
        timed.steps,
        if timed.censored { 'x' } else { 'c' },
        timed.seconds
    )
}

/// Reads [`trial_line`]'s line back.
pub(crate) fn parse_trial(line: &str) -> Option<(TrialKey, Timed)> {
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

/// The hash that names a start in a search's journal: of its states for an explicit start, of
/// its name for a family (drawn anew for each trial from the trial's seed).
pub(crate) fn start_hash(init: &InitSpec) -> u64 {
    match init {
        InitSpec::Explicit(states) => fnv1a64(serde_json::Value::from(states.clone()).to_string().as_bytes()),
        other => fnv1a64(other.name().as_bytes()),
    }
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
            let journal = TrialJournal::open(&path, "ls-timer n=6", parse_trial).unwrap();
            assert_eq!(journal.get(&key(0)), None);
            journal.record(&trial_line(&key(0), &timed)).unwrap();
            journal.record(&trial_line(&key(1), &Timed { censored: true, ..timed })).unwrap();
        }
        // A kill in the middle of a line.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("0000000000000007 0000000000000009 2 10");
        std::fs::write(&path, &text).unwrap();
        let journal = TrialJournal::open(&path, "ls-timer n=6", parse_trial).unwrap();
        assert_eq!(journal.get(&key(0)), Some(timed));
        assert_eq!(journal.get(&key(1)).map(|t| t.censored), Some(true));
        assert_eq!(journal.get(&key(2)), None);
        journal.record(&trial_line(&key(2), &timed)).unwrap();
        drop(journal);
        assert_eq!(TrialJournal::open(&path, "ls-timer n=6", parse_trial).unwrap().get(&key(2)), Some(timed));
    }

    #[test]
    fn another_search_or_a_damaged_line_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        TrialJournal::open(&path, "ls-timer n=6", parse_trial)
            .unwrap()
            .record(&trial_line(&TrialKey::new(1, 2, 3, 4), &Timed { steps: 5, censored: false, seconds: 0.0 }))
            .unwrap();
        let error = TrialJournal::open(&path, "ls-timer n=7", parse_trial).unwrap_err().to_string();
        assert!(error.contains("not the journal of this computation") && error.contains("n=6"), "{error}");
        let text = std::fs::read_to_string(&path).unwrap().replace(" c ", " q ");
        std::fs::write(&path, text).unwrap();
        let error = TrialJournal::open(&path, "ls-timer n=6", parse_trial).unwrap_err().to_string();
        assert!(error.contains("line 2 is not a journal line"), "{error}");
    }
}
