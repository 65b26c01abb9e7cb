//! Network files: a reaction network, its volume and its initial counts in TOML, the format of
//! protocol files with `[reactions]` in place of `[states]` and `[rules]`. `poplab run @FILE`
//! runs one (the command line tells the two kinds apart by that section).
//!
//! ```toml
//! name = "lotka-volterra"
//! volume = 1000        # optional: the number of molecules at the start
//!
//! [reactions]          # "reactants -> products" = rate constant
//! "R -> 2R" = 1
//! "R + F -> 2F" = 1
//! "F ->" = 1
//!
//! [init]               # counts; species not listed start at 0
//! R = 500
//! F = 500
//! ```
//!
//! `[init]` may give fractions instead (`R = 0.5`, `F = 0.5`): of the `--n` molecules of a run or
//! of each cell of a sweep (`round(f n)`, the last species listed gets the rest), the volume then
//! defaulting to `n`. An optional `stop = "F <= 0"` (or `"R >= 1000"`, `"silent"`) ends each run
//! where it first holds, and the time it took is what `poplab sweep --claim` judges.

use super::network::Network;
use super::stop::CrnStop;
use crate::error::{Error, Result};
use toml::{Table, Value};

/// The largest network file read (bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A network file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkFile {
    /// Its name (`name = ...`, else the file's stem).
    pub name: String,
    /// The network (its volume: the file's, else that of [`NetworkFile::start`]).
    pub network: Network,
    /// The volume the file gives, if any.
    pub volume: Option<f64>,
    /// The start: counts or fractions, one per species of the network.
    pub init: Init,
    /// What ends a run, if anything (`stop = "F <= 0"`).
    pub stop: Option<CrnStop>,
}

/// How a network file gives its start.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// Counts, one per species.
    Counts(Vec<u64>),
    /// Fractions of `n`, one per species, and the index of the species listed last (which gets
    /// the rest).
    Fractions(Vec<f64>, usize),
}

impl NetworkFile {
    /// The network with its volume and the counts at the start: as the file gives them (`n`:
    /// `None`), or for `n` molecules when it gives fractions.
    pub fn start(&self, n: Option<u64>) -> Result<(Network, Vec<u64>)> {
        let counts = match (&self.init, n) {
            (Init::Counts(counts), None) => counts.clone(),
            (Init::Fractions(fractions, last), Some(n)) => {
                let mut counts: Vec<u64> = fractions.iter().map(|f| (f * n as f64).round() as u64).collect();
                let others: u64 = counts.iter().enumerate().filter(|&(i, _)| i != *last).map(|(_, c)| c).sum();
                counts[*last] = n
                    .checked_sub(others)
                    .ok_or_else(|| Error::Init(format!("the fractions of [init] add up to more than 1 at n = {n}")))?;
                counts
            }
            (Init::Counts(_), Some(n)) => {
                return Err(Error::Conflict {
                    reason: format!(
                        "--n {n}: this network file gives counts in [init]; give fractions (as R = 0.5) to choose n"
                    ),
                });
            }
            (Init::Fractions(..), None) => {
                return Err(Error::Conflict {
                    reason: "this network file gives fractions in [init]: give the number of molecules with --n".into(),
                });
            }
        };
        let mut network = self.network.clone();
        network.volume = self.volume.unwrap_or_else(|| Network::default_volume(&counts));
        Ok((network, counts))
    }
}

/// Whether the text is a network file (TOML with a `[reactions]` section) rather than a protocol
/// file; `false` for anything that is not TOML.
pub fn is_network(text: &str) -> bool {
    text.parse::<Table>().is_ok_and(|t| t.contains_key("reactions"))
}

/// Reads the network file at `path`.
pub fn read(path: &str) -> Result<NetworkFile> {
    let text = crate::files::read_limited(
        std::path::Path::new(path),
        "network file",
        MAX_FILE_BYTES,
        "a network file may take",
    )?;
    parse(&text, path)
}

