//! The stop rules of user protocols (their safe sets) and the monitor that tracks them exactly,
//! per interaction.

use super::Custom;
use super::state::{CustomState, OUTPUT_CODES, output_code};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{Monitor, Output};
use std::sync::Arc;

/// When a run of a user protocol stops: the protocol's safe set. A closed set.
///
/// ```
/// use poplab::protocols::custom::StopRule;
///
/// assert_eq!("one-leader".parse::<StopRule>()?, StopRule::OneLeader);
/// let rule: StopRule = "time:2.5".parse()?;
/// assert_eq!(rule, StopRule::Time(2.5));
/// assert_eq!(rule.horizon(100), Some(250)); // ceil(T n) steps
/// assert_eq!(rule.name(), "time:2.5");
/// assert!("sometimes".parse::<StopRule>().is_err());
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StopRule {
    /// No interaction the scheduler can pick changes anything: on the complete graph, no pair of
    /// present states (two agents of one state for a pair of equal states) has a non-null rule; on
    /// another graph, no arc whose agents' pair has one.
    Silent,
    /// Exactly one agent outputs leader.
    OneLeader,
    /// Every agent outputs yes, or every agent outputs no.
    Consensus,
    /// Every agent outputs yes.
    AllYes,
    /// Every agent outputs no.
    AllNo,
    /// Never: the run goes on to this parallel time (its horizon) and is censored there.
    Time(f64),
}

impl StopRule {
    /// The rules known by name, in the order messages list them ([`StopRule::names`]); a fixed
    /// time is written `time:T`.
    pub const NAMED: [StopRule; 5] =
        [StopRule::Silent, StopRule::OneLeader, StopRule::Consensus, StopRule::AllYes, StopRule::AllNo];

    /// The names of the rules known by name ([`StopRule::NAMED`]), as they are parsed and listed
    /// in messages (and by the Python package), `time:T` aside.
    pub fn names() -> Vec<&'static str> {
        Self::NAMED.iter().filter_map(|rule| rule.known_name()).collect()
    }

    /// The name of a rule known by name; `None` for a fixed time.
    fn known_name(self) -> Option<&'static str> {
        match self {
            StopRule::Silent => Some("silent"),
            StopRule::OneLeader => Some("one-leader"),
            StopRule::Consensus => Some("consensus"),
            StopRule::AllYes => Some("all-yes"),
            StopRule::AllNo => Some("all-no"),
            StopRule::Time(_) => None,
        }
    }

    /// The rule's name, as written in protocol files and outputs (`time:T` for a fixed time).
    pub fn name(self) -> String {
        match self {
            StopRule::Time(t) => format!("time:{t}"),
            named => named.known_name().unwrap_or_default().into(),
        }
    }

    /// The rules a protocol file or `Protocol(stop=...)` takes, in words: "silent, one-leader,
    /// consensus, all-yes, all-no or time:T".
    pub fn choices() -> String {
        format!("{} or time:T", Self::names().join(", "))
    }

    /// The horizon a fixed-time rule sets for `n` agents, in steps (`ceil(t n)`).
    pub fn horizon(self, n: usize) -> Option<u128> {
        match self {
            StopRule::Time(t) => Some((t * n as f64).ceil() as u128),
            _ => None,
        }
    }
}

impl std::str::FromStr for StopRule {
    type Err = Error;

    /// A name of [`StopRule::names`] (`silent`, `one-leader`, `consensus`, `all-yes`, `all-no`)
    /// or `time:T` (T > 0, parallel time).
    fn from_str(text: &str) -> Result<Self> {
        if let Some(rule) = Self::NAMED.into_iter().find(|rule| rule.known_name() == Some(text)) {
            return Ok(rule);
        }
        match text.strip_prefix("time:").map(str::parse::<f64>) {
            Some(Ok(t)) if t.is_finite() && t > 0.0 => Ok(StopRule::Time(t)),
            _ => Err(Error::UnknownName {
                kind: "stop rule",
                name: text.into(),
                choices: format!("{} (T a parallel time above 0)", Self::choices()),
            }),
        }
    }
}

/// Tracks a [`StopRule`] per interaction: counts of outputs, and for [`StopRule::Silent`] the
/// number of pairs (or arcs) that can change something.
///
/// The rules on outputs only (all but [`StopRule::Silent`]) keep nothing but a count per output,
/// indexed by the code in a state's low bits: recording an interaction is four additions without
/// a branch, as in a built-in's monitor (the batched engine records every pair type of every batch).
#[derive(Clone)]
pub struct StopMonitor {
    rule: StopRule,
    n: u64,
    /// Agents per output code ([`CustomState::output_code`]); wrapping, so that the order of the
    /// changes of one interaction does not matter.
    outputs: [u64; OUTPUT_CODES],
    silence: Option<Silence>,
}

