//! `threshold`: does the population hold at least `k` ones?
//!
//! Source: Y. Sudo, "Leader Election in Population Protocol Model" (tutorial), section 2 (the
//! paper's example uses `k = 10`). States `0..=k`; an interaction of `x` (initiator) and `y`
//! (responder) gives `(x + y, 0)` if `x + y < k` and `(k, k)` otherwise. Output yes iff the state is
//! `k`. Input: `f` agents start in state 1, the rest in 0; every agent eventually outputs yes iff
//! `f >= k`.
//!
//! Safe set (the paper is silent; this is the choice made here): every agent outputs the correct
//! answer. The answer is read off the configuration the run starts from (yes iff its values sum to
//! at least `k` or some agent already holds `k`), which is `f >= k` for the default input. It is
//! closed: below `k` the sum of values is conserved and no agent reaches `k`; at `k` it spreads
//! and never leaves.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    AUTO_BATCHED_MAX_STATES, Configurations, CountStart, EngineHints, Monitor, Output, ParamInfo, Params, Protocol,
    ProtocolInfo, StateError, StateJson, json_expect_keys, json_uint, tally,
};
use crate::rng::{PopRng, below_u64};
use serde_json::{Map, Value};

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "threshold",
    summary: "threshold predicate 'at least k agents hold 1': (x,y) -> (x+y,0) if x+y<k, else (k,k)",
    source: "Sudo, tutorial (000) section 2",
    params: &[
        ParamInfo { name: "k", default: "10", doc: "the threshold, 1..=65535" },
        ParamInfo { name: "f", default: "min(k, n)", doc: "agents that start in state 1 (the input), 0..=n" },
    ],
    families: &[],
};

/// The threshold protocol.
#[derive(Clone, Debug)]
pub struct Threshold {
    n: usize,
    /// `k`: the threshold, also the largest state.
    k: u16,
    /// `f`: the number of agents whose input is 1.
    f: usize,
}

impl Threshold {
    /// Reads `k` (default 10) and `f` (default `min(k, n)`); refuses `f > n`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        let k = params.int("k", 10, 1, u64::from(u16::MAX))? as u16;
        let f = params.int("f", u64::from(k).min(n as u64), 0, u64::MAX)? as usize;
        params.finish(&INFO)?;
        if f > n {
            return Err(Error::Parameter {
                name: "f".into(),
                value: f.to_string(),
                reason: format!("only n = {n} agents can start in state 1; choose f <= n"),
            });
        }
        Ok(Self { n, k, f })
    }

    /// The threshold `k`.
    pub fn k(&self) -> u16 {
        self.k
    }
}

impl Protocol for Threshold {
    /// The value `0..=k` an agent holds.
    type State = u16;
    type Monitor = CorrectOutputs;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::from_iter([("k".to_string(), Value::from(self.k)), ("f".to_string(), Value::from(self.f))])
    }

    /// The safe set is closed: the answer is fixed by the sum of the values at the start
    /// ([`CorrectOutputs`]): if it is at least `k`, the all-`k` configuration stays so; if below
    /// `k`, no pair ever reaches `k`, so no agent ever says yes and every reachable configuration
    /// is correct. States 0..=k: batched under `auto` when at most [`AUTO_BATCHED_MAX_STATES`].
    fn hints(&self) -> EngineHints {
        EngineHints {
            safe_set_is_closed: true,
            auto_batches: u64::from(self.k) < AUTO_BATCHED_MAX_STATES,
            ..EngineHints::default()
        }
    }

    #[inline(always)]
    fn transition(&self, x: u16, y: u16) -> (u16, u16) {
        let sum = u32::from(x) + u32::from(y);
        if sum < u32::from(self.k) { (sum as u16, 0) } else { (self.k, self.k) }
    }

    fn output(&self, state: u16) -> Output {
        if state == self.k { Output::Yes } else { Output::No }
    }

    fn initial_configuration(&self) -> Vec<u16> {
        let mut agents = vec![0; self.n];
        agents[..self.f].fill(1);
        agents
    }

    fn random_state(&self, rng: &mut PopRng) -> u16 {
        below_u64(rng, u64::from(self.k) + 1) as u16
    }

    fn monitor(&self, agents: &[u16], _graph: &Graph) -> CorrectOutputs {
        self.monitor_of_counts(&tally(agents))
    }

    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn configurations(&self) -> Option<&dyn Configurations<u16>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<u16>> {
        Some(self)
    }
}

