//! Claims "from any configuration" judged on the slowest starts found ([`WorstStarts`]).
//!
//! At each size of the claim's sweep a search ([`RunSpec::search`]) looks for the slowest start,
//! from its own seeds (derived from the cell's, so the claim's trials are fresh), and re-measures
//! the start found and the sweep's family on fresh seeds; the claim's trials at that size then
//! start from the slower of the two, as a one-size sweep whose definition holds the start itself
//! (so that it is the same in every directory, shard and merge). The
//! start is also written as a file `data/CLAIM/starts/CELL.json` (an array of agent states that
//! `--init @FILE` takes) with the search's record beside it (`CELL.search.json`: read back, so a
//! reproduction that continues does not search again; a search killed continues from its journal,
//! `CELL.search.journal`, which goes once the record is written). At a small instance the search is checked
//! against the exact worst start of `exact --from all`.

use super::catalog::{Claim, WorstStarts};
use crate::error::{Error, Result};
use crate::files;
use crate::rng::trial_seed;
use crate::search::{Budget, Found, SearchSettings};
use crate::spec::{RawSpec, RunSpec};
use crate::sweep::{Cell, SweepSpec};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;

/// The purpose tag mixed into a cell's seed to seed its search: the search's trials never share
/// a stream with the claim's.
const SEARCH_SEED_TAG: u64 = 0x5EA2_C4ED_57A2_7500;

/// The search's budget at the small instance of the exact check, in candidates, and its fresh
/// trials (cheap there: a handful of agents).
pub const EXACT_CHECK_CANDIDATES: u64 = 200;
/// See [`EXACT_CHECK_CANDIDATES`].
pub const EXACT_CHECK_TRIALS: u64 = 200;

/// A start re-measured with fresh seeds: its mean parallel time and 95% interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Remeasured {
    /// The start in words.
    pub description: String,
    /// The mean parallel time (a lower bound if some trials were censored).
    pub mean_parallel_time: f64,
    /// Its 95% interval.
    pub ci95: [f64; 2],
    /// Trials.
    pub trials: u64,
    /// Trials that reached the horizon.
    pub censored: u64,
}

impl Remeasured {
    fn of(found: &Found) -> Self {
        Remeasured {
            description: found.description.clone(),
            mean_parallel_time: found.mean_parallel_time,
            ci95: found.ci95,
            trials: found.trials,
            censored: found.censored,
        }
    }
}

/// The start one size of a claim is measured from, and how it was found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChosenStart {
    /// The cell (`n=64`, `n=16 N=300`).
    pub cell: String,
    /// Its value on the claim's x axis.
    pub x: f64,
    /// The start's file, relative to the reproduction's directory.
    pub file: String,
    /// The slowest start found, re-measured.
    pub found: Remeasured,
    /// The sweep's family at the same size, re-measured the same way.
    pub family: Remeasured,
    /// Candidates the search tried.
    pub candidates: u64,
    /// Trials the search ran (its re-measurements included).
    pub search_trials: u64,
    /// The processor seconds the search took.
    pub core_seconds: f64,
}

impl ChosenStart {
    /// Whether the size is measured from the family: it was slower than the start found on the
    /// fresh trials (or it is the start found).
    pub fn uses_family(&self) -> bool {
        self.family.mean_parallel_time >= self.found.mean_parallel_time
    }

    /// The start the size is measured from, in words.
    pub fn used(&self) -> &Remeasured {
        if self.uses_family() { &self.family } else { &self.found }
    }
}

/// The search against the exact worst start at a small instance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExactCheck {
    /// `protocol n=.. KEY=VALUE ...`.
    pub instance: String,
    /// The exact worst expectation, in parallel time.
    pub exact_worst_parallel_time: f64,
    /// How many starts share it.
    pub exact_ties: usize,
    /// The start the search found, re-measured.
    pub found: Remeasured,
    /// The exact expectation of the start the search found, in parallel time.
    pub found_exact_parallel_time: f64,
    /// The z statistic of the found start's re-measured mean against the exact worst (its
    /// standard error from the 95% interval): within 3.29 in absolute value, the two agree at level
    /// 0.001.
    pub z: f64,
}

/// What the searches of a claim found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FoundStarts {
    /// One per size, by increasing x.
    pub starts: Vec<ChosenStart>,
    /// The check against the exact worst start.
    pub exact: Option<ExactCheck>,
}

impl FoundStarts {
    /// The processor seconds of the searches.
    pub fn core_seconds(&self) -> f64 {
        // From +0.0: an empty sum of floats is -0.0.
        self.starts.iter().map(|s| s.core_seconds).fold(0.0, |a, b| a + b)
    }
}

