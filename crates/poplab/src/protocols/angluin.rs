//! `angluin`: the 2-state leader election `(l, l) -> (l, f)`.
//!
//! Source: Y. Sudo, "Leader Election in Population Protocol Model" (tutorial), section 3, after
//! Angluin et al. (2006). States `{l, f}`, every agent starts in `l`; when two leaders meet the
//! responder becomes a follower; every other pair is a null interaction.
//!
//! With `i` leaders a step removes one with probability `i (i - 1) / (n (n - 1))`, so the number of
//! steps to one leader is a sum of independent geometric variables with expectation exactly
//! `sum_{i=2..n} n (n - 1) / (i (i - 1)) = (n - 1)^2` (parallel time `(n - 1)^2 / n`): the first
//! exact check of every engine. Safe set: exactly one leader (closed, since leaders never appear).

use super::leader_count::LeaderCount;
use crate::error::Result;
use crate::graph::Graph;
use crate::protocol::{
    Configurations, CountStart, EngineHints, FamilyInfo, Output, Params, Protocol, ProtocolInfo, StateError, StateJson,
    json_bool, json_expect_keys,
};
use crate::rng::{PopRng, coin};
use serde_json::{Map, Value};

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "angluin",
    summary: "2-state leader election (l,l) -> (l,f); expected (n-1)^2 steps to one leader",
    source: "Sudo, tutorial (000) section 3; Angluin et al. 2006",
    params: &[],
    families: &[
        FamilyInfo { name: "all-leaders", doc: "every agent a leader (the default)" },
        FamilyInfo { name: "safe", doc: "one leader (agent 0), the rest followers" },
    ],
};

/// The exact variance and third cumulant of the steps to one leader from `n` leaders: the sum over
/// `i = 2..n` of a geometric variable's (success probability `p_i = i (i - 1) / (n (n - 1))`:
/// variance `(1 - p) / p^2`, third cumulant `(1 - p)(2 - p) / p^3`). Terms beyond `i = 10^5` add
/// less than a relative `10^-15` and are left out, so the sum costs at most `10^5` terms for any
/// `n`.
///
/// ```
/// use poplab::protocols::angluin::election_cumulants;
///
/// // n = 2: one geometric variable with p = 1: no spread.
/// assert_eq!(election_cumulants(2.0).variance, 0.0);
/// // n = 3: p = 1/3 then 1: variance (2/3) / (1/9) = 6.
/// assert!((election_cumulants(3.0).variance - 6.0).abs() < 1e-12);
/// ```
pub fn election_cumulants(n: f64) -> crate::verdict::Moments {
    let pairs = n * (n - 1.0);
    let (mut variance, mut third) = (0.0, 0.0);
    let last = n.min(1e5) as u64;
    for i in 2..=last {
        let p = (i * (i - 1)) as f64 / pairs;
        variance += (1.0 - p) / (p * p);
        third += (1.0 - p) * (2.0 - p) / (p * p * p);
    }
    crate::verdict::Moments { variance, third }
}

/// The 2-state election.
#[derive(Clone, Debug)]
pub struct Angluin {
    n: usize,
}

impl Angluin {
    /// The protocol for `n` agents; it takes no parameters.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        params.finish(&INFO)?;
        Ok(Self { n })
    }
}

impl Protocol for Angluin {
    /// `true` = `l` (leader), `false` = `f` (follower).
    type State = bool;
    type Monitor = LeaderCount<Self>;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::new()
    }

    /// One leader stays one leader: `(l, l)` is the only rule and needs two leaders. Two states.
    fn hints(&self) -> EngineHints {
        EngineHints { safe_set_is_closed: true, auto_batches: true, ..EngineHints::default() }
    }

    #[inline(always)]
    fn transition(&self, initiator: bool, responder: bool) -> (bool, bool) {
        (initiator, responder && !initiator)
    }

    fn output(&self, state: bool) -> Output {
        if state { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<bool> {
        vec![true; self.n]
    }

    fn random_state(&self, rng: &mut PopRng) -> bool {
        coin(rng)
    }

    fn monitor(&self, agents: &[bool], _graph: &Graph) -> LeaderCount<Self> {
        LeaderCount::new(self, agents)
    }

    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn configurations(&self) -> Option<&dyn Configurations<bool>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<bool>> {
        Some(self)
    }
}

impl CountStart<Angluin> for Angluin {
    fn initial_counts(&self) -> Vec<(bool, u64)> {
        vec![(true, self.n as u64)]
    }

    fn monitor_of_counts(&self, counts: &[(bool, u64)]) -> LeaderCount<Self> {
        LeaderCount::of_counts(self, counts)
    }
}

impl Configurations<bool> for Angluin {
    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<bool>> {
        match name {
            "all-leaders" => Some(self.initial_configuration()),
            "safe" => Some((0..self.n).map(|i| i == 0).collect()),
            _ => None,
        }
    }

    fn state_space(&self) -> Option<Vec<bool>> {
        Some(vec![true, false])
    }
}

impl StateJson<bool> for Angluin {
    fn state_to_json(&self, state: bool) -> Map<String, Value> {
        Map::from_iter([("leader".to_string(), Value::Bool(state))])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<bool, StateError> {
        json_expect_keys(object, &["leader"])?;
        json_bool(object, "leader")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Monitor;

    #[test]
    fn only_two_leaders_change_and_the_responder_yields() {
        let p = Angluin::new(4, &Params::default()).unwrap();
        assert_eq!(p.transition(true, true), (true, false));
        assert_eq!(p.transition(true, false), (true, false));
        assert_eq!(p.transition(false, true), (false, true));
        assert_eq!(p.transition(false, false), (false, false));
    }

    #[test]
    fn monitor_counts_leaders() {
        let p = Angluin::new(3, &Params::default()).unwrap();
        let mut m = p.monitor(&[true, true, false], &Graph::Complete);
        assert!(!m.is_safe());
        m.record([true, true], [true, false]);
        assert!(m.is_safe());
    }

    #[test]
    fn json_round_trip_and_errors() {
        let p = Angluin::new(2, &Params::default()).unwrap();
        assert_eq!(p.state_from_json(&p.state_to_json(true)), Ok(true));
        let bad: Map<String, Value> = serde_json::from_str(r#"{"leader": 1}"#).unwrap();
        assert!(p.state_from_json(&bad).is_err());
        assert!(Angluin::new(2, &Params::parse(&["k=1"]).unwrap()).is_err());
    }
}
