//! Checkpoints inside long runs: a killed run goes on from its last checkpoint and gives the same
//! results as if it had never stopped.
//!
//! **What a checkpoint holds.** The spec as the user gave it ([`StoredSpec`], written by
//! [`crate::checkpointed`]: a resume needs no other argument; `@FILE` inputs are named by absolute
//! path with a digest of their contents, and refused if they changed), the records of the finished trials, and a snapshot of each running
//! trial ([`TrialSnapshot`]): its engine's state at a safe point (see
//! [`crate::engine::snapshot`]) and the faults' stream. The faults done are those at or before the
//! snapshot's step. Trials not started yet start from scratch, as they would have.
//!
//! **When.** A writer thread wakes every `every` (a [`Duration`]), raises the [`Pause`] of every
//! running trial, waits until each has handed over a snapshot (at its next safe point: within a
//! block of 64 pairs, one event or one batch) or finished, and writes the file atomically
//! ([`files::write_atomic`]). Trials go on right after their snapshot, and pausing changes nothing
//! they draw, so a checkpointed run gives the same results as one that is not. A write that
//! fails (a full disk) stops every trial at its next safe point with its error, and none starts:
//! a run loses at most one period. A trial that panics ends here too (a drop guard), so the writer
//! never waits for its snapshot.
//!
//! **The file.** One line `poplab-checkpoint VERSION CHECKSUM`, then a JSON document. `VERSION` is
//! [`FORMAT_VERSION`]; `CHECKSUM` is the FNV-1a 64-bit hash of the document in hex. A file of
//! another format version, of another poplab version (engines may draw differently), or whose
//! checksum does not match (cut short, edited) is refused with [`Error::Checkpoint`]; so is one
//! resealed with contents no run writes (`is damaged (...)`): the engines' restores check every
//! field against the run (agent indices and pairs, counts summed without wrapping, random streams
//! that are not all zeros), a snapshot's step against the horizon, and the finished trials.
//!
//! [`StoredSpec`]: crate::checkpointed::StoredSpec

use super::record::TrialRecord;
use crate::engine::snapshot::RunSnapshot;
use crate::engine::{Pause, SeriesPosition};
use crate::error::{Error, Result};
use crate::files;
use crate::rng::PopRng;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The format version written on the first line of every checkpoint.
pub const FORMAT_VERSION: u32 = 1;

/// The first word of every checkpoint.
const MAGIC: &str = "poplab-checkpoint";

/// The poplab version that writes checkpoints; another one refuses them.
const POPLAB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The default time between checkpoints: 5 minutes.
pub const DEFAULT_EVERY: Duration = Duration::from_secs(300);

/// Reads a duration between checkpoints: a number with a unit, `ms`, `s`, `m` or `h` (`100ms`,
/// `30s`, `10m`, `1h`); at least 1 ms.
pub fn parse_every(text: &str) -> Result<Duration> {
    let bad = || Error::Option {
        option: "--checkpoint-every",
        value: text.into(),
        reason: "give a number with a unit, ms, s, m or h (for example 30s, 10m or 1h)".into(),
    };
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.').ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "ms" => number / 1000.0,
        "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => return Err(bad()),
    };
    if !(0.001..=1e9).contains(&seconds) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// One running trial at a safe point.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrialSnapshot {
    /// The trial's key in its checkpoint: its index in a run, its job number in a sweep.
    pub index: u64,
    /// The faults' stream.
    pub faults_rng: PopRng,
    /// Where its time series stood, if it has one.
    #[serde(default)]
    pub trace: Option<SeriesPosition>,
    /// The engine's state.
    pub run: RunSnapshot,
}