/// What [`StopRule::Silent`] keeps.
#[derive(Clone)]
struct Silence {
    protocol: Custom,
    /// Agents per state, by [`CustomState::id`] (ids are dense: interned in order).
    counts: Vec<u64>,
    /// The states with agents.
    present: Vec<CustomState>,
    /// Complete graph: ordered pairs of present states (both agents distinct) whose rule is not
    /// null. Other graphs: arcs whose agents' pair is not null.
    active: u64,
    /// The arcs at each agent (other graphs only).
    arcs_at: Option<ArcsAt>,
}

/// The arcs at each agent of a graph other than the complete one, shared by a run's monitors.
type ArcsAt = Arc<Vec<Vec<(u32, u32)>>>;

impl StopMonitor {
    /// The monitor of `rule` for the configuration with these (state, count) pairs on the complete
    /// graph.
    pub(super) fn of_counts(protocol: &Custom, counts: &[(CustomState, u64)]) -> Self {
        let mut monitor = Self::empty(protocol, None);
        for &(state, count) in counts {
            monitor.change(state, count as i64);
        }
        monitor
    }

    /// The monitor of the protocol's stop rule for `agents` on `graph`.
    pub(super) fn of_agents(protocol: &Custom, agents: &[CustomState], graph: &Graph) -> Self {
        if *graph == Graph::Complete {
            return Self::of_counts(protocol, &crate::protocol::tally(agents));
        }
        let arcs_at = protocol.stops_when_silent().then(|| Arc::new(arcs_at(graph, agents.len())));
        let mut monitor = Self::empty(protocol, arcs_at.clone());
        for &state in agents {
            monitor.count_output(state, 1);
        }
        if let (Some(silence), Some(arcs_at)) = (&mut monitor.silence, arcs_at) {
            let at = |u: u32| agents[u as usize];
            silence.active = arcs_at
                .iter()
                .enumerate()
                .flat_map(|(u, arcs)| arcs.iter().filter(move |&&(from, _)| from == u as u32))
                .filter(|&&(u, v)| !silence.protocol.rule_is_null(at(u), at(v)))
                .count() as u64;
        }
        monitor
    }

    fn empty(protocol: &Custom, arcs_at: Option<ArcsAt>) -> Self {
        let rule = protocol.stop();
        let silence = protocol.stops_when_silent().then(|| Silence {
            protocol: protocol.clone(),
            counts: Vec::new(),
            present: Vec::new(),
            active: 0,
            arcs_at,
        });
        Self { rule, n: protocol.n as u64, outputs: [0; OUTPUT_CODES], silence }
    }

    #[inline(always)]
    fn count_output(&mut self, state: CustomState, delta: i64) {
        let counter = &mut self.outputs[state.output_code()];
        *counter = counter.wrapping_add_signed(delta);
    }

    /// The number of agents that output `output`.
    #[inline(always)]
    fn agents_with(&self, output: Output) -> u64 {
        self.outputs[output_code(output)]
    }

    /// Adds `delta` agents in `state` (complete graph).
    fn change(&mut self, state: CustomState, delta: i64) {
        self.count_output(state, delta);
        if let Some(silence) = &mut self.silence
            && silence.arcs_at.is_none()
        {
            silence.change(state, delta);
        }
    }
}

impl Silence {
    /// Adds `delta` agents in `state`, keeping the count of non-null pairs of present states.
    fn change(&mut self, state: CustomState, delta: i64) {
        let id = state.id() as usize;
        if id >= self.counts.len() {
            self.counts.resize(id + 1, 0);
        }
        let old = self.counts[id];
        let new = old.wrapping_add_signed(delta);
        self.counts[id] = new;
        let can = |a, b| u64::from(!self.protocol.rule_is_null(a, b));
        if (old == 0) != (new == 0) {
            let cross: u64 =
                self.present.iter().filter(|&&other| other != state).map(|&o| can(state, o) + can(o, state)).sum();
            if new > 0 {
                self.active += cross;
                self.present.push(state);
            } else {
                self.active -= cross;
                self.present.retain(|&s| s != state);
            }
        }
        if (old >= 2) != (new >= 2) {
            if new >= 2 {
                self.active += can(state, state);
            } else {
                self.active -= can(state, state);
            }
        }
    }
}

