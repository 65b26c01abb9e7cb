//! `approx-majority`: the 3-state approximate-majority protocol, the field's throughput benchmark.
//!
//! Source: D. Angluin, J. Aspnes, D. Eisenstat, "A simple population protocol for fast robust
//! approximate majority", Distributed Computing 21(2):87-102, 2008 (DISC 2007). Not one of the four
//! source papers: it is here as the standard benchmark of simulators. States `A`, `B` and `U`
//! (undecided; the paper's `x`, `y` and blank). Rules, (initiator, responder):
//! `(A, B), (B, A) -> (U, U)`; `(A, U), (U, A) -> (A, A)`; `(B, U), (U, B) -> (B, B)`; every other
//! pair is null.
//!
//! This is the symmetric two-way form of the rules, as this project specifies them. The paper's
//! protocol is one-way: only the responder changes (`(x, y) -> (x, b)`, `(y, x) -> (y, b)`,
//! `(x, b) -> (x, x)`, `(y, b) -> (y, y)`): the paper's theorems are about that chain, and the
//! constants measured here are not the paper's.
//!
//! Input (parameter `a`, default 0.5): `round(a n)` agents start in `A` (agents `0..`), the rest in
//! `B`, none in `U`. The rounding is `f64::round` of the product `a * n`: halves round away from
//! zero, so `a = 0.5` with odd `n` gives `A` the extra agent (`n = 3`: `A A B`). The family `safe`
//! (the default start of holding runs) is the consensus on the initial majority, `A` on a tie.
//!
//! Output: `A` yes, `B` no, `U` [`Output::Undecided`]. So the `leaders` column of a trace (the
//! agents with the marked output) counts the agents in `A`; the trace columns `count_a`, `count_b`,
//! `count_u` give all three counts.
//!
//! Safe set: consensus, every agent in `A` or every agent in `B`. Both are silent (no pair is
//! non-null), hence closed, and every output is then the same answer. Whether the consensus is the
//! initial majority is not part of the safe set (the protocol is approximate: the minority wins with
//! a probability that vanishes with the initial margin); tests measure it. The all-`U`
//! configuration is silent as well but is NOT safe: it is a failed run, reachable with positive
//! probability from starts with both opinions (from `A A B B` by two `A`-`B` meetings), and a run
//! that reaches it is censored at its horizon (the count engine, seeing no non-null pair, jumps
//! there at once). `poplab exact` reports an infinite expectation, with a schedule into it, for such
//! starts.

use crate::error::Result;
use crate::graph::Graph;
use crate::protocol::{
    Configurations, CountStart, EngineHints, FamilyInfo, Monitor, Observables, Output, ParamInfo, Params, Protocol,
    ProtocolInfo, StateError, StateJson, json_expect_keys,
};
use crate::rng::{PopRng, below_u64};
use serde_json::{Map, Value};

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "approx-majority",
    summary: "3-state approximate majority: (A,B) -> (U,U), (A,U) -> (A,A), (B,U) -> (B,B), in either order",
    source: "Angluin, Aspnes, Eisenstat 2008 (symmetric two-way form; the paper's is one-way)",
    params: &[ParamInfo {
        name: "a",
        default: "0.5",
        doc: "fraction in [0, 1]: round(a n) agents start in A (halves away from zero), the rest in B",
    }],
    families: &[FamilyInfo {
        name: "safe",
        doc: "every agent in the initial majority opinion (A on a tie): silent, so a holding run is censored",
    }],
};

/// An agent's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opinion {
    /// Opinion A (the paper's `x`).
    A = 0,
    /// Opinion B (the paper's `y`).
    B = 1,
    /// Undecided (the paper's blank).
    U = 2,
}

impl Opinion {
    /// The state space, in index order.
    pub const ALL: [Opinion; 3] = [Opinion::A, Opinion::B, Opinion::U];

    /// The name used in JSON states.
    pub fn letter(self) -> &'static str {
        ["A", "B", "U"][self as usize]
    }
}

/// The approximate-majority protocol.
#[derive(Clone, Debug)]
pub struct ApproxMajority {
    n: usize,
    /// `a`: the fraction of agents that start in `A`.
    a: f64,
    /// `round(a n)`: the agents that start in `A`.
    initial_a: usize,
}

