//! Exporters: a run's results as a JSON document, CSV rows or a time series, behind one trait.
//!
//! [`exact_json`] and [`verify_json`] are the documents of `poplab exact --json` and `poplab verify
//! --json`.
//!
//! Every format carries the run's settings, the generator and the seeds, so a file alone says how
//! to reproduce it. Step counts are exact integers of up to 128 bits in every format.

use crate::checkpoint::TrialCheckpoint;
use crate::engine::{EventPoint, TraceEvery, TracePoint};
use crate::error::{Error, Result};
use crate::exact::{Check, Counterexample, ExactReport, StartTime, StartTimes, Verification};
use crate::experiment::TrialRecord;
use crate::files;
use crate::protocol::Output;
use crate::rng::RNG_NAME;
use crate::search::{Found, SearchResult, SearchSettings};
use crate::spec::{EstimateResult, RunResult, RunSpec};
use serde_json::{Value, json};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Turns a run's results into the text of one output format.
///
/// ```
/// use poplab::engine::TraceEvery;
/// use poplab::export::{Csv, Exporter, Json, Trace};
/// use poplab::spec::{RawSpec, RunSpec};
///
/// let raw = RawSpec { trials: 3, seed: 1, trace_every: Some(TraceEvery::Steps(50)), ..RawSpec::new("angluin", 10) };
/// let result = RunSpec::resolve(&raw)?.run(&|| {})?;
/// // poplab run ... --csv: a header, then a row per trial with the run's settings.
/// let csv = Csv.export(&result)?;
/// assert_eq!(csv.lines().count(), 4);
/// assert!(csv.starts_with("protocol,n,params,graph,init,measure,engine,rng,master_seed,trial,"));
/// // poplab run ... --json
/// let json: serde_json::Value = serde_json::from_str(&Json.export(&result)?)?;
/// assert_eq!(json["trials"][2]["outcome"], "converged");
/// assert_eq!(json["rng"], "Xoshiro256PlusPlus");
/// // poplab run ... --trace FILE: the time series of every trial.
/// let trace = Trace.export(&result)?;
/// assert!(trace.starts_with("trial,step,parallel_time,leaders\n0,0,0,10\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Exporter<R = RunResult> {
    /// The whole output for `result`.
    fn export(&self, result: &R) -> Result<String>;
}

/// The JSON document of `poplab run --json` (its fields are listed in README.md), of trials or of
/// a splitting estimate.
pub struct Json;

/// One CSV row per trial, the run's settings on every row (tidy data).
pub struct Csv;

/// The time series of every trial as CSV: trial, step, parallel time, leaders, protocol columns
/// (from the records' in-memory series; [`TraceFile`] streams the same rows while trials run).
pub struct Trace;

impl Exporter for Json {
    fn export(&self, result: &RunResult) -> Result<String> {
        let s = &result.spec.settings;
        let faults: Vec<Value> =
            s.faults.iter().map(|f| json!({"step": f.step, "count": f.count, "states": f.states_name()})).collect();
        document(
            &result.spec,
            s.engine.name(),
            [
                ("max_steps", json!(s.max_steps)),
                ("faults", Value::from(faults)),
                ("trials", json!(result.records)),
                ("summary", json!(result.summary)),
            ],
        )
    }
}

impl Exporter<EstimateResult> for Json {
    fn export(&self, result: &EstimateResult) -> Result<String> {
        // The estimator reads the score after every interaction, on the agent array.
        document(
            &result.spec,
            "agents",
            [("estimate", json!(result.estimate)), ("wall_seconds", json!(result.wall_seconds))],
        )
    }
}

/// A run's JSON document: what ran (protocol, size, parameters, graph, start, measure, `engine`,
/// generator and seed), then `results`.
fn document<const N: usize>(spec: &RunSpec, engine: &str, results: [(&str, Value); N]) -> Result<String> {
    let s = &spec.settings;
    let head = [
        ("protocol", json!(spec.protocol)),
        ("n", json!(spec.n)),
        ("params", json!(spec.params)),
        ("graph", json!(s.graph.name())),
        ("init", json!(s.init.name())),
        ("measure", json!(s.measure.name())),
        ("engine", json!(engine)),
        ("rng", json!(RNG_NAME)),
        ("seed", json!(s.seed)),
    ];
    let fields: serde_json::Map<String, Value> =
        head.into_iter().chain(results).map(|(key, value)| (key.to_string(), value)).collect();
    Ok(format!("{:#}\n", Value::Object(fields)))
}

