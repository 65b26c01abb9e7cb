//! Initial configurations: the protocol's own, uniformly random, a named family, or explicit.

use crate::error::{Error, Result};
use crate::protocol::{Protocol, StateError};
use crate::rng::PopRng;
use serde_json::{Map, Value};

/// Which initial configuration a run starts from.
#[derive(Clone, Debug, PartialEq)]
pub enum InitSpec {
    /// The protocol's own initial configuration.
    Default,
    /// Every agent's state drawn uniformly from the whole state space.
    Random,
    /// A named family of the protocol (`poplab list` shows them).
    Family(String),
    /// One JSON object per agent, keyed by the protocol's variable names.
    Explicit(Vec<Map<String, Value>>),
    /// Counts of named states (user protocols: `counts:A=600,B=400`, or a JSON object of counts),
    /// summing to `n`.
    Counts(Vec<(String, u64)>),
}

/// A trial's initial configuration as built: (state, count) pairs, for which the count engines
/// need no agent array, or an agent array.
#[derive(Clone, Debug, PartialEq)]
pub enum Start<S> {
    /// (state, count) pairs.
    Counts(Vec<(S, u64)>),
    /// One state per agent.
    Agents(Vec<S>),
}

impl InitSpec {
    /// Whether a count-engine trial of `protocol` starts without an agent array: from the default
    /// configuration or one given as counts, of a protocol that sets its start up as counts
    /// ([`Protocol::counts`]). The agent engine always builds the array.
    pub fn starts_as_counts<P: Protocol>(&self, protocol: &P) -> bool {
        matches!(self, InitSpec::Default | InitSpec::Counts(_)) && protocol.counts().is_some()
    }

    /// The initial configuration of a count-engine trial: as counts where
    /// [`InitSpec::starts_as_counts`], else the agent array of [`InitSpec::build`].
    pub fn start<P: Protocol>(&self, protocol: &P, rng: &mut PopRng) -> Result<Start<P::State>> {
        match self {
            InitSpec::Counts(counts) if self.starts_as_counts(protocol) => {
                states_of_counts(protocol, counts).map(Start::Counts)
            }
            InitSpec::Default if self.starts_as_counts(protocol) => {
                Ok(Start::Counts(crate::protocol::initial_counts(protocol)))
            }
            _ => self.build(protocol, rng).map(Start::Agents),
        }
    }

    /// `default`, `random`, or a family name (`counts:` and `@FILE` are parsed by
    /// [`str::parse`] and the caller, see [`InitSpec::from_json`]).
    pub fn from_name(name: &str) -> Self {
        match name {
            "default" => InitSpec::Default,
            "random" => InitSpec::Random,
            family => InitSpec::Family(family.to_string()),
        }
    }

