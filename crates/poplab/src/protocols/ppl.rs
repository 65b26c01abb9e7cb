//! `ppl` (P_PL): loosely-stabilizing leader election with polylogarithmic convergence time.
//!
//! Source: Sudo, Ooshita, Kakugawa, Masuzawa, Datta, Larmore, "Loosely-Stabilizing Leader
//! Election with Polylogarithmic Convergence Time" (OPODIS 2018, paper 001), section 3,
//! Algorithm 1; safe set from section 4; PROTOCOLS.md section 2.4.
//!
//! Parameters: an upper bound `N >= n` and `c >= 1`. Constants (Algorithm 1):
//! `t_virus = 60 ceil(ln N)`, `t_max = t_emit = 12 c t_virus ceil(ln N)`. As PROTOCOLS.md asks, the
//! multipliers 60 and 12 are real parameters `virus_factor` and `emit_factor`, and the timer
//! lengths can be given directly:
//! - `t_virus = max(1, round(virus_factor * ceil(ln N)))`,
//! - `t_max = t_emit = max(1, round(emit_factor * c * t_virus * ceil(ln N)))`, computed with the
//!   effective `t_virus` (given or derived);
//! - each of `t_virus`, `t_max`, `t_emit` given directly (an integer >= 1) replaces its formula; the
//!   ones not given keep theirs, so giving only `t_max` makes `t_max != t_emit` (the paper has them
//!   equal; the analysis uses them for different purposes, so they are kept apart here).
//!
//! Variables (Algorithm 1): `leader`, `shield` (booleans), `timer_L in 0..=t_max`,
//! `virus in 0..=t_virus`, `timer_I in 0..=t_emit` (JSON keys `leader`, `shield`, `timer_l`,
//! `virus`, `timer_i`). An interaction of initiator `a0` and responder `a1` runs lines 1-9 in order:
//!
//! 1. `a0.timer_L <- a1.timer_L <- max(a0.timer_L - 1, a1.timer_L - 1, 0)`
//! 2. every `a_i` with `timer_L = 0` becomes a leader (the timeout)
//! 3. if either agent is a leader, both `timer_L <- t_max` (timer reset)
//! 4. `a0.virus <- a1.virus <- max(a0.virus - 1, a1.virus - 1, 0)`
//! 5. every unshielded `a_i` with `virus > 0` stops being a leader
//! 6. both `timer_I <- max(timer_I - 1, 0)`
//! 7. if `a0.timer_I = 0` and `a0` is a leader: `a0.virus <- t_virus`, `a0.shield <- true`
//! 8. if `a1.timer_I = 0` and `a1` is a leader: `a1.shield <- false`
//! 9. every `a_i` with `timer_I = 0` gets `timer_I <- t_emit`
//!
//! Consequences (tested): after an interaction in which either agent was a leader before it or is
//! one after it, both agents hold `timer_L = t_max` (line 3 runs after the only line that creates
//! leaders and before the only one that removes them). An agent becomes a leader only at line 2,
//! so only when `max(a0.timer_L, a1.timer_L) <= 1`; then both agents of the pair do (the count of
//! leaders can rise by two, unlike `ls-timer`), and line 5 may kill them again at once.
//!
//! Safe set (section 4): `S = L1 ∩ G_half ∩ (L_safe ∪ V_clean)` with `L1`: exactly one leader;
//! `G_half`: every `timer_L >= t_max/2`; `L_safe`: some leader is shielded with
//! `timer_I >= t_emit/2`; `V_clean`: every `virus = 0`. The halves are not rounded: `x >= t/2` is
//! read as `2 x >= t`. Each part is a public predicate on a configuration ([`Ppl::l1`],
//! [`Ppl::g_half`], [`Ppl::l_safe`], [`Ppl::v_clean`]) and [`PplMonitor`] tracks the same four
//! parts with counters.
//!
//! Choices where the paper is silent:
//! - Default initial configuration: `all-leaders` (every agent a leader, unshielded, no virus,
//!   full timers), the start of the other elections of the project, so that the virus war, the
//!   part of P_PL that is new, does the work; `no-leader` (timeout) and `random` are one `--init`
//!   away.
//! - `virus-storm`: every agent a leader, unshielded, `virus = t_virus`, full timers: the first
//!   interactions kill leaders everywhere, and the population must recover by a timeout after the
//!   viruses have died out.
//! - Timers are `u32`; derived lengths above `u32::MAX` are refused.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    FamilyInfo, Monitor, Output, ParamInfo, Params, Protocol, ProtocolInfo, STATE_SPACE_LIMIT, json_bool,
    json_expect_keys, json_uint,
};
use crate::rng::{PopRng, below_u64, coin};
use serde_json::{Map, Value};