/// The columns of [`Csv`].
fn csv_columns() -> Vec<&'static str> {
    let mut columns = vec!["protocol", "n", "params", "graph", "init", "measure", "engine", "rng", "master_seed"];
    columns.extend(TrialRecord::OUTCOME_COLUMNS);
    columns.push("recovery_steps");
    columns.extend(TrialRecord::CENSUS_COLUMNS);
    columns
}

impl Exporter for Csv {
    fn export(&self, result: &RunResult) -> Result<String> {
        let spec = &result.spec;
        let s = &spec.settings;
        let params = Value::Object(spec.params.clone()).to_string();
        let mut lines = csv_line(csv_columns());
        for r in &result.records {
            let mut fields = vec![
                spec.protocol.clone(),
                spec.n.to_string(),
                params.clone(),
                s.graph.name(),
                s.init.name(),
                s.measure.name().to_string(),
                s.engine.name().to_string(),
                RNG_NAME.to_string(),
                s.seed.to_string(),
            ];
            fields.extend(r.outcome_fields());
            fields.push(r.recovery_steps.map(|s| s.0.to_string()).unwrap_or_default());
            fields.extend(r.census_fields());
            lines += &csv_line(fields);
        }
        Ok(lines)
    }
}

impl Exporter for Trace {
    fn export(&self, result: &RunResult) -> Result<String> {
        let counts = CountColumns::of(&result.spec);
        let mut text = trace_header(&result.spec, &counts);
        for record in &result.records {
            for point in &record.trace {
                text += &trace_row(&result.spec, &counts, record.index, point)
                    .map_err(|number| Error::Io(unknown_state(number)))?;
            }
            for event in &record.events {
                event_row(&mut text, &result.spec, record.index, event);
            }
        }
        Ok(text)
    }
}

fn trace_header(spec: &RunSpec, counts: &CountColumns) -> String {
    let mut header = vec!["trial".to_string(), "step".into(), "parallel_time".into()];
    if spec.settings.trace_every == Some(TraceEvery::Event) {
        header.extend(EVENT_COLUMNS.map(String::from));
    } else {
        header.push("leaders".into());
        header.extend(spec.trace_columns.iter().cloned());
        header.extend(counts.names());
    }
    csv_line(header)
}

/// The outputs in the order of their columns.
const OUTPUT_ORDER: [Output; 5] = [Output::Leader, Output::Follower, Output::Yes, Output::No, Output::Undecided];

/// The count columns of a time series, after the protocol's own, for a protocol that counts its
/// states (a user protocol; none otherwise): `output=VALUE` for each output its states give (in
/// the order leader, follower, yes, no, undecided), the agents whose output it is; then
/// `state=NAME` for each state by number, the agents in it. Each group sums to `n` at every
/// sample.
///
/// ```
/// use poplab::engine::{Series, TraceEvery};
/// use poplab::export::CountColumns;
/// use poplab::protocols::custom::{Custom, file};
/// use poplab::spec::{RawSpec, RunSpec};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/protocols/angluin.toml");
/// let protocol = Custom::new(&file::read(path)?, 2)?;
/// let raw = RawSpec { trace_every: Some(TraceEvery::Steps(50)), seed: 1, ..RawSpec::new("angluin", 20) };
/// let spec = RunSpec::resolve_custom(&raw, &protocol)?;
/// let mut series = Series::default();
/// spec.trial(0, &mut series)?;
/// let columns = CountColumns::of(&spec);
/// assert_eq!(columns.names(), ["output=leader", "output=follower", "state=L", "state=F"]);
/// let first = columns.counts(&series.points[0].states).unwrap();
/// assert_eq!(first, [20, 0, 20, 0]);
/// let last = columns.counts(&series.points.last().unwrap().states).unwrap();
/// assert_eq!(last, [1, 19, 1, 19]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountColumns {
    /// The outputs that have a column, in [`OUTPUT_ORDER`].
    outputs: Vec<Output>,
    /// The names of the states, by number.
    states: Vec<String>,
    /// By state number: the index in `outputs` of its output.
    output_of: Vec<usize>,
}