    /// An explicit configuration from JSON text: an array with one state per agent (a state
    /// object, or a user protocol's state name), or an object of counts by state name.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::Init(format!("not valid JSON ({e})")))?;
        let items = match value {
            Value::Array(items) => items,
            Value::Object(counts) => {
                return counts
                    .into_iter()
                    .map(|(state, count)| match count.as_u64() {
                        Some(count) => Ok((state, count)),
                        None => {
                            Err(Error::Init(format!("state {state}: the count must be a whole number, found {count}")))
                        }
                    })
                    .collect::<Result<_>>()
                    .map(InitSpec::Counts);
            }
            _ => {
                return Err(Error::Init(
                    "expected a JSON array with one state per agent, or an object of counts by state name".into(),
                ));
            }
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(object) => Ok(object),
                Value::String(name) => Ok(named_state(name)),
                other => Err(Error::Init(format!("agent {i}: expected a state object or name, found {other}"))),
            })
            .collect::<Result<_>>()
            .map(InitSpec::Explicit)
    }

    /// The name written into outputs.
    pub fn name(&self) -> String {
        match self {
            InitSpec::Default => "default".into(),
            InitSpec::Random => "random".into(),
            InitSpec::Family(name) => name.clone(),
            InitSpec::Explicit(states) => format!("explicit({} agents)", states.len()),
            InitSpec::Counts(counts) => {
                let counts: Vec<String> = counts.iter().map(|(s, c)| format!("{s}={c}")).collect();
                format!("counts:{}", counts.join(","))
            }
        }
    }

    /// Checks, without drawing anything, that this spec can build a configuration for `protocol`.
    pub fn validate<P: Protocol>(&self, protocol: &P) -> Result<()> {
        match self {
            InitSpec::Default => match protocol.configurations().and_then(|c| c.family_unavailable("default")) {
                Some(reason) => Err(Error::Init(reason)),
                None => Ok(()),
            },
            InitSpec::Random => Ok(()),
            InitSpec::Family(name) => check_family(protocol, name),
            InitSpec::Explicit(objects) => explicit_states(protocol, objects).map(drop),
            InitSpec::Counts(counts) => states_of_counts(protocol, counts).map(drop),
        }
    }

    /// The configuration for `protocol`, drawing from `rng` where the spec is random.
    pub fn build<P: Protocol>(&self, protocol: &P, rng: &mut PopRng) -> Result<Vec<P::State>> {
        match self {
            InitSpec::Default => Ok(protocol.initial_configuration()),
            InitSpec::Random => Ok((0..protocol.n()).map(|_| protocol.random_state(rng)).collect()),
            InitSpec::Family(name) => {
                check_family(protocol, name)?;
                protocol
                    .configurations()
                    .and_then(|c| c.family_configuration(name, rng))
                    .ok_or_else(|| unknown_family(protocol, name))
            }
            InitSpec::Explicit(objects) => explicit_states(protocol, objects),
            InitSpec::Counts(counts) => Ok(states_of_counts(protocol, counts)?
                .into_iter()
                .flat_map(|(state, count)| std::iter::repeat_n(state, count as usize))
                .collect()),
        }
    }
}

/// The state object of a user protocol's state named `name`: `{"state": name}`.
fn named_state(name: String) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("state".into(), Value::String(name));
    object
}

/// `A=600,B=400` as counts by state name; a state given twice is refused.
fn parse_counts(text: &str) -> Result<Vec<(String, u64)>> {
    let counts: Vec<(String, u64)> = text
        .split(',')
        .map(|item| {
            let (state, count) = item.split_once('=').ok_or_else(|| {
                Error::Init(format!("counts:{text}: write each state as STATE=COUNT, for example counts:A=600,B=400"))
            })?;
            let count = crate::numbers::parse_u64(count.trim())
                .map_err(|e| Error::Init(format!("counts: state {}: {e}", state.trim())))?;
            Ok((state.trim().to_string(), count))
        })
        .collect::<Result<_>>()?;
    let mut seen = std::collections::HashSet::new();
    if let Some((state, _)) = counts.iter().find(|(state, _)| !seen.insert(state.as_str())) {
        return Err(Error::Init(format!(
            "counts:{text}: state {state} is given twice; give each state once, with its whole count"
        )));
    }
    Ok(counts)
}

/// Counts of named states as (state, count) pairs of `protocol`, refusing unknown names and
/// counts that do not sum to `n`.
pub fn states_of_counts<P: Protocol>(protocol: &P, counts: &[(String, u64)]) -> Result<Vec<(P::State, u64)>> {
    let total = counts.iter().try_fold(0u64, |sum, (_, c)| sum.checked_add(*c)).unwrap_or(u64::MAX);
    if total != protocol.n() as u64 {
        return Err(Error::Init(format!(
            "the counts sum to {total} agents but n = {}; make them sum to n",
            protocol.n()
        )));
    }
    counts
        .iter()
        .filter(|(_, count)| *count > 0)
        .map(|(name, count)| {
            let state = crate::protocol::state_from_json(protocol, &named_state(name.clone())).map_err(|e| {
                if let StateError::UnknownKey { key, keys } = &e
                    && key == "state"
                {
                    // The protocol's states are objects, not names.
                    let keys = format!(" (a state has the keys {keys})");
                    Error::Init(format!(
                        "counts:{name}=...: {} has no named states{keys}; counts:STATE=COUNT is for protocol files \
                         and Python protocols: give a named family, random, or @FILE.json with one state object \
                         per agent (see poplab list)",
                        protocol.info().name
                    ))
                } else {
                    Error::Init(format!("counts: state {name}: {e}"))
                }
            })?;
            Ok((state, *count))
        })
        .collect()
}