impl ApproxMajority {
    /// Reads `a` (default 0.5); refuses values outside `[0, 1]`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        let a = params.real_in("a", 0.5, 0.0, 1.0)?;
        params.finish(&INFO)?;
        Ok(Self { n, a, initial_a: (a * n as f64).round() as usize })
    }

    /// The number of agents that start in `A`, `round(a n)`.
    pub fn initial_a(&self) -> usize {
        self.initial_a
    }
}

impl Protocol for ApproxMajority {
    type State = Opinion;
    type Monitor = Consensus;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::from_iter([("a".to_string(), Value::from(self.a)), ("initial_a".to_string(), Value::from(self.initial_a))])
    }

    /// A consensus has no agent to change it: every pair of equal states is null. Three states.
    fn hints(&self) -> EngineHints {
        EngineHints { safe_set_is_closed: true, auto_batches: true, ..EngineHints::default() }
    }

    #[inline(always)]
    fn transition(&self, initiator: Opinion, responder: Opinion) -> (Opinion, Opinion) {
        use Opinion::{A, B, U};
        match (initiator, responder) {
            (A, B) | (B, A) => (U, U),
            (A, U) | (U, A) => (A, A),
            (B, U) | (U, B) => (B, B),
            same => same,
        }
    }

    fn output(&self, state: Opinion) -> Output {
        match state {
            Opinion::A => Output::Yes,
            Opinion::B => Output::No,
            Opinion::U => Output::Undecided,
        }
    }

    fn initial_configuration(&self) -> Vec<Opinion> {
        (0..self.n).map(|i| if i < self.initial_a { Opinion::A } else { Opinion::B }).collect()
    }

    fn random_state(&self, rng: &mut PopRng) -> Opinion {
        Opinion::ALL[below_u64(rng, 3) as usize]
    }

    fn monitor(&self, agents: &[Opinion], _graph: &Graph) -> Consensus {
        Consensus::new(agents)
    }

    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn configurations(&self) -> Option<&dyn Configurations<Opinion>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<Opinion>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<Opinion>> {
        Some(self)
    }
}

impl CountStart<ApproxMajority> for ApproxMajority {
    fn initial_counts(&self) -> Vec<(Opinion, u64)> {
        let a = self.initial_a as u64;
        [(Opinion::A, a), (Opinion::B, self.n as u64 - a)].into_iter().filter(|&(_, c)| c > 0).collect()
    }

    fn monitor_of_counts(&self, counts: &[(Opinion, u64)]) -> Consensus {
        let mut tally = [0; 3];
        counts.iter().for_each(|&(s, c)| tally[s as usize] += c as usize);
        Consensus { n: self.n, counts: tally }
    }
}

impl Configurations<Opinion> for ApproxMajority {
    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<Opinion>> {
        let majority = if 2 * self.initial_a >= self.n { Opinion::A } else { Opinion::B };
        (name == "safe").then(|| vec![majority; self.n])
    }

    fn state_space(&self) -> Option<Vec<Opinion>> {
        Some(Opinion::ALL.to_vec())
    }
}

impl StateJson<Opinion> for ApproxMajority {
    fn state_to_json(&self, state: Opinion) -> Map<String, Value> {
        Map::from_iter([("opinion".to_string(), Value::from(state.letter()))])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<Opinion, StateError> {
        json_expect_keys(object, &["opinion"])?;
        let value = object.get("opinion").ok_or_else(|| StateError::Missing("opinion".into()))?;
        Opinion::ALL
            .into_iter()
            .find(|o| value.as_str() == Some(o.letter()))
            .ok_or_else(|| StateError::value("opinion", "\"A\", \"B\" or \"U\"", value))
    }
}

impl Observables<Opinion> for ApproxMajority {
    fn trace_columns(&self) -> &'static [&'static str] {
        &["count_a", "count_b", "count_u"]
    }

    fn trace_values(&self, counts: &[(Opinion, u64)]) -> Vec<f64> {
        let mut by_opinion = [0u64; 3];
        counts.iter().for_each(|&(s, c)| by_opinion[s as usize] += c);
        by_opinion.iter().map(|&c| c as f64).collect()
    }
}

