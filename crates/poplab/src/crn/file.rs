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

use super::network::Network;
use crate::error::{Error, Result};
use toml::{Table, Value};

/// The largest network file read (bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A network file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkFile {
    /// Its name (`name = ...`, else the file's stem).
    pub name: String,
    /// The network.
    pub network: Network,
    /// The initial counts, one per species of the network.
    pub init: Vec<u64>,
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
/// assert_eq!((lv.name.as_str(), lv.network.volume, lv.init.as_slice()), ("lv", 100.0, &[60, 40][..]));
/// let error = parse("[reactions]\n\"R -> 2R\" = 1\n[init]\nQ = 1\n", "lv.toml").unwrap_err().to_string();
/// assert!(error.contains("'lv.toml'") && error.contains("Q"), "{error}");
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn parse(text: &str, path: &str) -> Result<NetworkFile> {
    let fail = |reason: String| Error::ProtocolFile { path: path.to_string(), line: None, reason };
    let table: Table = text.parse().map_err(|e: toml::de::Error| fail(format!("not valid TOML: {}", e.message())))?;
    for key in table.keys() {
        if !["name", "volume", "reactions", "init"].contains(&key.as_str()) {
            return Err(fail(format!("unknown key '{key}'; a network file has name, volume, [reactions] and [init]")));
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
    let init = section("init", "give the initial counts, as A = 100")?;
    let mut counts = Vec::new();
    for (species, count) in init {
        match count {
            Value::Integer(c) if *c >= 0 => counts.push((species.as_str(), *c as u64)),
            _ => return Err(fail(format!("the count of {species} in [init] must be a whole number >= 0"))),
        }
    }
    let volume = match table.get("volume") {
        None => counts.iter().map(|&(_, c)| c as f64).sum::<f64>().max(1.0),
        Some(v) => number(v).ok_or_else(|| fail("volume must be a number > 0".into()))?,
    };
    let network = Network::parse(&reactions, volume).map_err(|e| fail(e.to_string()))?;
    let init = network.counts(&counts).map_err(|e| fail(format!("[init]: {e}")))?;
    Ok(NetworkFile { name, network, init })
}
