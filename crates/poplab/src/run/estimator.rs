//! How a run measures a holding time: by direct trials or by the splitting estimator
//! ([`Estimator`], part of a [`RawSpec`](crate::spec::RawSpec), public as `poplab::spec::Estimator`).

use crate::error::{Error, Result};
use crate::splitting::SplittingSettings;
use serde::{Deserialize, Serialize};

/// How a holding time is measured.
///
/// Stored as `{"method": "splitting", "replicas": R, "cycles": C, "score": S, "base_level": L}`
/// (absent for [`Estimator::Direct`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "EstimatorFields", try_from = "EstimatorFields")]
pub enum Estimator {
    /// Independent trials, each until the break.
    #[default]
    Direct,
    /// Renewal decomposition with generalized adaptive multilevel splitting ([`crate::splitting`]).
    Splitting(SplittingOptions),
}

/// The splitting estimator's options (its repetitions, seed and threads are the spec's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplittingOptions {
    /// gAMS replicas per repetition.
    pub replicas: u64,
    /// Directly simulated cycles per repetition.
    pub cycles: u64,
    /// The holding score, one of the protocol's (`None`: its first).
    pub score: Option<String>,
    /// The reference set is `{score <= L}` (`None`: chosen by a pilot run).
    pub base_level: Option<u64>,
}

impl Default for SplittingOptions {
    fn default() -> Self {
        let defaults = SplittingSettings::default();
        Self { replicas: defaults.replicas as u64, cycles: defaults.cycles, score: None, base_level: None }
    }
}

impl Estimator {
    /// Every method with its default options, in the order the command line lists them.
    pub fn methods() -> [Estimator; 2] {
        [Estimator::Direct, Estimator::Splitting(SplittingOptions::default())]
    }

    /// Its method's name, as typed and stored: `direct` or `splitting`.
    ///
    /// ```
    /// use poplab::spec::Estimator;
    ///
    /// for estimator in Estimator::methods() {
    ///     assert_eq!(estimator.method().parse::<Estimator>()?, estimator);
    /// }
    /// assert!("gams".parse::<Estimator>().unwrap_err().to_string().contains("direct or splitting"));
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn method(&self) -> &'static str {
        match self {
            Estimator::Direct => "direct",
            Estimator::Splitting(_) => "splitting",
        }
    }

    /// What its `--trials` count: `trials` (direct) or `repetitions` (splitting).
    pub fn trials_are(&self) -> &'static str {
        match self {
            Estimator::Direct => "trials",
            Estimator::Splitting(_) => "repetitions",
        }
    }

    /// Whether this is direct simulation.
    pub fn is_direct(&self) -> bool {
        *self == Estimator::Direct
    }

    /// The trials of a run when none are given: the estimator's repetitions, or `direct` trials.
    pub fn default_trials(&self, direct: u64) -> u64 {
        match self {
            Estimator::Direct => direct,
            Estimator::Splitting(_) => SplittingSettings::default().repetitions,
        }
    }
}

impl std::str::FromStr for Estimator {
    type Err = Error;

    /// A method by its name (`direct` or `splitting`), with its default options.
    fn from_str(method: &str) -> Result<Self> {
        Self::methods().into_iter().find(|e| e.method() == method).ok_or_else(|| Error::UnknownName {
            kind: "estimator",
            name: method.into(),
            choices: "direct or splitting".into(),
        })
    }
}

/// An [`Estimator`] as stored.
#[derive(Serialize, Deserialize)]
struct EstimatorFields {
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    score: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base_level: Option<Option<u64>>,
}

impl From<Estimator> for EstimatorFields {
    fn from(estimator: Estimator) -> Self {
        let method = estimator.method().into();
        match estimator {
            Estimator::Direct => Self { method, replicas: None, cycles: None, score: None, base_level: None },
            Estimator::Splitting(o) => Self {
                method,
                replicas: Some(o.replicas),
                cycles: Some(o.cycles),
                score: Some(o.score),
                base_level: Some(o.base_level),
            },
        }
    }
}

impl TryFrom<EstimatorFields> for Estimator {
    type Error = Error;

    fn try_from(fields: EstimatorFields) -> Result<Self> {
        Ok(match fields.method.parse()? {
            Estimator::Direct => Estimator::Direct,
            Estimator::Splitting(defaults) => Estimator::Splitting(SplittingOptions {
                replicas: fields.replicas.unwrap_or(defaults.replicas),
                cycles: fields.cycles.unwrap_or(defaults.cycles),
                score: fields.score.flatten(),
                base_level: fields.base_level.flatten(),
            }),
        })
    }
}