/// The paper's multiplier in `t_virus = 60 ceil(ln N)`.
pub const DEFAULT_VIRUS_FACTOR: f64 = 60.0;
/// The paper's multiplier in `t_max = t_emit = 12 c t_virus ceil(ln N)`.
pub const DEFAULT_EMIT_FACTOR: f64 = 12.0;

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "ppl",
    summary: "P_PL: loosely-stabilizing leader election, timeout + virus war, O(c log n log^2 N) convergence",
    source: "Sudo et al., OPODIS 2018 (001), section 3, Algorithm 1",
    params: &[
        ParamInfo { name: "N", default: "n", doc: "upper bound on the population size, N >= n" },
        ParamInfo { name: "c", default: "1", doc: "real >= 1: trades convergence time for holding time" },
        ParamInfo {
            name: "virus_factor",
            default: "60",
            doc: "real > 0: t_virus = max(1, round(virus_factor * ceil(ln N)))",
        },
        ParamInfo {
            name: "emit_factor",
            default: "12",
            doc: "real > 0: t_max = t_emit = max(1, round(emit_factor * c * t_virus * ceil(ln N)))",
        },
        ParamInfo {
            name: "t_virus",
            default: "from virus_factor",
            doc: "virus lifetime, >= 1 (overrides the formula)",
        },
        ParamInfo {
            name: "t_max",
            default: "from emit_factor",
            doc: "leader-timer length, >= 1 (overrides the formula)",
        },
        ParamInfo {
            name: "t_emit",
            default: "from emit_factor",
            doc: "individual-timer length, >= 1 (overrides the formula)",
        },
    ],
    families: &[
        FamilyInfo {
            name: "all-leaders",
            doc: "every agent an unshielded leader, no virus, timer_L = t_max, timer_I = t_emit (the default)",
        },
        FamilyInfo {
            name: "no-leader",
            doc: "no leader, no virus, timer_L = t_max (the longest wait for a timeout), timer_I = t_emit",
        },
        FamilyInfo {
            name: "virus-storm",
            doc: "every agent an unshielded leader carrying virus = t_virus, timer_L = t_max, timer_I = t_emit",
        },
        FamilyInfo {
            name: "safe",
            doc: "agent 0 the only leader, shielded, timer_I = t_emit; no virus; every timer_L = t_max",
        },
    ],
};

/// One agent's state: the five variables of Algorithm 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PplState {
    /// `leader`: outputs L when true.
    pub leader: bool,
    /// `shield`: a shielded leader survives viruses.
    pub shield: bool,
    /// `timer_L in 0..=t_max`: the leader timer (timeout mechanism).
    pub timer_l: u32,
    /// `virus in 0..=t_virus`: the time to live of the virus this agent carries (0: none).
    pub virus: u32,
    /// `timer_I in 0..=t_emit`: the individual timer that makes leaders emit viruses.
    pub timer_i: u32,
}

/// The protocol P_PL.
#[derive(Clone, Debug)]
pub struct Ppl {
    n: usize,
    /// `N`: the known upper bound on `n`.
    upper_bound: u64,
    /// `c >= 1`.
    c: f64,
    /// The multiplier of `ceil(ln N)` in `t_virus` (60 in the paper).
    virus_factor: f64,
    /// The multiplier of `c t_virus ceil(ln N)` in `t_max` and `t_emit` (12 in the paper).
    emit_factor: f64,
    /// Which of `t_virus`, `t_max`, `t_emit` were given directly.
    given: [bool; 3],
    /// `t_virus`.
    t_virus: u32,
    /// `t_max`.
    t_max: u32,
    /// `t_emit`.
    t_emit: u32,
}

/// `ceil(ln x)` for `x >= 1`.
fn ceil_ln(x: u64) -> u64 {
    (x as f64).ln().ceil().max(0.0) as u64
}

/// `max(1, round(value))` as a timer length, refused above `u32::MAX`.
fn timer_length(name: &str, value: f64, how: &str) -> Result<u32> {
    let rounded = value.round().max(1.0);
    if rounded > f64::from(u32::MAX) {
        return Err(Error::Parameter {
            name: name.into(),
            value: rounded.to_string(),
            reason: format!("{how} does not fit a 32-bit timer; lower the factors, c or N, or give {name} directly"),
        });
    }
    Ok(rounded as u32)
}