impl std::str::FromStr for InitSpec {
    type Err = Error;

    /// `default`, `random`, a family name or `counts:STATE=COUNT,...`; `@FILE.json` is read by [`crate::spec::RunSpec::resolve`]
    /// (with a size limit), or from text by [`InitSpec::from_json`].
    fn from_str(name: &str) -> Result<Self> {
        if name.starts_with('@') {
            return Err(Error::Init(format!(
                "'{name}' names a file; read it with InitSpec::from_json, or give it to a RawSpec"
            )));
        }
        match name.strip_prefix("counts:") {
            Some(counts) => parse_counts(counts).map(InitSpec::Counts),
            None => Ok(Self::from_name(name)),
        }
    }
}

/// Reads one state per agent; refuses a list whose length is not `n`.
fn explicit_states<P: Protocol>(protocol: &P, objects: &[Map<String, Value>]) -> Result<Vec<P::State>> {
    if objects.len() != protocol.n() {
        return Err(Error::Init(format!(
            "the file has {} agent states but n = {}; give exactly one state per agent",
            objects.len(),
            protocol.n()
        )));
    }
    objects
        .iter()
        .enumerate()
        .map(|(i, object)| {
            crate::protocol::state_from_json(protocol, object).map_err(|e| Error::Init(format!("agent {i}: {e}")))
        })
        .collect()
}

/// Refuses a family name the protocol does not list.
pub fn check_family<P: Protocol>(protocol: &P, name: &str) -> Result<()> {
    if name != "random" && !protocol.info().families.iter().any(|f| f.name == name) {
        return Err(unknown_family(protocol, name));
    }
    match protocol.configurations().and_then(|c| c.family_unavailable(name)) {
        Some(reason) => Err(Error::Init(format!("{} {name}: {reason}", protocol.info().name))),
        None => Ok(()),
    }
}

fn unknown_family<P: Protocol>(protocol: &P, name: &str) -> Error {
    let mut known = vec!["default", "random"];
    known.extend(protocol.info().families.iter().map(|f| f.name));
    Error::Init(format!(
        "{} has no initial configuration '{name}'; use one of {} or @FILE.json",
        protocol.info().name,
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Params;
    use crate::protocols::angluin::Angluin;
    use rand_core::SeedableRng;

    #[test]
    fn explicit_configurations_are_checked() {
        let p = Angluin::new(3, &Params::default()).unwrap();
        let mut rng = PopRng::seed_from_u64(0);
        let spec = InitSpec::from_json(r#"[{"leader": true}, {"leader": false}, {"leader": true}]"#).unwrap();
        assert_eq!(spec.build(&p, &mut rng).unwrap(), vec![true, false, true]);

        let short = InitSpec::from_json(r#"[{"leader": true}]"#).unwrap();
        assert!(short.validate(&p).unwrap_err().to_string().contains("has 1 agent states but n = 3"));
        let wrong = InitSpec::from_json(r#"[{"leader": true}, {"leader": 2}, {"leader": true}]"#).unwrap();
        assert!(wrong.validate(&p).unwrap_err().to_string().contains("agent 1"));
        assert!(InitSpec::from_json("{").is_err());
        assert!(InitSpec::from_json("[1]").is_err());
        assert_eq!(
            InitSpec::from_json(r#"{"A": 2, "B": 1}"#).unwrap(),
            InitSpec::Counts(vec![("A".into(), 2), ("B".into(), 1)])
        );
        assert!(InitSpec::from_json(r#"{"A": -2}"#).is_err());
        assert_eq!(
            "counts:A=1e3, B = 2".parse::<InitSpec>().unwrap(),
            InitSpec::Counts(vec![("A".into(), 1000), ("B".into(), 2)])
        );
        assert!("counts:A".parse::<InitSpec>().is_err());
    }

    #[test]
    fn families_are_checked_by_name() {
        let p = Angluin::new(3, &Params::default()).unwrap();
        assert!(InitSpec::from_name("all-leaders").validate(&p).is_ok());
        let err = InitSpec::from_name("nope").validate(&p).unwrap_err().to_string();
        assert!(err.contains("use one of default, random, all-leaders"), "{err}");
    }
}
