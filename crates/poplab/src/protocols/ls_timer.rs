//! `ls-timer`: the loosely-stabilizing leader election with a countdown timer.
//!
//! Source: Y. Sudo, "Leader Election in Population Protocol Model" (tutorial, 000), section 4,
//! after Sudo et al. 2009/2012; PROTOCOLS.md section 2.3. Every agent knows an upper bound
//! `N >= n`. A state is a leader bit `l`/`f` and a timer `0..=s`, `s = 96 N` in the paper (here
//! `s = max(1, round(timer_factor * N))`, `timer_factor` defaulting to 96, or `s` given directly).
//! The four rules, exclusive and exhaustive, initiator first:
//!
//! 1. `((l, *), (*, *)) -> ((l, s), (f, s))`: a leader initiator keeps its leadership, the responder
//!    becomes (or stays) a follower, and both timers are reset to `s`;
//! 2. `((f, *), (l, *)) -> ((f, s), (l, s))`: a leader responder resets both timers;
//! 3. `((f, 0), (f, 0)) -> ((l, s), (f, s))`: the *timeout*, the only way a leader is created;
//! 4. `((f, i), (f, j)) -> ((f, m), (f, m))`, `m = max(i, j) - 1`, when `i > 0` or `j > 0`:
//!    larger value propagation.
//!
//! Consequences tested in this module and in `tests/it/ls_timer_runs.rs`: whenever a leader takes part
//! in an interaction (before it, or after it through a timeout), both agents leave it with timer
//! `s`; the number of leaders rises only by rule 3, by exactly one; it falls only by rule 1 with two
//! leaders. Without a leader the largest timer never grows and drops by one within `O(n log n)`
//! expected steps, so a timeout comes within `O(s n log n)` expected steps.
//!
//! Safe set (000 section 4): exactly one leader and every timer `>= s/2`. For odd `s` the half is
//! not rounded: the condition is read as `2 * timer >= s`, i.e. `timer >= ceil(s/2)`. The paper
//! claims convergence in `O(N log n)` parallel time from any configuration and a holding time of
//! `Omega(e^N)` parallel time.
//!
//! Choices where the paper is silent:
//! - The default initial configuration is `all-leaders` (every agent `(l, s)`), the start of the
//!   other elections of the project (`angluin`, `pll`), so default runs compare like with like;
//!   `no-leader` (the slowest start: the timeout must run down from `s`) and `random` are one
//!   `--init` away.
//! - Timers are `u32`, so `s` is refused above `u32::MAX`.

use super::search_levels::{CANDIDATES, Level, leader_count};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    Configurations, FamilyInfo, HoldingScores, Monitor, Observables, Output, ParamInfo, Params, Protocol, ProtocolInfo,
    STATE_SPACE_LIMIT, StateError, StateJson, json_bool, json_expect_keys, json_uint,
};
use crate::rng::{PopRng, below_u64, coin};
use serde_json::{Map, Value};

/// The paper's timer multiplier: `s = 96 N`.
pub const DEFAULT_TIMER_FACTOR: f64 = 96.0;

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "ls-timer",
    summary: "loosely-stabilizing leader election with a countdown timer 0..=s, s = 96 N (timeout creates leaders)",
    source: "Sudo, tutorial (000) section 4; Sudo et al. 2009/2012",
    params: &[
        ParamInfo { name: "N", default: "n", doc: "upper bound on the population size, N >= n" },
        ParamInfo {
            name: "timer_factor",
            default: "96",
            doc: "real > 0: the timer length is s = max(1, round(timer_factor * N))",
        },
        ParamInfo {
            name: "s",
            default: "round(timer_factor * N)",
            doc: "the timer length itself, >= 1 (overrides timer_factor)",
        },
    ],
    families: &[
        FamilyInfo { name: "all-leaders", doc: "every agent a leader with timer s (the default)" },
        FamilyInfo { name: "no-leader", doc: "no leader, every timer s: the longest wait for a timeout" },
        FamilyInfo { name: "safe", doc: "agent 0 the only leader, every timer s (a safe configuration)" },
    ],
};

/// One agent's state: the leader bit and the timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LsState {
    /// `l` (true) or `f` (false).
    pub leader: bool,
    /// The countdown timer, `0..=s`.
    pub timer: u32,
}

/// The loosely-stabilizing timer election.
#[derive(Clone, Debug)]
pub struct LsTimer {
    n: usize,
    /// `N`: the known upper bound on `n`.
    upper_bound: u64,
    /// The multiplier of `N` in `s` (reported even when `s` was given directly).
    timer_factor: f64,
    /// Whether `s` was given directly rather than derived from `timer_factor`.
    s_given: bool,
    /// `s`: the largest timer value.
    s: u32,
}