impl Ppl {
    /// Reads `N` (default `n`, at least `n`), `c` (default 1, at least 1), `virus_factor`
    /// (default 60) and `emit_factor` (default 12), both > 0, and optionally the timer lengths
    /// `t_virus`, `t_max`, `t_emit` (each >= 1, replacing its formula).
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        let upper_bound = params.int("N", n as u64, 1, u64::from(u32::MAX))?;
        let c = params.real_above("c", 1.0, 0.0)?;
        let virus_factor = params.real_above("virus_factor", DEFAULT_VIRUS_FACTOR, 0.0)?;
        let emit_factor = params.real_above("emit_factor", DEFAULT_EMIT_FACTOR, 0.0)?;
        let max = u64::from(u32::MAX);
        let given = [params.has("t_virus"), params.has("t_max"), params.has("t_emit")];
        let t_virus = params.int("t_virus", 1, 1, max)?;
        let t_max = params.int("t_max", 1, 1, max)?;
        let t_emit = params.int("t_emit", 1, 1, max)?;
        params.finish(&INFO)?;
        if upper_bound < n as u64 {
            return Err(Error::Parameter {
                name: "N".into(),
                value: upper_bound.to_string(),
                reason: format!("the protocol needs an upper bound N >= n = {n}; set N to at least {n} or omit it"),
            });
        }
        if c < 1.0 {
            return Err(Error::Parameter {
                name: "c".into(),
                value: c.to_string(),
                reason: "the paper requires c >= 1; use c = 1 or more (smaller timers: lower emit_factor)".into(),
            });
        }
        let log = ceil_ln(upper_bound) as f64;
        let t_virus = if given[0] {
            t_virus as u32
        } else {
            timer_length("t_virus", virus_factor * log, "virus_factor * ceil(ln N)")?
        };
        let emit = emit_factor * c * f64::from(t_virus) * log;
        let how = "emit_factor * c * t_virus * ceil(ln N)";
        let t_max = if given[1] { t_max as u32 } else { timer_length("t_max", emit, how)? };
        let t_emit = if given[2] { t_emit as u32 } else { timer_length("t_emit", emit, how)? };
        Ok(Self { n, upper_bound, c, virus_factor, emit_factor, given, t_virus, t_max, t_emit })
    }

    /// `t_virus`.
    pub fn t_virus(&self) -> u32 {
        self.t_virus
    }

    /// `t_max`.
    pub fn t_max(&self) -> u32 {
        self.t_max
    }

    /// `t_emit`.
    pub fn t_emit(&self) -> u32 {
        self.t_emit
    }

    /// `N`.
    pub fn upper_bound(&self) -> u64 {
        self.upper_bound
    }

    /// Whether a state's `timer_L >= t_max/2` (read as `2 timer_L >= t_max`).
    #[inline(always)]
    pub fn timer_l_is_high(&self, state: PplState) -> bool {
        2 * u64::from(state.timer_l) >= u64::from(self.t_max)
    }

    /// Whether a state is a leader that makes `L_safe` true: shielded with `timer_I >= t_emit/2`.
    #[inline(always)]
    pub fn is_safe_leader(&self, state: PplState) -> bool {
        state.leader && state.shield && 2 * u64::from(state.timer_i) >= u64::from(self.t_emit)
    }

    /// `L1`: exactly one leader.
    pub fn l1(&self, agents: &[PplState]) -> bool {
        agents.iter().filter(|a| a.leader).count() == 1
    }

    /// `G_half`: every `timer_L >= t_max/2`.
    pub fn g_half(&self, agents: &[PplState]) -> bool {
        agents.iter().all(|&a| self.timer_l_is_high(a))
    }

    /// `L_safe`: some leader is shielded and has `timer_I >= t_emit/2`.
    pub fn l_safe(&self, agents: &[PplState]) -> bool {
        agents.iter().any(|&a| self.is_safe_leader(a))
    }

    /// `V_clean`: no agent carries a virus.
    pub fn v_clean(&self, agents: &[PplState]) -> bool {
        agents.iter().all(|a| a.virus == 0)
    }

    /// `S = L1 ∩ G_half ∩ (L_safe ∪ V_clean)`.
    pub fn in_safe_set(&self, agents: &[PplState]) -> bool {
        self.l1(agents) && self.g_half(agents) && (self.l_safe(agents) || self.v_clean(agents))
    }

    fn uniform(&self, leader: bool, virus: u32) -> Vec<PplState> {
        vec![PplState { leader, shield: false, timer_l: self.t_max, virus, timer_i: self.t_emit }; self.n]
    }
}

