//! Sweeps: one protocol over the cross product of population sizes and parameter lists.
//!
//! A sweep is a list of *cells* (one `n` and one value per swept parameter), each run for the same
//! number of trials. Every (cell, trial) pair is a job; jobs run in parallel and are reported one
//! by one as they finish, so a caller can append each result to a file at once and lose nothing
//! when the sweep is killed. A cell's seed is derived from the master seed and the cell's *key*
//! (`n=1000 k=10`), not its position in the list, so editing the lists of a sweep and resuming
//! never changes the results of cells that were already there.

use crate::engine::{Engine, Measure, Outcome, ParallelTime, Steps};
use crate::error::{Error, Result};
use crate::experiment::{RunSettings, TrialRecord, run_trial, validate};
use crate::graph::Graph;
use crate::init::InitSpec;
use crate::protocol::{Params, Protocol};
use crate::protocols::{ProtocolVisitor, with_protocol};
use crate::rng::trial_seed;
use rayon::prelude::*;
use std::collections::HashSet;

/// At most this many cells in one sweep.
pub const MAX_CELLS: usize = 10_000;
/// At most this many trials in one sweep.
pub const MAX_JOBS: u64 = 100_000_000;

/// What to sweep.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    pub protocol: String,
    pub ns: Vec<u64>,
    /// Swept parameters: each name with its list of values (the cross product is taken).
    pub params: Vec<(String, Vec<String>)>,
    pub init: InitSpec,
    pub measure: Measure,
    /// The graph (`None`: each protocol's own).
    pub graph: Option<Graph>,
    pub trials: u64,
    pub seed: u64,
    pub max_steps: u128,
    /// Worker threads (`None`: one per core). Results do not depend on it.
    pub threads: Option<usize>,
    /// Count distinct states visited and demotion causes per trial (see [`crate::engine::Census`]).
    pub census: bool,
    /// Which engine runs the trials (see [`SweepSpec::engine_used`]).
    pub engine: Engine,
}

/// One point of the sweep.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    pub n: u64,
    /// One value per swept parameter, in the order of [`SweepSpec::params`].
    pub params: Vec<(String, String)>,
}

impl Cell {
    /// The cell's key, `n=1000 k=10`: what its seed is derived from.
    pub fn key(&self) -> String {
        let mut key = format!("n={}", self.n);
        for (name, value) in &self.params {
            key += &format!(" {name}={value}");
        }
        key
    }

    /// The master seed of this cell's trials.
    pub fn seed(&self, master: u64) -> u64 {
        // FNV-1a of the key, then one SplitMix64 step mixed with the master seed.
        let hash =
            self.key().bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3));
        trial_seed(master ^ hash, 0)
    }

    fn params(&self) -> Result<Params> {
        let items: Vec<String> = self.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        Params::parse(&items)
    }
}

/// The result of one trial of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    pub cell: Cell,
    pub record: TrialRecord,
}

impl SweepSpec {
    /// The cells, `n` varying slowest; refuses empty lists, repeated values and sweeps larger than
    /// [`MAX_CELLS`] cells or [`MAX_JOBS`] trials.
    pub fn cells(&self) -> Result<Vec<Cell>> {
        if self.ns.is_empty() {
            return Err(Error::Setting("give at least one population size with --n".into()));
        }
        let mut seen = HashSet::new();
        for (name, values) in &self.params {
            if values.is_empty() {
                return Err(Error::Setting(format!("parameter {name} has an empty list of values")));
            }
            if !seen.insert(name) {
                return Err(Error::Setting(format!("parameter {name} is swept twice; give it once")));
            }
        }
        let count = self.params.iter().fold(self.ns.len(), |acc, (_, v)| acc.saturating_mul(v.len()));
        if count > MAX_CELLS {
            return Err(Error::Setting(format!(
                "the sweep has {count} cells; at most {MAX_CELLS} are allowed, shorten the lists"
            )));
        }
        if (count as u64).saturating_mul(self.trials) > MAX_JOBS {
            return Err(Error::Setting(format!(
                "the sweep has {count} cells x {} trials; at most {MAX_JOBS} trials are allowed",
                self.trials
            )));
        }
        let mut cells: Vec<Cell> = self.ns.iter().map(|&n| Cell { n, params: Vec::new() }).collect();
        for (name, values) in &self.params {
            cells = cells
                .into_iter()
                .flat_map(|cell| {
                    values.iter().map(move |value| {
                        let mut params = cell.params.clone();
                        params.push((name.clone(), value.clone()));
                        Cell { n: cell.n, params }
                    })
                })
                .collect();
        }
        let mut keys = HashSet::new();
        if let Some(cell) = cells.iter().find(|c| !keys.insert(c.key())) {
            return Err(Error::Setting(format!("the cell {} appears twice; remove the repeated value", cell.key())));
        }
        Ok(cells)
    }