/// The arcs `(u, v)` of `graph` at each of `n` agents, each arc listed at both its ends (once when
/// `u = v` cannot happen).
fn arcs_at(graph: &Graph, n: usize) -> Vec<Vec<(u32, u32)>> {
    let mut at = vec![Vec::new(); n];
    let mut add = |u: u32, v: u32| {
        at[u as usize].push((u, v));
        at[v as usize].push((u, v));
    };
    let n32 = n as u32;
    match graph {
        Graph::Complete => unreachable!("the complete graph keeps counts"),
        Graph::DirectedRing => (0..n32).for_each(|i| add(i, (i + 1) % n32)),
        Graph::UndirectedRing => (0..n32).for_each(|i| {
            add(i, (i + 1) % n32);
            add((i + 1) % n32, i);
        }),
        Graph::Arcs(arcs) => arcs.iter().for_each(|&(u, v)| add(u, v)),
    }
    for arcs in &mut at {
        arcs.sort_unstable();
        arcs.dedup();
    }
    at
}

impl Monitor<CustomState> for StopMonitor {
    #[inline]
    fn record(&mut self, before: [CustomState; 2], after: [CustomState; 2]) {
        self.record_times(before, after, 1);
    }

    fn record_at(&mut self, agents: &[CustomState], pair: (usize, usize), before: [CustomState; 2]) {
        let after = [agents[pair.0], agents[pair.1]];
        let Some(arcs_at) = self.silence.as_ref().and_then(|s| s.arcs_at.clone()) else {
            return self.record(before, after);
        };
        for (old, new) in before.into_iter().zip(after) {
            self.count_output(old, -1);
            self.count_output(new, 1);
        }
        let silence = self.silence.as_mut().expect("silence kept");
        let old_state = |w: u32| match w as usize {
            w if w == pair.0 => before[0],
            w if w == pair.1 => before[1],
            w => agents[w],
        };
        let mut touched: Vec<(u32, u32)> = arcs_at[pair.0].iter().chain(&arcs_at[pair.1]).copied().collect();
        touched.sort_unstable();
        touched.dedup();
        for (u, v) in touched {
            let was = !silence.protocol.rule_is_null(old_state(u), old_state(v));
            let is = !silence.protocol.rule_is_null(agents[u as usize], agents[v as usize]);
            silence.active = silence.active + u64::from(is) - u64::from(was);
        }
    }

    #[inline]
    fn record_times(&mut self, before: [CustomState; 2], after: [CustomState; 2], times: u64) {
        let times = times as i64;
        if self.silence.is_none() {
            // Outputs only: the fast path of every rule but silent.
            for state in after {
                self.count_output(state, times);
            }
            for state in before {
                self.count_output(state, -times);
            }
            return;
        }
        for state in after {
            self.change(state, times);
        }
        for state in before {
            self.change(state, -times);
        }
    }

    /// One update per state (complete graph: the batched engine runs there only).
    fn record_net<I: Iterator<Item = (CustomState, i64)> + Clone>(&mut self, changes: I) {
        for (state, delta) in changes {
            self.change(state, delta);
        }
    }

    /// The rule holds, or the run is silent and the protocol stops when silent.
    #[inline]
    fn is_safe(&self) -> bool {
        self.rule_holds() || self.silence.as_ref().is_some_and(|s| s.active == 0)
    }
}