impl CountStart<Threshold> for Threshold {
    /// `f` ones then `n - f` zeros, in the order [`crate::protocol::tally`] gives the array.
    fn initial_counts(&self) -> Vec<(u16, u64)> {
        [(1, self.f), (0, self.n - self.f)]
            .into_iter()
            .filter(|&(_, count)| count > 0)
            .map(|(s, c)| (s, c as u64))
            .collect()
    }

    fn monitor_of_counts(&self, counts: &[(u16, u64)]) -> CorrectOutputs {
        let sum: u64 = counts.iter().map(|&(v, c)| u64::from(v) * c).sum();
        let answer_is_yes = sum >= u64::from(self.k);
        let wrong = counts.iter().filter(|&&(v, _)| (v == self.k) != answer_is_yes).map(|&(_, c)| c as usize).sum();
        CorrectOutputs { k: self.k, answer_is_yes, wrong }
    }
}

impl Configurations<u16> for Threshold {
    fn state_space(&self) -> Option<Vec<u16>> {
        Some((0..=self.k).collect())
    }
}

impl StateJson<u16> for Threshold {
    fn state_to_json(&self, state: u16) -> Map<String, Value> {
        Map::from_iter([("value".to_string(), Value::from(state))])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<u16, StateError> {
        json_expect_keys(object, &["value"])?;
        Ok(json_uint(object, "value", u64::from(self.k))? as u16)
    }
}

/// Counts the agents whose output differs from the correct answer; safe iff none.
#[derive(Clone, Debug)]
pub struct CorrectOutputs {
    k: u16,
    answer_is_yes: bool,
    wrong: usize,
}

impl CorrectOutputs {
    fn is_wrong(&self, state: u16) -> usize {
        usize::from((state == self.k) != self.answer_is_yes)
    }
}

impl Monitor<u16> for CorrectOutputs {
    #[inline(always)]
    fn record(&mut self, before: [u16; 2], after: [u16; 2]) {
        self.wrong = self.wrong + self.is_wrong(after[0]) + self.is_wrong(after[1])
            - self.is_wrong(before[0])
            - self.is_wrong(before[1]);
    }

    fn record_times(&mut self, before: [u16; 2], after: [u16; 2], times: u64) {
        let times = times as usize;
        self.wrong = self.wrong + times * (self.is_wrong(after[0]) + self.is_wrong(after[1]))
            - times * (self.is_wrong(before[0]) + self.is_wrong(before[1]));
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.wrong == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol(n: usize, k: u64, f: u64) -> Threshold {
        Threshold::new(n, &Params::parse(&[format!("k={k}"), format!("f={f}")]).unwrap()).unwrap()
    }

    #[test]
    fn rules_of_the_paper() {
        let p = protocol(20, 10, 3);
        assert_eq!(p.transition(3, 4), (7, 0));
        assert_eq!(p.transition(0, 0), (0, 0));
        assert_eq!(p.transition(6, 4), (10, 10));
        assert_eq!(p.transition(9, 10), (10, 10));
        assert_eq!(p.transition(0, 10), (10, 10));
    }

    #[test]
    fn default_input_and_answer() {
        let p = protocol(12, 10, 3);
        let agents = p.initial_configuration();
        assert_eq!(agents.iter().filter(|&&v| v == 1).count(), 3);
        assert!(p.monitor(&agents, &Graph::Complete).is_safe(), "f < k: all-no is already correct");
        let p = protocol(12, 10, 10);
        let mut m = p.monitor(&p.initial_configuration(), &Graph::Complete);
        assert!(!m.is_safe());
        assert_eq!(m.wrong, 12);
        m.record([9, 1], [10, 10]);
        assert_eq!(m.wrong, 10);
    }

    #[test]
    fn refuses_f_above_n_and_bad_k() {
        let err = Threshold::new(5, &Params::parse(&["f=6"]).unwrap()).unwrap_err();
        assert!(err.to_string().contains("choose f <= n"), "{err}");
        assert!(Threshold::new(5, &Params::parse(&["k=0"]).unwrap()).is_err());
        assert!(Threshold::new(5, &Params::parse(&["k=70000"]).unwrap()).is_err());
    }

    #[test]
    fn json_reads_values_within_k() {
        let p = protocol(5, 4, 1);
        let ok: Map<String, Value> = serde_json::from_str(r#"{"value": 4}"#).unwrap();
        assert_eq!(p.state_from_json(&ok), Ok(4));
        let bad: Map<String, Value> = serde_json::from_str(r#"{"value": 5}"#).unwrap();
        assert!(p.state_from_json(&bad).is_err());
    }
}