/// How one trial takes part in checkpoints: its pause, the snapshot it goes on from, where its
/// snapshots go.
pub(crate) struct TrialCheckpoint<'a> {
    pub(crate) pause: Pause,
    pub(crate) resume: Option<TrialSnapshot>,
    /// Takes a snapshot, or why the trial could not be written (refused by a run, which was
    /// asked to checkpoint; a sweep's trial then just restarts if the sweep is resumed).
    pub(crate) deposit: &'a (dyn Fn(Result<TrialSnapshot>) -> Result<()> + Sync),
    /// The error of a checkpoint whose snapshot of this trial cannot be restored (what is wrong).
    pub(crate) damaged: &'a (dyn Fn(String) -> Error + Sync),
}

/// A checkpoint read back: the spec, the finished trials, the running trials' snapshots.
#[derive(Debug)]
pub struct Checkpoint {
    /// The spec of the run ([`StoredSpec`](crate::checkpointed::StoredSpec)), or a sweep's definition.
    pub spec: Value,
    /// The finished trials' records.
    pub finished: Vec<TrialRecord>,
    /// The running trials' snapshots, each a [`TrialSnapshot`] as JSON.
    pub running: Vec<Value>,
}

/// The document after the first line.
#[derive(Serialize, Deserialize)]
struct Document<R> {
    poplab: String,
    spec: Value,
    finished: Vec<TrialRecord>,
    running: Vec<R>,
}

impl Checkpoint {
    /// Reads the checkpoint at `path`, refusing another format or poplab version and a damaged
    /// file.
    pub fn read(path: &Path) -> Result<Self> {
        let refuse = |reason: String| Error::Checkpoint { path: path.display().to_string(), reason };
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Err(refuse("is not a file; give the file that --checkpoint wrote".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(refuse("does not exist; give the file that --checkpoint wrote".into()));
            }
            Err(e) => return Err(refuse(format!("cannot be reached ({e}); give a file you may read"))),
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| refuse(format!("cannot be read ({e}); give the file that --checkpoint wrote")))?;
        let (head, body) = text.split_once('\n').unwrap_or((&text, ""));
        let words: Vec<&str> = head.split(' ').collect();
        if words.len() != 3 || words[0] != MAGIC {
            return Err(refuse("is not a poplab checkpoint; give the file that --checkpoint wrote".into()));
        }
        if words[1] != FORMAT_VERSION.to_string() {
            return Err(refuse(format!(
                "has checkpoint format version {}, and this poplab reads version {FORMAT_VERSION}; finish the run with \
                 the poplab that wrote it, or start it again",
                words[1]
            )));
        }
        if words[2] != format!("{:016x}", crate::files::fnv1a64(body.as_bytes())) {
            return Err(refuse(
                "is damaged: its checksum does not match its contents (cut short or edited); resume from an intact \
                 copy or start the run again"
                    .into(),
            ));
        }
        let document: Document<Value> =
            serde_json::from_str(body).map_err(|e| refuse(format!("is damaged ({e}); start the run again")))?;
        if document.poplab != POPLAB_VERSION {
            return Err(refuse(format!(
                "was written by poplab {}, this is poplab {POPLAB_VERSION} (its engines may draw differently); \
                 finish the run with the poplab that wrote it, or start it again",
                document.poplab
            )));
        }
        Ok(Self { spec: document.spec, finished: document.finished, running: document.running })
    }
}

/// The error of the checkpoint at `path` whose content is damaged: `reason` says what; the advice
/// suits a run's checkpoint (`keeps_finished`) or a sweep's `running.ckpt` (whose finished trials
/// are in its rows).
pub(crate) fn damaged(path: &Path, keeps_finished: bool, reason: &str) -> Error {
    let fix = if keeps_finished {
        "resume from an intact copy or start the run again"
    } else {
        "remove it: only the running trials restart, the finished ones are kept"
    };
    Error::Checkpoint { path: path.display().to_string(), reason: format!("is damaged ({reason}); {fix}") }
}