/// What a search record holds: the chosen start and the start itself.
#[derive(Serialize, Deserialize)]
struct Record {
    chosen: ChosenStart,
    start: Vec<Map<String, Value>>,
}

/// Whether [`Claim::with_found_starts`] may search, or only reads the searches back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searches {
    /// Search each size whose record is not stored yet (and store it).
    Run,
    /// Read every record back; a missing one is an error (a shard of a reproduction whose
    /// searches ran apart, `reproduce --searches`).
    Stored,
}

impl Claim {
    /// The claim with each size measured from the slowest start a search finds there (searching,
    /// or reading back the searches stored under `dir`), and what the searches found; the claim
    /// itself when it has no [`WorstStarts`]. The check against the exact worst start is
    /// [`Claim::exact_check`]'s.
    pub fn with_found_starts(
        &self,
        dir: &Path,
        threads: Option<usize>,
        searches: Searches,
    ) -> Result<(Claim, FoundStarts)> {
        let Some(worst) = self.worst_starts else { return Ok((self.clone(), FoundStarts::default())) };
        let mut claim = self.clone();
        claim.sweeps.clear();
        claim.data.clear();
        let mut found = FoundStarts::default();
        for (spec, cell) in self.search_cells()? {
            let slug = cell.slug();
            let (chosen, start) = self.chosen_start(spec, &cell, &worst, dir, threads, searches)?;
            let mut single = spec.clone();
            single.ns = vec![cell.n];
            single.params = cell.params.iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
            // The slower of the two on the fresh trials: the family when the search found
            // nothing slower than it.
            single.template.init = Some(if chosen.uses_family() {
                worst.family.to_string()
            } else {
                serde_json::to_string(&start).map_err(|e| Error::Io(e.to_string()))?
            });
            claim.sweeps.push(single);
            claim.data.push(format!("data/{}/{slug}", self.id));
            found.starts.push(chosen);
        }
        found.starts.sort_by(|a, b| a.x.total_cmp(&b.x));
        Ok((claim, found))
    }

    /// The cells a claim "from any configuration" searches, in order (none for another claim):
    /// the jobs of `reproduce --searches`.
    pub fn search_cells(&self) -> Result<Vec<(&SweepSpec, Cell)>> {
        if self.worst_starts.is_none() {
            return Ok(Vec::new());
        }
        let mut cells = Vec::new();
        for spec in &self.sweeps {
            cells.extend(spec.cells()?.into_iter().map(|cell| (spec, cell)));
        }
        Ok(cells)
    }

    /// Searches the cells of [`Claim::search_cells`] whose index `select` takes (a shard of the
    /// searches), storing each under `dir` (a cell whose record is stored is read back); returns
    /// the processor seconds the searches took.
    pub fn search_starts(&self, dir: &Path, threads: Option<usize>, select: &dyn Fn(usize) -> bool) -> Result<f64> {
        let Some(worst) = self.worst_starts else { return Ok(0.0) };
        let mut seconds = 0.0;
        for (_, (spec, cell)) in self.search_cells()?.into_iter().enumerate().filter(|(i, _)| select(*i)) {
            let (chosen, _) = self.chosen_start(spec, &cell, &worst, dir, threads, Searches::Run)?;
            seconds += chosen.core_seconds;
        }
        Ok(seconds)
    }