impl CountColumns {
    /// The count columns of `spec`'s protocol, for the states it knows now
    /// ([`RunSpec::state_names`]).
    pub fn of(spec: &RunSpec) -> Self {
        let named = spec.state_names();
        let outputs: Vec<Output> = OUTPUT_ORDER.into_iter().filter(|o| named.iter().any(|(_, s)| s == o)).collect();
        let output_of = named.iter().map(|(_, o)| outputs.iter().position(|x| x == o).expect("listed above")).collect();
        Self { outputs, states: named.into_iter().map(|(name, _)| name).collect(), output_of }
    }

    /// The columns' names: `output=VALUE`, then `state=NAME`.
    pub fn names(&self) -> Vec<String> {
        let outputs = self.outputs.iter().map(|&o| format!("output={}", crate::protocols::custom::output_name(o)));
        outputs.chain(self.states.iter().map(|s| format!("state={s}"))).collect()
    }

    /// The columns' values for a sample's (state number, count) pairs of the states present
    /// ([`TracePoint::states`]): outputs, then every state (0 for those absent). `Err` gives a
    /// state number beyond the columns (a callback protocol's state first met after they were
    /// fixed).
    pub fn counts(&self, states: &[(u32, u64)]) -> std::result::Result<Vec<u64>, u32> {
        let mut counts = vec![0; self.outputs.len() + self.states.len()];
        for &(number, count) in states {
            let output = *self.output_of.get(number as usize).ok_or(number)?;
            counts[output] += count;
            counts[self.outputs.len() + number as usize] += count;
        }
        Ok(counts)
    }
}

/// The columns of an event trace after `trial, step, parallel_time`: the states of the two agents
/// before and after ([`EventPoint`]).
pub const EVENT_COLUMNS: [&str; 4] = ["initiator", "responder", "initiator_after", "responder_after"];

/// One row of an event trace, newline included, appended to `row`: the states quoted as CSV
/// needs, written directly (as [`trace_row`], for speed: a row allocates nothing).
fn event_row(row: &mut String, spec: &RunSpec, trial: u64, event: &EventPoint) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(row, "{trial},{},{}", event.step, event.step as f64 / spec.n as f64);
    for state in &event.states {
        row.push(',');
        if state.contains([',', '"', '\n', '\r']) {
            row.push('"');
            for c in state.chars() {
                if c == '"' {
                    row.push('"');
                }
                row.push(c);
            }
            row.push('"');
        } else {
            row.push_str(state);
        }
    }
    row.push('\n');
}

/// One row of a time series, newline included. Every field is a number, which CSV never quotes,
/// so the row is written directly (a `csv::Writer` per row cost more than the sample itself).
/// `Err` gives a state number beyond `counts` ([`CountColumns::counts`]).
fn trace_row(
    spec: &RunSpec,
    counts: &CountColumns,
    trial: u64,
    point: &TracePoint,
) -> std::result::Result<String, u32> {
    use std::fmt::Write as _;
    let mut row = String::with_capacity(64);
    // Writing to a String cannot fail.
    let _ = write!(row, "{trial},{},{},{}", point.step, point.step as f64 / spec.n as f64, point.leaders);
    for value in &point.values {
        let _ = write!(row, ",{value}");
    }
    if !counts.states.is_empty() {
        for count in counts.counts(&point.states)? {
            let _ = write!(row, ",{count}");
        }
    }
    row.push('\n');
    Ok(row)
}

/// The error of a sample whose state `number` has no column.
fn unknown_state(number: u32) -> String {
    format!(
        "state number {number} was first met after the time series' columns were fixed: a protocol that meets its \
         states as it runs (a callback) keeps its time series in memory (RunSpec::trial with a Series, poplab.trace)"
    )
}