    fn settings(&self, cell: &Cell) -> RunSettings {
        RunSettings {
            measure: self.measure,
            graph: self.graph.clone().unwrap_or(Graph::Complete),
            init: self.init.clone(),
            trials: self.trials,
            seed: cell.seed(self.seed),
            max_steps: self.max_steps,
            threads: self.threads,
            faults: Vec::new(),
            trace_every: None,
            census: self.census,
            engine: self.engine,
        }
    }

    /// The engine each cell's trials actually run on, in cell order: the graph (the protocol's own
    /// when `None`) is the same for every cell and a sweep has no faults, but under `auto` the
    /// choice can depend on `n` and the parameters ([`crate::protocol::Protocol::auto_batches`]).
    pub fn engines_used(&self) -> Result<Vec<(Cell, Engine)>> {
        self.cells()?
            .into_iter()
            .map(|cell| {
                let n = usize::try_from(cell.n)
                    .map_err(|_| Error::PopulationSize { n: cell.n, reason: "too large".into() })?;
                let (default_graph, batches_pay) = with_protocol(&self.protocol, n, &cell.params()?, GraphAndAuto)?;
                let engine = self.engine.resolve(self.graph.as_ref().unwrap_or(&default_graph), false, batches_pay)?;
                Ok((cell, engine))
            })
            .collect()
    }

    /// Checks every cell: the protocol builds with its parameters and the settings fit it.
    pub fn validate(&self) -> Result<Vec<Cell>> {
        let cells = self.cells()?;
        for cell in &cells {
            let n =
                usize::try_from(cell.n).map_err(|_| Error::PopulationSize { n: cell.n, reason: "too large".into() })?;
            cell.params()
                .and_then(|params| with_protocol(&self.protocol, n, &params, Job { spec: self, cell, trial: None })?)
                .map_err(|e| Error::Setting(format!("cell {}: {e}", cell.key())))?;
        }
        Ok(cells)
    }

    /// Runs every (cell, trial) not in `done` (keys `(cell key, trial index)`), in parallel, and
    /// hands each result to `on_row` as soon as it is known.
    pub fn run(&self, done: &HashSet<(String, u64)>, on_row: &(dyn Fn(SweepRow) + Sync)) -> Result<()> {
        let cells = self.validate()?;
        let jobs: Vec<(&Cell, u64)> = cells
            .iter()
            .flat_map(|cell| (0..self.trials).map(move |trial| (cell, trial)))
            .filter(|(cell, trial)| !done.contains(&(cell.key(), *trial)))
            .collect();
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(threads) = self.threads {
            pool = pool.num_threads(threads);
        }
        let pool = pool.build().map_err(|e| Error::Setting(format!("cannot start worker threads: {e}")))?;
        pool.install(|| {
            jobs.into_par_iter().try_for_each(|(cell, trial)| {
                let params = cell.params()?;
                let record = with_protocol(
                    &self.protocol,
                    cell.n as usize,
                    &params,
                    Job { spec: self, cell, trial: Some(trial) },
                )??
                .expect("a job with a trial index returns a record");
                on_row(SweepRow { cell: cell.clone(), record });
                Ok(())
            })
        })
    }
}