/// Checks, before any work, that a checkpoint can be written at `path` and read back by
/// `--resume`: an output file ([`files::check_output_file`]) that is a regular file, not a device
/// or a pipe (`/dev/null`, a named pipe that would block until read).
pub fn check_path(path: &Path) -> Result<()> {
    files::check_output_file(path)?;
    if files::output_target(path)?.in_place {
        return Err(Error::File {
            path: path.display().to_string(),
            reason: "is a device or a pipe, from which --resume could not read the checkpoint back; name a regular \
                     file"
                .into(),
        });
    }
    Ok(())
}

/// The first line of a checkpoint whose document is `body` (with its newline): the format version
/// and `body`'s checksum. [`Checkpoint::read`] reads the file `head(body) + body`.
pub fn head(body: &str) -> String {
    format!("{MAGIC} {FORMAT_VERSION} {:016x}\n", crate::files::fnv1a64(body.as_bytes()))
}

/// Writes `body` as a checkpoint at `path`, atomically.
fn write_file(path: &Path, body: &str) -> Result<()> {
    let head = head(body);
    files::write_atomic_with(path, |out| {
        out.write_all(head.as_bytes())?;
        out.write_all(body.as_bytes())
    })
}

/// A running trial as the checkpoints see it.
struct Running {
    pause: Arc<AtomicBool>,
    /// Its last snapshot, as JSON.
    snapshot: Option<String>,
    /// Whether a snapshot was asked for and not handed over yet.
    asked: bool,
}

#[derive(Default)]
struct Slots {
    finished: BTreeMap<u64, TrialRecord>,
    running: BTreeMap<u64, Running>,
    /// Snapshots read from a checkpoint, of trials not restarted yet (as JSON).
    waiting: BTreeMap<u64, String>,
    /// Why the last checkpoint could not be written (a full disk): every trial then stops at its
    /// next safe point with this error, and none starts, so a run loses at most one period.
    failed: Option<Error>,
}

/// The checkpoints of one run: what each trial has done, written to `path` every `every`.
pub(crate) struct Checkpointer {
    path: PathBuf,
    spec: Value,
    /// Whether finished trials are kept in the file (a run's; a sweep keeps them in its rows).
    keep_finished: bool,
    slots: Mutex<Slots>,
    changed: Condvar,
}

/// Ends a trial that unwound (a panic) before it could end itself: a checkpoint waiting for its
/// snapshot goes on without it.
struct Ended<'c> {
    checkpointer: &'c Checkpointer,
    key: u64,
    done: bool,
}

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.checkpointer.end(self.key, None);
        }
    }
}

/// Tells the writer thread of [`Checkpointer::around`] that the work ended, however it ended (a
/// panic too), so that the thread, and the process, do not wait for it forever.
struct WorkEnded<'d>(&'d (Mutex<bool>, Condvar));

impl Drop for WorkEnded<'_> {
    fn drop(&mut self) {
        *self.0.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.1.notify_all();
    }
}

/// How a trial starts under checkpoints.
enum Start {
    /// It finished before the checkpoint: its record.
    Done(TrialRecord),
    /// It runs, from its snapshot if it has one.
    Run(Pause, Option<Box<TrialSnapshot>>),
}

