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

mod monitor;
mod predicates;
mod rules;
mod threat;

pub use monitor::PplMonitor;
pub use threat::{CHAIN_SPAN, HOLDING_SCORES};

use super::search_levels::{CANDIDATES, Level, leader_count};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    Configurations, FamilyInfo, HoldingScores, Observables, Output, ParamInfo, Params, Protocol, ProtocolInfo,
    STATE_SPACE_LIMIT, StateError, StateJson, json_bool, json_expect_keys, json_uint,
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
        self.interact(a0, a1)
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

    fn monitor(&self, agents: &[PplState], _graph: &Graph) -> PplMonitor {
        PplMonitor::of(self.t_max, self.t_emit, agents)
    }

    fn configurations(&self) -> Option<&dyn Configurations<PplState>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<PplState>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<PplState>> {
        Some(self)
    }

    fn holding(&self) -> Option<&dyn HoldingScores<PplState>> {
        Some(self)
    }
}

impl Configurations<PplState> for Ppl {
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

    /// A few leaders (0, 1, 2, n/2, n); shields on no agent, every agent or every other (a
    /// follower's shield is a corrupted variable, as an arbitrary start may have); viruses of length 0,
    /// `t_virus` or uniform; `timer_L` and `timer_I` full, 0, just below half or uniform.
    fn search_candidates(&self, rng: &mut PopRng) -> Vec<(String, Vec<PplState>)> {
        (0..CANDIDATES)
            .map(|_| {
                let leaders = leader_count(rng, self.n);
                let shields = below_u64(rng, 3);
                let (virus, timer_l, timer_i) = (Level::draw(rng), Level::draw(rng), Level::draw(rng));
                let agents = (0..self.n)
                    .map(|i| PplState {
                        leader: i < leaders,
                        shield: shields == 1 || (shields == 2 && i % 2 == 0),
                        timer_l: timer_l.value(self.t_max, rng),
                        virus: virus.value(self.t_virus, rng),
                        timer_i: timer_i.value(self.t_emit, rng),
                    })
                    .collect();
                let shielded = ["no agent", "every agent", "every other agent"][shields as usize];
                let description = format!(
                    "{leaders} leaders, shields on {shielded}, viruses {}, timer_L {}, timer_I {}",
                    virus.name(),
                    timer_l.name(),
                    timer_i.name()
                );
                (description, agents)
            })
            .collect()
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
}

impl StateJson<PplState> for Ppl {
    fn state_to_json(&self, state: PplState) -> Map<String, Value> {
        Map::from_iter([
            ("leader".to_string(), Value::Bool(state.leader)),
            ("shield".to_string(), Value::Bool(state.shield)),
            ("timer_l".to_string(), Value::from(state.timer_l)),
            ("virus".to_string(), Value::from(state.virus)),
            ("timer_i".to_string(), Value::from(state.timer_i)),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<PplState, StateError> {
        json_expect_keys(object, &["leader", "shield", "timer_l", "virus", "timer_i"])?;
        Ok(PplState {
            leader: json_bool(object, "leader")?,
            shield: json_bool(object, "shield")?,
            timer_l: json_uint(object, "timer_l", u64::from(self.t_max))? as u32,
            virus: json_uint(object, "virus", u64::from(self.t_virus))? as u32,
            timer_i: json_uint(object, "timer_i", u64::from(self.t_emit))? as u32,
        })
    }
}

impl Observables<PplState> for Ppl {
    fn trace_columns(&self) -> &'static [&'static str] {
        &["virus_carriers", "shielded_leaders", "min_timer_l"]
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

impl HoldingScores<PplState> for Ppl {
    /// `leader-threat` (the default: follows timeouts and viruses outliving the leader's shield)
    /// and `timer-deficit` (timeouts only); see [`HOLDING_SCORES`] and `threat.rs`.
    fn holding_scores(&self) -> &'static [&'static str] {
        HOLDING_SCORES
    }

    fn holding_score(&self, score: usize, agents: &[PplState]) -> Option<u64> {
        self.holding_score_of(score, agents)
    }
}

#[cfg(test)]
mod tests;