impl LsTimer {
    /// Reads `N` (default `n`, at least `n`), `timer_factor` (default 96, > 0) and `s` (>= 1;
    /// default `max(1, round(timer_factor * N))`).
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        let upper_bound = params.int("N", n as u64, 1, u64::from(u32::MAX))?;
        let timer_factor = params.real_above("timer_factor", DEFAULT_TIMER_FACTOR, 0.0)?;
        let s_given = params.has("s");
        let s = params.int("s", 1, 1, u64::from(u32::MAX))?;
        params.finish(&INFO)?;
        if upper_bound < n as u64 {
            return Err(Error::Parameter {
                name: "N".into(),
                value: upper_bound.to_string(),
                reason: format!("the protocol needs an upper bound N >= n = {n}; set N to at least {n} or omit it"),
            });
        }
        let s = if s_given {
            s
        } else {
            let derived = (timer_factor * upper_bound as f64).round().max(1.0);
            if derived > f64::from(u32::MAX) {
                return Err(Error::Parameter {
                    name: "timer_factor".into(),
                    value: timer_factor.to_string(),
                    reason: format!(
                        "s = timer_factor * N = {derived} does not fit a 32-bit timer; lower timer_factor or N, or give s"
                    ),
                });
            }
            derived as u64
        };
        Ok(Self { n, upper_bound, timer_factor, s_given, s: s as u32 })
    }

    /// `s`, the timer length.
    pub fn s(&self) -> u32 {
        self.s
    }

    /// `N`, the upper bound on `n`.
    pub fn upper_bound(&self) -> u64 {
        self.upper_bound
    }

    /// Whether a timer value is at least `s/2` (read as `2 * timer >= s`).
    #[inline(always)]
    pub fn timer_is_high(&self, timer: u32) -> bool {
        2 * u64::from(timer) >= u64::from(self.s)
    }

    /// Whether `agents` is in the safe set: exactly one leader, every timer `>= s/2`.
    pub fn is_safe_configuration(&self, agents: &[LsState]) -> bool {
        agents.iter().filter(|a| a.leader).count() == 1 && agents.iter().all(|a| self.timer_is_high(a.timer))
    }

    fn uniform(&self, leader: bool) -> Vec<LsState> {
        vec![LsState { leader, timer: self.s }; self.n]
    }
}