/// One CSV line (quoted where needed), newline included.
pub fn csv_line<I: IntoIterator<Item = T>, T: AsRef<[u8]>>(fields: I) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = writer.write_record(fields);
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Runs every trial of `spec` in parallel as [`RunSpec::run`] does, streaming the time series
/// into the CSV file `trace` (written as each trial goes, so a long series never sits in memory;
/// see [`TraceFile`]); `on_done` is called once per finished trial.
pub fn run_traced(spec: &RunSpec, on_done: &(dyn Fn() + Sync), trace: &Path) -> Result<RunResult> {
    let file = TraceFile::create(trace)?;
    let records = spec.run_records(on_done, |index| file.trial(spec, index, None))?;
    file.finish(spec)?;
    Ok(spec.result(records))
}

/// A time series written while trials run: each trial streams its rows into a part file of its
/// own next to the output; [`TraceFile::finish`] joins them in trial order into the output
/// (atomically) and removes them. Memory stays constant however long the series.
pub struct TraceFile {
    path: PathBuf,
    parts: Parts,
    failure: Mutex<Option<Error>>,
    /// The count columns, fixed when the first trial starts (rows and header agree).
    counts: std::sync::OnceLock<CountColumns>,
}

/// Where the part files are.
enum Parts {
    /// A temporary directory, removed with it.
    Temporary(tempfile::TempDir),
    /// A directory kept across processes for a checkpointed run, removed at the end.
    Kept(PathBuf),
    /// The directory of a checkpointed run that had ended: gone, its parts joined.
    Joined(PathBuf),
}

/// Streams one trial's rows into its part file.
struct PartSink<'a> {
    spec: &'a RunSpec,
    counts: &'a CountColumns,
    trial: u64,
    out: std::io::BufWriter<std::fs::File>,
    /// Bytes pushed so far, the part's length once flushed.
    written: u64,
    /// The first failed write: no row is written after it, and the trial's pause is raised so
    /// that it stops at its next safe point (where [`TraceSink::position`] reports the failure).
    failure: Option<std::io::Error>,
    pause: crate::engine::Pause,
    /// The buffer rows are written into, kept from one row to the next.
    row: String,
}

impl PartSink<'_> {
    fn write(&mut self, row: &str) {
        if self.failure.is_none() {
            match self.out.write_all(row.as_bytes()) {
                Ok(()) => self.written += row.len() as u64,
                Err(e) => {
                    self.failure = Some(e);
                    self.pause.raise();
                }
            }
        }
    }
}