impl Checkpointer {
    /// The checkpoints of a run of `spec` into `path`, going on from `resume` if given; finished
    /// trials are written too if `keep_finished`.
    pub(crate) fn new(path: &Path, spec: Value, resume: Option<Checkpoint>, keep_finished: bool) -> Result<Self> {
        let checkpointer = Self {
            path: path.to_path_buf(),
            spec,
            keep_finished,
            slots: Mutex::new(Slots::default()),
            changed: Condvar::new(),
        };
        if let Some(resume) = resume {
            let mut slots = checkpointer.lock();
            for record in resume.finished {
                slots.finished.insert(record.index, record);
            }
            for snapshot in resume.running {
                let index = snapshot
                    .get("index")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| checkpointer.damaged("a running trial without an index"))?;
                slots.waiting.insert(index, snapshot.to_string());
            }
        }
        Ok(checkpointer)
    }

    /// Drops the snapshots of trials that `done` says are finished elsewhere (a sweep's rows).
    pub(crate) fn forget(&self, done: impl Fn(u64) -> bool) {
        self.lock().waiting.retain(|&key, _| !done(key));
    }

    /// Runs the trial with key `key` (its index in a run, its job in a sweep) by `trial`, from its
    /// snapshot if it has one, handing over snapshots when asked; a trial that finished before the
    /// checkpoint gives its record at once.
    pub(crate) fn run_trial(
        &self,
        key: u64,
        trial: impl FnOnce(TrialCheckpoint<'_>) -> Result<TrialRecord>,
    ) -> Result<TrialRecord> {
        match self.start(key)? {
            Start::Done(record) => Ok(record),
            Start::Run(pause, resume) => {
                let deposit = |snapshot: Result<TrialSnapshot>| match snapshot {
                    Ok(snapshot) => self.deposit(key, Some(TrialSnapshot { index: key, ..snapshot })),
                    Err(e) if self.keep_finished => Err(e),
                    Err(_) => self.deposit(key, None),
                };
                let damaged = |reason: String| self.damaged(&reason);
                // A trial that panics still ends here, so that no checkpoint waits for its
                // snapshot forever.
                let mut ended = Ended { checkpointer: self, key, done: false };
                let record =
                    trial(TrialCheckpoint { pause, resume: resume.map(|r| *r), deposit: &deposit, damaged: &damaged });
                ended.done = true;
                self.end(key, record.as_ref().ok());
                record
            }
        }
    }

    /// The error of a checkpoint whose content is damaged: `reason` says what, and the advice
    /// suits a run's checkpoint or a sweep's `running.ckpt` (whose finished trials are in rows).
    pub(crate) fn damaged(&self, reason: &str) -> Error {
        damaged(&self.path, self.keep_finished, reason)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Trial `index` starts: its record if it finished, else its pause and snapshot.
    fn start(&self, index: u64) -> Result<Start> {
        let mut slots = self.lock();
        if let Some(error) = &slots.failed {
            return Err(error.clone());
        }
        if let Some(record) = slots.finished.get(&index) {
            return Ok(Start::Done(record.clone()));
        }
        let saved = slots.waiting.remove(&index);
        let resume = match &saved {
            None => None,
            Some(text) => Some(
                serde_json::from_str::<Box<TrialSnapshot>>(text)
                    .map_err(|e| self.damaged(&format!("trial {index}: {e}")))?,
            ),
        };
        let pause = Arc::new(AtomicBool::new(false));
        slots.running.insert(index, Running { pause: pause.clone(), snapshot: saved, asked: false });
        Ok(Start::Run(Pause::new(pause), resume))
    }

    /// Running trial `key` hands over its snapshot (`None`: it has none to give).
    fn deposit(&self, key: u64, snapshot: Option<TrialSnapshot>) -> Result<()> {
        let text = snapshot
            .map(|s| serde_json::to_string(&s).map_err(|e| Error::Io(format!("a checkpoint: {e}"))))
            .transpose()?;
        let mut slots = self.lock();
        if let Some(error) = &slots.failed {
            return Err(error.clone());
        }
        if let Some(running) = slots.running.get_mut(&key) {
            running.snapshot = text;
            running.asked = false;
        }
        self.changed.notify_all();
        Ok(())
    }

    /// Trial `index` ended, with its record (`None`: it failed).
    fn end(&self, index: u64, record: Option<&TrialRecord>) {
        let mut slots = self.lock();
        slots.running.remove(&index);
        if let Some(record) = record.filter(|_| self.keep_finished) {
            slots.finished.insert(index, TrialRecord { trace: Vec::new(), events: Vec::new(), ..record.clone() });
        }
        self.changed.notify_all();
    }

    /// Asks every running trial for a snapshot, waits for them, and writes the checkpoint.
    pub(crate) fn checkpoint(&self) -> Result<()> {
        let mut slots = self.lock();
        for running in slots.running.values_mut() {
            running.asked = true;
            running.pause.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        while slots.running.values().any(|r| r.asked) {
            slots = self.changed.wait(slots).unwrap_or_else(|e| e.into_inner());
        }
        let written = self.write(&slots);
        if let Err(error) = &written {
            // The trials stop at their next safe point: their pauses are raised again.
            slots.failed = Some(error.clone());
            slots.running.values().for_each(|r| r.pause.store(true, std::sync::atomic::Ordering::Relaxed));
        }
        written
    }

    /// Writes what `slots` hold.
    fn write(&self, slots: &Slots) -> Result<()> {
        let mut running: BTreeMap<u64, &str> = slots.waiting.iter().map(|(&i, s)| (i, s.as_str())).collect();
        running.extend(slots.running.iter().filter_map(|(&i, r)| r.snapshot.as_deref().map(|s| (i, s))));
        let document = Document::<Value> {
            poplab: POPLAB_VERSION.to_string(),
            spec: self.spec.clone(),
            finished: slots.finished.values().cloned().collect(),
            running: Vec::new(),
        };
        let mut body = serde_json::to_string(&document).map_err(|e| Error::Io(format!("a checkpoint: {e}")))?;
        // The snapshots are already JSON: spliced into the empty array at the end.
        let empty = "\"running\":[]}";
        debug_assert!(body.ends_with(empty));
        body.truncate(body.len() - empty.len());
        body.push_str("\"running\":[");
        body.push_str(&running.into_values().collect::<Vec<_>>().join(","));
        body.push_str("]}");
        write_file(&self.path, &body)
    }

    /// Writes the checkpoint as it stands (at the end of a run: every trial finished).
    pub(crate) fn write_now(&self) -> Result<()> {
        let slots = self.lock();
        self.write(&slots)
    }

    /// Runs `work`, checkpointing every `every` on a thread of its own until it returns; then
    /// writes a last checkpoint if it succeeded.
    pub(crate) fn around<T>(&self, every: Duration, work: impl FnOnce() -> Result<T>) -> Result<T> {
        let done = (Mutex::new(false), Condvar::new());
        let result = std::thread::scope(|scope| {
            let writer = scope.spawn(|| -> Result<()> {
                let mut finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    // The work may have ended before this thread first waited.
                    if *finished {
                        return Ok(());
                    }
                    let (guard, timeout) = done.1.wait_timeout(finished, every).unwrap_or_else(|e| e.into_inner());
                    finished = guard;
                    if *finished {
                        return Ok(());
                    }
                    if timeout.timed_out() {
                        drop(finished);
                        self.checkpoint()?;
                        finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
                    }
                }
            });
            let result = {
                let _ended = WorkEnded(&done);
                work()
            };
            let written = writer.join().unwrap_or_else(|_| Err(Error::Io("the checkpoint writer failed".into())));
            written.and(result)
        })?;
        self.write_now()?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R4: a trial that panics under checkpoints ends the run, the panic going on to the caller;
    /// the checkpoint writer waited forever for the dead trial's snapshot, and the work for the
    /// writer.
    #[test]
    fn r4_a_panicking_trial_ends_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let checkpointer: &'static Checkpointer =
            Box::leak(Box::new(Checkpointer::new(&dir.path().join("c.ckpt"), Value::Null, None, true).unwrap()));
        let (sender, receiver) = std::sync::mpsc::channel();
        // Not scoped: a run that hangs must fail the test, not hang it.
        std::thread::spawn(move || {
            let ended = std::panic::catch_unwind(|| {
                checkpointer.around(Duration::from_millis(1), || {
                    checkpointer.run_trial(0, |_| -> Result<TrialRecord> {
                        // Checkpoints ask for this trial's snapshot meanwhile.
                        std::thread::sleep(Duration::from_millis(50));
                        panic!("a bug in a trial")
                    })
                })
            });
            sender.send(ended.is_err()).unwrap();
        });
        assert_eq!(receiver.recv_timeout(Duration::from_secs(30)), Ok(true));
    }
}