/// Counts the agents in `A`, `B` and `U`; safe iff all of them are in `A` or all in `B`.
#[derive(Clone, Debug)]
pub struct Consensus {
    n: usize,
    /// Indexed by [`Opinion`] as `usize`.
    counts: [usize; 3],
}

impl Consensus {
    /// Counts the opinions of `agents`.
    pub fn new(agents: &[Opinion]) -> Self {
        let mut counts = [0; 3];
        agents.iter().for_each(|&s| counts[s as usize] += 1);
        Self { n: agents.len(), counts }
    }

    /// The number of agents holding `opinion`.
    pub fn count(&self, opinion: Opinion) -> usize {
        self.counts[opinion as usize]
    }
}

impl Monitor<Opinion> for Consensus {
    #[inline(always)]
    fn record(&mut self, before: [Opinion; 2], after: [Opinion; 2]) {
        self.record_times(before, after, 1);
    }

    #[inline(always)]
    fn record_times(&mut self, before: [Opinion; 2], after: [Opinion; 2], times: u64) {
        // Additions first: no count goes below zero on the way.
        after.iter().for_each(|&s| self.counts[s as usize] += times as usize);
        before.iter().for_each(|&s| self.counts[s as usize] -= times as usize);
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.counts[Opinion::A as usize] == self.n || self.counts[Opinion::B as usize] == self.n
    }
}

#[cfg(test)]
mod tests {
    use super::Opinion::{A, B, U};
    use super::*;
    use rand_core::SeedableRng;

    fn protocol(n: usize, a: &str) -> ApproxMajority {
        ApproxMajority::new(n, &Params::parse(&[format!("a={a}")]).unwrap()).unwrap()
    }

    #[test]
    fn rules_in_both_orders_and_null_pairs() {
        let p = protocol(4, "0.5");
        let non_null = [((A, B), (U, U)), ((B, A), (U, U)), ((A, U), (A, A)), ((U, A), (A, A))];
        let non_null = [non_null.as_slice(), &[((B, U), (B, B)), ((U, B), (B, B))]].concat();
        for x in Opinion::ALL {
            for y in Opinion::ALL {
                let expected = non_null.iter().find(|(pair, _)| *pair == (x, y)).map_or((x, y), |&(_, to)| to);
                assert_eq!(p.transition(x, y), expected, "({x:?}, {y:?})");
            }
        }
    }

    #[test]
    fn initial_configuration_rounds_a_n() {
        for (n, a, expected) in
            [(10, "0.7", 7), (3, "0.5", 2), (5, "0.5", 3), (1000, "0.6", 600), (7, "0", 0), (7, "1", 7)]
        {
            let p = protocol(n, a);
            let agents = p.initial_configuration();
            assert_eq!((p.initial_a(), agents.len()), (expected, n), "n = {n}, a = {a}");
            assert!(agents[..expected].iter().all(|&s| s == A) && agents[expected..].iter().all(|&s| s == B));
        }
        assert_eq!(ApproxMajority::new(4, &Params::default()).unwrap().initial_a(), 2, "a defaults to 0.5");
        assert!(protocol(7, "1").monitor(&protocol(7, "1").initial_configuration(), &Graph::Complete).is_safe());
        let mut rng = PopRng::seed_from_u64(0);
        assert_eq!(protocol(4, "0.5").family_configuration("safe", &mut rng), Some(vec![A; 4]));
        assert_eq!(protocol(4, "0.25").family_configuration("safe", &mut rng), Some(vec![B; 4]));
        assert_eq!(protocol(4, "0.5").family_configuration("nope", &mut rng), None);
    }

    #[test]
    fn refuses_a_outside_zero_one() {
        for bad in ["1.5", "-0.1", "NaN", "inf", "half"] {
            let err = ApproxMajority::new(10, &Params::parse(&[format!("a={bad}")]).unwrap()).unwrap_err();
            assert!(matches!(err, crate::error::Error::Parameter { .. }), "{err}");
            assert!(err.to_string().contains("from 0 to 1"), "{err}");
        }
        assert!(ApproxMajority::new(10, &Params::parse(&["b=1"]).unwrap()).is_err());
    }