impl Protocol for Ppl {
    type State = PplState;
    type Monitor = PplMonitor;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        let source = |given: bool| Value::from(if given { "given" } else { "formula" });
        Map::from_iter([
            ("N".to_string(), Value::from(self.upper_bound)),
            ("c".to_string(), Value::from(self.c)),
            ("virus_factor".to_string(), Value::from(self.virus_factor)),
            ("emit_factor".to_string(), Value::from(self.emit_factor)),
            ("ceil_ln_N".to_string(), Value::from(ceil_ln(self.upper_bound))),
            ("t_virus".to_string(), Value::from(self.t_virus)),
            ("t_max".to_string(), Value::from(self.t_max)),
            ("t_emit".to_string(), Value::from(self.t_emit)),
            ("t_virus_source".to_string(), source(self.given[0])),
            ("t_max_source".to_string(), source(self.given[1])),
            ("t_emit_source".to_string(), source(self.given[2])),
        ])
    }

    #[inline(always)]
    fn transition(&self, a0: PplState, a1: PplState) -> (PplState, PplState) {
        let (mut a0, mut a1) = (a0, a1);
        // Line 1: larger value propagation of the leader timer.
        let timer_l = a0.timer_l.max(a1.timer_l).saturating_sub(1);
        a0.timer_l = timer_l;
        a1.timer_l = timer_l;
        // Line 2: timeout (both agents hold the same timer_L now).
        if timer_l == 0 {
            a0.leader = true;
            a1.leader = true;
        }
        // Line 3: timer reset.
        if a0.leader || a1.leader {
            a0.timer_l = self.t_max;
            a1.timer_l = self.t_max;
        }
        // Line 4: the virus spreads, its time to live decreasing.
        let virus = a0.virus.max(a1.virus).saturating_sub(1);
        a0.virus = virus;
        a1.virus = virus;
        // Line 5: unshielded carriers are killed.
        if virus > 0 {
            a0.leader &= a0.shield;
            a1.leader &= a1.shield;
        }
        // Line 6: individual timers count down.
        a0.timer_i = a0.timer_i.saturating_sub(1);
        a1.timer_i = a1.timer_i.saturating_sub(1);
        // Line 7: an initiator leader whose timer ran out emits a virus and shields itself.
        if a0.timer_i == 0 && a0.leader {
            a0.virus = self.t_virus;
            a0.shield = true;
        }
        // Line 8: a responder leader whose timer ran out loses its shield.
        if a1.timer_i == 0 && a1.leader {
            a1.shield = false;
        }
        // Line 9: expired individual timers restart.
        if a0.timer_i == 0 {
            a0.timer_i = self.t_emit;
        }
        if a1.timer_i == 0 {
            a1.timer_i = self.t_emit;
        }
        (a0, a1)
    }

    fn output(&self, state: PplState) -> Output {
        if state.leader { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<PplState> {
        self.uniform(true, 0)
    }

    fn random_state(&self, rng: &mut PopRng) -> PplState {
        let leader = coin(rng);
        let shield = coin(rng);
        let timer_l = below_u64(rng, u64::from(self.t_max) + 1) as u32;
        let virus = below_u64(rng, u64::from(self.t_virus) + 1) as u32;
        let timer_i = below_u64(rng, u64::from(self.t_emit) + 1) as u32;
        PplState { leader, shield, timer_l, virus, timer_i }
    }

    fn state_space(&self) -> Option<Vec<PplState>> {
        let size = 4 * (u64::from(self.t_max) + 1) * (u64::from(self.t_virus) + 1) * (u64::from(self.t_emit) + 1);
        if size > STATE_SPACE_LIMIT {
            return None;
        }
        let mut states = Vec::with_capacity(size as usize);
        for (leader, shield) in [(false, false), (false, true), (true, false), (true, true)] {
            for timer_l in 0..=self.t_max {
                for virus in 0..=self.t_virus {
                    for timer_i in 0..=self.t_emit {
                        states.push(PplState { leader, shield, timer_l, virus, timer_i });
                    }
                }
            }
        }
        Some(states)
    }

    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<PplState>> {
        match name {
            "all-leaders" => Some(self.uniform(true, 0)),
            "no-leader" => Some(self.uniform(false, 0)),
            "virus-storm" => Some(self.uniform(true, self.t_virus)),
            "safe" => {
                let mut agents = self.uniform(false, 0);
                agents[0].leader = true;
                agents[0].shield = true;
                Some(agents)
            }
            _ => None,
        }
    }

    fn monitor(&self, agents: &[PplState], _graph: &Graph) -> PplMonitor {
        let mut monitor = PplMonitor {
            t_max: self.t_max,
            t_emit: self.t_emit,
            leaders: 0,
            low_timers: 0,
            virus_carriers: 0,
            safe_leaders: 0,
        };
        for &agent in agents {
            monitor.add(agent);
        }
        monitor
    }

    fn state_to_json(&self, state: PplState) -> Map<String, Value> {
        Map::from_iter([
            ("leader".to_string(), Value::Bool(state.leader)),
            ("shield".to_string(), Value::Bool(state.shield)),
            ("timer_l".to_string(), Value::from(state.timer_l)),
            ("virus".to_string(), Value::from(state.virus)),
            ("timer_i".to_string(), Value::from(state.timer_i)),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<PplState, String> {
        json_expect_keys(object, &["leader", "shield", "timer_l", "virus", "timer_i"])?;
        Ok(PplState {
            leader: json_bool(object, "leader")?,
            shield: json_bool(object, "shield")?,
            timer_l: json_uint(object, "timer_l", u64::from(self.t_max))? as u32,
            virus: json_uint(object, "virus", u64::from(self.t_virus))? as u32,
            timer_i: json_uint(object, "timer_i", u64::from(self.t_emit))? as u32,
        })
    }

    fn trace_columns(&self) -> &'static [&'static str] {
        &["virus_carriers", "shielded_leaders", "min_timer_l"]
    }

    /// The leader-timer deficit `t_max - min timer_L`: 0 when every `timer_L` is `t_max`. A
    /// timeout (a new leader) needs it at `t_max - 1` or more; a break by a virus killing the
    /// leader is not seen by it (the estimator counts any break as the top level). The
    /// individual timers and viruses are not reset with it, so score 0 is a set, not one
    /// configuration: the renewal step is the flux approximation there (see [`crate::splitting`]).
    fn holding_scores(&self) -> &'static [&'static str] {
        &["timer-deficit"]
    }

    fn holding_score(&self, score: usize, agents: &[PplState]) -> Option<u64> {
        (score == 0).then(|| u64::from(self.t_max - agents.iter().map(|a| a.timer_l).min().unwrap_or(self.t_max)))
    }

    fn trace_values(&self, counts: &[(PplState, u64)]) -> Vec<f64> {
        let count =
            |f: &dyn Fn(&PplState) -> bool| counts.iter().filter(|(a, _)| f(a)).map(|&(_, c)| c).sum::<u64>() as f64;
        vec![
            count(&|a| a.virus > 0),
            count(&|a| a.leader && a.shield),
            counts.iter().map(|(a, _)| a.timer_l).min().map_or(f64::NAN, f64::from),
        ]
    }
}

/// Tracks the four parts of the safe set with counters: leaders (`L1`), agents with
/// `timer_L < t_max/2` (`G_half`), virus carriers (`V_clean`), and shielded leaders with
/// `timer_I >= t_emit/2` (`L_safe`).
#[derive(Clone, Debug)]
pub struct PplMonitor {
    t_max: u32,
    t_emit: u32,
    leaders: usize,
    low_timers: usize,
    virus_carriers: usize,
    safe_leaders: usize,
}

impl PplMonitor {
    /// Agents with `leader`.
    pub fn leaders(&self) -> usize {
        self.leaders
    }

    /// Agents with `2 timer_L < t_max`.
    pub fn low_timers(&self) -> usize {
        self.low_timers
    }

    /// Agents with `virus > 0`.
    pub fn virus_carriers(&self) -> usize {
        self.virus_carriers
    }

    /// Leaders that are shielded and have `2 timer_I >= t_emit`.
    pub fn safe_leaders(&self) -> usize {
        self.safe_leaders
    }

    /// `L1` as tracked.
    pub fn l1(&self) -> bool {
        self.leaders == 1
    }

    /// `G_half` as tracked.
    pub fn g_half(&self) -> bool {
        self.low_timers == 0
    }

    /// `L_safe` as tracked.
    pub fn l_safe(&self) -> bool {
        self.safe_leaders > 0
    }

    /// `V_clean` as tracked.
    pub fn v_clean(&self) -> bool {
        self.virus_carriers == 0
    }

    #[inline(always)]
    fn counts(&self, s: PplState) -> [usize; 4] {
        [
            usize::from(s.leader),
            usize::from(2 * u64::from(s.timer_l) < u64::from(self.t_max)),
            usize::from(s.virus > 0),
            usize::from(s.leader && s.shield && 2 * u64::from(s.timer_i) >= u64::from(self.t_emit)),
        ]
    }

    #[inline(always)]
    fn add(&mut self, s: PplState) {
        let [a, b, c, d] = self.counts(s);
        self.leaders += a;
        self.low_timers += b;
        self.virus_carriers += c;
        self.safe_leaders += d;
    }

    #[inline(always)]
    fn remove(&mut self, s: PplState) {
        let [a, b, c, d] = self.counts(s);
        self.leaders -= a;
        self.low_timers -= b;
        self.virus_carriers -= c;
        self.safe_leaders -= d;
    }
}

impl Monitor<PplState> for PplMonitor {
    #[inline(always)]
    fn record(&mut self, before: [PplState; 2], after: [PplState; 2]) {
        // Add first so that no counter goes below zero in between.
        self.add(after[0]);
        self.add(after[1]);
        self.remove(before[0]);
        self.remove(before[1]);
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.l1() && self.g_half() && (self.l_safe() || self.v_clean())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    /// t_virus = 3, t_max = 10, t_emit = 8.
    fn small() -> Ppl {
        Ppl::new(4, &Params::parse(&["t_virus=3", "t_max=10", "t_emit=8"]).unwrap()).unwrap()
    }

    /// A follower, unshielded, no virus, with the given timers.
    fn follower(timer_l: u32, timer_i: u32) -> PplState {
        PplState { leader: false, shield: false, timer_l, virus: 0, timer_i }
    }

    fn leader(timer_l: u32, timer_i: u32) -> PplState {
        PplState { leader: true, ..follower(timer_l, timer_i) }
    }

    fn with_virus(s: PplState, virus: u32) -> PplState {
        PplState { virus, ..s }
    }

    fn shielded(s: PplState) -> PplState {
        PplState { shield: true, ..s }
    }

    #[test]
    fn line_1_larger_value_propagation_of_timer_l() {
        let p = small();
        let (a, b) = p.transition(follower(3, 5), follower(7, 5));
        assert_eq!((a.timer_l, b.timer_l), (6, 6));
        let (a, b) = p.transition(follower(9, 5), follower(2, 5));
        assert_eq!((a.timer_l, b.timer_l), (8, 8));
        assert!(!a.leader && !b.leader);
        // max(t - 1, 0) at 2: no timeout yet.
        let (a, b) = p.transition(follower(2, 5), follower(0, 5));
        assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (1, 1, false, false));
    }

    #[test]
    fn line_2_timeout_makes_both_agents_leaders_and_line_3_resets() {
        let p = small();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (a, b) = p.transition(follower(x, 5), follower(y, 5));
            assert!(a.leader && b.leader, "timers {x}, {y}");
            assert_eq!((a.timer_l, b.timer_l), (10, 10));
        }
    }

    #[test]
    fn line_3_a_leader_resets_both_timers_whatever_its_role() {
        let p = small();
        let (a, b) = p.transition(leader(4, 5), follower(2, 5));
        assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (10, 10, true, false));
        let (a, b) = p.transition(follower(2, 5), leader(0, 5));
        assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (10, 10, false, true));
        // Two leaders meet: no line of Algorithm 1 removes either without a virus.
        let (a, b) = p.transition(leader(4, 5), leader(6, 5));
        assert!(a.leader && b.leader);
    }

    #[test]
    fn line_4_viruses_spread_with_decreasing_ttl() {
        let p = small();
        let (a, b) = p.transition(with_virus(follower(5, 5), 3), follower(5, 5));
        assert_eq!((a.virus, b.virus), (2, 2));
        let (a, b) = p.transition(follower(5, 5), with_virus(follower(5, 5), 1));
        assert_eq!((a.virus, b.virus), (0, 0));
    }

    #[test]
    fn line_5_viruses_kill_unshielded_leaders_only() {
        let p = small();
        // Responder leader unshielded, virus arrives with ttl 3 -> 2 > 0: killed.
        let (_, b) = p.transition(with_virus(follower(5, 5), 3), leader(5, 5));
        assert!(!b.leader);
        assert_eq!(b.timer_l, 10, "line 3 ran before line 5");
        // Shielded leader survives.
        let (_, b) = p.transition(with_virus(follower(5, 5), 3), shielded(leader(5, 5)));
        assert!(b.leader);
        // Initiator leader killed too.
        let (a2, _) = p.transition(leader(5, 5), with_virus(follower(5, 5), 2));
        assert!(!a2.leader);
        // A virus of ttl 1 dies in the interaction and kills nobody.
        let (_, b) = p.transition(with_virus(follower(5, 5), 1), leader(5, 5));
        assert!(b.leader);
        // A timeout leader killed at once by a virus present in the pair.
        let (a, b) = p.transition(with_virus(follower(0, 5), 2), follower(1, 5));
        assert!(!a.leader && !b.leader);
        assert_eq!((a.timer_l, b.timer_l), (10, 10));
    }

    #[test]
    fn line_6_individual_timers_count_down_to_zero_not_below() {
        let p = small();
        let (a, b) = p.transition(follower(5, 4), follower(5, 7));
        assert_eq!((a.timer_i, b.timer_i), (3, 6));
        // Followers at 1 reach 0 and are restarted by line 9 without anything else.
        let (a, b) = p.transition(follower(5, 1), follower(5, 0));
        assert_eq!((a.timer_i, b.timer_i), (8, 8));
        assert_eq!((a.virus, b.virus, a.shield, b.shield), (0, 0, false, false));
    }

    #[test]
    fn line_7_initiator_leader_emits_a_virus_and_shields_itself() {
        let p = small();
        let (a, b) = p.transition(leader(10, 1), follower(5, 5));
        assert!(a.leader && a.shield);
        assert_eq!(a.virus, 3, "t_virus");
        assert_eq!(b.virus, 0, "the responder is not infected in the same interaction");
        assert_eq!(a.timer_i, 8, "line 9 restarts the timer");
        // Only an initiator leader emits: a follower initiator at timer_I 1 does nothing.
        let (a, _) = p.transition(follower(5, 1), follower(5, 5));
        assert_eq!((a.virus, a.shield), (0, false));
    }

    #[test]
    fn line_8_responder_leader_loses_its_shield() {
        let p = small();
        let (a, b) = p.transition(follower(5, 5), shielded(leader(10, 1)));
        assert!(b.leader && !b.shield);
        assert_eq!((a.virus, b.virus), (0, 0), "a responder emits no virus");
        assert_eq!(b.timer_i, 8);
        // Both timers run out: the initiator emits, the responder is unshielded, in the same step.
        let (a, b) = p.transition(leader(10, 1), shielded(leader(10, 1)));
        assert!(a.shield && a.virus == 3 && b.leader && !b.shield && b.virus == 0);
    }

    #[test]
    fn line_9_only_expired_timers_restart() {
        let p = small();
        let (a, b) = p.transition(leader(10, 2), shielded(leader(10, 3)));
        assert_eq!((a.timer_i, b.timer_i), (1, 2));
        assert!(!a.shield && b.shield, "nothing happens before timer_I reaches 0");
    }

    #[test]
    fn derived_constants_follow_the_paper() {
        // N = 100: ceil(ln 100) = 5, t_virus = 300, t_max = t_emit = 12 * 300 * 5 = 18000.
        let p = Ppl::new(100, &Params::default()).unwrap();
        assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (300, 18_000, 18_000));
        let params = p.params();
        for (key, value) in [("N", 100.0), ("c", 1.0), ("virus_factor", 60.0), ("emit_factor", 12.0)] {
            assert_eq!(params[key].as_f64(), Some(value), "{key}");
        }
        assert_eq!(params["t_max"], Value::from(18_000));
        assert_eq!(params["ceil_ln_N"], Value::from(5));
        // N = 10: ceil(ln 10) = 3; c = 2, small factors.
        let p =
            Ppl::new(10, &Params::parse(&["c=2", "virus_factor=0.5", "emit_factor=0.25", "N=12"]).unwrap()).unwrap();
        // ceil(ln 12) = 3: t_virus = round(1.5) = 2, t_max = round(0.25 * 2 * 2 * 3) = 3.
        assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (2, 3, 3));
        // Tiny factors still give timers of at least 1.
        let p = Ppl::new(10, &Params::parse(&["virus_factor=0.01", "emit_factor=0.01"]).unwrap()).unwrap();
        assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (1, 1, 1));
        // Given lengths win; the others keep their formula, computed with the given t_virus.
        let p = Ppl::new(10, &Params::parse(&["t_virus=2", "t_max=6", "virus_factor=9"]).unwrap()).unwrap();
        assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (2, 6, 72));
        assert_eq!(p.params()["t_max_source"], Value::from("given"));
        assert_eq!(p.params()["t_emit_source"], Value::from("formula"));
    }

    #[test]
    fn parameter_errors_say_how_to_fix() {
        let err = |items: &[&str]| Ppl::new(10, &Params::parse(items).unwrap()).unwrap_err().to_string();
        let e = err(&["N=9"]);
        assert!(e.contains("N >= n = 10") && e.contains("at least 10"), "{e}");
        let e = err(&["c=0.5"]);
        assert!(e.contains("c >= 1"), "{e}");
        assert!(err(&["c=0"]).contains("greater than 0"));
        assert!(err(&["virus_factor=0"]).contains("greater than 0"));
        assert!(err(&["emit_factor=-2"]).contains("greater than 0"));
        assert!(err(&["t_virus=0"]).contains("from 1"));
        assert!(err(&["t_max=0"]).contains("from 1"));
        assert!(err(&["t_emit=0"]).contains("from 1"));
        assert!(err(&["emit_factor=1e12"]).contains("32-bit"));
        assert!(err(&["s=4"]).contains("no parameter 's'"));
    }

    #[test]
    fn safe_set_predicates() {
        let p = small(); // t_max = 10, t_emit = 8
        let safe_leader = shielded(leader(10, 4));
        let f = follower(5, 0);
        assert!(p.l1(&[safe_leader, f]) && !p.l1(&[f, f]) && !p.l1(&[safe_leader, leader(10, 1)]));
        assert!(p.g_half(&[f, safe_leader]) && !p.g_half(&[follower(4, 0), safe_leader]));
        assert!(p.l_safe(&[f, safe_leader]));
        assert!(!p.l_safe(&[f, shielded(leader(10, 3))]), "timer_I 3 < t_emit / 2 = 4");
        assert!(!p.l_safe(&[f, leader(10, 8)]), "unshielded");
        assert!(!p.l_safe(&[shielded(follower(10, 8))]), "not a leader");
        assert!(p.v_clean(&[f, safe_leader]) && !p.v_clean(&[with_virus(f, 1), safe_leader]));
        // S = L1 ∩ G_half ∩ (L_safe ∪ V_clean).
        assert!(p.in_safe_set(&[f, safe_leader]));
        assert!(p.in_safe_set(&[f, leader(10, 0)]), "V_clean suffices");
        assert!(p.in_safe_set(&[with_virus(f, 2), safe_leader]), "L_safe suffices");
        assert!(!p.in_safe_set(&[with_virus(f, 2), leader(10, 0)]), "neither L_safe nor V_clean");
        assert!(!p.in_safe_set(&[follower(4, 0), safe_leader]), "G_half fails");
        // Odd t_max: 2 * timer_L >= t_max.
        let p = Ppl::new(2, &Params::parse(&["t_max=5", "t_emit=5", "t_virus=1"]).unwrap()).unwrap();
        assert!(!p.g_half(&[follower(2, 0)]) && p.g_half(&[follower(3, 0)]));
        assert!(!p.l_safe(&[shielded(leader(5, 2))]) && p.l_safe(&[shielded(leader(5, 3))]));
    }

    #[test]
    fn monitor_counts_agree_with_the_predicates() {
        let p = small();
        let agents = [with_virus(follower(2, 0), 1), shielded(leader(10, 4)), leader(3, 0)];
        let mut m = p.monitor(&agents, &Graph::Complete);
        assert_eq!((m.leaders(), m.low_timers(), m.virus_carriers(), m.safe_leaders()), (2, 2, 1, 1));
        assert!(!m.is_safe());
        // Replace the third agent and the first one.
        m.record([agents[2], agents[0]], [follower(10, 0), follower(10, 0)]);
        assert_eq!((m.leaders(), m.low_timers(), m.virus_carriers(), m.safe_leaders()), (1, 0, 0, 1));
        assert!(m.is_safe());
        assert!(p.in_safe_set(&[follower(10, 0), shielded(leader(10, 4)), follower(10, 0)]));
    }

    #[test]
    fn families_are_as_documented() {
        let p = small();
        let mut rng = PopRng::seed_from_u64(0);
        let all = p.family_configuration("all-leaders", &mut rng).unwrap();
        assert_eq!(all, p.initial_configuration());
        assert!(all.iter().all(|a| a.leader && !a.shield && a.virus == 0 && a.timer_l == 10 && a.timer_i == 8));
        let none = p.family_configuration("no-leader", &mut rng).unwrap();
        assert!(none.iter().all(|a| !a.leader && a.timer_l == 10 && a.virus == 0));
        let storm = p.family_configuration("virus-storm", &mut rng).unwrap();
        assert!(storm.iter().all(|a| a.virus == 3 && !(a.leader && a.shield)));
        let safe = p.family_configuration("safe", &mut rng).unwrap();
        assert!(p.in_safe_set(&safe) && p.l_safe(&safe) && p.v_clean(&safe));
        assert!(p.monitor(&safe, &Graph::Complete).is_safe());
        for family in INFO.families {
            let agents = p.family_configuration(family.name, &mut rng).unwrap();
            assert_eq!(agents.len(), 4, "{}", family.name);
        }
        assert!(p.family_configuration("random", &mut rng).is_none());
    }

    #[test]
    fn random_states_are_uniform_over_each_domain() {
        let p = Ppl::new(4, &Params::parse(&["t_virus=2", "t_max=3", "t_emit=1"]).unwrap()).unwrap();
        let mut rng = PopRng::seed_from_u64(9);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..20_000 {
            let s = p.random_state(&mut rng);
            assert!(s.timer_l <= 3 && s.virus <= 2 && s.timer_i <= 1);
            seen.insert(s);
        }
        // 2 * 2 * 4 * 3 * 2 = 96 states, each with probability 1/96.
        assert_eq!(seen.len(), 96);
    }

    #[test]
    fn json_round_trip_and_domain_checks() {
        let p = small();
        let state = PplState { leader: true, shield: false, timer_l: 10, virus: 3, timer_i: 8 };
        let object = p.state_to_json(state);
        let mut keys: Vec<&String> = object.keys().collect();
        keys.sort();
        assert_eq!(keys, ["leader", "shield", "timer_i", "timer_l", "virus"]);
        assert_eq!(p.state_from_json(&object), Ok(state));
        let read = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        let base = r#""leader": true, "shield": true, "timer_l": 10, "virus": 3"#;
        assert!(read(&format!("{{{base}, \"timer_i\": 8}}")).is_ok());
        assert!(read(&format!("{{{base}, \"timer_i\": 9}}")).unwrap_err().contains("from 0 to 8"));
        assert!(read(&format!("{{{base}}}")).unwrap_err().contains("missing key \"timer_i\""));
        assert!(read(&format!("{{{base}, \"timer_i\": 1, \"timer\": 1}}")).unwrap_err().contains("unknown key"));
        assert!(
            read(r#"{"leader": true, "shield": true, "timer_l": 11, "virus": 0, "timer_i": 0}"#)
                .unwrap_err()
                .contains("timer_l")
        );
        assert!(
            read(r#"{"leader": true, "shield": true, "timer_l": 0, "virus": 4, "timer_i": 0}"#)
                .unwrap_err()
                .contains("virus")
        );
        assert!(read(r#"{"leader": true, "shield": 0, "timer_l": 0, "virus": 0, "timer_i": 0}"#).is_err());
    }

    #[test]
    fn trace_counts_carriers_shielded_leaders_and_min_timer() {
        let p = small();
        let agents = [with_virus(follower(7, 0), 1), shielded(leader(10, 0)), shielded(follower(4, 0)), leader(9, 0)];
        assert_eq!(p.trace_columns(), ["virus_carriers", "shielded_leaders", "min_timer_l"]);
        assert_eq!(p.trace_values(&crate::protocol::tally(&agents)), vec![1.0, 1.0, 4.0]);
    }
}