    /// The search at one cell, or its record read back from `dir`.
    fn chosen_start(
        &self,
        spec: &SweepSpec,
        cell: &Cell,
        worst: &WorstStarts,
        dir: &Path,
        threads: Option<usize>,
        searches: Searches,
    ) -> Result<(ChosenStart, Vec<Map<String, Value>>)> {
        let slug = cell.slug();
        let starts = format!("data/{}/starts", self.id);
        let file = format!("{starts}/{slug}.json");
        let record_path = dir.join(format!("{starts}/{slug}.search.json"));
        if record_path.exists() {
            let text = files::read_limited(&record_path, "search record", 1 << 30, "a search record can take")?;
            let record: Record = serde_json::from_str(&text).map_err(|e| Error::File {
                path: record_path.display().to_string(),
                reason: format!("is not a search record ({e}); delete it to search again"),
            })?;
            if record.chosen.cell != cell.key() || record.start.len() as u64 != cell.n {
                return Err(Error::File {
                    path: record_path.display().to_string(),
                    reason: format!(
                        "records the cell {} with {} agents, not {}; delete it to search again",
                        record.chosen.cell,
                        record.start.len(),
                        cell.key()
                    ),
                });
            }
            return Ok((record.chosen, record.start));
        }
        if searches == Searches::Stored {
            return Err(Error::File {
                path: record_path.display().to_string(),
                reason: format!(
                    "is missing: the search of {} at {} has not run; run `reproduce --searches` into this directory \
                     (or give its directory with --starts)",
                    self.id,
                    cell.key()
                ),
            });
        }
        let raw = RawSpec {
            n: cell.n,
            params: cell.params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            seed: trial_seed(cell.seed(spec.template.seed) ^ SEARCH_SEED_TAG, 0),
            init: Some(worst.family.to_string()),
            trials: worst.remeasure,
            threads,
            ..spec.template.clone()
        };
        // The trials are journaled beside the record, so that a search killed (at the end of a
        // Slurm allocation, say) continues where it stopped; the journal goes once the record is
        // written.
        std::fs::create_dir_all(dir.join(&starts)).map_err(|e| Error::Io(e.to_string()))?;
        let journal = dir.join(format!("{starts}/{slug}.search.journal"));
        let settings = SearchSettings { journal: Some(journal.clone()), ..search_settings(worst) };
        let result = RunSpec::resolve(&raw)?.search(&settings, &|_| {})?;
        let family = result.families.iter().find(|f| f.description.starts_with(worst.family)).unwrap_or(&result.worst);
        let chosen = ChosenStart {
            cell: cell.key(),
            x: self.x_value(cell),
            file: file.clone(),
            found: Remeasured::of(&result.worst),
            family: Remeasured::of(family),
            candidates: result.candidates,
            search_trials: result.trials_run,
            core_seconds: result.core_seconds,
        };
        let start = result.worst.start.clone();
        let states = serde_json::to_string_pretty(&start).map_err(|e| Error::Io(e.to_string()))?;
        let record = serde_json::to_string_pretty(&Record { chosen: chosen.clone(), start: start.clone() })
            .map_err(|e| Error::Io(e.to_string()))?;
        files::write_atomic(&dir.join(&file), &(states + "\n"))?;
        files::write_atomic(&record_path, &(record + "\n"))?;
        std::fs::remove_file(&journal).map_err(|e| Error::Io(format!("'{}': {e}", journal.display())))?;
        Ok((chosen, start))
    }

    /// The search against `exact --from all` at the claim's small instance (none for a claim
    /// without [`WorstStarts`]).
    pub fn exact_check(&self, threads: Option<usize>) -> Result<Option<ExactCheck>> {
        let Some(worst) = self.worst_starts else { return Ok(None) };
        let spec = &self.sweeps[0];
        let (n, params) = worst.exact_check;
        let raw = RawSpec {
            n,
            params: params.iter().map(|p| p.to_string()).collect(),
            seed: trial_seed(spec.template.seed ^ SEARCH_SEED_TAG, 1),
            init: Some(worst.family.to_string()),
            threads,
            ..spec.template.clone()
        };
        let run = RunSpec::resolve(&raw)?;
        let exact = run.exact_from_every(crate::exact::DEFAULT_MAX_CONFIGS)?;
        let settings = SearchSettings {
            budget: Budget::Candidates(EXACT_CHECK_CANDIDATES),
            remeasure_trials: EXACT_CHECK_TRIALS,
            top: 1,
            race_trials: worst.race_trials.max(8),
            families: false,
            journal: None,
        };
        let result = run.search(&settings, &|_| {})?;
        let found_exact = RunSpec::resolve(&RawSpec {
            init: Some(serde_json::to_string(&result.worst.start).map_err(|e| Error::Io(e.to_string()))?),
            ..raw.clone()
        })?
        .exact(crate::exact::DEFAULT_MAX_CONFIGS)?;
        let worst_pt = exact.worst_steps() / n as f64;
        let found = Remeasured::of(&result.worst);
        Ok(Some(ExactCheck {
            instance: format!(
                "{} n={n}{}",
                spec.template.protocol,
                params.iter().map(|p| format!(" {p}")).collect::<String>()
            ),
            exact_worst_parallel_time: worst_pt,
            exact_ties: exact.worst_ties,
            z: {
                let se = (found.ci95[1] - found.ci95[0]) / (2.0 * 1.96);
                if se > 0.0 { (found.mean_parallel_time - worst_pt) / se } else { f64::INFINITY }
            },
            found,
            found_exact_parallel_time: found_exact.expected_parallel_time,
        }))
    }
}

/// A claim's search settings.
fn search_settings(worst: &WorstStarts) -> SearchSettings {
    SearchSettings {
        budget: Budget::Candidates(worst.candidates),
        remeasure_trials: worst.remeasure,
        top: 1,
        race_trials: worst.race_trials,
        families: false,
        journal: None,
    }
}