impl crate::engine::TraceSink for PartSink<'_> {
    fn push(&mut self, point: TracePoint) {
        match trace_row(self.spec, self.counts, self.trial, &point) {
            Ok(row) => self.write(&row),
            Err(number) => {
                self.failure.get_or_insert_with(|| std::io::Error::other(unknown_state(number)));
                self.pause.raise();
            }
        }
    }

    fn push_event(&mut self, event: EventPoint) {
        let mut row = std::mem::take(&mut self.row);
        row.clear();
        event_row(&mut row, self.spec, self.trial, &event);
        self.write(&row);
        self.row = row;
    }

    fn position(&mut self) -> std::io::Result<u64> {
        if let Some(e) = &self.failure {
            return Err(std::io::Error::new(e.kind(), e.to_string()));
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

impl TraceFile {
    /// Prepares a series for the file at `path` (checked to be writable now).
    pub fn create(path: &Path) -> Result<Self> {
        files::check_output_file(path)?;
        let parts =
            tempfile::Builder::new().prefix(".poplab-trace-").tempdir_in(files::parent_of(path)).map_err(|e| {
                Error::File { path: path.display().to_string(), reason: format!("cannot write next to it ({e})") }
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            parts: Parts::Temporary(parts),
            failure: Mutex::new(None),
            counts: Default::default(),
        })
    }

    /// Prepares a series for the file at `path` whose parts stay in the directory `parts` until
    /// [`TraceFile::finish`], so that a checkpointed run goes on with them (`resume`; without
    /// the directory, the run had ended and written `path`); a new run starts with an empty
    /// directory.
    pub fn kept(path: &Path, parts: &Path, resume: bool) -> Result<Self> {
        files::check_output_file(path)?;
        let refuse = |e: std::io::Error| Error::File {
            path: parts.display().to_string(),
            reason: format!("cannot hold the time series' part files ({e})"),
        };
        let parts = if resume && !parts.exists() {
            Parts::Joined(parts.to_path_buf())
        } else {
            if !resume && parts.exists() {
                std::fs::remove_dir_all(parts).map_err(refuse)?;
            }
            std::fs::create_dir_all(parts).map_err(refuse)?;
            Parts::Kept(parts.to_path_buf())
        };
        Ok(Self { path: path.to_path_buf(), parts, failure: Mutex::new(None), counts: Default::default() })
    }

    fn part(&self, trial: u64) -> PathBuf {
        let dir = match &self.parts {
            Parts::Temporary(dir) => dir.path(),
            Parts::Kept(dir) | Parts::Joined(dir) => dir,
        };
        dir.join(format!("{trial}.csv"))
    }

    /// The part file of trial `index`: new, or, going on from a snapshot, the one it wrote, cut
    /// back to where the snapshot says the series stood.
    fn open_part(&self, index: u64, checkpoint: Option<&TrialCheckpoint<'_>>) -> Result<(std::fs::File, u64)> {
        let path = self.part(index);
        if let Parts::Joined(dir) = &self.parts {
            return Err(self.fail(format!(
                "cannot go on: the run's part files ('{}') are gone, as at the end of a run, and trial {index} is not \
                 finished; start the run again",
                dir.display()
            )));
        }
        let Some(written) = checkpoint.and_then(|c| c.resume.as_ref()).and_then(|s| s.trace).map(|t| t.written) else {
            let file = std::fs::File::create(&path).map_err(|e| self.fail(format!("cannot write ({e})")))?;
            return Ok((file, 0));
        };
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).map_err(|e| {
            self.fail(format!(
                "cannot go on: the part file '{}' of trial {index} cannot be opened ({e}); start the run again",
                path.display()
            ))
        })?;
        let cut = file.set_len(written).and_then(|()| file.seek(std::io::SeekFrom::End(0)).map(drop));
        cut.map_err(|e| self.fail(format!("cannot write ({e})")))?;
        Ok((file, written))
    }

    fn fail(&self, reason: String) -> Error {
        let error = Error::Io(format!("'{}' {reason}", self.path.display()));
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error.clone());
        error
    }

    /// Runs trial `index` of `spec`, streaming its rows into its part file, under `checkpoint` if
    /// given. A failed write stops the trial at its next safe point (without checkpoints, through
    /// a pause of its own whose snapshots go nowhere), so a run never goes on to its end only to
    /// throw its time series away.
    pub(crate) fn trial(
        &self,
        spec: &RunSpec,
        index: u64,
        checkpoint: Option<TrialCheckpoint<'_>>,
    ) -> Result<TrialRecord> {
        let (file, written) = self.open_part(index, checkpoint.as_ref())?;
        let (ignore, unused) = (|_| Ok(()), Error::Io);
        let checkpoint = checkpoint.unwrap_or_else(|| TrialCheckpoint {
            pause: crate::engine::Pause::new(Default::default()),
            resume: None,
            deposit: &ignore,
            damaged: &unused,
        });
        let mut sink = PartSink {
            spec,
            counts: self.counts.get_or_init(|| CountColumns::of(spec)),
            trial: index,
            out: std::io::BufWriter::new(file),
            written,
            failure: None,
            pause: checkpoint.pause.clone(),
            row: String::new(),
        };
        let record = spec.trial_checkpointed(index, &mut sink, checkpoint);
        if let Some(e) = sink.failure.take() {
            return Err(self.fail(format!("cannot write ({e})")));
        }
        let record = record?;
        sink.out.flush().map_err(|e| self.fail(format!("cannot write ({e})")))?;
        Ok(record)
    }

    /// Joins the parts, in trial order, into the output file (atomically; the parts go with the
    /// temporary directory).
    pub fn finish(self, spec: &RunSpec) -> Result<()> {
        if let Some(error) = self.failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(error);
        }
        if let Parts::Joined(_) = self.parts {
            // Written when the run ended.
            return if self.path.exists() {
                Ok(())
            } else {
                Err(Error::File {
                    path: self.path.display().to_string(),
                    reason: "was written when the checkpointed run ended and is gone; start the run again".into(),
                })
            };
        }
        files::write_atomic_with(&self.path, |out| {
            out.write_all(trace_header(spec, self.counts.get_or_init(|| CountColumns::of(spec))).as_bytes())?;
            for trial in 0..spec.settings.trials {
                std::io::copy(&mut std::fs::File::open(self.part(trial))?, out)?;
                if let Parts::Temporary(_) = self.parts {
                    std::fs::remove_file(self.part(trial))?;
                }
            }
            Ok(())
        })?;
        // Kept parts go once the output is whole: a run killed before goes on with them. The
        // directory is first renamed away (atomic), so a run killed while its files are being
        // removed finds no directory, as after the end, rather than one with parts missing.
        match &self.parts {
            Parts::Temporary(_) | Parts::Joined(_) => Ok(()),
            Parts::Kept(dir) => {
                let removing = PathBuf::from(format!("{}.removing", dir.display()));
                let cannot = |e: std::io::Error| Error::Io(format!("'{}' cannot be removed ({e})", dir.display()));
                // Left by a run killed while removing it.
                let _ = std::fs::remove_dir_all(&removing);
                std::fs::rename(dir, &removing).map_err(cannot)?;
                std::fs::remove_dir_all(&removing).map_err(cannot)
            }
        }
    }
}