    /// A batch's net change recorded by the monitor's default `record_net` (moves of agents) leaves
    /// it as a monitor of the configuration after the change, whatever the order of the changes.
    #[test]
    fn net_change_gives_the_monitor_of_the_new_configuration() {
        let start = [vec![A; 5], vec![B; 3], vec![U; 2]].concat();
        for changes in [
            vec![(A, -5), (B, 2), (U, 3)],
            vec![(U, 3), (A, -5), (B, 2)],
            vec![(B, -3), (U, -2), (A, 5)],
            vec![(A, 0), (B, -1), (U, 1)],
        ] {
            let mut monitor = Consensus::new(&start);
            monitor.record_net(changes.iter().copied());
            let count = |o: Opinion| {
                (start.iter().filter(|&&s| s == o).count() as i64 + changes.iter().find(|c| c.0 == o).unwrap().1)
                    as usize
            };
            assert_eq!(Opinion::ALL.map(|o| monitor.count(o)), Opinion::ALL.map(count), "{changes:?}");
            assert_eq!(monitor.is_safe(), count(A) == 10 || count(B) == 10, "{changes:?}");
        }
    }

    /// Every agent vector of 4 agents: the monitor is safe exactly at consensus, and the silent
    /// configurations (no non-null ordered pair of distinct agents) are consensus and all-`U`.
    #[test]
    fn safe_set_is_consensus_and_silent_set_adds_all_undecided() {
        let p = protocol(4, "0.5");
        for code in 0..81usize {
            let agents: Vec<Opinion> = (0..4).map(|i| Opinion::ALL[code / 3usize.pow(i) % 3]).collect();
            let all = |o: Opinion| agents.iter().all(|&s| s == o);
            assert_eq!(p.monitor(&agents, &Graph::Complete).is_safe(), all(A) || all(B), "{agents:?}");
            let silent =
                (0..4).all(|i| (0..4).all(|j| i == j || p.transition(agents[i], agents[j]) == (agents[i], agents[j])));
            assert_eq!(silent, all(A) || all(B) || all(U), "{agents:?}");
        }
    }

    #[test]
    fn monitor_keeps_counts() {
        let p = protocol(4, "0.5");
        let mut m = p.monitor(&[A, A, B, B], &Graph::Complete);
        m.record([A, B], [U, U]);
        assert_eq!((m.count(A), m.count(B), m.count(U)), (1, 1, 2));
        m.record([B, U], [B, B]);
        m.record([U, B], [B, B]);
        assert!(!m.is_safe());
        m.record([A, B], [U, U]);
        m.record([B, U], [B, B]);
        m.record_times([U, B], [B, B], 1);
        assert!(m.is_safe());
        assert_eq!((m.count(A), m.count(B), m.count(U)), (0, 4, 0));
        let mut m = p.monitor(&[A, A, B, B, U, U], &Graph::Complete);
        m.record_times([A, U], [A, A], 2);
        assert_eq!((m.count(A), m.count(B), m.count(U)), (4, 2, 0));
    }

    #[test]
    fn outputs_trace_and_json() {
        let p = protocol(3, "0.5");
        assert_eq!([p.output(A), p.output(B), p.output(U)], [Output::Yes, Output::No, Output::Undecided]);
        assert_eq!(p.trace_columns(), ["count_a", "count_b", "count_u"]);
        assert_eq!(p.trace_values(&crate::protocol::tally(&[A, U, U])), vec![1.0, 0.0, 2.0]);
        for s in Opinion::ALL {
            assert_eq!(p.state_from_json(&p.state_to_json(s)), Ok(s));
        }
        for bad in [r#"{"opinion": "x"}"#, r#"{"opinion": 0}"#, r#"{}"#, r#"{"opinion": "A", "leader": true}"#] {
            let object: Map<String, Value> = serde_json::from_str(bad).unwrap();
            assert!(p.state_from_json(&object).is_err(), "{bad}");
        }
        assert_eq!(p.params()["initial_a"], 2);
    }
}