/// A protocol's own graph and whether `--engine auto` batches it.
struct GraphAndAuto;

impl ProtocolVisitor for GraphAndAuto {
    type Output = (Graph, bool);

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Self::Output {
        (protocol.default_graph(), protocol.auto_batches())
    }
}

/// Validates a cell (`trial: None`) or runs one of its trials.
struct Job<'a> {
    spec: &'a SweepSpec,
    cell: &'a Cell,
    trial: Option<u64>,
}

impl ProtocolVisitor for Job<'_> {
    type Output = Result<Option<TrialRecord>>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Self::Output {
        let mut settings = self.spec.settings(self.cell);
        if self.spec.graph.is_none() {
            settings.graph = protocol.default_graph();
        }
        match self.trial {
            None => validate(&protocol, &settings).map(|()| None),
            Some(trial) => run_trial(&protocol, &settings, trial).map(Some),
        }
    }
}

/// The stored fields of one trial of a sweep (a row of its CSV file).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTrial {
    pub index: u64,
    pub seed: u64,
    pub outcome: Outcome,
    pub steps: u128,
    pub distinct_states: Option<u64>,
    pub last_demotion: Option<String>,
}

/// A record rebuilt from stored fields (for resumed sweeps) of a trial with `n` agents.
pub fn stored_record(stored: StoredTrial, n: u64) -> TrialRecord {
    TrialRecord {
        index: stored.index,
        seed: stored.seed,
        outcome: stored.outcome,
        steps: Steps(stored.steps),
        parallel_time: ParallelTime(stored.steps as f64 / n as f64),
        recovery_steps: None,
        distinct_states: stored.distinct_states,
        last_demotion: stored.last_demotion,
        trace: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn spec() -> SweepSpec {
        SweepSpec {
            protocol: "threshold".into(),
            ns: vec![20, 40],
            params: vec![("k".into(), vec!["3".into(), "5".into()]), ("f".into(), vec!["5".into()])],
            init: InitSpec::Default,
            measure: Measure::Convergence,
            graph: None,
            trials: 3,
            seed: 9,
            max_steps: 1_000_000,
            threads: Some(2),
            census: false,
            engine: Engine::Auto,
        }
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
        let mut s = spec();
        s.params.push(("k".into(), vec!["4".into()]));
        assert!(s.cells().unwrap_err().to_string().contains("swept twice"));
        let mut s = spec();
        s.ns = vec![20, 20];
        assert!(s.cells().unwrap_err().to_string().contains("appears twice"));
        let mut s = spec();
        s.params = vec![("k".into(), vec!["0".into()])];
        assert!(s.validate().unwrap_err().to_string().contains("cell n=20 k=0"));
        let mut s = spec();
        s.ns = (2..20_000).collect();
        assert!(s.cells().unwrap_err().to_string().contains("at most"));
    }

    #[test]
    fn resuming_runs_only_missing_jobs_and_gives_the_same_rows() {
        let collect = |done: &HashSet<(String, u64)>| {
            let rows = Mutex::new(Vec::new());
            spec().run(done, &|row| rows.lock().unwrap().push(row)).unwrap();
            let mut rows = rows.into_inner().unwrap();
            rows.sort_by_key(|r| (r.cell.key(), r.record.index));
            rows
        };
        let all = collect(&HashSet::new());
        assert_eq!(all.len(), 12);
        let done: HashSet<(String, u64)> = all.iter().take(5).map(|r| (r.cell.key(), r.record.index)).collect();
        let rest = collect(&done);
        assert_eq!(rest.len(), 7);
        let mut merged: Vec<SweepRow> = all.iter().take(5).cloned().chain(rest).collect();
        merged.sort_by_key(|r| (r.cell.key(), r.record.index));
        assert_eq!(merged, all);
    }
}