/// A state of an exploration, as a JSON object.
type StateObject = serde_json::Map<String, Value>;

/// The JSON document of `poplab exact --json`: the exact expected steps of `spec` (explored with
/// at most `max_configs` configurations) and, when they are infinite, the trap that shows it.
pub fn exact_json(spec: &RunSpec, max_configs: usize, report: &ExactReport<StateObject>) -> Value {
    let number = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    let mut json = json!({
        "protocol": spec.protocol,
        "n": spec.n,
        "params": spec.params,
        "graph": spec.settings.graph.name(),
        "init": spec.settings.init.name(),
        "measure": spec.settings.measure.name(),
        "max_configs": max_configs,
        "configurations": report.configurations,
        "transient_configurations": report.transient,
        "transitions": report.transitions,
        "converges_with_probability_1": report.expected_steps.is_finite(),
        "expected_steps": number(report.expected_steps),
        "variance_steps": number(report.variance_steps),
        "std_steps": number(report.variance_steps.sqrt()),
        "expected_parallel_time": number(report.expected_parallel_time),
        "relative_error_bound": report.relative_error_bound,
        "variance_error_bound": report.variance_error_bound,
        "largest_component": report.largest_component,
        "solver": report.solver,
    });
    if let Some(trap) = &report.trap {
        json["trap"] = counterexample_json(trap);
    }
    json
}

/// The JSON document of `poplab exact --from all --json`: the expected steps to the safe set from
/// every configuration of `spec`'s state space, `"worst": {"expected_steps", "start", ...}` first.
pub fn exact_every_json(spec: &RunSpec, max_configs: usize, times: &StartTimes<StateObject>) -> Value {
    let number = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    let n = spec.n as f64;
    let start_json = |t: &StartTime<StateObject>| {
        json!({
            "expected_steps": number(t.expected_steps),
            "expected_parallel_time": number(t.expected_steps / n),
            "std_steps": number(t.std_steps),
            "start": Value::Array(t.start.iter().cloned().map(Value::Object).collect()),
        })
    };
    let worst = times.worst.first().map_or(Value::Null, |w| {
        let mut worst = start_json(w);
        worst["ties"] = json!(times.worst_ties);
        worst["others"] = Value::Array(times.worst[1..].iter().map(start_json).collect());
        worst
    });
    let named: serde_json::Map<String, Value> = times
        .named
        .iter()
        .map(|(name, t)| {
            let value = match t {
                Some(t) => {
                    let mut value = start_json(t);
                    value["share_of_worst"] = number(t.expected_steps / times.worst_steps());
                    value
                }
                None => json!({"reason": "not a configuration over the listed state space"}),
            };
            (name.clone(), value)
        })
        .collect();
    let mut json = json!({
        "protocol": spec.protocol,
        "n": spec.n,
        "params": spec.params,
        "graph": spec.settings.graph.name(),
        "from": "all",
        "measure": spec.settings.measure.name(),
        "max_configs": max_configs,
        "configurations": times.configurations,
        "transient_configurations": times.transient,
        "transitions": times.transitions,
        "starts": times.starts,
        "safe_starts": times.safe_starts,
        "infinite_starts": times.infinite_starts,
        "converges_with_probability_1": times.infinite_starts == 0,
        "worst": worst,
        "best_unsafe": times.best.as_ref().map_or(Value::Null, start_json),
        "quantiles_steps": times.quantiles.iter().map(|&(q, v)| json!({"q": q, "expected_steps": number(v)})).collect::<Vec<_>>(),
        "mean_over_starts_steps": number(times.mean_over_starts),
        "uniform_states_steps": times.uniform_states.map_or(Value::Null, number),
        "families": named,
        "relative_error_bound": times.relative_error_bound,
        "largest_component": times.largest_component,
        "solver": times.solver,
    });
    if let Some(trap) = &times.trap {
        json["trap"] = counterexample_json(trap);
    }
    json
}

