//! The cells of a sweep and their seeds: the cross product of the sizes and parameter lists,
//! each resolved once into a [`RunSpec`] from the sweep's template.

use super::SweepSpec;
use crate::error::{Error, Result};
use crate::experiment::{MAX_TRIALS, TrialRecord};
use crate::rng::trial_seed;
use crate::spec::{RawSpec, RunSpec};
use std::collections::HashSet;

/// At most this many cells in one sweep.
pub const MAX_CELLS: usize = 10_000;

/// One point of the sweep.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The population size.
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

    /// The cell's name in file names: `n=16 N=300` is `n16-N300`.
    pub fn slug(&self) -> String {
        self.key().replace(' ', "-").replace('=', "")
    }

    /// `error` as this cell's ([`Error::Cell`]); a file's or the memory's refusal stays as it is.
    pub(crate) fn error(&self, error: Error) -> Error {
        match error {
            Error::Memory(_) | Error::File { .. } => error,
            other => Error::Cell { cell: self.key(), error: Box::new(other) },
        }
    }

    /// The master seed of this cell's trials.
    pub fn seed(&self, master: u64) -> u64 {
        // FNV-1a of the key, then one SplitMix64 step mixed with the master seed.
        let hash = crate::files::fnv1a64(self.key().as_bytes());
        trial_seed(master ^ hash, 0)
    }
}

/// A cell with its experiment, resolved once.
#[derive(Clone, Debug)]
pub struct ResolvedCell {
    /// The cell.
    pub cell: Cell,
    /// Its experiment (seeded with the cell's seed).
    pub spec: RunSpec,
}

/// The result of one trial of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// The cell.
    pub cell: Cell,
    /// The trial.
    pub record: TrialRecord,
}

impl SweepSpec {
    /// The cells, `n` varying slowest; refuses empty lists, repeated values and sweeps larger than
    /// [`MAX_CELLS`] cells or [`MAX_TRIALS`] trials.
    pub fn cells(&self) -> Result<Vec<Cell>> {
        if self.ns.is_empty() {
            return Err(Error::Sweep { reason: "give at least one population size with --n".into() });
        }
        let mut seen = HashSet::new();
        for (name, values) in &self.params {
            if values.is_empty() {
                return Err(Error::Sweep { reason: format!("parameter {name} has an empty list of values") });
            }
            if !seen.insert(name) {
                return Err(Error::Sweep { reason: format!("parameter {name} is swept twice; give it once") });
            }
        }
        if self.template.trials == 0 {
            return Err(Error::Option {
                option: "--trials",
                value: "0".into(),
                reason: "give at least 1 trial per cell".into(),
            });
        }
        if let Some(threads) = self.template.threads
            && !(1..=crate::experiment::MAX_THREADS).contains(&threads)
        {
            return Err(Error::Option {
                option: "--threads",
                value: threads.to_string(),
                reason: format!("give from 1 to {} worker threads", crate::experiment::MAX_THREADS),
            });
        }
        let count = self.params.iter().fold(self.ns.len(), |acc, (_, v)| acc.saturating_mul(v.len()));
        if count > MAX_CELLS {
            return Err(Error::Sweep {
                reason: format!("the sweep has {count} cells; at most {MAX_CELLS} are allowed, shorten the lists"),
            });
        }
        if (count as u64).saturating_mul(self.template.trials) > MAX_TRIALS {
            return Err(Error::Sweep {
                reason: format!(
                    "the sweep has {count} cells x {} trials; at most {MAX_TRIALS} trials are allowed",
                    self.template.trials
                ),
            });
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
            return Err(Error::Sweep {
                reason: format!("the cell {} appears twice; remove the repeated value", cell.key()),
            });
        }
        Ok(cells)
    }

    /// The raw spec of one cell: the template with the cell's size, parameters, seed and start
    /// file ([`SweepSpec::cell_init`]).
    fn raw(&self, cell: &Cell) -> RawSpec {
        RawSpec {
            n: cell.n,
            params: cell.params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            seed: cell.seed(self.template.seed),
            init: self.cell_init(cell),
            ..self.template.clone()
        }
    }

    /// The cell's `--init`: the template's, where a start file's name `@worst-{n}.json` has `{n}`
    /// and `{KEY}` (a swept parameter's name) replaced by the cell's values, since a start is a
    /// configuration of one size (`@worst-{n}.json` reads `worst-1000.json` at n = 1000).
    ///
    /// ```
    /// use poplab::sweep::{Cell, SweepSpec};
    ///
    /// let mut spec = SweepSpec::new("ls-timer", &[16]);
    /// spec.template.init = Some("@starts/n{n}-N{N}.json".into());
    /// let cell = Cell { n: 16, params: vec![("N".into(), "300".into())] };
    /// assert_eq!(spec.cell_init(&cell).as_deref(), Some("@starts/n16-N300.json"));
    /// ```
    pub fn cell_init(&self, cell: &Cell) -> Option<String> {
        let init = self.template.init.as_ref()?;
        if !init.starts_with('@') {
            return Some(init.clone());
        }
        let mut path = init.replace("{n}", &cell.n.to_string());
        for (name, value) in &cell.params {
            path = path.replace(&format!("{{{name}}}"), value);
        }
        Some(path)
    }

    /// Every cell resolved and validated (an error names the cell).
    pub fn resolve(&self) -> Result<Vec<ResolvedCell>> {
        self.resolve_with(&RunSpec::resolve)
    }

    /// Every cell resolved by `resolve` from its raw spec (an error names the cell): a sweep of a
    /// protocol the registry does not build, such as a user protocol built at run time (see
    /// [`RunSpec::resolve_custom`]). [`SweepSpec::resolve`] uses [`RunSpec::resolve`].
    pub fn resolve_with(&self, resolve: &dyn Fn(&RawSpec) -> Result<RunSpec>) -> Result<Vec<ResolvedCell>> {
        self.cells()?
            .into_iter()
            .map(|cell| {
                let spec = resolve(&self.raw(&cell)).map_err(|e| cell.error(e))?;
                Ok(ResolvedCell { cell, spec })
            })
            .collect()
    }

    /// The initial configuration every cell starts from, as the sweep's definition stores it.
    pub fn init_name(&self) -> &str {
        self.template.init.as_deref().unwrap_or_else(|| crate::spec::default_init(self.template.measure))
    }

    /// The initial configuration as a row of `trials.csv` and a report name it: [`init_name`],
    /// but a configuration written inline (`[{...}, ...]`, as a reproduction's found starts are)
    /// by a short label, `explicit:` and the FNV-1a hash of its text.
    ///
    /// [`init_name`]: SweepSpec::init_name
    pub fn init_label(&self) -> String {
        let name = self.init_name();
        if name.starts_with(['[', '{']) {
            format!("explicit:{:016x}", crate::files::fnv1a64(name.as_bytes()))
        } else {
            name.to_string()
        }
    }

    /// The (cell, trial) jobs of this sweep (of its shard, if any), in cell order.
    pub fn jobs<'a>(&self, cells: &'a [ResolvedCell]) -> impl Iterator<Item = (&'a ResolvedCell, u64)> + use<'a> {
        let (trials, shard) = (self.template.trials, self.shard);
        cells.iter().enumerate().flat_map(move |(c, cell)| {
            (0..trials)
                .filter(move |&trial| shard.is_none_or(|s| s.contains(c as u64 * trials + trial)))
                .map(move |trial| (cell, trial))
        })
    }
}