impl Protocol for LsTimer {
    type State = LsState;
    type Monitor = LsTimerMonitor;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::from_iter([
            ("N".to_string(), Value::from(self.upper_bound)),
            ("timer_factor".to_string(), Value::from(self.timer_factor)),
            ("s".to_string(), Value::from(self.s)),
            ("s_source".to_string(), Value::from(if self.s_given { "given" } else { "timer_factor * N" })),
        ])
    }

    #[inline(always)]
    fn transition(&self, initiator: LsState, responder: LsState) -> (LsState, LsState) {
        let s = self.s;
        match (initiator.leader, responder.leader) {
            // Rule 1.
            (true, _) => (LsState { leader: true, timer: s }, LsState { leader: false, timer: s }),
            // Rule 2.
            (false, true) => (LsState { leader: false, timer: s }, LsState { leader: true, timer: s }),
            (false, false) => {
                if initiator.timer == 0 && responder.timer == 0 {
                    // Rule 3: the timeout.
                    (LsState { leader: true, timer: s }, LsState { leader: false, timer: s })
                } else {
                    // Rule 4.
                    let m = initiator.timer.max(responder.timer) - 1;
                    (LsState { leader: false, timer: m }, LsState { leader: false, timer: m })
                }
            }
        }
    }

    fn output(&self, state: LsState) -> Output {
        if state.leader { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<LsState> {
        self.uniform(true)
    }

    fn random_state(&self, rng: &mut PopRng) -> LsState {
        let leader = coin(rng);
        LsState { leader, timer: below_u64(rng, u64::from(self.s) + 1) as u32 }
    }

    fn monitor(&self, agents: &[LsState], _graph: &Graph) -> LsTimerMonitor {
        LsTimerMonitor {
            s: self.s,
            leaders: agents.iter().filter(|a| a.leader).count(),
            low_timers: agents.iter().filter(|a| !self.timer_is_high(a.timer)).count(),
        }
    }

    fn configurations(&self) -> Option<&dyn Configurations<LsState>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<LsState>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<LsState>> {
        Some(self)
    }

    fn holding(&self) -> Option<&dyn HoldingScores<LsState>> {
        Some(self)
    }
}

impl Configurations<LsState> for LsTimer {
    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<LsState>> {
        match name {
            "all-leaders" => Some(self.uniform(true)),
            "no-leader" => Some(self.uniform(false)),
            "safe" => {
                let mut agents = self.uniform(false);
                agents[0].leader = true;
                Some(agents)
            }
            _ => None,
        }
    }

    /// A few leaders (0, 1, 2, n/2, n) with timers full, 0, just below s/2 or uniform, for leaders
    /// and followers apart.
    fn search_candidates(&self, rng: &mut PopRng) -> Vec<(String, Vec<LsState>)> {
        (0..CANDIDATES)
            .map(|_| {
                let leaders = leader_count(rng, self.n);
                let (of_leaders, of_followers) = (Level::draw(rng), Level::draw(rng));
                let agents = (0..self.n)
                    .map(|i| {
                        let leader = i < leaders;
                        let level = if leader { of_leaders } else { of_followers };
                        LsState { leader, timer: level.value(self.s, rng) }
                    })
                    .collect();
                let description = format!(
                    "{leaders} leaders, leaders' timers {}, followers' timers {}",
                    of_leaders.name(),
                    of_followers.name()
                );
                (description, agents)
            })
            .collect()
    }

    fn state_space(&self) -> Option<Vec<LsState>> {
        let size = 2 * (u64::from(self.s) + 1);
        (size <= STATE_SPACE_LIMIT).then(|| {
            [true, false]
                .into_iter()
                .flat_map(|leader| (0..=self.s).map(move |timer| LsState { leader, timer }))
                .collect()
        })
    }
}

impl StateJson<LsState> for LsTimer {
    fn state_to_json(&self, state: LsState) -> Map<String, Value> {
        Map::from_iter([
            ("leader".to_string(), Value::Bool(state.leader)),
            ("timer".to_string(), Value::from(state.timer)),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<LsState, StateError> {
        json_expect_keys(object, &["leader", "timer"])?;
        Ok(LsState {
            leader: json_bool(object, "leader")?,
            timer: json_uint(object, "timer", u64::from(self.s))? as u32,
        })
    }
}

impl Observables<LsState> for LsTimer {
    fn trace_columns(&self) -> &'static [&'static str] {
        &["min_timer"]
    }

    fn trace_values(&self, counts: &[(LsState, u64)]) -> Vec<f64> {
        vec![counts.iter().map(|(a, _)| a.timer).min().map_or(f64::NAN, f64::from)]
    }
}

impl HoldingScores<LsState> for LsTimer {
    /// Two scores, both 0 exactly when every timer is `s`, which with one leader (whose timer is
    /// always `s`, and which never moves before a break) is the safe start itself, so excursions
    /// from it are independent cycles:
    /// - `timer-deficit` (the default), `s - min timer`: a break needs a timeout, two timers at
    ///   0, so the deficit `s` first; it grows by at most one per interaction. Its `s` levels are
    ///   coarse (each a large drop in probability), so long timers need many replicas;
    /// - `total-deficit`, the sum of `s - timer` over the agents: a break needs it at `2 s` at
    ///   least, and it climbs there in many small levels, which keeps gAMS's binomial variance
    ///   low for long timers; at small `n` its repetitions are more skewed (see `tests/it/splitting_holding.rs`).
    fn holding_scores(&self) -> &'static [&'static str] {
        &["timer-deficit", "total-deficit"]
    }

    fn holding_score(&self, score: usize, agents: &[LsState]) -> Option<u64> {
        let deficits = agents.iter().map(|a| u64::from(self.s - a.timer));
        match score {
            0 => Some(deficits.max().unwrap_or(0)),
            1 => Some(deficits.sum()),
            _ => None,
        }
    }
}

/// Counts leaders and agents with timer below `s/2`; safe iff one leader and no low timer.
#[derive(Clone, Debug)]
pub struct LsTimerMonitor {
    s: u32,
    leaders: usize,
    low_timers: usize,
}

impl LsTimerMonitor {
    /// The current number of leaders.
    pub fn leaders(&self) -> usize {
        self.leaders
    }

    /// The current number of agents whose timer is below `s/2` (`2 * timer < s`).
    pub fn low_timers(&self) -> usize {
        self.low_timers
    }

    #[inline(always)]
    fn low(&self, state: LsState) -> usize {
        usize::from(2 * u64::from(state.timer) < u64::from(self.s))
    }
}

impl Monitor<LsState> for LsTimerMonitor {
    #[inline(always)]
    fn record(&mut self, before: [LsState; 2], after: [LsState; 2]) {
        self.leaders = self.leaders + usize::from(after[0].leader) + usize::from(after[1].leader)
            - usize::from(before[0].leader)
            - usize::from(before[1].leader);
        self.low_timers =
            self.low_timers + self.low(after[0]) + self.low(after[1]) - self.low(before[0]) - self.low(before[1]);
    }

    fn record_times(&mut self, before: [LsState; 2], after: [LsState; 2], times: u64) {
        let times = times as usize;
        let leaders = |pair: [LsState; 2]| times * (usize::from(pair[0].leader) + usize::from(pair[1].leader));
        let low = |pair: [LsState; 2]| times * (self.low(pair[0]) + self.low(pair[1]));
        let (low_after, low_before) = (low(after), low(before));
        self.leaders = self.leaders + leaders(after) - leaders(before);
        self.low_timers = self.low_timers + low_after - low_before;
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.leaders == 1 && self.low_timers == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn protocol(n: usize, settings: &[&str]) -> LsTimer {
        LsTimer::new(n, &Params::parse(settings).unwrap()).unwrap()
    }

    const fn l(timer: u32) -> LsState {
        LsState { leader: true, timer }
    }

    const fn f(timer: u32) -> LsState {
        LsState { leader: false, timer }
    }

    #[test]
    fn rule_1_leader_initiator_keeps_leadership_and_resets_both() {
        let p = protocol(4, &["s=10"]);
        assert_eq!(p.transition(l(3), l(7)), (l(10), f(10)), "two leaders: the responder yields");
        assert_eq!(p.transition(l(0), f(0)), (l(10), f(10)));
        assert_eq!(p.transition(l(10), f(4)), (l(10), f(10)));
    }

    #[test]
    fn rule_2_leader_responder_resets_both() {
        let p = protocol(4, &["s=10"]);
        assert_eq!(p.transition(f(0), l(2)), (f(10), l(10)));
        assert_eq!(p.transition(f(9), l(10)), (f(10), l(10)));
    }

    #[test]
    fn rule_3_timeout_makes_the_initiator_a_leader() {
        let p = protocol(4, &["s=10"]);
        assert_eq!(p.transition(f(0), f(0)), (l(10), f(10)));
    }

    #[test]
    fn rule_4_larger_value_propagation() {
        let p = protocol(4, &["s=10"]);
        assert_eq!(p.transition(f(0), f(1)), (f(0), f(0)));
        assert_eq!(p.transition(f(1), f(0)), (f(0), f(0)));
        assert_eq!(p.transition(f(3), f(7)), (f(6), f(6)));
        assert_eq!(p.transition(f(10), f(10)), (f(9), f(9)));
        assert_eq!(p.transition(f(5), f(2)), (f(4), f(4)));
    }

    #[test]
    fn every_pair_stays_in_the_domain_for_a_small_s() {
        let p = protocol(3, &["s=3"]);
        let states: Vec<LsState> = (0..=3).flat_map(|t| [l(t), f(t)]).collect();
        for &a in &states {
            for &b in &states {
                let (a2, b2) = p.transition(a, b);
                assert!(a2.timer <= 3 && b2.timer <= 3);
                if a.leader || b.leader || a2.leader || b2.leader {
                    assert_eq!((a2.timer, b2.timer), (3, 3), "{a:?} {b:?}");
                }
                let before = usize::from(a.leader) + usize::from(b.leader);
                let after = usize::from(a2.leader) + usize::from(b2.leader);
                if after > before {
                    assert_eq!((a, b), (f(0), f(0)), "a leader appeared without a timeout");
                }
            }
        }
    }

    #[test]
    fn derived_timer_length_and_parameter_errors() {
        let p = protocol(10, &[]);
        assert_eq!(p.s(), 960);
        assert_eq!(p.upper_bound(), 10);
        assert_eq!(p.params()["s"], Value::from(960));
        assert_eq!(p.params()["N"], Value::from(10));
        assert_eq!(p.params()["timer_factor"], Value::from(96.0));
        assert_eq!(protocol(10, &["N=20", "timer_factor=0.5"]).s(), 10);
        assert_eq!(protocol(10, &["timer_factor=0.01"]).s(), 1, "s is at least 1");
        assert_eq!(protocol(10, &["s=7", "timer_factor=3"]).s(), 7, "s takes precedence");
        assert_eq!(protocol(10, &["s=7"]).params()["s_source"], Value::from("given"));

        let err = LsTimer::new(10, &Params::parse(&["N=9"]).unwrap()).unwrap_err().to_string();
        assert!(err.contains("N >= n = 10") && err.contains("at least 10"), "{err}");
        assert!(LsTimer::new(10, &Params::parse(&["timer_factor=0"]).unwrap()).is_err());
        assert!(LsTimer::new(10, &Params::parse(&["timer_factor=-1"]).unwrap()).is_err());
        assert!(LsTimer::new(10, &Params::parse(&["s=0"]).unwrap()).is_err());
        assert!(LsTimer::new(10, &Params::parse(&["timer_factor=1e12"]).unwrap()).is_err());
        assert!(LsTimer::new(10, &Params::parse(&["c=1"]).unwrap()).is_err());
    }

    #[test]
    fn safe_set_halves_odd_s_upwards() {
        let p = protocol(3, &["s=5"]);
        assert!(!p.timer_is_high(2));
        assert!(p.timer_is_high(3));
        assert!(p.is_safe_configuration(&[l(3), f(5), f(3)]));
        assert!(!p.is_safe_configuration(&[l(3), f(5), f(2)]));
        assert!(!p.is_safe_configuration(&[l(3), l(5), f(5)]));
        assert!(!p.is_safe_configuration(&[f(5), f(5), f(5)]));
        let p = protocol(3, &["s=4"]);
        assert!(p.timer_is_high(2) && !p.timer_is_high(1));
    }

    #[test]
    fn monitor_tracks_leaders_and_low_timers() {
        let p = protocol(3, &["s=10"]);
        let agents = [f(0), f(0), f(9)];
        let mut m = p.monitor(&agents, &Graph::Complete);
        assert_eq!((m.leaders(), m.low_timers()), (0, 2));
        assert!(!m.is_safe());
        m.record([f(0), f(0)], [l(10), f(10)]);
        assert_eq!((m.leaders(), m.low_timers()), (1, 0));
        assert!(m.is_safe());
        m.record([f(10), f(9)], [f(4), f(4)]);
        assert!(!m.is_safe());
    }

    #[test]
    fn families_are_as_documented() {
        let p = protocol(5, &["s=8"]);
        let mut rng = PopRng::seed_from_u64(1);
        let all = p.family_configuration("all-leaders", &mut rng).unwrap();
        assert!(all.iter().all(|&a| a == l(8)));
        assert_eq!(all, p.initial_configuration());
        let none = p.family_configuration("no-leader", &mut rng).unwrap();
        assert!(none.iter().all(|&a| a == f(8)));
        let safe = p.family_configuration("safe", &mut rng).unwrap();
        assert!(p.is_safe_configuration(&safe));
        assert!(p.monitor(&safe, &Graph::Complete).is_safe());
        assert!(p.family_configuration("nope", &mut rng).is_none());
        for family in INFO.families {
            assert!(p.family_configuration(family.name, &mut rng).is_some(), "{}", family.name);
        }
    }

    #[test]
    fn random_states_cover_the_domain() {
        let p = protocol(5, &["s=3"]);
        let mut rng = PopRng::seed_from_u64(2);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2_000 {
            let a = p.random_state(&mut rng);
            assert!(a.timer <= 3);
            seen.insert(a);
        }
        assert_eq!(seen.len(), 8, "all (leader, timer) pairs in 2000 draws");
    }

    #[test]
    fn json_round_trip_and_domain_checks() {
        let p = protocol(5, &["s=8"]);
        for state in [l(0), l(8), f(3)] {
            let object = p.state_to_json(state);
            assert_eq!(object.keys().collect::<Vec<_>>(), ["leader", "timer"]);
            assert_eq!(p.state_from_json(&object), Ok(state));
        }
        let read = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        assert!(read(r#"{"leader": true, "timer": 9}"#).unwrap_err().to_string().contains("from 0 to 8"));
        assert!(read(r#"{"leader": 1, "timer": 0}"#).is_err());
        assert!(read(r#"{"leader": true}"#).unwrap_err().to_string().contains("missing"));
        assert!(
            read(r#"{"leader": true, "timer": 1, "shield": false}"#).unwrap_err().to_string().contains("unknown key")
        );
    }

    #[test]
    fn trace_reports_the_smallest_timer() {
        let p = protocol(3, &["s=8"]);
        assert_eq!(p.trace_columns(), ["min_timer"]);
        assert_eq!(p.trace_values(&crate::protocol::tally(&[f(5), l(8), f(2)])), vec![2.0]);
    }
}