/// The JSON document of `poplab search --json`: the slowest start found (`"worst": {"start",
/// "description", "mean_parallel_time", "ci95", ...}`), the top few, each family, and the budget.
pub fn search_json(spec: &RunSpec, settings: &SearchSettings, result: &SearchResult) -> Value {
    let n = spec.n as f64;
    let found = |f: &Found| {
        json!({
            "description": f.description,
            "mean_parallel_time": f.mean_parallel_time,
            "ci95": f.ci95,
            "mean_steps": f.mean_parallel_time * n,
            "selection_mean_parallel_time": f.selection_mean_parallel_time,
            "trials": f.trials,
            "censored": f.censored,
            "start": Value::Array(f.start.iter().cloned().map(Value::Object).collect()),
        })
    };
    json!({
        "protocol": spec.protocol,
        "n": spec.n,
        "params": spec.params,
        "graph": spec.settings.graph.name(),
        "init": spec.settings.init.name(),
        "engine": spec.settings.engine.name(),
        "rng": RNG_NAME,
        "seed": spec.settings.seed,
        "worst": found(&result.worst),
        "top": result.top.iter().map(found).collect::<Vec<_>>(),
        "families": result.families.iter().map(found).collect::<Vec<_>>(),
        "budget": {
            "given": settings.budget.to_string(),
            "candidates": result.candidates,
            "rounds": result.rounds,
            "trials": result.trials_run,
            "core_seconds": result.core_seconds,
            "race_horizon_steps": result.race_horizon.to_string(),
            "remeasure_trials": settings.remeasure_trials,
        },
    })
}

/// The JSON document of `poplab verify --json`: the verification `v` of `spec` from `from` (as
/// the user named the starts), explored with at most `max_configs` configurations.
pub fn verify_json(spec: &RunSpec, from: &str, max_configs: usize, v: &Verification<StateObject>) -> Value {
    let check_json = |check: &Check<StateObject>| {
        let mut value = json!({"passed": check.passed, "violations": check.violations});
        if let Some(cx) = &check.counterexample {
            value["counterexample"] = counterexample_json(cx);
        }
        value
    };
    json!({
        "protocol": spec.protocol,
        "n": spec.n,
        "params": spec.params,
        "graph": spec.settings.graph.name(),
        "from": from,
        "max_configs": max_configs,
        "configurations": v.configurations,
        "starts": v.starts,
        "safe": v.safe,
        "transitions": v.transitions,
        "bottom_components": v.bottom_components,
        "unsafe_bottom_components": v.unsafe_bottom_components,
        "mode": if v.dense { "dense" } else { "explored" },
        "closure": check_json(&v.closure),
        "safety": check_json(&v.safety),
        "convergence": check_json(&v.convergence),
        "passed": v.passed(),
    })
}

/// A counterexample of an exploration as JSON: why, the start, the schedule of `[u, v]` pairs and
/// the end.
pub fn counterexample_json(cx: &Counterexample<StateObject>) -> Value {
    let states = |agents: &[StateObject]| Value::Array(agents.iter().cloned().map(Value::Object).collect());
    json!({
        "reason": cx.reason,
        "start": states(&cx.start),
        "schedule": cx.schedule.iter().map(|&(u, v)| json!([u, v])).collect::<Vec<_>>(),
        "end": states(&cx.end),
    })
}