/// A network from the text of a network file named `path` (for messages).
///
/// ```
/// use poplab::crn::file::parse;
///
/// let lv = parse("[reactions]\n\"R -> 2R\" = 1\n\"R + F -> 2F\" = 0.5\n\"F ->\" = 1\n[init]\nR = 60\nF = 40\n", "lv.toml")?;
/// let (network, counts) = lv.start(None)?;
/// assert_eq!((lv.name.as_str(), network.volume, counts.as_slice()), ("lv", 100.0, &[60, 40][..]));
/// let error = parse("[reactions]\n\"R -> 2R\" = 1\n[init]\nQ = 1\n", "lv.toml").unwrap_err().to_string();
/// assert!(error.contains("'lv.toml'") && error.contains("Q"), "{error}");
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn parse(text: &str, path: &str) -> Result<NetworkFile> {
    let fail = |reason: String| Error::ProtocolFile { path: path.to_string(), line: None, reason };
    let table: Table = text.parse().map_err(|e: toml::de::Error| fail(format!("not valid TOML: {}", e.message())))?;
    for key in table.keys() {
        if !["name", "volume", "stop", "reactions", "init"].contains(&key.as_str()) {
            return Err(fail(format!(
                "unknown key '{key}'; a network file has name, volume, stop, [reactions] and [init]"
            )));
        }
    }
    let name = match table.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_string(),
        Some(_) => return Err(fail("name must be a non-empty string, as name = \"my-network\"".into())),
        None => std::path::Path::new(path)
            .file_stem()
            .map_or_else(|| "network".into(), |s| s.to_string_lossy().into_owned()),
    };
    let section = |key: &str, how: &str| -> Result<&Table> {
        match table.get(key) {
            Some(Value::Table(t)) => Ok(t),
            Some(_) => Err(fail(format!("{key} must be a section, [{key}]"))),
            None => Err(fail(format!("the [{key}] section is missing; {how}"))),
        }
    };
    let number = |value: &Value| match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    let mut reactions = Vec::new();
    for (reaction, rate) in section("reactions", "list each reaction with its rate constant, as \"A + B -> 2C\" = 1.5")?
    {
        let rate = number(rate).ok_or_else(|| fail(format!("the rate of \"{reaction}\" must be a number")))?;
        reactions.push((reaction.as_str(), rate));
    }
    let init = section("init", "give the initial counts, as A = 100 (or fractions of --n, as A = 0.5)")?;
    let (mut counts, mut fractions) = (Vec::new(), Vec::new());
    for (species, value) in init {
        match value {
            Value::Integer(c) if *c >= 0 => counts.push((species.as_str(), *c as u64)),
            Value::Float(f) if (0.0..=1.0).contains(f) => fractions.push((species.as_str(), *f)),
            _ => {
                return Err(fail(format!(
                    "[init] {species}: a count (a whole number >= 0) or a fraction of --n (between 0 and 1)"
                )));
            }
        }
    }
    if !counts.is_empty() && !fractions.is_empty() {
        return Err(fail("[init] gives counts and fractions: give all as counts, or all as fractions of --n".into()));
    }
    let volume = match table.get("volume") {
        None => None,
        Some(v) => Some(number(v).ok_or_else(|| fail("volume must be a number > 0".into()))?),
    };
    let network = Network::parse(&reactions, volume.unwrap_or(1.0)).map_err(|e| fail(e.to_string()))?;
    let init = if fractions.is_empty() {
        Init::Counts(network.counts(&counts).map_err(|e| fail(format!("[init]: {e}")))?)
    } else {
        let mut all = vec![0.0; network.species.len()];
        let mut last = 0;
        for &(species, f) in &fractions {
            last = network.index(species).ok_or_else(|| {
                fail(format!("[init]: {species} is not one of the network's species: {}", network.species.join(", ")))
            })?;
            all[last] = f;
        }
        Init::Fractions(all, last)
    };
    let stop = match table.get("stop") {
        None => None,
        Some(Value::String(text)) => Some(CrnStop::parse(text, &network).map_err(|e| fail(e.to_string()))?),
        Some(_) => return Err(fail("stop must be a string, as stop = \"F <= 0\"".into())),
    };
    Ok(NetworkFile { name, network, volume, init, stop })
}