impl StopMonitor {
    /// Whether the stop rule's own condition on outputs holds (false for silence, which
    /// [`Silence`] tracks).
    #[inline(always)]
    fn rule_holds(&self) -> bool {
        match self.rule {
            StopRule::Silent => false,
            StopRule::OneLeader => self.agents_with(Output::Leader) == 1,
            StopRule::Consensus => self.agents_with(Output::Yes) == self.n || self.agents_with(Output::No) == self.n,
            StopRule::AllYes => self.agents_with(Output::Yes) == self.n,
            StopRule::AllNo => self.agents_with(Output::No) == self.n,
            StopRule::Time(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CountStart, Protocol};
    use crate::protocols::custom::{Amount, Definition};
    use crate::rng::{PopRng, below_u64};
    use rand_core::SeedableRng;

    /// A protocol with a state of every output and no rules, for `n` agents, stopping at `stop`.
    fn every_output(stop: StopRule, n: usize) -> Custom {
        let outputs = [Output::Leader, Output::Follower, Output::Yes, Output::No, Output::Undecided];
        let definition = Definition {
            name: "every-output".into(),
            source: String::new(),
            states: outputs.iter().enumerate().map(|(k, &o)| (format!("s{k}"), o)).collect(),
            rules: Vec::new(),
            init: vec![("s0".into(), Amount::Fraction(1.0))],
            stop,
        };
        Custom::new(&definition, n).unwrap()
    }

    #[test]
    fn the_named_rules_are_read_by_their_names_and_listed_in_the_message() {
        assert_eq!(StopRule::names(), ["silent", "one-leader", "consensus", "all-yes", "all-no"]);
        for rule in StopRule::NAMED {
            assert_eq!(rule.name().parse::<StopRule>().unwrap(), rule);
        }
        let message = "sometimes".parse::<StopRule>().unwrap_err().to_string();
        assert!(
            message
                .ends_with("use silent, one-leader, consensus, all-yes, all-no or time:T (T a parallel time above 0)"),
            "{message}"
        );
    }

    /// The rules on outputs follow any sequence of records, single or repeated (as batches
    /// record pair types), against a count over the agents after each.
    #[test]
    fn output_rules_follow_any_sequence_of_records() {
        let n = 6;
        for stop in [StopRule::OneLeader, StopRule::Consensus, StopRule::AllYes, StopRule::AllNo, StopRule::Time(1.0)] {
            let protocol = every_output(stop, n);
            let states = protocol.inner.declared.clone();
            let mut rng = PopRng::seed_from_u64(7);
            let mut agents: Vec<CustomState> = (0..n).map(|i| states[i % states.len()]).collect();
            let mut monitor = protocol.monitor(&agents, &Graph::Complete);
            let expected = |agents: &[CustomState]| {
                let with = |o: Output| agents.iter().filter(|s| s.output() == o).count();
                match stop {
                    StopRule::OneLeader => with(Output::Leader) == 1,
                    StopRule::Consensus => with(Output::Yes) == n || with(Output::No) == n,
                    StopRule::AllYes => with(Output::Yes) == n,
                    StopRule::AllNo => with(Output::No) == n,
                    _ => false,
                }
            };
            let mut safe_seen = false;
            for step in 0..20_000 {
                let u = below_u64(&mut rng, n as u64) as usize;
                let v = (u + 1 + below_u64(&mut rng, n as u64 - 1) as usize) % n;
                let before = [agents[u], agents[v]];
                // Leaning towards one state now and then, so that every safe set is met.
                let pick = |rng: &mut PopRng| {
                    let k = below_u64(rng, 8) as usize;
                    states[if k < states.len() { k } else { step / 1000 % states.len() }]
                };
                let after = [pick(&mut rng), pick(&mut rng)];
                (agents[u], agents[v]) = (after[0], after[1]);
                if step % 3 == 0 {
                    monitor.record_times(before, after, 1);
                } else {
                    monitor.record(before, after);
                }
                assert_eq!(monitor.is_safe(), expected(&agents), "{stop:?} step {step}: {agents:?}");
                safe_seen |= expected(&agents);
            }
            assert!(safe_seen || stop == StopRule::Time(1.0), "{stop:?}: the test never met the safe set");
            // Repeated interactions, as batches record them: `times` disjoint pairs of agents in
            // states (a, b) all turn into the same pair of states.
            let mut monitor = protocol.monitor_of_counts(&crate::protocol::tally(&agents));
            for round in 0..2_000 {
                let (a, b) = (agents[below_u64(&mut rng, n as u64) as usize], states[round % states.len()]);
                let mut of_a: Vec<usize> = (0..n).filter(|&i| agents[i] == a).collect();
                let mut of_b: Vec<usize> = (0..n).filter(|&i| agents[i] == b && a != b).collect();
                if a == b {
                    of_b = of_a.split_off(of_a.len() / 2);
                }
                let most = of_a.len().min(of_b.len());
                if most == 0 {
                    continue;
                }
                let times = 1 + below_u64(&mut rng, most as u64) as usize;
                let after = [states[below_u64(&mut rng, 5) as usize], states[below_u64(&mut rng, 5) as usize]];
                for k in 0..times {
                    (agents[of_a[k]], agents[of_b[k]]) = (after[0], after[1]);
                }
                monitor.record_times([a, b], after, times as u64);
                assert_eq!(monitor.is_safe(), expected(&agents), "{stop:?} round {round}: {agents:?}");
            }
        }
    }
}
