//! A verdict and its evidence, and the one-sided decisions of an estimate against a margin that
//! the rules of [`crate::growth`] and [`crate::verdict`] share.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The probability of each wrong decision of a rule, at most.
pub const ALPHA: f64 = 0.001;

/// The power a design should have: [`Power::trials_factor`] is the factor of trials that reaches it.
pub const TARGET_POWER: f64 = 0.95;

/// A verdict on one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The data agree with the claim.
    Consistent,
    /// The data contradict the claim.
    Inconsistent,
    /// The data cannot decide.
    Inconclusive,
}

impl Verdict {
    /// The word a report prints.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Consistent => "consistent",
            Verdict::Inconsistent => "inconsistent",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A verdict with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// The figures that decided it, in words.
    pub evidence: String,
    /// The power of the design, estimated from the data (rules that compare an estimate with a
    /// margin).
    pub power: Option<Power>,
}

impl Judgement {
    /// A verdict and its evidence, without a power.
    pub fn new(verdict: Verdict, evidence: impl Into<String>) -> Self {
        Judgement { verdict, evidence: evidence.into(), power: None }
    }
}

pub(crate) fn judgement(verdict: Verdict, evidence: impl Into<String>) -> Judgement {
    Judgement::new(verdict, evidence)
}

/// The power of a design, estimated by taking the measured estimate for the truth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Power {
    /// The probability that the same design (sizes and trials) reaches a decision.
    pub decide: f64,
    /// The factor by which the trials per point would have to grow to decide with probability
    /// [`TARGET_POWER`] (below 1: the design has more than it needs); `None` when the estimate
    /// sits on the margin, where no number of trials decides (a wider range is needed).
    pub trials_factor: Option<f64>,
}

impl Power {
    /// From the distance of an estimate to its margin, its standard error and the critical value.
    pub fn of(distance: f64, se: f64, critical: f64) -> Self {
        let normal = Normal::standard();
        let decide = if se > 0.0 { normal.cdf(distance / se - critical) } else { 1.0 };
        let target = normal.inverse_cdf(TARGET_POWER);
        let trials_factor = (distance > 0.0).then(|| ((critical + target) * se / distance).powi(2));
        Power { decide, trials_factor }
    }
}

/// The one-sided `1 - ALPHA` quantile with `df` degrees of freedom (normal for infinitely many).
pub fn critical(df: f64) -> f64 {
    if df.is_finite() {
        StudentsT::new(0.0, 1.0, df.max(1.0)).map(|d| d.inverse_cdf(1.0 - ALPHA)).unwrap_or(f64::INFINITY)
    } else {
        Normal::standard().inverse_cdf(1.0 - ALPHA)
    }
}

/// A one-sided decision of an estimate against a margin: `Consistent` when the estimate is below
/// the margin by `critical` standard errors (above it for `bound = AtLeast`), `Inconsistent` when
/// it is beyond it by as much, else `Inconclusive`; with the power of the design from the data.
pub fn decide(estimate: f64, se: f64, margin: f64, critical: f64, bound: Bound) -> (Verdict, Power) {
    // Signed so that below the margin is the claim's side.
    let distance = match bound {
        Bound::AtMost => margin - estimate,
        Bound::AtLeast => estimate - margin,
    };
    let verdict = if distance > critical * se {
        Verdict::Consistent
    } else if -distance > critical * se {
        Verdict::Inconsistent
    } else {
        Verdict::Inconclusive
    };
    (verdict, Power::of(distance.abs(), se, critical))
}

/// The direction of a growth claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Bound {
    /// `O(f)`: the mean grows at most like `f`.
    AtMost,
    /// `Omega(f)`: the mean grows at least like `f`.
    AtLeast,
}

impl Bound {
    /// `O` or `Omega`.
    pub fn symbol(self) -> &'static str {
        match self {
            Bound::AtMost => "O",
            Bound::AtLeast => "Omega",
        }
    }
}
